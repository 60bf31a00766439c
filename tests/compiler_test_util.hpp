#pragma once
// Shared helpers of the compiler tests: one JIT cache directory per test process (removed at
// exit), tensors from short descriptions, and the comparison with the reference evaluator.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <map>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <unistd.h>

#include "siskin/compiler.hpp"
#include "siskin/ir/text.hpp"
#include "siskin/reference.hpp"
#include "storage_helpers.hpp"

namespace siskin::testing {

/// Compile options whose cache lives in a directory of this process.
inline const CompileOptions& test_options() {
    struct Dir {
        std::filesystem::path path;
        Dir() {
            path = std::filesystem::temp_directory_path() /
                   ("siskin-compiler-test-" + std::to_string(::getpid()));
            std::filesystem::create_directories(path);
            std::filesystem::permissions(path, std::filesystem::perms::owner_all,
                                         std::filesystem::perm_options::replace);
        }
        ~Dir() {
            std::error_code ec;
            std::filesystem::remove_all(path, ec);
        }
    };
    static Dir dir;
    static CompileOptions options = [] {
        CompileOptions o;
        o.jit.cache_dir = dir.path.string();
        // Two threads on every machine: kernels above the parallel threshold run in parallel in
        // every test, and a float reduction's rounding (which depends on the thread count) does
        // not change with the cores of the machine that runs the suite.
        o.threads = 2;
        return o;
    }();
    return options;
}

/// A float64 tensor of `format` (e.g. "csr") from entries.
inline Tensor make(std::vector<int64_t> shape, const std::string& format,
                   std::initializer_list<std::pair<std::vector<int64_t>, double>> list,
                   double fill = 0.0) {
    return Tensor::from_coordinates(shape, ValueType::Float64, Scalar::of(fill),
                                    Format::parse(format, static_cast<int>(shape.size())),
                                    entries(static_cast<int>(shape.size()), list));
}

/// An output request that fixes only the format (e.g. "csr", 2).
inline OutputSpec with_format(const std::string& format, int ndims) {
    OutputSpec s;
    s.format = Format::parse(format, ndims);
    return s;
}

/// The stored coordinates of a tensor, in storage order.
inline std::vector<std::vector<int64_t>> stored_coordinates(const Tensor& t) {
    std::vector<std::vector<int64_t>> out;
    t.for_each_stored([&](std::span<const int64_t> c, const Scalar&) { out.emplace_back(c.begin(), c.end()); });
    return out;
}

inline std::map<std::string, Tensor> run_compiled(const std::string& program,
                                                  const std::map<std::string, const Tensor*>& inputs,
                                                  const std::map<std::string, OutputSpec>& outputs = {}) {
    return evaluate_compiled(ir::parse_program(program), inputs, outputs, test_options());
}

/// A seeded random m x n float64 matrix: each element stored with probability `density`, holding
/// value(u) for a fresh uniform u in [0, 1).
template <class Value>
Tensor random_matrix_of(int64_t m, int64_t n, double density, const std::string& format, uint64_t seed,
                        double fill, Value value) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    CoordinateList list;
    list.ndims = 2;
    for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j)
            if (u(rng) < density) list.add(std::vector<int64_t>{i, j}, Scalar::of(value(u(rng))));
    return Tensor::from_coordinates({m, n}, ValueType::Float64, Scalar::of(fill),
                                    Format::parse(format, 2), list);
}

/// A seeded random tensor of any shape in `format`: each element stored with probability
/// `density`, holding value(rng), a Scalar of the fill's type.
template <class Value>
Tensor random_tensor_of(const std::vector<int64_t>& shape, const std::string& format, double density,
                        Scalar fill, uint64_t seed, Value value) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    CoordinateList list;
    list.ndims = static_cast<int>(shape.size());
    std::vector<int64_t> at(shape.size(), 0);
    int64_t total = 1;
    for (int64_t n : shape) total *= n;
    for (int64_t flat = 0; flat < total; ++flat) {
        int64_t rest = flat;
        for (size_t d = shape.size(); d-- > 0;) {
            at[d] = rest % shape[d];
            rest /= shape[d];
        }
        if (u(rng) < density) list.add(at, value(rng));
    }
    return Tensor::from_coordinates(shape, fill.type(), fill,
                                    Format::parse(format, static_cast<int>(shape.size())), list);
}

/// Whether a compiled output agrees with the reference's: dense values, fill, the set of stored
/// coordinates, and stored() (which counts runs of a runlist: equal neighbours merged alike).
inline bool same_output(const Tensor& want, const Tensor& got) {
    return want.equals(got) && want.fill().same(got.fill()) &&
           stored_coordinates(want) == stored_coordinates(got) && want.stored() == got.stored();
}

/// Compiles and interprets `text` on the same inputs, expects every output to agree
/// (same_output) and returns the compiled outputs.
inline std::map<std::string, Tensor> compiled_matching_reference(
    const std::string& text, const std::map<std::string, const Tensor*>& inputs,
    const std::map<std::string, OutputSpec>& specs = {}) {
    ir::Program p = ir::parse_program(text);
    auto want = evaluate_reference(p, inputs, specs);
    auto got = evaluate_compiled(p, inputs, specs, test_options());
    EXPECT_EQ(want.size(), got.size()) << text;
    for (const auto& [name, w] : want) {
        auto it = got.find(name);
        if (it == got.end()) {
            ADD_FAILURE() << text << "\nno compiled output " << name;
            continue;
        }
        EXPECT_TRUE(same_output(w, it->second))
            << text << "\n" << name << ": reference " << w.to_string() << "\ncompiled "
            << it->second.to_string();
    }
    return got;
}

/// Compiles `text`, whose output is the float64 scalar s, with work counting; runs it, checks s
/// against the reference, and returns the loop bodies the kernel ran.
inline int64_t scalar_work_of(const std::string& text, const std::map<std::string, const Tensor*>& inputs) {
    ir::Program program = ir::parse_program(text);
    std::map<std::string, TensorSignature> sigs;
    for (const auto& [name, t] : inputs) sigs.emplace(name, TensorSignature::of(*t, true));
    TensorSignature s;
    s.format = Format::parse("dense", 0).with_index_bits(64);
    s.type = ValueType::Float64;
    s.fill = Scalar::of(0.0);
    s.ndims = 0;
    sigs.emplace("s", s);
    CompileOptions options = test_options();
    options.count_work = true;
    auto kernel = compile(program, sigs, options);
    auto outputs = kernel->prepare({{"s", {}}});
    kernel->run(inputs, outputs);
    // A float sum may be reassociated (per-fibre partials, per-thread partials: CompileOptions),
    // so it agrees with the reference's in-order sum to rounding, not to the bit.
    double got = outputs.at("s").to_dense().at(0).as_double();
    double want = evaluate_reference(program, inputs).at("s").to_dense().at(0).as_double();
    EXPECT_TRUE(got == want || (std::isnan(got) && std::isnan(want)) ||
                std::fabs(got - want) <= 1e-12 * std::max(std::fabs(got), std::fabs(want)))
        << text << ": compiled " << got << ", reference " << want;
    return kernel->last_work();
}

/// `text` compiled with work counting for these inputs, on one thread, run, checked against the
/// reference: (outputs, loop bodies run); `c_source`, when given, gets the kernel's C.
inline std::pair<std::map<std::string, Tensor>, int64_t> counted(const std::string& text,
                                                          const std::map<std::string, const Tensor*>& inputs,
                                                          const std::map<std::string, OutputSpec>& specs = {},
                                                          std::string* c_source = nullptr) {
    ir::Program program = ir::parse_program(text);
    CompileOptions options = test_options();
    options.count_work = true;
    options.threads = 1;
    CompiledProgram compiled = compile_for(program, inputs, specs, options);
    auto out = compiled.run(inputs);
    for (const auto& [name, want] : evaluate_reference(program, inputs, specs))
        EXPECT_TRUE(same_output(want, out.at(name))) << text << "\n" << name << ": " << out.at(name).to_string();
    if (c_source) *c_source = compiled.kernel->c_source();
    return {out, compiled.kernel->last_work()};
}

} // namespace siskin::testing
