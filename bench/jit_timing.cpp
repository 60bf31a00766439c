// Measures the JIT's two latency goals on an SpMV kernel built with the C AST:
//   cold compile (cache miss)              goal <= 0.3 s
//   cached kernel loaded in a new process  goal <= 5 ms
// A standalone program with its own main (not a Google Benchmark, not a test). Build and run:
//   cmake --build build --target siskin
//   c++ -std=c++20 -O2 -Iinclude -Isrc bench/jit_timing.cpp build/libsiskin.a -lfmt -lxxhash
//       -ldl -pthread -o build/jit_timing    (one line)
//   ./build/jit_timing
// It uses a fresh temporary cache directory and the default compiler and flags (or SISKIN_CC,
// SISKIN_CFLAGS).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

#include "codegen/c_ast.hpp"
#include "codegen/c_printer.hpp"
#include "siskin/codegen/jit.hpp"

using namespace siskin;
using namespace siskin::cast;
using Clock = std::chrono::steady_clock;

namespace {

double ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

// y = A x for A in CSR with int32 coordinates; `variant` only changes a comment, so each variant
// is a new cache key.
std::string spmv_source(int variant) {
    Type i64 = Type::of(ValueType::Int64), f64 = Type::of(ValueType::Float64);
    auto in = [](Type t) { return t.as_const().pointer().restricted(); };
    Expr i = var("i"), p = var("p"), s = var("s");
    Stmt inner = For::make(
        Decl::make(i64, "p", at(var("pos"), i)),
        bin(BinaryOp::Lt, p, at(var("pos"), bin(BinaryOp::Add, i, cast::i64(1)))),
        Increment::make(p),
        Assign::make(s, AssignOp::Add,
                     bin(BinaryOp::Mul, at(var("val"), p), at(var("x"), at(var("crd"), p)))));
    Stmt body = Block::make({
        Comment::make("variant " + std::to_string(variant)),
        For::make(Decl::make(i64, "i", cast::i64(0)), bin(BinaryOp::Lt, i, var("n")),
                  Increment::make(i),
                  Block::make({Decl::make(f64, "s", lit(Scalar::of(0.0))), inner,
                               assign(at(var("y"), i), s)})),
        Return::make(lit(Scalar::of(int32_t{0}))),
    });
    Function f = Function::make(Type::named("int"), "spmv",
                                {{i64, "n"},
                                 {in(i64), "pos"},
                                 {in(Type::of(ValueType::Int32)), "crd"},
                                 {in(f64), "val"},
                                 {in(f64), "x"},
                                 {f64.pointer().restricted(), "y"}},
                                body);
    return print_unit({f});
}

using Spmv = int(int64_t, const int64_t*, const int32_t*, const double*, const double*, double*);

// The child: load the cached kernel as a fresh process would, and report the time it took.
int load_child(const char* cache_dir) {
    auto start = Clock::now();
    codegen::JitOptions options;
    options.cache_dir = cache_dir;
    codegen::JitResult r = codegen::jit_compile(spmv_source(0), options);
    auto* spmv = r.library->function<Spmv>("spmv");
    double load_ms = ms(Clock::now() - start);
    // A 2x2 identity times (3, 4): proves the loaded kernel runs.
    int64_t pos[] = {0, 1, 2};
    int32_t crd[] = {0, 1};
    double val[] = {1, 1}, x[] = {3, 4}, y[2] = {0, 0};
    spmv(2, pos, crd, val, x, y);
    if (r.cache != codegen::CacheStatus::DiskHit || y[0] != 3 || y[1] != 4) return 1;
    std::printf("%.3f\n", load_ms);
    return 0;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

} // namespace

int main(int argc, char** argv) {
    if (argc == 3 && std::string(argv[1]) == "--load") return load_child(argv[2]);

    char tmpl[] = "/tmp/siskin-jit-timing-XXXXXX";
    if (!mkdtemp(tmpl)) return 1;
    std::string cache_dir = tmpl;
    codegen::JitOptions options;
    options.cache_dir = cache_dir;

    // Cold: a new key each time. Variant 0 stays on disk for the children.
    std::vector<double> cold_total, cold_compile;
    for (int v = 0; v < 7; ++v) {
        codegen::JitResult r = codegen::jit_compile(spmv_source(v), options);
        if (r.cache != codegen::CacheStatus::Miss) return 1;
        cold_total.push_back(r.total_ms);
        cold_compile.push_back(r.compile_ms);
    }

    // Cached, new process: exec this program, which times jit_compile + symbol lookup from main;
    // the parent times the whole process (exec, dynamic loading, run, exit).
    std::vector<double> child_load, child_process;
    for (int k = 0; k < 7; ++k) {
        int out[2];
        if (pipe(out) != 0) return 1;
        auto start = Clock::now();
        pid_t pid = fork();
        if (pid == 0) {
            dup2(out[1], 1);
            close(out[0]);
            execl("/proc/self/exe", argv[0], "--load", cache_dir.c_str(),
                  static_cast<char*>(nullptr));
            _exit(127);
        }
        close(out[1]);
        char buf[64] = {};
        ssize_t n = read(out[0], buf, sizeof buf - 1);
        close(out[0]);
        int status = 0;
        waitpid(pid, &status, 0);
        child_process.push_back(ms(Clock::now() - start));
        if (n <= 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            std::fprintf(stderr, "child failed (status %d)\n", status);
            return 1;
        }
        child_load.push_back(std::atof(buf));
    }

    std::printf("SpMV kernel, %zu bytes of C; cache %s\n", spmv_source(0).size(),
                cache_dir.c_str());
    std::printf("cold compile (miss):   median %.1f ms in the compiler, %.1f ms in jit_compile "
                "(min %.1f, max %.1f; %zu runs)\n",
                median(cold_compile), median(cold_total),
                *std::min_element(cold_total.begin(), cold_total.end()),
                *std::max_element(cold_total.begin(), cold_total.end()), cold_total.size());
    std::printf("cached, new process:   median %.2f ms jit_compile + symbol lookup "
                "(min %.2f, max %.2f); whole process %.1f ms\n",
                median(child_load), *std::min_element(child_load.begin(), child_load.end()),
                *std::max_element(child_load.begin(), child_load.end()), median(child_process));
    std::filesystem::remove_all(cache_dir);
    return 0;
}
