#pragma once
// Shared helpers of the compiler tests: one JIT cache directory per test process (removed at
// exit), tensors from short descriptions, and the comparison with the reference evaluator.
#include <cstdint>
#include <filesystem>
#include <map>
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

} // namespace siskin::testing
