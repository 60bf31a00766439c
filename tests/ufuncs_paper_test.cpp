// The worked examples of "Compilation of Sparse Array Programming Models" that involve ufuncs and
// fill values (notes/sparse-array-programming.md §7, numbered as there), compiled, with their
// expected results written out by hand; work counts where the paper says what must not be
// visited; and the fill rules of item 1: inferred output fills (through user functions too),
// NaN fills under IEEE, explicit fills, and the error for an impossible output fill.
#include <cmath>
#include <limits>

#include "compiler_test_util.hpp"

namespace siskin::testing {
namespace {

const double kInf = std::numeric_limits<double>::infinity();
const double kNaN = std::numeric_limits<double>::quiet_NaN();

// A vector of `type` from entries {coordinate, value}.
Tensor vec(int64_t n, const std::string& format, ValueType type, Scalar fill,
           std::initializer_list<std::pair<int64_t, Scalar>> list) {
    CoordinateList c;
    c.ndims = 1;
    for (const auto& [i, v] : list) c.add(std::vector<int64_t>{i}, v);
    return Tensor::from_coordinates({n}, type, fill, Format::parse(format, 1), c);
}
Tensor fvec(int64_t n, const std::string& format, double fill,
            std::initializer_list<std::pair<int64_t, double>> list) {
    CoordinateList c;
    c.ndims = 1;
    for (const auto& [i, v] : list) c.add(std::vector<int64_t>{i}, Scalar::of(v));
    return Tensor::from_coordinates({n}, ValueType::Float64, Scalar::of(fill),
                                    Format::parse(format, 1), c);
}
// A bool vector that stores `at` as true and `explicit_false` as stored false entries.
Tensor bvec(int64_t n, const std::string& format, std::vector<int64_t> at,
            std::vector<int64_t> explicit_false = {}) {
    CoordinateList c;
    c.ndims = 1;
    for (int64_t i : at) c.add(std::vector<int64_t>{i}, Scalar::of(true));
    for (int64_t i : explicit_false) c.add(std::vector<int64_t>{i}, Scalar::of(false));
    return Tensor::from_coordinates({n}, ValueType::Bool, Scalar::of(false),
                                    Format::parse(format, 1), c);
}
Tensor bmat(int64_t m, int64_t n, const std::string& format,
            std::vector<std::pair<int64_t, int64_t>> at) {
    CoordinateList c;
    c.ndims = 2;
    for (const auto& [i, j] : at) c.add(std::vector<int64_t>{i, j}, Scalar::of(true));
    return Tensor::from_coordinates({m, n}, ValueType::Bool, Scalar::of(false),
                                    Format::parse(format, 2), c);
}

std::vector<double> dense_values(const Tensor& t) {
    std::vector<double> out;
    for (const Scalar& s : t.to_dense()) out.push_back(s.as_double());
    return out;
}

// Element-wise equality with NaN == NaN.
::testing::AssertionResult SameValues(const std::vector<double>& got, const std::vector<double>& want) {
    bool ok = got.size() == want.size();
    for (size_t k = 0; ok && k < got.size(); ++k)
        ok = (std::isnan(got[k]) && std::isnan(want[k])) || got[k] == want[k];
    if (ok) return ::testing::AssertionSuccess();
    auto show = [](const std::vector<double>& v) {
        std::string s;
        for (double d : v) s += std::to_string(d) + " ";
        return s;
    };
    return ::testing::AssertionFailure() << "got " << show(got) << "want " << show(want);
}

std::vector<int64_t> stored_1d(const Tensor& t) {
    std::vector<int64_t> out;
    for (const auto& c : stored_coordinates(t)) out.push_back(c[0]);
    return out;
}

struct Counted {
    std::map<std::string, Tensor> outputs;
    int64_t work = -1;
};

// Compiled with count_work; also checked against the reference evaluator.
Counted run_counted(const std::string& text, const std::map<std::string, const Tensor*>& inputs,
                    const std::map<std::string, OutputSpec>& specs = {}) {
    ir::Program program = ir::parse_program(text);
    CompileOptions options = test_options();
    options.count_work = true;
    CompiledProgram compiled = compile_for(program, inputs, specs, options);
    Counted out;
    out.outputs = compiled.run(inputs);
    out.work = compiled.kernel->last_work();
    for (const auto& [name, want] : evaluate_reference(program, inputs, specs)) {
        const Tensor& got = out.outputs.at(name);
        EXPECT_TRUE(got.equals(want) && got.fill().same(want.fill())) << text << "\n"
                                                                      << got.to_string();
        EXPECT_EQ(stored_coordinates(got), stored_coordinates(want)) << text;
    }
    return out;
}

OutputSpec sparse(double fill = kNaN, bool with_fill = false) {
    OutputSpec s;
    s.format = Format::parse("sparselist(0)", 1);
    if (with_fill) s.fill = Scalar::of(fill);
    return s;
}

// ---- 1. Fill-valued formats: the explicit 0 stays 0, not fill. ----
TEST(UfuncsPaper, FillValuedCsrKeepsExplicitEntries) {
    Tensor a = make({2, 2}, "csr", {{{0, 1}, 5.0}, {{1, 0}, 0.0}}, 1.0);
    EXPECT_TRUE(SameValues(dense_values(a), {1, 5, 0, 1}));
    OutputSpec csr;
    csr.format = Format::csr();
    auto out = run_counted("C[i, j] = A[i, j]", {{"A", &a}}, {{"C", csr}}).outputs.at("C");
    EXPECT_TRUE(out.fill().same(Scalar::of(1.0)));
    EXPECT_EQ(stored_coordinates(out), (std::vector<std::vector<int64_t>>{{0, 1}, {1, 0}}));
}

// ---- 4. Annihilator: ternary max, A and B fill inf, C fill 0: only A ∩ B is computed. ----
TEST(UfuncsPaper, TernaryMaximumIteratesTheIntersection) {
    Tensor a = fvec(6, "sparselist(0)", kInf, {{0, 1}, {2, 5}, {3, -2}});
    Tensor b = fvec(6, "sparselist(0)", kInf, {{2, 4}, {3, 7}, {5, 0}});
    Tensor c = fvec(6, "sparselist(0)", 0, {{0, 3}, {2, 9}, {3, 1}, {4, 8}});
    auto r = run_counted("w[i] = maximum(maximum(A[i], B[i]), C[i])",
                         {{"A", &a}, {"B", &b}, {"C", &c}}, {{"w", sparse()}});
    const Tensor& w = r.outputs.at("w");
    EXPECT_TRUE(w.fill().same(Scalar::of(kInf)));
    EXPECT_TRUE(SameValues(dense_values(w), {kInf, kInf, 9, 7, kInf, kInf}));
    EXPECT_EQ(stored_1d(w), (std::vector<int64_t>{2, 3}));
}

// ---- 5. Idempotent: min with both fills 7 gives fill 7 and the union. ----
TEST(UfuncsPaper, MinimumOfEqualFillsKeepsTheFill) {
    Tensor a = fvec(5, "sparselist(0)", 7, {{0, 3}, {2, 9}});
    Tensor b = fvec(5, "sparselist(0)", 7, {{2, 4}, {3, 10}});
    auto w = run_counted("w[i] = minimum(A[i], B[i])", {{"A", &a}, {"B", &b}}, {{"w", sparse()}})
                 .outputs.at("w");
    EXPECT_TRUE(w.fill().same(Scalar::of(7.0)));
    EXPECT_TRUE(SameValues(dense_values(w), {3, 7, 4, 7, 7}));
    EXPECT_EQ(stored_1d(w), (std::vector<int64_t>{0, 2}));
}

// ---- 6. Identity: max with A at its identity -inf and B at 42: the output fill is 42. ----
TEST(UfuncsPaper, MaximumWithIdentityFillInfersTheOtherFill) {
    Tensor a = fvec(6, "sparselist(0)", -kInf, {{1, 50}, {3, 10}});
    Tensor b = fvec(6, "sparselist(0)", 42, {{3, 45}, {4, 30}});
    auto w = run_counted("w[i] = maximum(A[i], B[i])", {{"A", &a}, {"B", &b}}, {{"w", sparse()}})
                 .outputs.at("w");
    EXPECT_TRUE(w.fill().same(Scalar::of(42.0)));
    EXPECT_TRUE(SameValues(dense_values(w), {42, 50, 42, 45, 30, 42}));
    // Coordinate 4 (30 < 42) proves the union: B alone decides it.
    EXPECT_EQ(stored_1d(w), (std::vector<int64_t>{1, 3, 4}));
}

// ---- 9 and 10. No properties: the fill by constant propagation through a user function; a
// user-fixed fill the program does not produce is refused for a sparse output. ----
TEST(UfuncsPaper, FallbackFillThroughAUserFunction) {
    const std::string defs =
        "def ufuncs_paper_f(x: float64, y: float64) -> float64 { return x + 2 * y }\n";
    Tensor x = fvec(4, "sparselist(0)", 1, {{0, 5}});
    Tensor y = fvec(4, "sparselist(0)", 3, {{2, 0}});
    std::map<std::string, const Tensor*> in{{"x", &x}, {"y", &y}};
    auto w = run_counted(defs + "w[i] = ufuncs_paper_f(x[i], y[i])", in, {{"w", sparse()}})
                 .outputs.at("w");
    EXPECT_TRUE(w.fill().same(Scalar::of(7.0)));
    EXPECT_TRUE(SameValues(dense_values(w), {11, 7, 1, 7}));
    EXPECT_EQ(stored_1d(w), (std::vector<int64_t>{0, 2}));

    // Fill 0 for a sparse output: the program gives 7 where x and y hold their fills.
    ir::Program p = ir::parse_program(defs + "w[i] = ufuncs_paper_f(x[i], y[i])");
    std::map<std::string, OutputSpec> zero{{"w", sparse(0.0, true)}};
    for (auto evaluate : {+[](const ir::Program& q, const std::map<std::string, const Tensor*>& i,
                              const std::map<std::string, OutputSpec>& s) {
                              evaluate_reference(q, i, s);
                          },
                          +[](const ir::Program& q, const std::map<std::string, const Tensor*>& i,
                              const std::map<std::string, OutputSpec>& s) {
                              evaluate_compiled(q, i, s, test_options());
                          }})
        EXPECT_TRUE(throws_error([&] { evaluate(p, in, zero); },
                                 {"output w cannot have fill 0", "gives it 7",
                                  "sparselist(0)", "dense output"}));
    // A dense output takes any fill: all four elements are computed.
    OutputSpec dense;
    dense.fill = Scalar::of(0.0);
    auto d = run_counted(defs + "w[i] = ufuncs_paper_f(x[i], y[i])", in, {{"w", dense}})
                 .outputs.at("w");
    EXPECT_TRUE(d.fill().same(Scalar::of(0.0)));
    EXPECT_TRUE(SameValues(dense_values(d), {11, 7, 1, 7}));
}

// ---- 12. The masked power of Fig. 2: a = pow(b, c) * !d, fill 1 inferred. ----
TEST(UfuncsPaper, MaskedPowerWithFillOne) {
    Tensor b = fvec(6, "sparselist(0)", 0, {{0, 2}, {2, 3}, {4, 5}});
    Tensor c = fvec(6, "sparselist(0)", 0, {{0, 3}, {1, 2}, {4, 2}});
    Tensor d = bvec(6, "sparselist(0)", {4});
    std::map<std::string, const Tensor*> in{{"b", &b}, {"c", &c}, {"d", &d}};
    const std::string text = "a[i] = power(b[i], c[i]) * !d[i]";
    auto a = run_counted(text, in, {{"a", sparse()}}).outputs.at("a");
    EXPECT_TRUE(a.fill().same(Scalar::of(1.0)));
    EXPECT_TRUE(SameValues(dense_values(a), {8, 0, 1, 1, 0, 1}));
    EXPECT_EQ(stored_1d(a), (std::vector<int64_t>{0, 1, 4}));
    // The same with `A^B * !D` spelled with symbols: ** is not siskin syntax, but pow is.
    auto a2 = run_counted("a[i] = pow(b[i], c[i]) * logical_not(d[i])", in, {{"a", sparse()}})
                  .outputs.at("a");
    EXPECT_TRUE(a2.equals(a));
    // Output fill 0 is refused for a sparse output (the program gives 1 there), taken by a
    // dense one.
    EXPECT_TRUE(throws_error(
        [&] { run_compiled(text, in, {{"a", sparse(0.0, true)}}); },
        {"output a cannot have fill 0", "gives it 1"}));
    OutputSpec dense;
    dense.fill = Scalar::of(0.0);
    auto ad = run_counted(text, in, {{"a", dense}}).outputs.at("a");
    EXPECT_TRUE(SameValues(dense_values(ad), {8, 0, 1, 1, 0, 1}));
}

// ---- 13, 14. XOR: symmetric difference, explicit false entries change nothing. ----
TEST(UfuncsPaper, LogicalXorIsTheSymmetricDifference) {
    const int64_t n = 1000;
    Tensor b = bvec(n, "sparselist(0)", {2, 5, 7, 8});
    for (std::vector<int64_t> explicit_a : {std::vector<int64_t>{}, std::vector<int64_t>{5}}) {
        Tensor a = bvec(n, "sparselist(0)", {0, 2, 3, 7}, explicit_a);
        auto r = run_counted("w[i] = logical_xor(a[i], b[i])", {{"a", &a}, {"b", &b}},
                             {{"w", sparse()}});
        EXPECT_EQ(stored_1d(r.outputs.at("w")), (std::vector<int64_t>{0, 3, 5, 8}));
        EXPECT_TRUE(r.outputs.at("w").fill().same(Scalar::of(false)));
        EXPECT_LE(r.work, 12) << "a loop over all " << n << " coordinates";
    }
    Tensor a = bvec(n, "sparselist(0)", {0, 2, 3, 7});
    Tensor b0 = bvec(n, "sparselist(0)", {2, 5, 7, 8}, {0});
    auto r = run_counted("w[i] = logical_xor(a[i], b[i])", {{"a", &a}, {"b", &b0}},
                         {{"w", sparse()}});
    EXPECT_EQ(stored_1d(r.outputs.at("w")), (std::vector<int64_t>{0, 3, 5, 8}));
}

// ---- 15. 2-D XOR, CSR and DCSR: no row may be skipped at the outer level. ----
TEST(UfuncsPaper, MatrixXorInCsrAndDcsr) {
    for (const char* format : {"csr", "dcsr"}) {
        Tensor a = bmat(3, 3, format, {{0, 0}, {0, 2}, {1, 1}});
        Tensor b = bmat(3, 3, format, {{0, 2}, {1, 0}, {2, 2}});
        OutputSpec out;
        out.format = Format::parse(format, 2);
        auto c = run_counted("C[i, j] = logical_xor(A[i, j], B[i, j])", {{"A", &a}, {"B", &b}},
                             {{"C", out}})
                     .outputs.at("C");
        EXPECT_EQ(stored_coordinates(c),
                  (std::vector<std::vector<int64_t>>{{0, 0}, {1, 0}, {1, 1}, {2, 2}}))
            << format;
    }
}

// ---- 16. Set difference a ∩ ¬b: no loop over the whole dimension. ----
TEST(UfuncsPaper, MaskedSetDifferenceVisitsOnlyStoredEntries) {
    const int64_t n = 1000;
    Tensor a = fvec(n, "sparselist(0)", 0, {{1, 1}, {3, 2}, {4, 3}, {8, 4}});
    Tensor b = bvec(n, "sparselist(0)", {3, 5, 8});
    for (const char* text : {"w[i] = a[i] * !b[i]", "w[i] = where(b[i], 0, a[i])"}) {
        auto r = run_counted(text, {{"a", &a}, {"b", &b}}, {{"w", sparse()}});
        const Tensor& w = r.outputs.at("w");
        EXPECT_EQ(stored_1d(w), (std::vector<int64_t>{1, 4})) << text;
        EXPECT_TRUE(SameValues({w.at({1}).as_double(), w.at({4}).as_double()}, {1, 3})) << text;
        EXPECT_LE(r.work, 4 + 3 + 2) << text; // nnz(a) + nnz(b) and the loops' set-up
    }
}

// ---- 19, 20. Fused logical ufuncs: the medical kernel and and∘xor. ----
TEST(UfuncsPaper, FusedLogicalUfuncs) {
    const int64_t n = 1000;
    Tensor r = bvec(n, "sparselist(0)", {0, 1, 2, 3});
    Tensor t1 = bvec(n, "sparselist(0)", {1, 2, 3, 5});
    Tensor t2 = bvec(n, "sparselist(0)", {1, 3});
    auto med = run_counted("w[i] = logical_xor(logical_and(T2[i], R[i]), logical_and(T1[i], R[i]))",
                           {{"R", &r}, {"T1", &t1}, {"T2", &t2}}, {{"w", sparse()}});
    EXPECT_EQ(stored_1d(med.outputs.at("w")), (std::vector<int64_t>{2}));
    EXPECT_LE(med.work, 4 + 4 + 2 + 2);

    Tensor a = bvec(n, "sparselist(0)", {0, 2, 3, 7});
    Tensor b = bvec(n, "sparselist(0)", {2, 5, 7, 8});
    Tensor c = bvec(n, "sparselist(0)", {0, 2, 5, 6});
    auto fused = run_counted("w[i] = logical_and(logical_xor(a[i], b[i]), c[i])",
                             {{"a", &a}, {"b", &b}, {"c", &c}}, {{"w", sparse()}});
    EXPECT_EQ(stored_1d(fused.outputs.at("w")), (std::vector<int64_t>{0, 5}));
    EXPECT_LE(fused.work, 4 + 4 + 4 + 2);
}

// ---- Fig. 20 (the ufunc spaces): ldexp and right_shift are sparse in x1, power has fill 1. ----
TEST(UfuncsPaper, UfuncSpacesUnderZeroFills) {
    const int64_t n = 1000;
    Tensor x = fvec(n, "sparselist(0)", 0, {{1, 1.5}, {500, 2}});
    CoordinateList threes;
    threes.ndims = 1;
    for (int64_t i = 0; i < n; i += 2) threes.add(std::vector<int64_t>{i}, Scalar::of(int64_t{3}));
    Tensor y = Tensor::from_coordinates({n}, ValueType::Int64, Scalar::of(int64_t{0}),
                                        Format::parse("sparselist(0)", 1), threes);
    auto ld = run_counted("w[i] = ldexp(x[i], y[i])", {{"x", &x}, {"y", &y}}, {{"w", sparse()}});
    EXPECT_EQ(stored_1d(ld.outputs.at("w")), (std::vector<int64_t>{1, 500}));
    EXPECT_EQ(ld.outputs.at("w").at({500}).as_double(), 16.0);
    EXPECT_EQ(ld.outputs.at("w").at({1}).as_double(), 1.5);

    Tensor xi = vec(n, "sparselist(0)", ValueType::Int64, Scalar::of(int64_t{0}),
                    {{1, Scalar::of(int64_t{-16})}, {500, Scalar::of(int64_t{40})}});
    auto sh = run_counted("w[i] = right_shift(x[i], y[i])", {{"x", &xi}, {"y", &y}},
                          {{"w", sparse()}});
    EXPECT_EQ(stored_1d(sh.outputs.at("w")), (std::vector<int64_t>{1, 500}));
    EXPECT_EQ(sh.outputs.at("w").at({500}).as_int(), 5);
    EXPECT_EQ(sh.outputs.at("w").at({1}).as_int(), -16);

    // power: 0 ** 0 is 1, the fill; x ** 0 is 1 where only x is stored.
    Tensor base = fvec(8, "sparselist(0)", 0, {{1, 2}, {2, 3}});
    Tensor ex = fvec(8, "sparselist(0)", 0, {{2, 2}, {5, 1}});
    auto pw = run_counted("w[i] = power(b[i], e[i])", {{"b", &base}, {"e", &ex}}, {{"w", sparse()}})
                  .outputs.at("w");
    EXPECT_TRUE(pw.fill().same(Scalar::of(1.0)));
    EXPECT_TRUE(SameValues(dense_values(pw), {1, 1, 9, 1, 1, 0, 1, 1}));
    EXPECT_EQ(stored_1d(pw), (std::vector<int64_t>{2, 5}));
}

// ---- The issue's example: where with a transposed read. ----
TEST(UfuncsPaper, WhereWithATransposedCondition) {
    Tensor a = make({3, 3}, "csr", {{{0, 1}, 2.0}, {{1, 0}, 0.0}, {{2, 2}, -1.0}, {{2, 0}, 4.0}});
    auto c = run_counted("C[i, j] = where(A[j, i], A[i, j], 7)", {{"A", &a}}).outputs.at("C");
    // C[i,j] = A[i,j] where A[j,i] is nonzero, else 7; the fill is where(0, 0, 7) = 7.
    // C[0,2] and C[1,0] read A[2,0] = 4 and A[0,1] = 2: the values there are A[0,2] (fill 0)
    // and the explicit 0 at A[1,0]; C[2,0] reads A[0,2] (fill 0): 7.
    EXPECT_TRUE(c.fill().same(Scalar::of(7.0)));
    EXPECT_TRUE(SameValues(dense_values(c), {7, 7, 0, 0, 7, 7, 7, 7, -1}));
}

// ---- NaN fills follow IEEE; explicit fills are ordinary values. ----
TEST(UfuncsPaper, NanFillsFollowIeee) {
    Tensor x = fvec(3, "sparselist(0)", kNaN, {{1, 2}});
    Tensor y = fvec(3, "sparselist(0)", kNaN, {{1, 2}, {2, kNaN}});
    std::map<std::string, const Tensor*> in{{"x", &x}, {"y", &y}};
    auto eq = run_counted("w[i] = equal(x[i], y[i])", in, {{"w", sparse()}}).outputs.at("w");
    EXPECT_TRUE(eq.fill().same(Scalar::of(false))); // NaN == NaN is false
    EXPECT_TRUE(SameValues(dense_values(eq), {0, 1, 0}));
    auto ne = run_counted("w[i] = not_equal(x[i], y[i])", in).outputs.at("w");
    EXPECT_TRUE(ne.fill().same(Scalar::of(true)));
    EXPECT_TRUE(SameValues(dense_values(ne), {1, 0, 1}));

    Tensor z = fvec(3, "sparselist(0)", 0, {{0, 5}, {2, -1}});
    std::map<std::string, const Tensor*> xz{{"x", &x}, {"z", &z}};
    auto mx = run_counted("w[i] = maximum(x[i], z[i])", xz, {{"w", sparse()}}).outputs.at("w");
    EXPECT_TRUE(mx.fill().is_nan()); // maximum propagates NaN
    EXPECT_TRUE(SameValues(dense_values(mx), {kNaN, 2, kNaN}));
    auto fx = run_counted("w[i] = fmax(x[i], z[i])", xz, {{"w", sparse()}}).outputs.at("w");
    EXPECT_TRUE(fx.fill().same(Scalar::of(0.0))); // fmax ignores it
    EXPECT_TRUE(SameValues(dense_values(fx), {5, 2, -1}));
    EXPECT_EQ(stored_1d(fx), (std::vector<int64_t>{0, 1, 2}));
}

// 0 * x is 0 only for finite x: the compiler must not skip inf and NaN where a sparse operand
// holds 0, and a fill of inf is not annihilated either.
TEST(UfuncsPaper, ZeroTimesInfIsNotAnnihilated) {
    Tensor x = fvec(4, "sparselist(0)", 0, {{1, 2}});
    Tensor y = fvec(4, "dense", 0, {{0, kInf}, {1, kNaN}, {2, 3}});
    auto w = run_counted("w[i] = x[i] * y[i]", {{"x", &x}, {"y", &y}}, {{"w", sparse()}})
                 .outputs.at("w");
    EXPECT_TRUE(SameValues(dense_values(w), {kNaN, kNaN, 0, 0}));
    Tensor inf = fvec(4, "sparselist(0)", kInf, {{2, 1}});
    auto v = run_counted("w[i] = x[i] * y[i]", {{"x", &x}, {"y", &inf}}).outputs.at("w");
    EXPECT_TRUE(v.fill().is_nan()); // 0 * inf
    EXPECT_TRUE(SameValues(dense_values(v), {kNaN, 2 * kInf, 0, kNaN}));
}

// The fill check: only `=` outputs whose value on the fills is known; an `if` false on the fills
// does not count; reductions are never refused; int and bool fills too.
TEST(UfuncsPaper, RequestedFillsAreCheckedOnlyWhereTheProgramDecides) {
    Tensor x = fvec(4, "sparselist(0)", 0, {{1, 2}});
    Tensor m = bvec(4, "sparselist(0)", {1});
    std::map<std::string, const Tensor*> xm{{"x", &x}, {"m", &m}};
    // Under `if m[i]`, with m at fill false, nothing is written: any fill is fine.
    auto w = run_counted("for i { if m[i] { w[i] = x[i] + 1 } }", xm, {{"w", sparse(5, true)}})
                 .outputs.at("w");
    EXPECT_TRUE(SameValues(dense_values(w), {5, 3, 5, 5}));
    // A value that depends on the index is not known: no check.
    run_counted("w[i] = x[i] + i", xm, {{"w", sparse(0, true)}});
    // A reduction starts from the fill: any fill is meaningful.
    run_counted("s[] += x[i]", xm, {{"s", OutputSpec{std::nullopt, Scalar::of(1.0), {}, {}}}});
    // Integer and bool outputs.
    Tensor k = vec(4, "sparselist(0)", ValueType::Int64, Scalar::of(int64_t{3}),
                   {{0, Scalar::of(int64_t{1})}});
    OutputSpec s;
    s.format = Format::parse("sparselist(0)", 1);
    s.fill = Scalar::of(int64_t{0});
    EXPECT_TRUE(throws_error([&] { run_compiled("w[i] = left_shift(k[i], 2)", {{"k", &k}}, {{"w", s}}); },
                             {"output w cannot have fill 0", "gives it 12"}));
    s.fill = Scalar::of(int64_t{12});
    auto sh = run_counted("w[i] = left_shift(k[i], 2)", {{"k", &k}}, {{"w", s}}).outputs.at("w");
    EXPECT_EQ(stored_1d(sh), (std::vector<int64_t>{0}));
    s.fill = Scalar::of(false); // logical_not of m's fill false is true
    EXPECT_TRUE(throws_error([&] { run_compiled("w[i] = logical_not(m[i])", xm, {{"w", s}}); },
                             {"cannot have fill false", "gives it true"}));
}

} // namespace
} // namespace siskin::testing

namespace siskin::testing {
namespace {

// `siskin c` compiles from signatures alone (infer_signatures): the same check applies there.
TEST(UfuncsPaper, InferSignaturesChecksRequestedFills) {
    ir::Program p = ir::parse_program("w[i] = maximum(a[i], b[i])");
    TensorSignature a, b;
    a.format = b.format = Format::parse("sparselist(0)", 1);
    a.ndims = b.ndims = 1;
    a.fill = Scalar::of(-kInf);
    b.fill = Scalar::of(42.0);
    OutputSpec spec;
    spec.format = Format::parse("sparselist(0)", 1);
    auto sigs = infer_signatures(p, {{"a", a}, {"b", b}}, {{"w", spec}});
    EXPECT_TRUE(sigs.at("w").fill.same(Scalar::of(42.0)));
    spec.fill = Scalar::of(0.0);
    EXPECT_TRUE(throws_error([&] { infer_signatures(p, {{"a", a}, {"b", b}}, {{"w", spec}}); },
                             {"output w cannot have fill 0", "gives it 42"}));
    spec.format = Format::dense(1);
    EXPECT_TRUE(infer_signatures(p, {{"a", a}, {"b", b}}, {{"w", spec}}).at("w").fill.same(
        Scalar::of(0.0)));
}

} // namespace
} // namespace siskin::testing
