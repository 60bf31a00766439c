// `siskin demo`: a few real programs on a bundled real matrix, run as compiled code, each
// checked against the reference evaluator and against an independent computation done right
// here from the stored entries.
#include <chrono>
#include <cmath>
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "commands.hpp"
#include "siskin/compiler.hpp"
#include "siskin/error.hpp"
#include "siskin/io.hpp"
#include "siskin/ir/text.hpp"
#include "siskin/reference.hpp"

namespace siskin::cli {

namespace {

struct Timed {
    std::map<std::string, Tensor> results; // compiled
    double ms;                             // the compiled kernel's run
    double reference_ms;                   // the reference evaluator's run
    // 0 when every output equals the reference's; else the largest difference relative to the
    // reference's largest magnitude (compiled float sums are reassociated: CompileOptions).
    double difference_from_reference;
};

double ms_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

double max_difference(const Tensor& t, const std::vector<double>& expected) {
    double worst = 0;
    std::vector<Scalar> values = t.to_dense();
    for (size_t k = 0; k < expected.size(); ++k)
        worst = std::max(worst, std::abs(values[k].as_double() - expected[k]));
    return worst;
}

Timed run_program(const std::string& text, const std::map<std::string, const Tensor*>& inputs,
                  const std::map<std::string, OutputSpec>& outputs = {}) {
    ir::Program program = ir::parse_program(text);
    CompiledProgram compiled = compile_for(program, inputs, outputs);
    auto start = std::chrono::steady_clock::now();
    auto results = compiled.run(inputs);
    double ms = ms_since(start);
    start = std::chrono::steady_clock::now();
    auto reference = evaluate_reference(program, inputs, outputs);
    double reference_ms = ms_since(start);
    double difference = 0;
    for (const auto& [name, t] : reference) {
        const Tensor& got = results.at(name);
        if (got.equals(t)) continue;
        std::vector<double> want;
        double scale = 0;
        for (const Scalar& v : t.to_dense()) {
            want.push_back(v.as_double());
            scale = std::max(scale, std::abs(want.back()));
        }
        difference = std::max(difference, scale > 0 ? max_difference(got, want) / scale : INFINITY);
    }
    return {std::move(results), ms, reference_ms, difference};
}

std::string timing(const Timed& r) {
    std::string agreement = r.difference_from_reference == 0 ? "same result"
                            : r.difference_from_reference < 1e-12
                                ? fmt::format("same up to rounding, {:.1e}", r.difference_from_reference)
                                : "DIFFERENT RESULT";
    return fmt::format("{:8.3f} ms (reference {:7.1f} ms, {})", r.ms, r.reference_ms, agreement);
}

void demo(const std::string& data_dir) {
    const std::string path = data_dir + "/1138_bus.mtx";
    ReadOptions as_csr;
    as_csr.format = Format::csr();
    Tensor A = read_matrix_market(path, as_csr);
    const int64_t n = A.shape()[0];
    fmt::print("A = {}: {} x {}, {} stored entries, format {}\n\n", path, n, A.shape()[1],
               A.stored(), A.format().to_string());

    std::vector<Scalar> xs;
    for (int64_t j = 0; j < n; ++j) xs.push_back(Scalar::of(1.0 + static_cast<double>(j % 10) / 10));
    Tensor x = Tensor::from_dense({n}, ValueType::Float64, Scalar::of(0.0), Format::dense(1), xs);

    // Independent computations straight from the stored entries.
    std::vector<double> y_expected(n, 0.0), row_expected(n, 0.0);
    A.for_each_stored([&](std::span<const int64_t> c, const Scalar& v) {
        y_expected[c[0]] += v.as_double() * xs[c[1]].as_double();
        row_expected[c[0]] += v.as_double();
    });

    const std::string spmv = "y[i] += A[i,j] * x[j]";
    Timed r = run_program(spmv, {{"A", &A}, {"x", &x}});
    fmt::print("SpMV          {:<30} {}   max |y - direct| = {:.3g}\n", spmv, timing(r),
               max_difference(r.results.at("y"), y_expected));

    const std::string rowsum = "r[i] += A[i,j]";
    r = run_program(rowsum, {{"A", &A}});
    fmt::print("row sums      {:<30} {}   max |r - direct| = {:.3g}\n", rowsum, timing(r),
               max_difference(r.results.at("r"), row_expected));

    // Elementwise minimum under fill +inf: unstored means "no edge" (infinitely far), so the
    // result stores the union of A's and A transposed's entries and its fill is inferred as inf.
    const std::string olm = data_dir + "/olm1000.mtx";
    ReadOptions infinite_fill = as_csr;
    infinite_fill.fill = Scalar::of(INFINITY);
    Tensor B = read_matrix_market(olm, infinite_fill);
    const std::string emin = "C[i,j] = min(B[i,j], B[j,i])";
    OutputSpec csr_output;
    csr_output.format = Format::csr();
    r = run_program(emin, {{"B", &B}}, {{"C", csr_output}});
    const Tensor& C = r.results.at("C");
    int64_t mismatches = 0;
    for (int64_t i = 0; i < B.shape()[0]; ++i)
        for (int64_t j = 0; j < B.shape()[1]; ++j) {
            double want = std::min(B.at({i, j}).as_double(), B.at({j, i}).as_double());
            if (C.at({i, j}).as_double() != want) ++mismatches;
        }
    fmt::print("min, fill inf {:<30} {}   B {} stored -> C {} stored, fill {}, {} mismatches\n",
               emin, timing(r), B.stored(), C.stored(), C.fill().to_string(), mismatches);
    fmt::print("\n(compiled kernels, timed after compiling; the reference evaluator visits every "
               "coordinate)\n");
}

} // namespace

void add_demo_command(CLI::App& app) {
    auto data_dir = std::make_shared<std::string>(SISKIN_DATA_DIR);
    auto* cmd = app.add_subcommand("demo", "Run a few programs on a bundled real matrix");
    cmd->add_option("--data", *data_dir, "Folder holding 1138_bus.mtx and olm1000.mtx")
        ->capture_default_str();
    cmd->callback([data_dir] { demo(*data_dir); });
}

} // namespace siskin::cli
