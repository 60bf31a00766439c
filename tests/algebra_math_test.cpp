// Hand-checked values for exp, log, sqrt, pow (integers stay integers and wrap; a negative
// integer exponent is defined) and ldexp.
#include <cmath>
#include <cstdint>
#include <limits>

#include "algebra_test_util.hpp"

using namespace siskin;
using namespace siskin::algebra_test;

namespace {
constexpr int64_t kI64Min = std::numeric_limits<int64_t>::min();
constexpr int64_t kI64Max = std::numeric_limits<int64_t>::max();
constexpr int32_t kI32Min = std::numeric_limits<int32_t>::min();
} // namespace

TEST(AlgebraMath, ResultTypes) {
    for (const char* op : {"exp", "log", "sqrt"}) {
        EXPECT_EQ(rt(op, {ValueType::Int8}), ValueType::Float64) << op;
        EXPECT_EQ(rt(op, {ValueType::Bool}), ValueType::Float64) << op;
        EXPECT_EQ(rt(op, {ValueType::UInt64}), ValueType::Float64) << op;
        EXPECT_EQ(rt(op, {ValueType::Float32}), ValueType::Float32) << op;
    }
    EXPECT_EQ(rt("pow", {ValueType::Int32, ValueType::Int32}), ValueType::Int32);
    EXPECT_EQ(rt("pow", {ValueType::Bool, ValueType::Bool}), ValueType::Int8);
    EXPECT_EQ(rt("pow", {ValueType::Int32, ValueType::Float32}), ValueType::Float64);
    EXPECT_EQ(rt("ldexp", {ValueType::Float32, ValueType::Int64}), ValueType::Float32);
    EXPECT_EQ(rt("ldexp", {ValueType::Int8, ValueType::Int8}), ValueType::Float64);
}

TEST(AlgebraMath, Exp) {
    EXPECT_TRUE(Is(ev("exp", {f64(0)}), f64(1)));
    EXPECT_TRUE(Is(ev("exp", {i32(0)}), f64(1)));
    EXPECT_TRUE(Is(ev("exp", {f64(-kInf)}), f64(0)));
    EXPECT_TRUE(Is(ev("exp", {f64(kInf)}), f64(kInf)));
    EXPECT_TRUE(Is(ev("exp", {f64(1000)}), f64(kInf)));
    EXPECT_TRUE(ev("exp", {f64(kNaN)}).is_nan());
    Scalar e32 = ev("exp", {f32(1)});
    EXPECT_EQ(e32.type(), ValueType::Float32);
    EXPECT_NEAR(e32.as_double(), 2.718281828459045, 3e-7); // within a float32 ulp of e
    EXPECT_NEAR(ev("exp", {f64(1)}).as_double(), 2.718281828459045, 1e-15);
}

TEST(AlgebraMath, Log) {
    EXPECT_TRUE(Is(ev("log", {f64(1)}), f64(0)));
    EXPECT_TRUE(Is(ev("log", {i32(1)}), f64(0)));
    EXPECT_TRUE(Is(ev("log", {f64(0)}), f64(-kInf)));
    EXPECT_TRUE(Is(ev("log", {f64(-0.0)}), f64(-kInf)));
    EXPECT_TRUE(ev("log", {f64(-1)}).is_nan());
    EXPECT_TRUE(ev("log", {i32(-1)}).is_nan());
    EXPECT_TRUE(Is(ev("log", {f32(kInf)}), f32(kInf)));
}

TEST(AlgebraMath, Sqrt) {
    EXPECT_TRUE(Is(ev("sqrt", {f64(4)}), f64(2)));
    EXPECT_TRUE(Is(ev("sqrt", {i64(9)}), f64(3)));
    EXPECT_TRUE(Is(ev("sqrt", {u8(2)}), f64(1.4142135623730951)));
    EXPECT_TRUE(Is(ev("sqrt", {f32(2)}), f32(1.4142135623730951))); // correctly rounded
    EXPECT_TRUE(Is(ev("sqrt", {f64(-0.0)}), f64(-0.0)));
    EXPECT_TRUE(ev("sqrt", {f64(-1)}).is_nan());
    EXPECT_TRUE(Is(ev("sqrt", {f64(kInf)}), f64(kInf)));
}

TEST(AlgebraMath, PowIntegers) {
    EXPECT_TRUE(Is(ev("pow", {i32(2), i32(10)}), i32(1024)));
    EXPECT_TRUE(Is(ev("pow", {i32(-2), i32(3)}), i32(-8)));
    EXPECT_TRUE(Is(ev("pow", {i32(3), i32(0)}), i32(1)));
    EXPECT_TRUE(Is(ev("pow", {i32(0), i32(0)}), i32(1)));
    EXPECT_TRUE(Is(ev("pow", {i32(2), i32(31)}), i32(kI32Min))); // wraps
    EXPECT_TRUE(Is(ev("pow", {i32(2), i32(32)}), i32(0)));
    EXPECT_TRUE(Is(ev("pow", {i8(3), i8(5)}), i8(-13)));          // 243 wraps to -13
    EXPECT_TRUE(Is(ev("pow", {u8(3), u8(5)}), u8(243)));
    EXPECT_TRUE(Is(ev("pow", {u8(2), u8(8)}), u8(0)));
    EXPECT_TRUE(Is(ev("pow", {i64(3), i64(40)}), i64(-6289078614652622815)));
    EXPECT_TRUE(Is(ev("pow", {i64(-1), i64(kI64Max)}), i64(-1)));
    EXPECT_TRUE(Is(ev("pow", {b(true), b(false)}), i8(1)));
    EXPECT_TRUE(Is(ev("pow", {b(false), b(true)}), i8(0)));
}

TEST(AlgebraMath, PowNegativeIntegerExponent) {
    // trunc(1 / x^n): 1 for base 1, +-1 for base -1, 0 otherwise (NumPy would raise).
    EXPECT_TRUE(Is(ev("pow", {i32(2), i32(-1)}), i32(0)));
    EXPECT_TRUE(Is(ev("pow", {i32(-2), i32(-1)}), i32(0)));
    EXPECT_TRUE(Is(ev("pow", {i32(0), i32(-1)}), i32(0)));
    EXPECT_TRUE(Is(ev("pow", {i32(1), i32(-5)}), i32(1)));
    EXPECT_TRUE(Is(ev("pow", {i32(-1), i32(-3)}), i32(-1)));
    EXPECT_TRUE(Is(ev("pow", {i32(-1), i32(-2)}), i32(1)));
    EXPECT_TRUE(Is(ev("pow", {i64(-1), i64(kI64Min)}), i64(1)));
    EXPECT_TRUE(Is(ev("pow", {i8(5), i8(-128)}), i8(0)));
}

TEST(AlgebraMath, PowFloats) {
    EXPECT_TRUE(Is(ev("pow", {f64(2), f64(0.5)}), f64(1.4142135623730951)));
    EXPECT_TRUE(Is(ev("pow", {f32(2), f32(10)}), f32(1024)));
    EXPECT_TRUE(Is(ev("pow", {i32(2), f64(-1)}), f64(0.5)));
    EXPECT_TRUE(Is(ev("pow", {f64(kNaN), f64(0)}), f64(1)));
    EXPECT_TRUE(Is(ev("pow", {f64(1), f64(kNaN)}), f64(1)));
    EXPECT_TRUE(Is(ev("pow", {f64(0), f64(-1)}), f64(kInf)));
    EXPECT_TRUE(Is(ev("pow", {f64(-0.0), f64(3)}), f64(-0.0)));
    EXPECT_TRUE(ev("pow", {f64(-8), f64(1.0 / 3.0)}).is_nan());
}

TEST(AlgebraMath, Ldexp) {
    EXPECT_TRUE(Is(ev("ldexp", {f64(1.5), i32(3)}), f64(12)));
    EXPECT_TRUE(Is(ev("ldexp", {f32(1), i64(-1)}), f32(0.5)));
    EXPECT_TRUE(Is(ev("ldexp", {f32(1), u32(3)}), f32(8)));
    EXPECT_TRUE(Is(ev("ldexp", {i32(3), i8(2)}), f64(12)));
    EXPECT_TRUE(Is(ev("ldexp", {f64(1), b(true)}), f64(2)));
    EXPECT_TRUE(Is(ev("ldexp", {f64(std::numeric_limits<double>::denorm_min()), i32(1074)}),
                   f64(1)));
    // Exponents far outside int range saturate: no wrap to a small exponent.
    EXPECT_TRUE(Is(ev("ldexp", {f64(1), i64(2000)}), f64(kInf)));
    EXPECT_TRUE(Is(ev("ldexp", {f64(1), i64(kI64Max)}), f64(kInf)));
    EXPECT_TRUE(Is(ev("ldexp", {f64(1), i64(kI64Min)}), f64(0)));
    EXPECT_TRUE(Is(ev("ldexp", {f64(-1), i64(-5000)}), f64(-0.0)));
    EXPECT_TRUE(Is(ev("ldexp", {f64(0), i64(kI64Max)}), f64(0)));
    EXPECT_TRUE(Is(ev("ldexp", {f64(-kInf), i32(-5)}), f64(-kInf)));
    EXPECT_TRUE(ev("ldexp", {f64(kNaN), i32(1)}).is_nan());
    EXPECT_TRUE(ThrowsWith([] { ev("ldexp", {f64(1), f64(2)}); },
                           "operator 'ldexp' does not take float64 and float64 arguments"));
    EXPECT_TRUE(ThrowsWith([] { ev("ldexp", {f64(1), u64(2)}); },
                           "does not take float64 and uint64 arguments"));
}

// The trigonometric, hyperbolic, logarithmic and rounding ufuncs: float in, float out, the C
// library's function (round is rint: halves to even, as NumPy's rint and the standard's round).
TEST(AlgebraMath, TrigonometricAndRounding) {
    for (const char* op : {"sin", "acos", "tanh", "log10", "floor", "round"}) {
        EXPECT_EQ(rt(op, {ValueType::Int32}), ValueType::Float64) << op;
        EXPECT_EQ(rt(op, {ValueType::Float32}), ValueType::Float32) << op;
    }
    EXPECT_EQ(rt("atan2", {ValueType::Float32, ValueType::Int64}), ValueType::Float64);
    EXPECT_TRUE(Is(ev("sin", {f64(0)}), f64(0)));
    EXPECT_TRUE(Is(ev("sin", {f64(-0.0)}), f64(-0.0)));
    EXPECT_TRUE(Is(ev("cos", {i64(0)}), f64(1)));
    EXPECT_TRUE(ev("sin", {f64(kInf)}).is_nan());
    EXPECT_NEAR(ev("atan", {f64(1)}).as_double(), 0.7853981633974483, 1e-15);
    EXPECT_TRUE(Is(ev("atanh", {f64(1)}), f64(kInf)));
    EXPECT_TRUE(ev("acosh", {f64(0.5)}).is_nan());
    EXPECT_TRUE(Is(ev("log2", {i64(1024)}), f64(10)));
    EXPECT_TRUE(Is(ev("log10", {f64(0)}), f64(-kInf)));
    EXPECT_TRUE(Is(ev("expm1", {f64(0)}), f64(0)));
    EXPECT_TRUE(Is(ev("log1p", {f64(-1)}), f64(-kInf)));
    EXPECT_TRUE(Is(ev("floor", {f64(-2.5)}), f64(-3)));
    EXPECT_TRUE(Is(ev("ceil", {f64(-2.5)}), f64(-2)));
    EXPECT_TRUE(Is(ev("trunc", {f64(-2.5)}), f64(-2)));
    EXPECT_TRUE(Is(ev("round", {f64(2.5)}), f64(2)));
    EXPECT_TRUE(Is(ev("round", {f64(3.5)}), f64(4)));
    EXPECT_TRUE(Is(ev("round", {f32(-0.5)}), f32(-0.0)));
    EXPECT_TRUE(Is(ev("atan2", {f64(0), f64(-1)}), f64(3.141592653589793)));
    EXPECT_TRUE(Is(ev("atan2", {f64(-0.0), f64(1)}), f64(-0.0)));
}

// sign (-1, 0 or 1 in the argument's type; NaN stays NaN, -0.0 gives 0.0; bool refused, as
// NumPy has no sign of bool) and logaddexp (log(exp(a) + exp(b)) without overflow; -inf its
// identity), with NumPy 1.24's values.
TEST(AlgebraMath, SignAndLogaddexp) {
    EXPECT_EQ(rt("sign", {ValueType::Int8}), ValueType::Int8);
    EXPECT_EQ(rt("sign", {ValueType::UInt32}), ValueType::UInt32);
    EXPECT_EQ(rt("sign", {ValueType::Float32}), ValueType::Float32);
    EXPECT_TRUE(ThrowsWith([] { rt("sign", {ValueType::Bool}); }, "does not take"));
    EXPECT_TRUE(Is(ev("sign", {i8(-7)}), i8(-1)));
    EXPECT_TRUE(Is(ev("sign", {i64(kI64Min)}), i64(-1)));
    EXPECT_TRUE(Is(ev("sign", {i32(0)}), i32(0)));
    EXPECT_TRUE(Is(ev("sign", {u8(200)}), u8(1)));
    EXPECT_TRUE(Is(ev("sign", {f64(-0.0)}), f64(0.0)));
    EXPECT_TRUE(Is(ev("sign", {f64(-kInf)}), f64(-1)));
    EXPECT_TRUE(Is(ev("sign", {f32(2.5f)}), f32(1)));
    EXPECT_TRUE(ev("sign", {f64(kNaN)}).is_nan());

    EXPECT_EQ(rt("logaddexp", {ValueType::Int8, ValueType::Int8}), ValueType::Float64);
    EXPECT_EQ(rt("logaddexp", {ValueType::Float32, ValueType::Float32}), ValueType::Float32);
    EXPECT_NEAR(ev("logaddexp", {f64(1), f64(2)}).as_double(), 2.3132616875182226, 1e-15);
    EXPECT_TRUE(Is(ev("logaddexp", {f64(1000), f64(1000)}), f64(1000.6931471805599)));
    EXPECT_TRUE(Is(ev("logaddexp", {f64(-kInf), f64(-kInf)}), f64(-kInf)));
    EXPECT_TRUE(Is(ev("logaddexp", {f64(kInf), f64(kInf)}), f64(kInf)));
    EXPECT_TRUE(Is(ev("logaddexp", {f64(3), f64(-kInf)}), f64(3)));
    EXPECT_TRUE(Is(ev("logaddexp", {f64(kInf), f64(-kInf)}), f64(kInf)));
    EXPECT_TRUE(ev("logaddexp", {f64(kNaN), f64(1)}).is_nan());
    EXPECT_TRUE(ev("logaddexp", {f64(1), f64(kNaN)}).is_nan());
    const Operator& op = find_operator("logaddexp");
    EXPECT_TRUE(op.commutative);
    EXPECT_TRUE(Is(*op.identity(ValueType::Float64, 1), f64(-kInf)));
}
