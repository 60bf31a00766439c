// Reductions in storage order (src/compiler/storage_order_reduction.hpp): the kernel reduces
// the values array of a whole tensor (in SIMD lanes or eight streams) or of a row, and adds the
// fill once when some element is not stored. Checked against the reference evaluator across
// formats (2-D and 3-D, every mode order), fills (0, 1, +-inf, NaN), value types, NaN and -0.0 entries, empty and full tensors;
// the shape of the C where the rule applies and where it must not; and the early exit's work.
#include <cmath>
#include <limits>
#include <random>

#include <fmt/format.h>

#include "compiler_test_util.hpp"

namespace siskin::testing {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
const double kNaN = std::numeric_limits<double>::quiet_NaN();

bool has(const std::string& c, const std::string& what) { return c.find(what) != std::string::npos; }

struct Compiled {
    std::map<std::string, Tensor> outputs;
    std::string c;
    int64_t work = -1;
};

Compiled run_counted(const std::string& text, const std::map<std::string, const Tensor*>& inputs,
                     int threads = 0) {
    ir::Program program = ir::parse_program(text);
    CompileOptions options = test_options();
    options.count_work = true;
    if (threads > 0) options.threads = threads;
    CompiledProgram compiled = compile_for(program, inputs, {}, options);
    Compiled r;
    r.c = compiled.kernel->c_source();
    r.outputs = compiled.run(inputs);
    r.work = compiled.kernel->last_work();
    return r;
}

std::string c_of(const std::string& text, const Tensor& A) {
    ir::Program program = ir::parse_program(text);
    return compile_for(program, {{"A", &A}}, {}, test_options()).kernel->c_source();
}

// A seeded random tensor of `shape` whose stored values are drawn from `pool` (NaN, -0.0 and
// infinities included where the pool has them).
Tensor random_tensor(const std::vector<int64_t>& shape, const std::string& format, double density,
                     Scalar fill, const std::vector<Scalar>& pool, uint64_t seed) {
    return random_tensor_of(shape, format, density, fill, seed, [&](std::mt19937_64& rng) {
        return pool[std::uniform_int_distribution<size_t>(0, pool.size() - 1)(rng)];
    });
}

std::vector<Scalar> doubles(std::initializer_list<double> list) {
    std::vector<Scalar> out;
    for (double v : list) out.push_back(Scalar::of(v));
    return out;
}

TEST(CompilerStorageOrderReduction, MatricesMatchTheReferenceAcrossFormatsFillsAndOperators) {
    // 60 x 70 at density 0.6: about 2500 stored values, so every stream runs more than one
    // early-exit stride of 256 steps and the remainder loop has work too.
    const std::vector<std::string> programs = {
        "s[] min= A[i,j]",      "s[] max= A[i,j]",   "for j, i { s[] min= A[i,j] }",
        "s[] max= abs(A[i,j])", "s[] |= A[i,j] > 2.5", "s[] <<fmin>>= A[i,j] * 2",
        "y[i] max= A[i,j]",     "y[i] &= A[i,j] > -0.5",
    };
    const std::vector<std::vector<Scalar>> pools = {
        doubles({-2, -1, 0.5, 1, 2, 3}),
        doubles({-1, -0.0, 0.0, 2, kNaN, 3}),
        doubles({-kInf, 1, 2, kInf}),
    };
    uint64_t seed = 100;
    for (const std::string format : {"dense", "csr", "dcsc", "coo"})
        for (double fill : {0.0, 1.0, kInf, -kInf, kNaN})
            for (double density : {0.0, 0.05, 0.6, 1.0})
                for (size_t pool = 0; pool < pools.size(); ++pool) {
                    Tensor A = random_tensor({60, 70}, format, density, Scalar::of(fill), pools[pool], ++seed);
                    for (const auto& p : programs) {
                        SCOPED_TRACE(fmt::format("{} fill {} density {} pool {}: {}", format, fill, density, pool, p));
                        compiled_matching_reference(p, {{"A", &A}});
                    }
                }
}

TEST(CompilerStorageOrderReduction, ThreeDimensionalTensorsAndIntegerTypes) {
    const int64_t lo = std::numeric_limits<int64_t>::min(), hi = std::numeric_limits<int64_t>::max();
    std::vector<Scalar> ints;
    for (int64_t v : {int64_t{-7}, int64_t{-1}, int64_t{0}, int64_t{3}, int64_t{9}, lo, hi}) ints.push_back(Scalar::of(v));
    uint64_t seed = 900;
    for (const std::string format : {"csf(2,0,1)", "dense(0)/sparselist(1)/dense(2)", "dense(2)/coo(0,1)"})
        for (int64_t fill : {int64_t{0}, int64_t{5}, lo, hi})
            for (double density : {0.0, 0.3, 1.0}) {
                Tensor A = random_tensor({9, 11, 13}, format, density, Scalar::of(fill), ints, ++seed);
                for (const std::string p : {"s[] min= A[i,j,k]", "for k, i, j { s[] max= A[i,j,k] }",
                                            "s[] &= A[i,j,k] != 9", "s[] <<bitwise_or>>= A[i,j,k]",
                                            "s[] <<bitwise_and>>= A[i,j,k]"}) {
                    SCOPED_TRACE(fmt::format("{} fill {} density {}: {}", format, fill, density, p));
                    compiled_matching_reference(p, {{"A", &A}});
                }
            }
}

TEST(CompilerStorageOrderReduction, PatternsBoolsAndEmptyDimensions) {
    uint64_t seed = 1700;
    for (double density : {0.0, 0.4, 1.0}) {
        Tensor B = random_tensor({40, 30}, "csr", density, Scalar::of(false), {Scalar::of(true), Scalar::of(false)}, ++seed);
        Tensor P = B.convert(Format::parse("csr/pattern", 2));
        for (const Tensor* A : {&B, &P})
            for (const std::string p : {"s[] |= A[i,j]", "s[] &= A[i,j]", "s[] max= A[i,j]", "s[] &= !A[i,j]"}) {
                SCOPED_TRACE(fmt::format("{} density {}: {}", A->format().to_string(), density, p));
                compiled_matching_reference(p, {{"A", A}});
            }
    }
    // No elements at all: the reduction leaves s at its fill.
    Tensor E = random_tensor({0, 5}, "csr", 1.0, Scalar::of(3.0), doubles({1}), 1);
    compiled_matching_reference("s[] min= A[i,j]", {{"A", &E}});
}

TEST(CompilerStorageOrderReduction, MinOrdersNegativeZeroFirstAndPropagatesNaN) {
    // -0.0 sits in one lane and +0.0 in others: the result must be -0.0 for min, +0.0 for max
    // (the reference evaluator's order), whatever lane meets which.
    std::vector<Scalar> v(4000, Scalar::of(1.0));
    v[3001] = Scalar::of(-0.0);
    v[17] = Scalar::of(0.0);
    v[2500] = Scalar::of(0.0);
    Tensor x = Tensor::from_dense({4000}, ValueType::Float64, Scalar::of(5.0), Format::dense(1), v);
    auto mn = compiled_matching_reference("s[] min= x[i]", {{"x", &x}});
    EXPECT_TRUE(std::signbit(mn.at("s").at({}).as_double()));
    // Max: +0.0 wins over -0.0 in any stream; with -0.0 alone it is -0.0.
    std::vector<Scalar> w(4000, Scalar::of(-1.0));
    w[40] = Scalar::of(-0.0);
    w[2222] = Scalar::of(-0.0);
    Tensor neg = Tensor::from_dense({4000}, ValueType::Float64, Scalar::of(-5.0), Format::dense(1), w);
    auto only_neg = compiled_matching_reference("s[] max= z[i]", {{"z", &neg}});
    EXPECT_TRUE(std::signbit(only_neg.at("s").at({}).as_double()));
    w[3100] = Scalar::of(0.0);
    Tensor z = Tensor::from_dense({4000}, ValueType::Float64, Scalar::of(-5.0), Format::dense(1), w);
    auto mx = compiled_matching_reference("s[] max= z[i]", {{"z", &z}});
    EXPECT_EQ(mx.at("s").at({}).as_double(), 0.0);
    EXPECT_FALSE(std::signbit(mx.at("s").at({}).as_double()));
    // One NaN anywhere, in any lane or in the remainder (4003 = 16 * 250 + 3), makes min NaN.
    for (size_t at : {size_t{0}, size_t{1999}, size_t{3999}, size_t{4001}}) {
        std::vector<Scalar> u(4003, Scalar::of(1.0));
        u[at] = Scalar::of(kNaN);
        Tensor n = Tensor::from_dense({4003}, ValueType::Float64, Scalar::of(0.0), Format::dense(1), u);
        auto r = compiled_matching_reference("s[] min= x[i]", {{"x", &n}});
        EXPECT_TRUE(std::isnan(r.at("s").at({}).as_double())) << at;
    }
}

TEST(CompilerStorageOrderReduction, TheKernelWalksTheValuesArray) {
    Tensor A = random_tensor({25, 25}, "csr", 0.3, Scalar::of(0.0), doubles({1, 2}), 7);
    // A float min of the values: the prelude's vector loop over A's values, no row loop, the
    // fill once.
    std::string c = c_of("s[] min= A[i,j]", A);
    EXPECT_TRUE(has(c, "siskin_reduce_min_f64(A_values + ")) << c;
    EXPECT_FALSE(has(c, "A_crd[")) << c;
    // Any other right side: eight streams.
    c = c_of("s[] max= abs(A[i,j])", A);
    EXPECT_TRUE(has(c, "acc_7")) << c;
    EXPECT_TRUE(has(c, "A_stream")) << c;
    EXPECT_FALSE(has(c, "A_crd[")) << c;
    // A row: one loop over its values that may stop at each, and the fill once per row.
    c = c_of("y[i] &= A[i,j] > 1", A);
    EXPECT_TRUE(has(c, "A_first = A_pos[i];")) << c;
    EXPECT_TRUE(has(c, "break;")) << c;
    EXPECT_FALSE(has(c, "A_crd[")) << c;
    EXPECT_FALSE(has(c, "A_stream")) << c;
    // Levels whose positions stand for runs or blocks, a written protocol, a second operand and
    // a sum (not idempotent) keep the looplets.
    Tensor R = A.convert(Format::parse("dense(0)/runlist(1)", 2));
    Tensor B = A.convert(Format::parse("dense(0)/sparseband(1)", 2));
    for (const Tensor* T : {&R, &B})
        EXPECT_FALSE(has(c_of("s[] min= A[i,j]", *T), "A_first")) << T->format().to_string();
    for (const std::string p : {"s[] += A[i,j]", "s[] min= A[i,walk(j)]", "s[] min= A[i,j] + A[j,i]"})
        EXPECT_FALSE(has(c_of(p, A), "A_first")) << p;
    // A sliced row range, or a nest with a second statement: the rows are reduced one by one.
    for (const std::string p : {"s[] min= A[i(1:5),j]", "for i { for j { s[] min= A[i,j] } ; t[] += A[i,0] }"}) {
        c = c_of(p, A);
        EXPECT_TRUE(has(c, "A_first = A_pos[")) << p << "\n" << c;
        EXPECT_FALSE(has(c, "siskin_reduce_min_f64")) << p << "\n" << c;
        EXPECT_FALSE(has(c, "A_stream")) << p << "\n" << c;
    }
}

TEST(CompilerStorageOrderReduction, EarlyExitComesWithinOneStrideOfTheStreams) {
    const int64_t n = 1000000;
    std::vector<Scalar> values(static_cast<size_t>(n), Scalar::of(1.0));
    values[9] = Scalar::of(-1.0);
    Tensor x = Tensor::from_dense({n}, ValueType::Float64, Scalar::of(0.0), Format::dense(1), values);
    // One thread: the walk is whole. On threads each slice counts the steps it took before it
    // saw an earlier slice stop, which depends on the scheduling (compiler_threads_early_exit_test).
    Compiled r = run_counted("s[] &= x[i] > 0", {{"x", &x}}, 1);
    EXPECT_FALSE(r.outputs.at("s").at({}).as_bool());
    EXPECT_TRUE(has(r.c, "break;")) << r.c;
    // One stride of 256 steps (each a step of all eight streams) and its chunk, then the
    // remainder loop of n % 8 = 0 elements: far below the n / 8 steps of a full walk.
    EXPECT_GE(r.work, 256);
    EXPECT_LE(r.work, 260);
    // The failing element in the last stream, near its end: the exit waits for that stride.
    values[9] = Scalar::of(1.0);
    values[static_cast<size_t>(n - 3)] = Scalar::of(-1.0);
    Tensor late = Tensor::from_dense({n}, ValueType::Float64, Scalar::of(0.0), Format::dense(1), values);
    Compiled l = run_counted("s[] &= x[i] > 0", {{"x", &late}}, 1);
    EXPECT_FALSE(l.outputs.at("s").at({}).as_bool());
    EXPECT_GE(l.work, n / 8);
    // Nothing fails: every step runs and the answer is true.
    values[static_cast<size_t>(n - 3)] = Scalar::of(1.0);
    Tensor all = Tensor::from_dense({n}, ValueType::Float64, Scalar::of(0.0), Format::dense(1), values);
    Compiled t = run_counted("s[] &= x[i] > 0", {{"x", &all}}, 1);
    EXPECT_TRUE(t.outputs.at("s").at({}).as_bool());
    EXPECT_GE(t.work, n / 8);
}

} // namespace
} // namespace siskin::testing
