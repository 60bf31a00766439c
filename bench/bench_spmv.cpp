// Issue 3 item 10: the compiled kernels against a hand-written C loop and (bench/scipy_spmv.py)
// scipy.sparse, on the matrices of ../shared/data/matrices and a seeded random 20000 x 20000 at
// 0.1 %. Only the kernel is timed: outputs are prepared once, inputs converted once, and the
// run skips the finiteness scan its compile already did.
//
//   cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DSISKIN_BUILD_BENCH=ON
//   cmake --build build --target siskin_bench
//   SISKIN_MATRIX_DIR=/work/shared/data/matrices ./build/bench/siskin_bench --benchmark_filter=SpMV
//
// Benchmarks: SpMV_CSR32 / SpMV_CSR64 (csr@32 / csr@64), SpMV_Call (csr@32, the whole
// CompiledProgram::run with its fresh output), SpMV_CSC (for j { for i {...} } on
// csc), HandC_CSR32 / HandC_CSR64 (the loop a person writes, compiled by siskin's JIT with the
// same compiler and flags as the kernels), SpGEMM (C = A*A, all csr), Add (C = A + B, all csr;
// B is the seeded random matrix of A's shape and nnz that scipy_spmv.py builds the same way).
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "bench_matrices.hpp"

#include "compiler/kernel_impl.hpp"
#include "siskin/codegen/jit.hpp"
#include "siskin/compiler.hpp"
#include "siskin/io.hpp"
#include "siskin/ir/text.hpp"

using namespace siskin;

namespace {

const std::vector<std::string> kMatrices = {"bcsstk13", "cage11",         "raefsky2", "email-Enron",
                                            "luxembourg_osm", "bcsstk33", "random20000"};

// splitmix64: the same stream in scipy_spmv.py, so both sides build identical random matrices.
uint64_t splitmix(uint64_t& state) {
    uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

// `count` random coordinates (duplicates summed) with value 1, from seed.
Tensor random_matrix(int64_t rows, int64_t cols, int64_t count, uint64_t seed) {
    CoordinateList e;
    e.ndims = 2;
    for (int64_t k = 0; k < count; ++k) {
        int64_t i = static_cast<int64_t>(splitmix(seed) % static_cast<uint64_t>(rows));
        int64_t j = static_cast<int64_t>(splitmix(seed) % static_cast<uint64_t>(cols));
        e.add(std::vector<int64_t>{i, j}, Scalar::of(1.0));
    }
    return Tensor::from_coordinates({rows, cols}, ValueType::Float64, Scalar::of(0.0),
                                    Format::parse("csr@64", 2), e);
}

// A matrix as float64 in `format` (a preset with index width), loaded and converted once.
Tensor& load(const std::string& name, const std::string& format) {
    static std::map<std::string, Tensor> cache;
    std::string key = name + "/" + format;
    if (auto it = cache.find(key); it != cache.end()) return it->second;
    Tensor base = [&] {
        if (name == "random20000") return random_matrix(20000, 20000, 400000, 20000);
        ReadOptions o;
        o.type = ValueType::Float64;
        return read_matrix_market(matrix_dir() + "/" + name + ".mtx", o);
    }();
    return cache.emplace(key, base.convert(Format::parse(format, 2))).first->second;
}

// The B of A + B: random, A's shape and number of entries, seed 7 (as scipy_spmv.py).
Tensor& addend(const std::string& name) {
    static std::map<std::string, Tensor> cache;
    if (auto it = cache.find(name); it != cache.end()) return it->second;
    const Tensor& a = load(name, "csr@64");
    return cache.emplace(name, random_matrix(a.shape()[0], a.shape()[1], a.stored(), 7)).first->second;
}

Tensor ones(int64_t n) {
    std::vector<Scalar> v;
    for (int64_t k = 0; k < n; ++k) v.push_back(Scalar::of(1.0 + static_cast<double>(k % 7) / 8));
    return Tensor::from_dense({n}, ValueType::Float64, Scalar::of(0.0), Format::dense(1), v);
}

// Runs f under the benchmark's loop; also reports the median wall time of one call (counter
// median_ms), which a busy shared machine disturbs less than the mean, and which is what
// scipy_spmv.py reports.
template <class F> void timed_loop(benchmark::State& state, F&& f) {
    std::vector<double> ms;
    for (auto _ : state) {
        auto start = std::chrono::steady_clock::now();
        f();
        benchmark::ClobberMemory();
        ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
    }
    if (ms.empty()) return;
    std::nth_element(ms.begin(), ms.begin() + static_cast<std::ptrdiff_t>(ms.size() / 2), ms.end());
    state.counters["median_ms"] = ms[ms.size() / 2];
}

// Compiles once, prepares the outputs once, then times Kernel runs alone.
void time_kernel(benchmark::State& state, const std::string& program,
                 const std::map<std::string, const Tensor*>& inputs,
                 const std::map<std::string, OutputSpec>& outputs = {}) {
    CompiledProgram cp = compile_for(ir::parse_program(program), inputs, outputs);
    std::map<std::string, Tensor> out = cp.kernel->prepare(cp.output_shapes);
    timed_loop(state, [&] { cp.kernel->impl().run(inputs, out, false); });
    int64_t stored = 0;
    for (const auto& [name, t] : out) stored += t.stored();
    state.counters["out_stored"] = static_cast<double>(stored);
}

void SpmvCsr(benchmark::State& state, const std::string& name, const std::string& format) {
    Tensor& a = load(name, format);
    Tensor x = ones(a.shape()[1]);
    state.counters["nnz"] = static_cast<double>(a.stored());
    time_kernel(state, "y[i] += A[i,j] * x[j]", {{"A", &a}, {"x", &x}});
}

// The whole call a user makes (CompiledProgram::run: fresh output, kernel, hand-back), as the peer
// driver times it; the previous result is freed outside the clock. Against SpMV_CSR32 it shows
// the per-call cost around the kernel.
void SpmvCall(benchmark::State& state, const std::string& name) {
    Tensor& a = load(name, "csr@32");
    Tensor x = ones(a.shape()[1]);
    std::map<std::string, const Tensor*> inputs{{"A", &a}, {"x", &x}};
    CompiledProgram cp = compile_for(ir::parse_program("y[i] += A[i,j] * x[j]"), inputs, {});
    std::map<std::string, Tensor> kept;
    std::vector<double> ms;
    for (auto _ : state) {
        auto start = std::chrono::steady_clock::now();
        auto out = cp.run(inputs);
        benchmark::ClobberMemory();
        ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
        kept = std::move(out);
    }
    if (ms.empty()) return;
    std::nth_element(ms.begin(), ms.begin() + static_cast<std::ptrdiff_t>(ms.size() / 2), ms.end());
    state.counters["median_ms"] = ms[ms.size() / 2];
}

void SpmvCsc(benchmark::State& state, const std::string& name) {
    Tensor& a = load(name, "csc@32");
    Tensor x = ones(a.shape()[1]);
    state.counters["nnz"] = static_cast<double>(a.stored());
    time_kernel(state, "for j { for i { y[i] += A[i,j] * x[j] } }", {{"A", &a}, {"x", &x}});
}

// The reference loop: what a person writes for CSR SpMV in C.
constexpr const char* kHandC = R"(#include <stdint.h>
#define SPMV(NAME, IDX)                                                                       \
void NAME(int64_t n, const IDX *restrict pos, const IDX *restrict crd,                        \
          const double *restrict val, const double *restrict x, double *restrict y) {         \
    for (int64_t i = 0; i < n; i++) {                                                         \
        double s = 0.0;                                                                       \
        for (int64_t p = pos[i]; p < pos[i + 1]; p++) s += val[p] * x[crd[p]];                \
        y[i] = s;                                                                             \
    }                                                                                         \
}
SPMV(spmv_i32, int32_t)
SPMV(spmv_i64, int64_t)
)";

template <class Idx>
void HandC(benchmark::State& state, const std::string& name, const std::string& format) {
    using Fn = void(int64_t, const Idx*, const Idx*, const double*, const double*, double*);
    static codegen::JitResult jit = codegen::jit_compile(kHandC);
    auto* spmv = jit.library->function<Fn>(sizeof(Idx) == 4 ? "spmv_i32" : "spmv_i64");
    Tensor& a = load(name, format);
    Tensor x = ones(a.shape()[1]);
    std::vector<double> y(static_cast<size_t>(a.shape()[0]));
    const auto* pos = static_cast<const Idx*>(a.level(1).buffer("pos").raw().data);
    const auto* crd = static_cast<const Idx*>(a.level(1).buffer("crd").raw().data);
    const auto* val = static_cast<const double*>(a.values().raw().data);
    const auto* xv = static_cast<const double*>(x.values().raw().data);
    state.counters["nnz"] = static_cast<double>(a.stored());
    timed_loop(state, [&] { spmv(a.shape()[0], pos, crd, val, xv, y.data()); });
}

void SpGEMM(benchmark::State& state, const std::string& name) {
    Tensor& a = load(name, "csr@32");
    OutputSpec csr;
    csr.format = Format::parse("csr", 2);
    time_kernel(state, "C[i,j] += A[i,k] * B[k,j]", {{"A", &a}, {"B", &a}}, {{"C", csr}});
}

void Add(benchmark::State& state, const std::string& name) {
    Tensor& a = load(name, "csr@64");
    Tensor& b = addend(name);
    OutputSpec csr;
    csr.format = Format::parse("csr", 2);
    time_kernel(state, "C[i,j] = A[i,j] + B[i,j]", {{"A", &a}, {"B", &b}}, {{"C", csr}});
}

[[maybe_unused]] const int kRegistered = [] {
    for (const auto& m : kMatrices) {
        auto ms = [](benchmark::internal::Benchmark* b) { b->Unit(benchmark::kMillisecond)->MinTime(0.3); };
        ms(benchmark::RegisterBenchmark(("SpMV_CSR32/" + m).c_str(), SpmvCsr, m, std::string("csr@32")));
        ms(benchmark::RegisterBenchmark(("HandC_CSR32/" + m).c_str(), HandC<int32_t>, m, std::string("csr@32")));
        ms(benchmark::RegisterBenchmark(("SpMV_Call/" + m).c_str(), SpmvCall, m));
        ms(benchmark::RegisterBenchmark(("SpMV_CSR64/" + m).c_str(), SpmvCsr, m, std::string("csr@64")));
        ms(benchmark::RegisterBenchmark(("HandC_CSR64/" + m).c_str(), HandC<int64_t>, m, std::string("csr@64")));
        ms(benchmark::RegisterBenchmark(("SpMV_CSC/" + m).c_str(), SpmvCsc, m));
        ms(benchmark::RegisterBenchmark(("SpGEMM/" + m).c_str(), SpGEMM, m));
        ms(benchmark::RegisterBenchmark(("Add/" + m).c_str(), Add, m));
    }
    return 0;
}();

} // namespace
