// check_function: true claims pass; every kind of false claim (commutative, associative,
// idempotent, identity, annihilator, positional ones, special cases) is caught with a
// counterexample; a call that does not finish is a violation, not a hang.
#include <gtest/gtest.h>

#include "functions_test_util.hpp"

using namespace siskin;
using namespace siskin::functions_test;

namespace {

std::vector<PropertyViolation> check(const std::string& text) {
    std::vector<FunctionDef> defs = parse_functions(text, "<props>");
    SISKIN_ASSERT(defs.size() == 1, "check: one definition expected");
    return check_function(defs[0]);
}

// The violations of `property`, each message holding `needle`; a failure lists them all.
::testing::AssertionResult Violates(const std::vector<PropertyViolation>& found,
                                    const std::string& property, const std::string& needle) {
    std::string all;
    for (const auto& v : found) {
        if (v.property == property && v.message.find(needle) != std::string::npos)
            return ::testing::AssertionSuccess();
        all += "\n  " + v.property + ": " + v.message;
    }
    return ::testing::AssertionFailure() << "no " << property << " violation with '" << needle
                                         << "' among:" << (all.empty() ? " none" : all);
}

std::string all_of(const std::vector<PropertyViolation>& found) {
    std::string all;
    for (const auto& v : found) all += "\n  " + v.property + ": " + v.message;
    return all;
}

} // namespace

TEST(FunctionsProperties, TrueClaimsHold) {
    const char* texts[] = {
        R"(def gcd_prop(a: int64, b: int64) -> int64 [commutative, associative, annihilator(1)] {
    while b != 0 { let t = b; b = a % b; a = t }
    return abs(a)
}
case gcd_prop(x, 0) = abs(x)
case gcd_prop(0, y) = abs(y))",
        // A max that propagates NaN, as NumPy's maximum does, has identity -inf.
        R"(def umax_prop(a: float64, b: float64) -> float64 [commutative, associative, idempotent, identity(-inf), annihilator(inf), annihilator_finite_only] {
    if a != a || b != b { return a + b }
    if a < b { return b }
    return a
})",
        "def fdiv_prop(a: float64, b: float64) -> float64 [identity(1.0, b)] { return a / b }",
        "def fmul_prop(a: float64, b: float64) -> float64 [commutative, annihilator(0.0), "
        "annihilator_finite_only] { return a * b }",
        "def band_prop(a: bool, b: bool) -> bool [commutative, associative, idempotent, "
        "identity(true), annihilator(false)] { return a && b }",
        "def first_prop(a: int32, b: int32) -> int32 [associative, idempotent] { return a }",
        "def sat_prop(a: uint8, b: uint8) -> uint8 [commutative, associative, identity(uint8(0)), "
        "annihilator(uint8(255))] {\n    let s = uint16(a) + uint16(b)\n"
        "    if s > 255 { return uint8(255) }\n    return uint8(s)\n}",
    };
    for (const char* text : texts) {
        auto found = check(text);
        EXPECT_TRUE(found.empty()) << text << all_of(found);
    }
}

TEST(FunctionsProperties, FalseClaimsAreCaughtWithCounterexamples) {
    EXPECT_TRUE(
        Violates(check("def sub_prop(a: int32, b: int32) -> int32 [commutative] { return a - b }"),
                 "commutative",
                 "sub_prop(bool false, bool true) = int32 -1 but sub_prop(bool true, bool "
                 "false) = int32 1"));
    EXPECT_TRUE(Violates(
        check(
            "def avg_prop(a: float64, b: float64) -> float64 [associative] { return (a + b) / 2 }"),
        "associative", "in avg_prop"));
    EXPECT_TRUE(
        Violates(check("def plus_prop(a: int64, b: int64) -> int64 [idempotent] { return a + b }"),
                 "idempotent", "plus_prop(int8 1, int8 1) = int64 2"));
    // gcd(0, x) is |x|, so 0 is no identity for negative x.
    EXPECT_TRUE(Violates(check(R"(def gcd0_prop(a: int64, b: int64) -> int64 [identity(0)] {
    while b != 0 { let t = b; b = a % b; a = t }
    return abs(a)
})"),
                         "identity",
                         "gcd0_prop(int64 0, int8 -1) = int64 1, not int64 -1 (identity int64 0 "
                         "at position 0)"));
    EXPECT_TRUE(Violates(
        check("def amax_prop(a: int64, b: int64) -> int64 [annihilator(0)] { return max(a, b) }"),
        "annihilator", "amax_prop(int64 0, bool true) = int64 1, not int64 0"));
    // 0 * inf is NaN: without annihilator_finite_only the claim is false.
    EXPECT_TRUE(Violates(check("def fmul0_prop(a: float64, b: float64) -> float64 "
                               "[annihilator(0.0)] { return a * b }"),
                         "annihilator",
                         "fmul0_prop(float64 0, float32 inf) = float64 nan, not float64 0"));
    // 1 is an identity of division only on the right.
    EXPECT_TRUE(Violates(
        check("def fdiv1_prop(a: float64, b: float64) -> float64 [identity(1.0)] { return a / b }"),
        "identity", "(identity float64 1 at position 0)"));
    // A max that ignores NaN is neither commutative nor has identity -inf.
    auto naive =
        check(R"(def nmax_prop(a: float64, b: float64) -> float64 [commutative, identity(-inf)] {
    if a < b { return b }
    return a
})");
    EXPECT_TRUE(Violates(naive, "commutative", "nan"));
    EXPECT_TRUE(Violates(naive, "identity",
                         "nmax_prop(float64 -inf, float32 nan) = float64 -inf, "
                         "not float64 nan"));
}

TEST(FunctionsProperties, SpecialCasesAreCheckedAgainstTheBody) {
    auto found = check(R"(def gcd1_prop(a: int64, b: int64) -> int64 {
    while b != 0 { let t = b; b = a % b; a = t }
    return abs(a)
}
case gcd1_prop(x, 0) = abs(x)
case gcd1_prop(x, 1) = x)");
    EXPECT_TRUE(Violates(found, "case",
                         "case gcd1_prop(x, 1) = x: at gcd1_prop(int64 0, int64 1) the case gives "
                         "int64 0 but the body gives int64 1"));
    // The true case is not reported, and at most three counterexamples are.
    int cases = 0;
    for (const auto& v : found) {
        EXPECT_EQ(v.message.find("= abs(x)"), std::string::npos) << v.message;
        cases += v.property == "case";
    }
    EXPECT_EQ(cases, 3);
    // NaN-keyed cases compare NaN results as equal.
    EXPECT_TRUE(check("def nanc_prop(x: float64) -> float64 { return x * 2 }\n"
                      "case nanc_prop(nan) = nan\ncase nanc_prop(-inf) = -inf")
                    .empty());
}

TEST(FunctionsProperties, ACallThatDoesNotFinishIsAViolation) {
    FunctionDef d("slow_prop");
    d.param("a", ValueType::Int64)
        .param("b", ValueType::Int64)
        .returns(ValueType::Int64)
        .body("while a < 0 {}\nreturn a + b")
        .commutative()
        .step_limit(100);
    auto found = check_function(d);
    EXPECT_TRUE(Violates(found, "commutative", "did not finish within 100 loop steps"))
        << all_of(found);
    FunctionDef c("slowcase_prop");
    c.param("a", ValueType::Int64).returns(ValueType::Int64).body("while a < 0 {}\nreturn a");
    c.special_case("slowcase_prop(-1) = -1").step_limit(100);
    EXPECT_TRUE(
        Violates(check_function(c), "case", "it throws: slowcase_prop(int64 -1) did not finish"));
}

TEST(FunctionsProperties, TheOperatorCarriesTheDeclaredValues) {
    const Operator& op = define("def umax_carry(a: float64, b: float64) -> float64 [commutative, "
                                "identity(-inf), annihilator(nan, a)] {\n"
                                "    if a != a || b != b { return a + b }\n"
                                "    return max(a, b)\n}");
    EXPECT_TRUE(op.commutative);
    EXPECT_FALSE(op.associative);
    EXPECT_TRUE(Is(*op.reduction_identity(ValueType::Float64), f64(-kInf)));
    EXPECT_TRUE(Is(*op.identity(ValueType::Int32, 1), f64(-kInf)));
    auto z = op.annihilator(ValueType::Float32, 0);
    ASSERT_TRUE(z);
    EXPECT_TRUE(z->first.is_nan());
    EXPECT_TRUE(z->second.is_nan());
    EXPECT_FALSE(op.annihilator(ValueType::Float32, 1)); // declared for position a only
}
