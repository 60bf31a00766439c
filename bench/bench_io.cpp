// Reading and writing real matrices, and the reference evaluator on a small one (the floor the
// compiler is measured against).
#include <filesystem>

#include <benchmark/benchmark.h>

#include "bench_matrices.hpp"
#include "siskin/io.hpp"
#include "siskin/ir/text.hpp"
#include "siskin/reference.hpp"

using namespace siskin;

namespace {

std::string matrix(const std::string& name) {
    std::string shared = matrix_dir() + "/" + name;
    return std::filesystem::exists(shared) ? shared : std::string(SISKIN_REPO_DATA_DIR) + "/" + name;
}

void ReadMatrixMarket(benchmark::State& state, const std::string& name) {
    std::string path = matrix(name);
    int64_t stored = 0;
    for (auto _ : state) stored = read_matrix_market(path).stored();
    state.counters["stored"] = static_cast<double>(stored);
    state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(std::filesystem::file_size(path)));
}
BENCHMARK_CAPTURE(ReadMatrixMarket, bcsstk13, std::string("bcsstk13.mtx"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(ReadMatrixMarket, cage11, std::string("cage11.mtx"))->Unit(benchmark::kMillisecond);

void ReferenceSpMV(benchmark::State& state) {
    Tensor A = read_matrix_market(matrix("pts5ldd03.mtx"));
    std::vector<Scalar> ones(A.shape()[1], Scalar::of(1.0));
    Tensor x = Tensor::from_dense({A.shape()[1]}, ValueType::Float64, Scalar::of(0.0), Format::dense(1), ones);
    auto program = ir::parse_program("y[i] += A[i,j] * x[j]");
    for (auto _ : state) benchmark::DoNotOptimize(evaluate_reference(program, {{"A", &A}, {"x", &x}}));
}
BENCHMARK(ReferenceSpMV)->Unit(benchmark::kMillisecond);

} // namespace
