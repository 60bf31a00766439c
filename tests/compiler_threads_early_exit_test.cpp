// Early-exit reductions on threads (storage_order_reduction.cpp, runtime/siskin_reduce.h): a whole
// tensor reduced into a scalar by an operator that may stop (and, or, integer min and max) is
// walked in one slice per thread, and the slices share the first one, in order, that
// reached the exit: a later slice stops at its next test, an earlier one runs to its end. Every
// thread count gives the reference's result, bit for bit, on inputs with empty rows and a very
// long one, with the exit value early, late, in the middle or nowhere.
#include <algorithm>
#include <limits>
#include <random>

#include "compiler/kernel_impl.hpp"
#include "compiler_test_util.hpp"

namespace siskin::testing {
namespace {

bool has(const std::string& c, const std::string& what) { return c.find(what) != std::string::npos; }

CompileOptions threaded(int threads) {
    CompileOptions o = test_options();
    o.threads = threads;
    o.parallel_min_work = 0; // small inputs run in parallel too
    return o;
}

// A rows x cols int64 matrix (fill `fill`): rows 0, 5 and the last empty, row 3 full (a very long
// row), other elements stored with probability 0.2, values in [1, 9]; then `special` replaces the
// value of the stored entries whose order in the rows (0-based, row by row) is listed.
Tensor int_matrix(int64_t rows, int64_t cols, const std::string& format, uint64_t seed, int64_t fill,
                  const std::vector<int64_t>& at, int64_t special) {
    std::mt19937_64 rng(seed);
    CoordinateList list;
    list.ndims = 2;
    int64_t k = 0;
    for (int64_t i = 0; i < rows; ++i) {
        if (i == 0 || i == 5 || i == rows - 1) continue;
        for (int64_t j = 0; j < cols; ++j) {
            if (i != 3 && rng() % 5 != 0) continue;
            int64_t v = static_cast<int64_t>(rng() % 9) + 1;
            if (std::find(at.begin(), at.end(), k) != at.end()) v = special;
            list.add(std::vector<int64_t>{i, j}, Scalar::of(v));
            ++k;
        }
    }
    return Tensor::from_coordinates({rows, cols}, ValueType::Int64, Scalar::of(fill), Format::parse(format, 2), list);
}

struct ExitCase {
    std::string program;
    int64_t special; // the value that ends the walk
    int64_t fill;    // one that does not
};

TEST(ThreadedEarlyExit, ReductionsThatStopMatchTheReferenceOnEveryThreadCount) {
    const int64_t lowest = std::numeric_limits<int64_t>::min(), highest = std::numeric_limits<int64_t>::max();
    const std::vector<ExitCase> cases = {
        {"s[] &= A[i, j] > 0", -1, 1},          // all: stops at the first entry not above 0
        {"s[] |= A[i, j] > 9", 10, 1},          // any: stops at the first above 9
        {"s[] min= A[i, j]", lowest, 5},        // stops at the least int64
        {"s[] max= A[i, j]", highest, 5},       // stops at the greatest
    };
    const int64_t rows = 120, cols = 1500;
    for (const auto& c : cases) {
        ir::Program program = ir::parse_program(c.program);
        // Where the exit value sits among the ~36,000 stored entries: early (the first slice),
        // in the middle, at the very end (the last slice), in two slices, nowhere.
        const std::vector<std::vector<int64_t>> placements = {{7}, {18000}, {35000}, {900, 30000}, {}};
        // Every thread count on CSR, one on DCSR (compiling dominates the time).
        for (const auto& [format, thread_counts] :
             std::vector<std::pair<std::string, std::vector<int>>>{{"csr", {1, 2, 3, 7}}, {"dcsr", {7}}}) {
            std::vector<Tensor> inputs;
            for (size_t k = 0; k < placements.size(); ++k)
                inputs.push_back(int_matrix(rows, cols, format, 40 + k, c.fill, placements[k], c.special));
            std::vector<Tensor> want;
            for (const Tensor& A : inputs) want.push_back(evaluate_reference(program, {{"A", &A}}).at("s"));
            for (int threads : thread_counts) {
                CompiledProgram k = compile_for(program, {{"A", &inputs[0]}}, {}, threaded(threads));
                const std::string& src = k.kernel->c_source();
                EXPECT_EQ(has(src, "siskin_stop_note"), threads > 1) << c.program << " " << format << "\n" << src;
                EXPECT_EQ(has(src, "#pragma omp parallel"), threads > 1) << c.program << " " << format;
                for (size_t n = 0; n < inputs.size(); ++n) {
                    // Repeated: a slice that stops early must not change the result in any run.
                    for (int run = 0; run < 3; ++run) {
                        Tensor got = k.run({{"A", &inputs[n]}}).at("s");
                        EXPECT_TRUE(same_output(want[n], got))
                            << c.program << " " << format << " threads " << threads << " placement " << n << ": "
                            << got.to_string() << ", want " << want[n].to_string();
                    }
                    EXPECT_EQ(k.kernel->impl().last_threads().kernel, threads) << c.program << " " << format;
                }
            }
        }
    }
}

TEST(ThreadedEarlyExit, AVectorAndAnEmptyTensorOnThreads) {
    // p[] min= x[i] over a long vector (one fibre of 200,000) and over an empty one.
    const int64_t n = 200000;
    std::vector<Scalar> values;
    for (int64_t i = 0; i < n; ++i)
        values.push_back(Scalar::of(i == 150001 ? std::numeric_limits<int64_t>::min() : 3 + i % 11));
    Tensor x = Tensor::from_dense({n}, ValueType::Int64, Scalar::of(int64_t{0}), Format::dense(1), values);
    Tensor empty({0}, ValueType::Int64, Scalar::of(int64_t{0}), Format::parse("sparselist(0)", 1));
    ir::Program program = ir::parse_program("p[] min= x[i]");
    for (int threads : {1, 2, 3, 7}) {
        for (const Tensor* t : {&x, &empty}) {
            Tensor want = evaluate_reference(program, {{"x", t}}).at("p");
            CompiledProgram k = compile_for(program, {{"x", t}}, {}, threaded(threads));
            EXPECT_TRUE(same_output(want, k.run({{"x", t}}).at("p")))
                << "threads " << threads << " n " << t->shape()[0];
        }
    }
}

} // namespace
} // namespace siskin::testing
