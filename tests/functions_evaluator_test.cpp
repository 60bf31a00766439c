// User functions in programs: the reference evaluator and output fill inference reach them
// through the operator registry, unchanged. Expected values are computed here directly.
#include <cmath>
#include <numeric>

#include <gtest/gtest.h>

#include "functions_test_util.hpp"
#include "passes/output_fill.hpp"
#include "siskin/ir/text.hpp"
#include "siskin/reference.hpp"

using namespace siskin;
using namespace siskin::functions_test;

namespace {

const std::string kGcd = R"(
def gcd_ev(a: int64, b: int64) -> int64 [commutative, associative, annihilator(1)] {
    while b != 0 { let t = b; b = a % b; a = t }
    return abs(a)
}
case gcd_ev(x, 0) = abs(x)
)";

const std::string kUmax = R"(
def umax_ev(a: float64, b: float64) -> float64 [commutative, associative, idempotent, identity(-inf)] {
    if a != a || b != b { return a + b }
    if a < b { return b }
    return a
}
)";

const std::string kCollatz = R"(
def collatz_ev(n: int64) -> int64 {
    let steps = 0
    while n != 1 {
        if n % 2 == 0 { n = floordiv(n, 2) } else { n = 3 * n + 1 }
        steps = steps + 1
    }
    return steps
}
)";

Format sparse_vector() {
    return Format::parse("sparselist(0)", 1);
}

Tensor ints(std::vector<int64_t> values, int64_t fill, const Format& format = sparse_vector()) {
    std::vector<Scalar> s;
    for (int64_t v : values) s.push_back(i64(v));
    return Tensor::from_dense({static_cast<int64_t>(values.size())}, ValueType::Int64, i64(fill),
                              format, s);
}

Tensor floats(std::vector<double> values, double fill, const Format& format = sparse_vector()) {
    std::vector<Scalar> s;
    for (double v : values) s.push_back(f64(v));
    return Tensor::from_dense({static_cast<int64_t>(values.size())}, ValueType::Float64, f64(fill),
                              format, s);
}

std::map<std::string, Tensor> run(const std::string& text,
                                  std::map<std::string, const Tensor*> inputs,
                                  std::map<std::string, OutputSpec> outputs = {}) {
    return evaluate_reference(ir::parse_program(text), inputs, outputs);
}

OutputSpec sparse_out() {
    OutputSpec spec;
    spec.format = sparse_vector();
    return spec;
}

} // namespace

TEST(FunctionsEvaluator, GcdOfTwoSparseVectorsWithFillZero) {
    std::vector<int64_t> a = {12, 0, 0, 9, 0, -7, 0, 100};
    std::vector<int64_t> b = {18, 5, 0, 6, 0, 0, -4, 75};
    Tensor A = ints(a, 0), B = ints(b, 0);
    auto out =
        run(kGcd + "C[i] = gcd_ev(A[i], B[i])", {{"A", &A}, {"B", &B}}, {{"C", sparse_out()}});
    const Tensor& C = out.at("C");
    EXPECT_TRUE(Is(C.fill(), i64(0))); // gcd(0, 0), inferred
    for (size_t k = 0; k < a.size(); ++k)
        EXPECT_TRUE(Is(C.at({static_cast<int64_t>(k)}), i64(std::gcd(a[k], b[k])))) << k;
    EXPECT_EQ(C.stored(), 6); // 6, 5, 3, 7, 4, 25; the two (0, 0) positions hold the fill
}

TEST(FunctionsEvaluator, GcdOfTwoSparseVectorsWithFillOne) {
    std::vector<int64_t> a = {1, 4, 1, 6, 1, 15};
    std::vector<int64_t> b = {1, 1, 10, 9, 1, 10};
    Tensor A = ints(a, 1), B = ints(b, 1);
    auto out =
        run(kGcd + "C[i] = gcd_ev(A[i], B[i])", {{"A", &A}, {"B", &B}}, {{"C", sparse_out()}});
    const Tensor& C = out.at("C");
    EXPECT_TRUE(Is(C.fill(), i64(1))); // gcd(1, 1): 1 annihilates, so most of C is 1
    for (size_t k = 0; k < a.size(); ++k)
        EXPECT_TRUE(Is(C.at({static_cast<int64_t>(k)}), i64(std::gcd(a[k], b[k])))) << k;
    EXPECT_EQ(C.stored(), 2); // gcd(6, 9) = 3 and gcd(15, 10) = 5
    // Fills 0 and 1 meet: gcd(0, 1) = 1.
    Tensor Z = ints({0, 8, 0}, 0), O = ints({1, 12, 3}, 1);
    auto mixed = run(kGcd + "C[i] = gcd_ev(Z[i], O[i])", {{"Z", &Z}, {"O", &O}});
    EXPECT_TRUE(Is(mixed.at("C").fill(), i64(1)));
    EXPECT_TRUE(Is(mixed.at("C").at({1}), i64(4)));
    EXPECT_TRUE(Is(mixed.at("C").at({2}), i64(3)));
}

TEST(FunctionsEvaluator, UserMaxWithIdentityMinusInfinity) {
    const double inf = kInf;
    Tensor A = floats({-inf, 3, -inf, 7.5, -2}, -inf);
    // A reduction into a scalar starts from the declared identity, which is also its fill.
    auto red = run(kUmax + "s[] <<umax_ev>>= A[i]", {{"A", &A}});
    EXPECT_TRUE(Is(red.at("s").at({}), f64(7.5)));
    EXPECT_TRUE(Is(red.at("s").fill(), f64(-inf)));
    // Elementwise with another operand of fill 42: the output fill is umax(-inf, 42) = 42.
    Tensor B = floats({42, 1, 50, 42, 42}, 42);
    auto ew =
        run(kUmax + "C[i] = umax_ev(A[i], B[i])", {{"A", &A}, {"B", &B}}, {{"C", sparse_out()}});
    const Tensor& C = ew.at("C");
    EXPECT_TRUE(Is(C.fill(), f64(42)));
    std::vector<double> want = {42, 3, 50, 42, 42};
    for (size_t k = 0; k < want.size(); ++k)
        EXPECT_TRUE(Is(C.at({static_cast<int64_t>(k)}), f64(want[k]))) << k;
    EXPECT_EQ(C.stored(), 2);
    // NaN fills propagate, as IEEE max does.
    Tensor N = floats({1, 2, 3, 4, 5}, kNaN);
    auto nan = run(kUmax + "C[i] = umax_ev(A[i], N[i])", {{"A", &A}, {"N", &N}});
    EXPECT_TRUE(nan.at("C").fill().is_nan());
}

TEST(FunctionsEvaluator, FunctionsWithWhileLoops) {
    Tensor A = ints({1, 2, 3, 6, 7, 27}, 1, Format::dense(1));
    auto out = run(kCollatz + "C[i] = collatz_ev(A[i])", {{"A", &A}});
    std::vector<int64_t> want = {0, 1, 7, 8, 16, 111};
    for (size_t k = 0; k < want.size(); ++k)
        EXPECT_TRUE(Is(out.at("C").at({static_cast<int64_t>(k)}), i64(want[k]))) << k;
}

TEST(FunctionsEvaluator, FillInferenceRunsThroughUserFunctions) {
    ir::Program p = ir::parse_program(kCollatz + "C[i] = collatz_ev(A[i]) + 1");
    EXPECT_TRUE(Is(infer_output_fill(p, "C", ValueType::Int64, {{"A", i64(27)}}), i64(112)));
    // And through the evaluator, with a sparse input whose fill is 27.
    Tensor A = ints({27, 2, 27}, 27);
    auto out = evaluate_reference(p, {{"A", &A}});
    EXPECT_TRUE(Is(out.at("C").fill(), i64(112)));
    EXPECT_TRUE(Is(out.at("C").at({1}), i64(2)));
    // Special cases take part in constant folding too.
    ir::Program q = ir::parse_program(R"(
def cased_ev(x: float64) -> float64 {
    return x * 2
}
case cased_ev(0) = 5.0
C[i] = cased_ev(A[i]))");
    EXPECT_TRUE(Is(infer_output_fill(q, "C", ValueType::Float64, {{"A", f64(0.0)}}), f64(5)));
    EXPECT_TRUE(Is(infer_output_fill(q, "C", ValueType::Float64, {{"A", f64(3.0)}}), f64(6)));
}

TEST(FunctionsEvaluator, ErrorsInsideFunctionsReachTheCaller) {
    ir::Program p = ir::parse_program(R"(
def forever_ev(x: int64) -> int64 {
    while x > 0 {}
    return x
}
C[i] = forever_ev(A[i]))");
    Tensor A = ints({0, 3, 0}, 0);
    EXPECT_TRUE(ThrowsWith(
        [&] {
            evaluate_reference(p, {{"A", &A}});
        },
        "forever_ev(int64 3) did not finish within 1000000 loop steps"));
    // Fill inference meets the loop first when the fill itself never finishes.
    Tensor B = ints({0, 3, 0}, 5);
    EXPECT_TRUE(ThrowsWith([&] { evaluate_reference(p, {{"A", &B}}); }, "forever_ev(int64 5)"));
    // A float64 tensor cannot be passed for an int64 parameter without a conversion.
    ir::parse_program(kGcd);
    Tensor F = floats({1, 2}, 0);
    EXPECT_TRUE(ThrowsWith(
        [&] {
            run("C[i] = gcd_ev(F[i], F[i])", {{"F", &F}});
        },
        "function 'gcd_ev' takes int64 as argument 1 (a); a float64 argument "
        "does not convert to int64 without loss"));
}
