// The interpreter behind a user function's evaluate(): results checked against direct C++
// computations, special cases, conversions, laziness, and the step limit that turns a body
// that never finishes into an Error.
#include <cmath>
#include <numeric>

#include <gtest/gtest.h>

#include "functions_test_util.hpp"

using namespace siskin;
using namespace siskin::functions_test;

namespace {

const char* kGcd = R"(
def gcd_interp(a: int64, b: int64) -> int64 [commutative, associative, annihilator(1)] {
    while b != 0 { let t = b; b = a % b; a = t }
    return abs(a)
}
case gcd_interp(x, 0) = abs(x)
)";

// Steps of the Collatz iteration from n down to 1.
const char* kCollatz = R"(
def collatz_interp(n: int64) -> int64 {
    let steps = 0
    while n != 1 {
        if n % 2 == 0 { n = floordiv(n, 2) } else { n = 3 * n + 1 }
        steps = steps + 1
    }
    return steps
}
)";

int64_t collatz(int64_t n) {
    int64_t steps = 0;
    while (n != 1) {
        n = n % 2 == 0 ? n / 2 : 3 * n + 1;
        ++steps;
    }
    return steps;
}

} // namespace

TEST(FunctionsInterpreter, GcdAgreesWithTheStandardLibrary) {
    const Operator& gcd = define(kGcd);
    for (int64_t a = -30; a <= 30; ++a)
        for (int64_t b = -30; b <= 30; ++b)
            ASSERT_TRUE(Is(call(gcd, {i64(a), i64(b)}), i64(std::gcd(a, b)))) << a << ", " << b;
    // Narrower arguments are converted to the parameter type; the result type is declared.
    EXPECT_TRUE(Is(call(gcd, {i8(12), i32(-18)}), i64(6)));
    EXPECT_TRUE(Is(call(gcd, {b(true), u16(7)}), i64(1)));
}

TEST(FunctionsInterpreter, WhileLoops) {
    const Operator& steps = define(kCollatz);
    for (int64_t n : {1, 2, 3, 6, 7, 27, 97, 871})
        EXPECT_TRUE(Is(call(steps, {i64(n)}), i64(collatz(n)))) << n;
    EXPECT_TRUE(Is(call(steps, {i64(27)}), i64(111))); // the well-known long one
}

TEST(FunctionsInterpreter, IfElseChainsAndNesting) {
    const Operator& sign = define(R"(
def sign_interp(x: float64) -> int8 {
    if x > 0 { return int8(1) } else if x < 0 { return int8(-1) } else if x == 0 { return int8(0) }
    return int8(99)  # NaN
}
)");
    EXPECT_TRUE(Is(call(sign, {f64(2.5)}), i8(1)));
    EXPECT_TRUE(Is(call(sign, {f64(-0.0)}), i8(0)));
    EXPECT_TRUE(Is(call(sign, {f64(-kInf)}), i8(-1)));
    EXPECT_TRUE(Is(call(sign, {f64(kNaN)}), i8(99)));
}

TEST(FunctionsInterpreter, ConversionsFollowScalarCast) {
    const Operator& to8 = define("def to8_interp(x: float64) -> int8 { return int8(x) }");
    // Truncation toward zero, then wrap-around into int8; NaN gives 0; huge values saturate at
    // the int64 limits first (INT64_MAX wraps to -1, INT64_MIN to 0).
    EXPECT_TRUE(Is(call(to8, {f64(-3.9)}), i8(-3)));
    EXPECT_TRUE(Is(call(to8, {f64(300.7)}), i8(44)));
    EXPECT_TRUE(Is(call(to8, {f64(kNaN)}), i8(0)));
    EXPECT_TRUE(Is(call(to8, {f64(1e30)}), i8(-1)));
    EXPECT_TRUE(Is(call(to8, {f64(-1e30)}), i8(0)));
    const Operator& tou = define("def tou_interp(x: float32) -> uint16 { return uint16(x) }");
    EXPECT_TRUE(Is(call(tou, {f32(-1.0)}), u16(65535)));
    EXPECT_TRUE(Is(call(tou, {f32(-0.5)}), u16(0)));
    EXPECT_TRUE(Is(call(tou, {f32(70000.0)}), u16(70000 - 65536)));
    const Operator& tob = define("def tob_interp(x: float64) -> bool { return bool(x) }");
    EXPECT_TRUE(Is(call(tob, {f64(kNaN)}), b(true))); // NaN is true, as in C
    EXPECT_TRUE(Is(call(tob, {f64(-0.0)}), b(false)));
}

TEST(FunctionsInterpreter, AndOrAndIfelseSkipTheSideCEvaluatesNot) {
    // A helper that never finishes for 0: calling it would be an Error.
    define("def stuck_interp(x: int64) -> bool {\n    while x == 0 {}\n    return true\n}");
    const Operator& guard = define(R"(
def guard_interp(a: int64, b: int64) -> int64 {
    if b != 0 && stuck_interp(b) { return 1 }
    if b == 0 || stuck_interp(b) { return ifelse(b == 0, 2, int64(stuck_interp(b))) }
    return 3
}
)");
    EXPECT_TRUE(Is(call(guard, {i64(5), i64(0)}), i64(2)));
    EXPECT_TRUE(Is(call(guard, {i64(5), i64(4)}), i64(1)));
    EXPECT_TRUE(ThrowsWith([] { call(find_operator("stuck_interp"), {i64(0)}); },
                           "stuck_interp(int64 0) did not finish within 1000000 loop steps"));
}

TEST(FunctionsInterpreter, SpecialCasesComeFirst) {
    // Cases that disagree with the body on purpose, so the results show which one ran.
    const Operator& f = define(R"(
def pick_interp(x: float64, y: float64) -> float64 {
    return x + y
}
case pick_interp(x, 0) = 100.0
case pick_interp(nan, y) = -1.0
case pick_interp(1, 0) = 7.0
)");
    EXPECT_TRUE(Is(call(f, {f64(5), f64(0)}), f64(100)));
    EXPECT_TRUE(Is(call(f, {f64(5), f64(-0.0)}), f64(100))); // -0.0 equals 0
    EXPECT_TRUE(Is(call(f, {f64(1), f64(0)}), f64(100)));    // the first matching case wins
    EXPECT_TRUE(Is(call(f, {f64(kNaN), f64(3)}), f64(-1)));  // NaN matches NaN
    EXPECT_TRUE(Is(call(f, {f64(5), f64(1)}), f64(6)));
    EXPECT_TRUE(Is(call(f, {i32(5), i8(0)}), f64(100))); // after conversion to float64
}

TEST(FunctionsInterpreter, FunctionsCallFunctions) {
    define(kGcd);
    const Operator& lcm = define(R"(
def lcm_interp(a: int64, b: int64) -> int64 {
    let g = gcd_interp(a, b)
    if g == 0 { return 0 }
    return abs(floordiv(a, g) * b)
}
)");
    for (int64_t a = -12; a <= 12; ++a)
        for (int64_t bb = -12; bb <= 12; ++bb)
            ASSERT_TRUE(Is(call(lcm, {i64(a), i64(bb)}), i64(std::lcm(a, bb)))) << a << " " << bb;
}

TEST(FunctionsInterpreter, ALoopThatNeverEndsIsAnError) {
    const Operator& spin = define(R"(
def spin_interp(x: int64) -> int64 {
    while true { x = x + 1 }
}
)");
    EXPECT_TRUE(ThrowsWith([&] { call(spin, {i64(3)}); },
                           "spin_interp(int64 3) did not finish within 1000000 loop steps (a loop "
                           "that never ends?)"));
    FunctionDef limited("spin_limited_interp");
    limited.param("x", ValueType::Int64)
        .returns(ValueType::Int64)
        .body("while x < 100 { x = x + 1 }\nreturn x")
        .step_limit(50);
    Operator op = function_operator(limited);
    EXPECT_TRUE(Is(call(op, {i64(60)}), i64(100)));
    EXPECT_TRUE(ThrowsWith([&] { call(op, {i64(0)}); }, "did not finish within 50 loop steps"));
}

TEST(FunctionsInterpreter, BoolAndUnsignedArithmetic) {
    const Operator& parity = define(R"(
def parity_interp(x: uint32) -> bool {
    let odd = false
    while x != 0 { odd = odd != ((x & 1) == 1); x = x >> 1 }
    return odd
}
)");
    for (uint32_t x : {0u, 1u, 2u, 3u, 255u, 256u, 0xffffffffu, 0x80000001u})
        EXPECT_TRUE(Is(call(parity, {u32(x)}), b(__builtin_popcount(x) % 2 == 1))) << x;
}
