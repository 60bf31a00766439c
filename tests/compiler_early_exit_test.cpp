// Early exit of reductions (src/compiler/early_exit.hpp) and loop collapse of reductions over a
// fill region (src/simplify/collapse.hpp): the generated C holds the exit where it is safe and
// none where it is not, the values equal the reference evaluator's, and the work counts show
// the iterations that were skipped. A reduction of a whole tensor that reads it alone is
// reduced in storage order instead (compiler_storage_order_reduction_test) unless a protocol is
// written for it, so the nests here read `walk(i)`.
#include <cmath>
#include <limits>
#include <random>

#include "compiler_test_util.hpp"

namespace siskin::testing {
namespace {

bool has(const std::string& c, const std::string& what) { return c.find(what) != std::string::npos; }

struct Result {
    std::map<std::string, Tensor> outputs;
    std::map<std::string, Tensor> reference; // empty unless checked
    std::string c;
    int64_t work = -1;
};

// Compiles for these inputs (finiteness scanned, outputs inferred as evaluate_compiled does)
// with the work counter, runs once, and compares every output with the reference evaluator
// unless told not to (the dense reference is slow on 10^7 elements).
Result run(const std::string& text, const std::map<std::string, const Tensor*>& inputs,
        bool check_reference = true, const std::map<std::string, OutputSpec>& outputs = {}) {
    ir::Program program = ir::parse_program(text);
    CompileOptions options = test_options();
    options.count_work = true;
    CompiledProgram compiled = compile_for(program, inputs, outputs, options);
    Result r;
    r.c = compiled.kernel->c_source();
    r.outputs = compiled.run(inputs);
    r.work = compiled.kernel->last_work();
    if (check_reference) {
        r.reference = evaluate_reference(program, inputs, outputs);
        for (const auto& [name, want] : r.reference) {
            const Tensor& got = r.outputs.at(name);
            EXPECT_TRUE(got.equals(want)) << text << "\n" << name << ": " << got.to_string() << "\nwant "
                                          << want.to_string() << "\n" << r.c;
        }
    }
    return r;
}

Tensor vector_of(ValueType type, const std::string& format, Scalar fill, const std::vector<Scalar>& values) {
    return Tensor::from_dense({static_cast<int64_t>(values.size())}, type, fill.cast(type),
                              Format::parse(format, 1), values);
}

std::vector<Scalar> doubles_of(std::initializer_list<double> list) {
    std::vector<Scalar> out;
    for (double v : list) out.push_back(Scalar::of(v));
    return out;
}

// A seeded random matrix of small integers in [lo, hi] of `type`, each element stored (when
// different from the fill) with probability `density`.
Tensor random_int_matrix(int64_t m, int64_t n, double density, const std::string& format, int64_t fill,
                         int64_t lo, int64_t hi, uint64_t seed, ValueType type = ValueType::Int64) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    std::uniform_int_distribution<int64_t> v(lo, hi);
    CoordinateList list;
    list.ndims = 2;
    for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j)
            if (u(rng) < density) list.add(std::vector<int64_t>{i, j}, Scalar::of(v(rng)).cast(type));
    return Tensor::from_coordinates({m, n}, type, Scalar::of(fill).cast(type), Format::parse(format, 2), list);
}

// ---- Early exit: where it happens -------------------------------------------------------------

TEST(CompilerEarlyExit, AndReductionOverAMatrixLeavesTheWholeNest) {
    for (const std::string format : {"dense", "csr", "dcsr"}) {
        SCOPED_TRACE(format);
        Tensor A = random_matrix_of(30, 40, 0.3, format, 1, 1.0, [](double u) { return u - 0.2; });
        Result r = run("s[] &= A[i,walk(j)] > 0", {{"A", &A}});
        // One goto out of both loops, to a label after them.
        EXPECT_TRUE(has(r.c, "goto siskin_exit")) << r.c;
        EXPECT_TRUE(has(r.c, "siskin_exit:;")) << r.c;
        EXPECT_FALSE(r.outputs.at("s").at({}).as_bool());
    }
}

TEST(CompilerEarlyExit, TheExitTestsTheRegisterOfScalarReplacement) {
    Tensor x = vector_of(ValueType::Float64, "dense", Scalar::of(0.0), doubles_of({1, 2, -3, 4}));
    Result r = run("s[] &= x[walk(i)] > 0", {{"x", &x}});
    // The element lives in a local in the loop; the exit tests the local and stores it back
    // before it jumps (the store after the loop is skipped by the goto).
    EXPECT_TRUE(has(r.c, "s_values_acc = ")) << r.c;
    EXPECT_TRUE(has(r.c, "if (s_values_acc == false) {")) << r.c;
    EXPECT_TRUE(has(r.c, "s_values[0LL] = s_values_acc;\n")) << r.c;
    size_t jump = r.c.find("goto siskin_exit");
    ASSERT_NE(jump, std::string::npos) << r.c;
    EXPECT_LT(r.c.rfind("s_values[0LL] = s_values_acc;", jump), jump) << r.c;
    EXPECT_FALSE(r.outputs.at("s").at({}).as_bool());
    // 3 iterations (the third fails), not 4.
    EXPECT_EQ(r.work, 3);
}

TEST(CompilerEarlyExit, AndOfAMillionStopsAtTheTenthStoredEntry) {
    const int64_t n = 1000000;
    // Dense: x[9] is the first value that is not positive.
    std::vector<Scalar> values(static_cast<size_t>(n), Scalar::of(1.0));
    values[9] = Scalar::of(-1.0);
    Tensor dense = vector_of(ValueType::Float64, "dense", Scalar::of(0.0), values);
    Result d = run("s[] &= x[walk(i)] > 0", {{"x", &dense}}, false);
    EXPECT_FALSE(d.outputs.at("s").at({}).as_bool());
    EXPECT_GE(d.work, 10);
    EXPECT_LE(d.work, 12);
    // Sparse with fill 1 (positive): every coordinate stored but the gaps, the tenth stored entry
    // fails. The fill regions between stored entries pass.
    CoordinateList list;
    list.ndims = 1;
    for (int64_t k = 0; k < n / 2; ++k)
        list.add(std::vector<int64_t>{2 * k}, Scalar::of(k == 9 ? -5.0 : 2.0));
    Tensor sparse = Tensor::from_coordinates({n}, ValueType::Float64, Scalar::of(1.0),
                                             Format::parse("sparselist(0)", 1), list);
    Result s = run("s[] &= x[walk(i)] > 0", {{"x", &sparse}}, false);
    EXPECT_FALSE(s.outputs.at("s").at({}).as_bool());
    EXPECT_GE(s.work, 10);
    EXPECT_LE(s.work, 30);
    // Without a failing entry, all of them are visited and the answer is true.
    values[9] = Scalar::of(1.0);
    Tensor all = vector_of(ValueType::Float64, "dense", Scalar::of(0.0), values);
    Result t = run("s[] &= x[walk(i)] > 0", {{"x", &all}}, false);
    EXPECT_TRUE(t.outputs.at("s").at({}).as_bool());
    EXPECT_GE(t.work, n);
}

TEST(CompilerEarlyExit, OrStopsAtTheFirstTrue) {
    Tensor x = vector_of(ValueType::Float64, "sparselist(0)", Scalar::of(0.0),
                         doubles_of({0, 0, 1, 0, 7, 0, 0, 3, 0, 2}));
    Result r = run("s[] |= x[walk(i)] > 5", {{"x", &x}});
    EXPECT_TRUE(has(r.c, "goto siskin_exit")) << r.c;
    EXPECT_TRUE(r.outputs.at("s").at({}).as_bool());
    // Stored entries 1, 7: the second one ends it.
    EXPECT_LE(r.work, 2);
}

TEST(CompilerEarlyExit, IntegerMinAndProductStopAtTheirAnnihilators) {
    const int64_t lowest = std::numeric_limits<int64_t>::min();
    std::vector<Scalar> v;
    for (int64_t k = 0; k < 100; ++k) v.push_back(Scalar::of(k == 4 ? lowest : 10 + k % 7));
    Tensor x = vector_of(ValueType::Int64, "dense", Scalar::of(int64_t{0}), v);
    Result m = run("s[] min= x[walk(i)]", {{"x", &x}});
    EXPECT_TRUE(has(m.c, "goto siskin_exit")) << m.c;
    EXPECT_EQ(m.outputs.at("s").at({}).as_int(), lowest);
    EXPECT_EQ(m.work, 5);

    std::vector<Scalar> p;
    for (int64_t k = 0; k < 100; ++k) p.push_back(Scalar::of(k == 6 ? int64_t{0} : int64_t{3}));
    Tensor y = vector_of(ValueType::Int64, "dense", Scalar::of(int64_t{1}), p);
    Result prod = run("s[] *= y[i]", {{"y", &y}});
    EXPECT_TRUE(has(prod.c, "goto siskin_exit")) << prod.c;
    EXPECT_EQ(prod.outputs.at("s").at({}).as_int(), 0);
    EXPECT_EQ(prod.work, 7);
}

TEST(CompilerEarlyExit, ChooseStopsAtTheFirstValueItKeeps) {
    // choose keeps the first nonzero value (early_exit.hpp): the nest ends there.
    std::vector<Scalar> v(100, Scalar::of(int64_t{0}));
    v[6] = Scalar::of(int64_t{7});
    v[40] = Scalar::of(int64_t{9});
    Tensor x = vector_of(ValueType::Int64, "dense", Scalar::of(int64_t{0}), v);
    Result r = run("s[] <<choose>>= x[walk(i)]", {{"x", &x}});
    EXPECT_TRUE(has(r.c, "!= 0LL) {")) << r.c;
    EXPECT_TRUE(has(r.c, "goto siskin_exit")) << r.c;
    EXPECT_EQ(r.outputs.at("s").at({}).as_int(), 7);
    EXPECT_EQ(r.work, 7);
    // Read in storage order (four streams): the first stream holds the answer, so the exit
    // waits for it and the value is still the first in order.
    Result s = run("s[] <<choose>>= x[i]", {{"x", &x}});
    EXPECT_EQ(s.outputs.at("s").at({}).as_int(), 7);
    // Rows stop at their first chosen column: a BFS pull step's parent (j + 1, 0 where none).
    std::vector<Scalar> m;
    for (int64_t i = 0; i < 10; ++i)
        for (int64_t j = 0; j < 100; ++j) m.push_back(Scalar::of(i % 2 == 0 && j == 3 ? 1.0 : 0.0));
    Tensor D = Tensor::from_dense({10, 100}, ValueType::Float64, Scalar::of(0.0), Format::dense(2), m);
    Result rows = run("y[i] <<choose>>= ifelse(D[i,walk(j)] > 0, j + 1, 0)", {{"D", &D}});
    EXPECT_TRUE(has(rows.c, "goto siskin_exit")) << rows.c;
    EXPECT_EQ(rows.outputs.at("y").at({0}).as_int(), 4);
    EXPECT_EQ(rows.outputs.at("y").at({1}).as_int(), 0);
    // 10 rows; 5 stop after 4 columns, 5 run all 100; plus the loop that sets y to its fill.
    EXPECT_EQ(rows.work, 10 + 10 + 5 * 4 + 5 * 100);
}

TEST(CompilerEarlyExit, FloatProductExitsOnlyWhenTheOperandsAreFinite) {
    // Finite: 0 annihilates, the product stops there.
    Tensor finite = vector_of(ValueType::Float64, "dense", Scalar::of(1.0), doubles_of({2, 0.5, 0, 4, 8}));
    Result f = run("s[] *= x[i]", {{"x", &finite}});
    EXPECT_TRUE(has(f.c, "goto siskin_exit")) << f.c;
    EXPECT_EQ(f.outputs.at("s").at({}).as_double(), 0.0);
    EXPECT_EQ(f.work, 3);
    // An inf after the 0 makes the product NaN: no exit, every element visited.
    const double inf = std::numeric_limits<double>::infinity();
    Tensor with_inf = vector_of(ValueType::Float64, "dense", Scalar::of(1.0), doubles_of({2, 0.5, 0, inf, 8}));
    Result g = run("s[] *= x[i]", {{"x", &with_inf}});
    EXPECT_FALSE(has(g.c, "goto")) << g.c;
    EXPECT_TRUE(std::isnan(g.outputs.at("s").at({}).as_double()));
    EXPECT_EQ(g.work, 5);
}

TEST(CompilerEarlyExit, RowReductionsExitTheInnerLoopOnly) {
    for (const std::string format : {"dense", "csr", "dcsr"}) {
        SCOPED_TRACE(format);
        Tensor A = random_matrix_of(40, 50, 0.4, format, 2, 0.0, [](double u) { return u - 0.1; });
        Result r = run("y[i] &= A[i,walk(j)] > 0", {{"A", &A}});
        EXPECT_TRUE(has(r.c, "goto siskin_exit")) << r.c;
        Result m = run("y[i] |= A[i,walk(j)] < 0", {{"A", &A}});
        EXPECT_TRUE(has(m.c, "goto siskin_exit")) << m.c;
    }
    // Rows of a dense matrix that fail at column 0 cost one inner iteration each.
    std::vector<Scalar> v;
    for (int64_t i = 0; i < 10; ++i)
        for (int64_t j = 0; j < 100; ++j) v.push_back(Scalar::of(i % 2 == 0 && j == 0 ? -1.0 : 1.0));
    Tensor D = Tensor::from_dense({10, 100}, ValueType::Float64, Scalar::of(0.0), Format::dense(2), v);
    Result r = run("y[i] &= D[i,walk(j)] > 0", {{"D", &D}});
    // 10 rows; 5 rows stop after 1 column, 5 run all 100; plus the loop that sets y to its fill.
    EXPECT_EQ(r.work, 10 + 10 + 5 * 1 + 5 * 100);
}

// The paper's conformance test 23: B_ij = prod_k A_ijk over a dense 2x2x3 int64 A. In the order
// i, j, k the k loop stops at a 0 (2 + 3 + 1 + 3 = 9 iterations of k, not 12); in the order
// i, k, j the element changes with the inner loop and nothing may stop.
TEST(CompilerEarlyExit, LoopOrderDecidesWhetherAProductMayStop) {
    std::vector<Scalar> v;
    for (int64_t a : {2, 0, 5, 1, 3, 2, 0, 0, 0, 4, 1, 1}) v.push_back(Scalar::of(a));
    Tensor A = Tensor::from_dense({2, 2, 3}, ValueType::Int64, Scalar::of(int64_t{0}), Format::dense(3), v);
    Result ijk = run("B[i,j] *= A[i,j,k]", {{"A", &A}});
    Result ikj = run("for i, k, j { B[i,j] *= A[i,j,k] }", {{"A", &A}});
    EXPECT_TRUE(has(ijk.c, "goto siskin_exit")) << ijk.c;
    EXPECT_FALSE(has(ikj.c, "goto")) << ikj.c;
    for (const auto* r : {&ijk, &ikj}) {
        EXPECT_EQ(r->outputs.at("B").at({0, 0}).as_int(), 0);
        EXPECT_EQ(r->outputs.at("B").at({0, 1}).as_int(), 6);
        EXPECT_EQ(r->outputs.at("B").at({1, 0}).as_int(), 0);
        EXPECT_EQ(r->outputs.at("B").at({1, 1}).as_int(), 4);
    }
    // Both set B to its fill alike; then i, j, k costs 2 + 4 + 9 and i, k, j 2 + 6 + 12.
    EXPECT_EQ(ikj.work - ijk.work, (2 + 6 + 12) - (2 + 4 + 9));
}

TEST(CompilerEarlyExit, UserFunctionWithAnAnnihilator) {
    const std::string gcd = R"(
def gcd_ee(a: int64, b: int64) -> int64 [commutative, associative, annihilator(1)] {
    while b != 0 { let t = b; b = a % b; a = t }
    return abs(a)
}
)";
    std::vector<Scalar> v;
    for (int64_t k = 0; k < 50; ++k) v.push_back(Scalar::of(int64_t{k == 3 ? 35 : k == 5 ? 22 : 12 * (k + 1)}));
    Tensor x = vector_of(ValueType::Int64, "dense", Scalar::of(int64_t{0}), v);
    // gcd(12, 24, 36, 35) = 1 at k = 3: nothing after it can change a gcd of 1.
    Result r = run(gcd + "s[] <<gcd_ee>>= x[i]", {{"x", &x}});
    EXPECT_TRUE(has(r.c, "goto siskin_exit")) << r.c;
    EXPECT_EQ(r.outputs.at("s").at({}).as_int(), 1);
    EXPECT_EQ(r.work, 4);
}

// ---- Early exit: where it must not happen ---------------------------------------------------

TEST(CompilerEarlyExit, NoExitWithASecondOutputOrASecondWrite) {
    Tensor x = vector_of(ValueType::Float64, "dense", Scalar::of(0.0), doubles_of({1, -2, 3, 4}));
    // t needs every element: leaving at x[1] would lose 3 + 4.
    Result two = run("for i { s[] &= x[i] > 0; t[] += x[i] }", {{"x", &x}});
    EXPECT_FALSE(has(two.c, "goto")) << two.c;
    EXPECT_EQ(two.outputs.at("t").at({}).as_double(), 6.0);
    EXPECT_EQ(two.work, 4);
    // The same output written twice in the nest: not the simple pattern, no exit.
    Result twice = run("for i { s[] &= x[i] > 0; s[] &= x[i] < 10 }", {{"x", &x}});
    EXPECT_FALSE(has(twice.c, "goto")) << twice.c;
    // A nest with an overwrite elsewhere in the body.
    Result other = run("for i { s[] &= x[i] > 0; y[i] = x[i] * 2 }", {{"x", &x}});
    EXPECT_FALSE(has(other.c, "goto")) << other.c;
    // Separate einsum statements are separate nests: the first may stop, the second runs all.
    Result sep = run("s[] &= x[walk(i)] > 0\nt[] += x[i]", {{"x", &x}});
    EXPECT_TRUE(has(sep.c, "goto siskin_exit")) << sep.c;
    EXPECT_EQ(sep.outputs.at("t").at({}).as_double(), 6.0);
}

TEST(CompilerEarlyExit, NoExitForOperatorsWithoutAnAnnihilatorOrWhenTheOutputMoves) {
    Tensor x = vector_of(ValueType::Float64, "dense", Scalar::of(0.0), doubles_of({1, -2, 3, 4}));
    EXPECT_FALSE(has(run("s[] += x[i]", {{"x", &x}}).c, "goto"));
    // max over floats: +inf annihilates finite values only, and x may hold NaN... here it is
    // finite, so the exit is there.
    EXPECT_TRUE(has(run("s[] max= x[walk(i)]", {{"x", &x}}).c, "goto siskin_exit"));
    // y[i] changes with i: the element is not one for the nest.
    EXPECT_FALSE(has(run("y[i] &= x[i] > 0", {{"x", &x}}).c, "goto"));
    // A nest that reads the output it reduces into has no exit to take: it is refused (Finch's
    // read and update modes, case 33), before any lowering.
    try {
        run("for i { t[] &= t[] && x[i] > 0 }", {{"x", &x}});
        ADD_FAILURE() << "a nest reading its own output compiled";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("t is read and updated in one statement"), std::string::npos) << e.what();
    }
}

TEST(CompilerEarlyExit, DifferentialOverFormatsFillsAndOperators) {
    // Integer matrices with values that hit the annihilators (0 for *, the extremes for
    // min/max appear as fills or stored values) across formats and fills.
    const int64_t lo64 = std::numeric_limits<int64_t>::min(), hi64 = std::numeric_limits<int64_t>::max();
    const std::vector<std::string> programs = {
        "s[] &= A[i,j] > 0",      "s[] |= A[i,j] < 0",     "s[] min= A[i,j]",
        "s[] max= A[i,j]",        "s[] *= A[i,j]",         "y[i] &= A[i,j] != 2",
        "y[i] min= A[i,j]",       "y[j] |= A[i,j] == 3",   "s[] &= A[i,j] >= B[i,j]",
        "s[] <<choose>>= A[i,j]", "y[i] <<choose>>= A[i,walk(j)] * B[i,j]",
        "s[] <<choose>>= ifelse(A[i,j] > 1, i * 10 + j + 1, 0)",
    };
    uint64_t seed = 10;
    for (const std::string format : {"dense", "csr", "dcsr"})
        for (int64_t fill : {int64_t{0}, int64_t{1}, int64_t{-2}, lo64, hi64})
            for (double density : {0.1, 0.6}) {
                Tensor A = random_int_matrix(7, 9, density, format, fill, -3, 3, ++seed);
                Tensor B = random_int_matrix(7, 9, density, "csr", 0, -3, 3, ++seed);
                for (const auto& p : programs) {
                    SCOPED_TRACE(format + " fill " + std::to_string(fill) + " " + p);
                    run(p, {{"A", &A}, {"B", &B}});
                }
            }
    // Float matrices with finite values and fills, and with infinities.
    const double inf = std::numeric_limits<double>::infinity();
    for (const std::string format : {"dense", "csr", "dcsr"})
        for (double fill : {0.0, 1.0, -inf, inf})
            for (double density : {0.2, 0.7}) {
                Tensor A = random_matrix_of(6, 8, density, format, ++seed, fill,
                                            [](double u) { return std::floor(u * 6.0) - 2.0; });
                for (const std::string p : {"s[] *= A[i,j]", "s[] min= A[i,j]", "s[] &= A[i,j] > -2",
                                            "y[i] *= A[i,j]", "y[i] max= A[i,j]", "s[] <<fmin>>= A[i,j]",
                                            "s[] <<choose>>= A[i,j]", "y[i] <<choose>>= A[i,walk(j)]"}) {
                    SCOPED_TRACE(format + " fill " + std::to_string(fill) + " " + p);
                    run(p, {{"A", &A}});
                }
            }
}

// ---- Loop collapse of reductions over fill regions ---------------------------------------------

Tensor three_entries(int64_t n, double fill, ValueType type = ValueType::Float64) {
    CoordinateList list;
    list.ndims = 1;
    list.add(std::vector<int64_t>{5}, Scalar::of(3.0).cast(type));
    list.add(std::vector<int64_t>{n / 2}, Scalar::of(-1.0).cast(type));
    list.add(std::vector<int64_t>{n - 2}, Scalar::of(4.0).cast(type));
    return Tensor::from_coordinates({n}, type, Scalar::of(fill).cast(type), Format::parse("sparselist(0)", 1), list);
}

TEST(CompilerCollapse, SumOverTenMillionWithFillTakesThreeIterations) {
    const int64_t n = 10000000;
    Tensor x = three_entries(n, 2.5);
    Result r = run("s[] += x[i]", {{"x", &x}}, false);
    // (n - 3) copies of 2.5, then 3 - 1 + 4; every partial sum is exact in float64.
    EXPECT_EQ(r.outputs.at("s").at({}).as_double(), 2.5 * static_cast<double>(n - 3) + 6.0);
    EXPECT_LE(r.work, 3);
    // And the same as the reference on a shorter vector (the dense reference visits all).
    Tensor shorter = three_entries(1000, 2.5);
    Result s = run("s[] += x[i]", {{"x", &shorter}});
    EXPECT_LE(s.work, 3);
}

TEST(CompilerCollapse, ProductOfFillCopiesIsAPower) {
    // Float: 2^(n-3) * 3 * -1 * 4, exact.
    Tensor x = three_entries(1000, 2.0);
    Result r = run("s[] *= x[i]", {{"x", &x}});
    EXPECT_EQ(r.outputs.at("s").at({}).as_double(), -12.0 * std::ldexp(1.0, 997));
    EXPECT_LE(r.work, 3);
    // Integers wrap like the n products: 3^(n-3) mod 2^64 times 3 * -1 * 4.
    for (ValueType t : {ValueType::Int64, ValueType::Int8, ValueType::UInt64, ValueType::UInt16}) {
        SCOPED_TRACE(std::string(type_name(t)));
        Tensor xi = three_entries(1000, 3.0, t);
        Result ri = run("s[] *= x[i]", {{"x", &xi}});
        EXPECT_LE(ri.work, 3);
    }
}

TEST(CompilerCollapse, XorOfFillCopiesIsTheirParity) {
    for (int64_t n : {int64_t{1000}, int64_t{1001}}) {
        Tensor x = three_entries(n, 1.0);
        // x[i] > 0 is true on the fill and on two of the three entries.
        Result r = run("s[] <<xor>>= x[i] > 0", {{"x", &x}});
        EXPECT_LE(r.work, 3);
        EXPECT_EQ(r.outputs.at("s").at({}).as_bool(), (n - 1) % 2 == 1);
        Tensor xi = three_entries(n, 6.0, ValueType::Int64);
        Result b = run("s[] <<bitwise_xor>>= x[i]", {{"x", &xi}});
        EXPECT_LE(b.work, 3);
    }
}

TEST(CompilerCollapse, AssociativeOperatorAbsorbingItsFillRunsOnce) {
    const std::string gcd = R"(
def gcd_cl(a: int64, b: int64) -> int64 [commutative, associative] {
    while b != 0 { let t = b; b = a % b; a = t }
    return abs(a)
}
)";
    // gcd(6, 6) == 6: n copies of the fill 6 are one.
    Tensor x = three_entries(1000, 6.0, ValueType::Int64);
    CoordinateList list;
    Result r = run(gcd + "s[] <<gcd_cl>>= x[i]", {{"x", &x}});
    EXPECT_LE(r.work, 3);
    EXPECT_EQ(r.outputs.at("s").at({}).as_int(), 1);
}

TEST(CompilerCollapse, SubtractionKeepsItsLoop) {
    // sub is not associative: n copies of the fill cannot be combined, the loop stays.
    Tensor x = three_entries(100, 2.0);
    Result r = run("s[] <<sub>>= x[i]", {{"x", &x}});
    EXPECT_GE(r.work, 97);
}

} // namespace
} // namespace siskin::testing
