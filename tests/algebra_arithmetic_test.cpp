// Hand-checked values for add sub mul div floordiv mod neg abs: wrap-around, NumPy's rounding
// of floor division toward -inf, the sign of the divisor for mod, and the defined results of
// division by zero and INT_MIN / -1.
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

TEST(AlgebraArithmetic, AddWrapsAndPromotes) {
    EXPECT_TRUE(Is(ev("add", {i32(2), i32(3)}), i32(5)));
    EXPECT_TRUE(Is(ev("add", {i8(127), i8(1)}), i8(-128)));
    EXPECT_TRUE(Is(ev("add", {u8(255), u8(1)}), u8(0)));
    EXPECT_TRUE(Is(ev("add", {i64(kI64Max), i64(1)}), i64(kI64Min)));
    EXPECT_TRUE(Is(ev("add", {u8(200), i8(100)}), i16(300)));    // uint8 + int8 -> int16
    EXPECT_TRUE(Is(ev("add", {u64(1), i64(1)}), f64(2)));        // NumPy: float64
    EXPECT_TRUE(Is(ev("add", {i32(1), f32(0.5)}), f64(1.5)));    // int32 + float32 -> float64
    EXPECT_TRUE(Is(ev("add", {i16(1), f32(0.5)}), f32(1.5)));    // int16 fits float32
    EXPECT_TRUE(Is(ev("add", {b(true), i8(1)}), i8(2)));
}

TEST(AlgebraArithmetic, AddOnBoolIsOr) {
    EXPECT_TRUE(Is(ev("add", {b(true), b(true)}), b(true)));
    EXPECT_TRUE(Is(ev("add", {b(false), b(true)}), b(true)));
    EXPECT_TRUE(Is(ev("add", {b(false), b(false)}), b(false)));
    EXPECT_EQ(rt("add", {ValueType::Bool, ValueType::Bool}), ValueType::Bool);
}

TEST(AlgebraArithmetic, AddFloatEdgeCases) {
    // 2^24 + 1 is not a float32: the sum is rounded in float, not computed in double.
    EXPECT_TRUE(Is(ev("add", {f32(16777216.0), f32(1.0)}), f32(16777216.0)));
    EXPECT_TRUE(Is(ev("add", {f64(16777216.0), f64(1.0)}), f64(16777217.0)));
    EXPECT_TRUE(ev("add", {f64(kInf), f64(-kInf)}).is_nan());
    EXPECT_TRUE(ev("add", {f64(kNaN), f64(1)}).is_nan());
    EXPECT_TRUE(Is(ev("add", {f64(-0.0), f64(-0.0)}), f64(-0.0)));
    EXPECT_TRUE(Is(ev("add", {f64(-0.0), f64(0.0)}), f64(0.0)));
}

TEST(AlgebraArithmetic, Sub) {
    EXPECT_TRUE(Is(ev("sub", {i32(2), i32(5)}), i32(-3)));
    EXPECT_TRUE(Is(ev("sub", {u8(0), u8(1)}), u8(255)));
    EXPECT_TRUE(Is(ev("sub", {i64(kI64Min), i64(1)}), i64(kI64Max)));
    EXPECT_TRUE(Is(ev("sub", {f64(0.0), f64(0.0)}), f64(0.0)));
    EXPECT_TRUE(Is(ev("sub", {f64(-0.0), f64(0.0)}), f64(-0.0)));
    EXPECT_TRUE(Is(ev("sub", {b(true), i8(1)}), i8(0)));
    EXPECT_TRUE(ThrowsWith([] { ev("sub", {b(true), b(false)}); },
                           "operator 'sub' does not take bool and bool arguments"));
}

TEST(AlgebraArithmetic, Mul) {
    EXPECT_TRUE(Is(ev("mul", {i32(65536), i32(65536)}), i32(0)));      // 2^32 wraps to 0
    EXPECT_TRUE(Is(ev("mul", {u16(65535), u16(65535)}), u16(1)));      // (2^16-1)^2 mod 2^16
    EXPECT_TRUE(Is(ev("mul", {i8(-128), i8(-1)}), i8(-128)));
    EXPECT_TRUE(Is(ev("mul", {i64(kI64Max), i64(2)}), i64(-2)));
    EXPECT_TRUE(Is(ev("mul", {b(true), b(false)}), b(false)));          // and
    EXPECT_TRUE(Is(ev("mul", {b(true), b(true)}), b(true)));
    // 4097^2 = 16785409 needs 25 bits: float32 rounds it to even, 16785408.
    EXPECT_TRUE(Is(ev("mul", {f32(4097), f32(4097)}), f32(16785408)));
    EXPECT_TRUE(Is(ev("mul", {f64(4097), f64(4097)}), f64(16785409)));
    EXPECT_TRUE(ev("mul", {f64(0), f64(kInf)}).is_nan());
    EXPECT_TRUE(Is(ev("mul", {f64(-1), f64(0)}), f64(-0.0)));
}

TEST(AlgebraArithmetic, DivIsTrueDivision) {
    EXPECT_TRUE(Is(ev("div", {i32(7), i32(2)}), f64(3.5)));
    EXPECT_TRUE(Is(ev("div", {i8(1), i8(4)}), f64(0.25)));
    EXPECT_TRUE(Is(ev("div", {b(true), b(true)}), f64(1)));
    EXPECT_TRUE(Is(ev("div", {f32(3), f32(2)}), f32(1.5)));
    EXPECT_EQ(rt("div", {ValueType::Int8, ValueType::Int8}), ValueType::Float64);
    EXPECT_EQ(rt("div", {ValueType::Int16, ValueType::Float32}), ValueType::Float32);
    EXPECT_EQ(rt("div", {ValueType::UInt64, ValueType::Int64}), ValueType::Float64);
    // Integer division by zero is IEEE division of the converted values: no trap.
    EXPECT_TRUE(Is(ev("div", {i32(1), i32(0)}), f64(kInf)));
    EXPECT_TRUE(Is(ev("div", {i32(-1), i32(0)}), f64(-kInf)));
    EXPECT_TRUE(ev("div", {i32(0), i32(0)}).is_nan());
    EXPECT_TRUE(Is(ev("div", {f64(1), f64(-0.0)}), f64(-kInf)));
}

TEST(AlgebraArithmetic, FloorDivIntegers) {
    EXPECT_TRUE(Is(ev("floordiv", {i32(7), i32(2)}), i32(3)));
    EXPECT_TRUE(Is(ev("floordiv", {i32(-7), i32(2)}), i32(-4)));
    EXPECT_TRUE(Is(ev("floordiv", {i32(7), i32(-2)}), i32(-4)));
    EXPECT_TRUE(Is(ev("floordiv", {i32(-7), i32(-2)}), i32(3)));
    EXPECT_TRUE(Is(ev("floordiv", {i32(6), i32(-2)}), i32(-3)));
    EXPECT_TRUE(Is(ev("floordiv", {u8(255), u8(2)}), u8(127)));
    // Defined where C traps or is undefined.
    EXPECT_TRUE(Is(ev("floordiv", {i32(5), i32(0)}), i32(0)));
    EXPECT_TRUE(Is(ev("floordiv", {u8(7), u8(0)}), u8(0)));
    EXPECT_TRUE(Is(ev("floordiv", {i32(kI32Min), i32(-1)}), i32(kI32Min)));
    EXPECT_TRUE(Is(ev("floordiv", {i64(kI64Min), i64(-1)}), i64(kI64Min)));
    EXPECT_TRUE(Is(ev("floordiv", {i8(-128), i8(-1)}), i8(-128)));
    // bool computes in int8, as NumPy does.
    EXPECT_TRUE(Is(ev("floordiv", {b(true), b(true)}), i8(1)));
    EXPECT_TRUE(Is(ev("floordiv", {b(true), b(false)}), i8(0)));
}

TEST(AlgebraArithmetic, FloorDivFloatsFollowNumPy) {
    EXPECT_TRUE(Is(ev("floordiv", {f64(7), f64(2)}), f64(3)));
    EXPECT_TRUE(Is(ev("floordiv", {f64(-7), f64(2)}), f64(-4)));
    EXPECT_TRUE(Is(ev("floordiv", {f64(7.5), f64(-2)}), f64(-4)));
    EXPECT_TRUE(Is(ev("floordiv", {f32(7), f32(2)}), f32(3)));
    EXPECT_TRUE(Is(ev("floordiv", {f64(1), f64(0)}), f64(kInf)));
    EXPECT_TRUE(Is(ev("floordiv", {f64(-1), f64(0)}), f64(-kInf)));
    EXPECT_TRUE(ev("floordiv", {f64(0), f64(0)}).is_nan());
    EXPECT_TRUE(Is(ev("floordiv", {f64(5), f64(kInf)}), f64(0)));
    EXPECT_TRUE(Is(ev("floordiv", {f64(-5), f64(kInf)}), f64(-1))); // Python: -5.0 // inf
    EXPECT_TRUE(ev("floordiv", {f64(kInf), f64(5)}).is_nan());
    EXPECT_TRUE(Is(ev("floordiv", {f64(-0.0), f64(5)}), f64(-0.0)));
    EXPECT_TRUE(Is(ev("floordiv", {f64(0.0), f64(-5)}), f64(-0.0)));
}

TEST(AlgebraArithmetic, ModHasTheSignOfTheDivisor) {
    EXPECT_TRUE(Is(ev("mod", {i32(7), i32(3)}), i32(1)));
    EXPECT_TRUE(Is(ev("mod", {i32(-7), i32(3)}), i32(2)));
    EXPECT_TRUE(Is(ev("mod", {i32(7), i32(-3)}), i32(-2)));
    EXPECT_TRUE(Is(ev("mod", {i32(-7), i32(-3)}), i32(-1)));
    EXPECT_TRUE(Is(ev("mod", {i32(6), i32(-3)}), i32(0)));
    EXPECT_TRUE(Is(ev("mod", {u8(255), u8(16)}), u8(15)));
    EXPECT_TRUE(Is(ev("mod", {i32(5), i32(0)}), i32(0)));
    EXPECT_TRUE(Is(ev("mod", {u8(7), u8(0)}), u8(0)));
    EXPECT_TRUE(Is(ev("mod", {i32(kI32Min), i32(-1)}), i32(0)));
    EXPECT_TRUE(Is(ev("mod", {i8(-128), i8(-1)}), i8(0)));
    EXPECT_TRUE(Is(ev("mod", {b(true), b(true)}), i8(0)));

    EXPECT_TRUE(Is(ev("mod", {f64(7), f64(3)}), f64(1)));
    EXPECT_TRUE(Is(ev("mod", {f64(-7), f64(3)}), f64(2)));
    EXPECT_TRUE(Is(ev("mod", {f64(7), f64(-3)}), f64(-2)));
    EXPECT_TRUE(Is(ev("mod", {f64(-7), f64(-3)}), f64(-1)));
    EXPECT_TRUE(Is(ev("mod", {f64(5.5), f64(2)}), f64(1.5)));
    EXPECT_TRUE(Is(ev("mod", {f32(-5.5), f32(2)}), f32(0.5)));
    EXPECT_TRUE(Is(ev("mod", {f64(6), f64(-3)}), f64(-0.0))); // zero takes the divisor's sign
    EXPECT_TRUE(Is(ev("mod", {f64(-6), f64(3)}), f64(0.0)));
    EXPECT_TRUE(ev("mod", {f64(5), f64(0)}).is_nan());
    EXPECT_TRUE(Is(ev("mod", {f64(5), f64(kInf)}), f64(5)));
    EXPECT_TRUE(Is(ev("mod", {f64(-5), f64(kInf)}), f64(kInf))); // Python: -5.0 % inf
    EXPECT_TRUE(ev("mod", {f64(kInf), f64(3)}).is_nan());
}

TEST(AlgebraArithmetic, NegAndAbs) {
    EXPECT_TRUE(Is(ev("neg", {i32(5)}), i32(-5)));
    EXPECT_TRUE(Is(ev("neg", {i8(-128)}), i8(-128)));
    EXPECT_TRUE(Is(ev("neg", {u8(1)}), u8(255)));
    EXPECT_TRUE(Is(ev("neg", {f64(0.0)}), f64(-0.0)));
    EXPECT_TRUE(Is(ev("neg", {f32(-kInf)}), f32(kInf)));
    EXPECT_TRUE(ev("neg", {f64(kNaN)}).is_nan());
    EXPECT_TRUE(ThrowsWith([] { ev("neg", {b(true)}); },
                           "operator 'neg' does not take a bool argument"));

    EXPECT_TRUE(Is(ev("abs", {i32(-5)}), i32(5)));
    EXPECT_TRUE(Is(ev("abs", {i8(-128)}), i8(-128))); // wraps, as NumPy
    EXPECT_TRUE(Is(ev("abs", {i64(kI64Min)}), i64(kI64Min)));
    EXPECT_TRUE(Is(ev("abs", {u8(200)}), u8(200)));
    EXPECT_TRUE(Is(ev("abs", {f64(-0.0)}), f64(0.0)));
    EXPECT_TRUE(Is(ev("abs", {f32(-kInf)}), f32(kInf)));
    EXPECT_TRUE(Is(ev("abs", {b(true)}), b(true)));
}

TEST(AlgebraArithmetic, ArityIsChecked) {
    EXPECT_TRUE(ThrowsWith([] { ev("add", {i32(1)}); }, "operator 'add' takes 2 arguments, not 1"));
    EXPECT_TRUE(ThrowsWith([] { ev("neg", {i32(1), i32(2)}); },
                           "operator 'neg' takes 1 argument, not 2"));
    EXPECT_TRUE(ThrowsWith([] { rt("mul", {ValueType::Int8}); }, "takes 2 arguments"));
}
