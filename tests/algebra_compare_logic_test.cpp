// Hand-checked values for the comparisons, min/max (NaN propagates; -0.0 before +0.0), the
// logical operators (any type, bool result) and ifelse.
#include <cmath>
#include <cstdint>

#include "algebra_test_util.hpp"

using namespace siskin;
using namespace siskin::algebra_test;

TEST(AlgebraCompare, ComparisonsPromoteAndGiveBool) {
    EXPECT_TRUE(Is(ev("lt", {i32(1), i32(2)}), b(true)));
    EXPECT_TRUE(Is(ev("le", {i32(2), i32(2)}), b(true)));
    EXPECT_TRUE(Is(ev("gt", {i32(1), i32(2)}), b(false)));
    EXPECT_TRUE(Is(ev("ge", {i32(1), i32(2)}), b(false)));
    EXPECT_TRUE(Is(ev("eq", {i32(2), f64(2.0)}), b(true)));
    EXPECT_TRUE(Is(ev("ne", {i32(2), f64(2.5)}), b(true)));
    // int8 -1 against uint8 255: compared as int16, not as wrapped bytes.
    EXPECT_TRUE(Is(ev("lt", {i8(-1), u8(255)}), b(true)));
    EXPECT_TRUE(Is(ev("eq", {i8(-1), u8(255)}), b(false)));
    EXPECT_TRUE(Is(ev("lt", {b(false), b(true)}), b(true)));
    EXPECT_TRUE(Is(ev("eq", {f64(-0.0), f64(0.0)}), b(true)));
    EXPECT_EQ(rt("lt", {ValueType::Float32, ValueType::Int64}), ValueType::Bool);
}

TEST(AlgebraCompare, NanComparesUnequal) {
    for (const char* op : {"eq", "lt", "le", "gt", "ge"}) {
        EXPECT_TRUE(Is(ev(op, {f64(kNaN), f64(kNaN)}), b(false))) << op;
        EXPECT_TRUE(Is(ev(op, {f64(kNaN), f64(1)}), b(false))) << op;
    }
    EXPECT_TRUE(Is(ev("ne", {f64(kNaN), f64(kNaN)}), b(true)));
    EXPECT_TRUE(Is(ev("lt", {f64(-kInf), f64(kInf)}), b(true)));
}

TEST(AlgebraCompare, MinMax) {
    EXPECT_TRUE(Is(ev("min", {i32(3), i32(-2)}), i32(-2)));
    EXPECT_TRUE(Is(ev("max", {i32(3), i32(-2)}), i32(3)));
    EXPECT_TRUE(Is(ev("min", {i8(-1), u8(255)}), i16(-1)));
    EXPECT_TRUE(Is(ev("max", {i8(-1), u8(255)}), i16(255)));
    EXPECT_TRUE(Is(ev("min", {u64(~0ull), u64(0)}), u64(0)));
    EXPECT_TRUE(Is(ev("min", {b(true), b(false)}), b(false)));
    EXPECT_TRUE(Is(ev("max", {b(true), b(false)}), b(true)));
    EXPECT_TRUE(Is(ev("min", {f64(1), f64(-kInf)}), f64(-kInf)));
    EXPECT_TRUE(Is(ev("max", {f32(1), f32(kInf)}), f32(kInf)));
    EXPECT_TRUE(Is(ev("max", {i32(1), f32(2.5)}), f64(2.5)));
}

TEST(AlgebraCompare, MinMaxPropagateNan) {
    for (const char* op : {"min", "max"}) {
        EXPECT_TRUE(ev(op, {f64(kNaN), f64(1)}).is_nan()) << op;
        EXPECT_TRUE(ev(op, {f64(1), f64(kNaN)}).is_nan()) << op;
        EXPECT_TRUE(ev(op, {f32(-kInf), f32(kNaN)}).is_nan()) << op;
        EXPECT_TRUE(ev(op, {f64(kNaN), f64(kInf)}).is_nan()) << op;
        EXPECT_EQ(ev(op, {f32(kNaN), f32(1)}).type(), ValueType::Float32);
    }
}

TEST(AlgebraCompare, MinMaxOrderSignedZeros) {
    EXPECT_TRUE(Is(ev("min", {f64(-0.0), f64(0.0)}), f64(-0.0)));
    EXPECT_TRUE(Is(ev("min", {f64(0.0), f64(-0.0)}), f64(-0.0)));
    EXPECT_TRUE(Is(ev("max", {f64(-0.0), f64(0.0)}), f64(0.0)));
    EXPECT_TRUE(Is(ev("max", {f32(0.0), f32(-0.0)}), f32(0.0)));
}

TEST(AlgebraLogic, AndOrXorNotTakeAnyType) {
    EXPECT_TRUE(Is(ev("and", {b(true), b(false)}), b(false)));
    EXPECT_TRUE(Is(ev("and", {i32(2), f64(0.5)}), b(true)));
    EXPECT_TRUE(Is(ev("and", {i32(2), f64(-0.0)}), b(false)));
    EXPECT_TRUE(Is(ev("and", {f64(kNaN), i8(1)}), b(true))); // NaN is true, as in C
    EXPECT_TRUE(Is(ev("or", {i32(0), u8(0)}), b(false)));
    EXPECT_TRUE(Is(ev("or", {i32(0), u8(7)}), b(true)));
    EXPECT_TRUE(Is(ev("xor", {i32(3), i32(4)}), b(false)));
    EXPECT_TRUE(Is(ev("xor", {i32(3), i32(0)}), b(true)));
    EXPECT_TRUE(Is(ev("not", {i32(0)}), b(true)));
    EXPECT_TRUE(Is(ev("not", {f64(0.25)}), b(false)));
    EXPECT_TRUE(Is(ev("not", {b(true)}), b(false)));
    EXPECT_EQ(rt("or", {ValueType::Float32, ValueType::UInt64}), ValueType::Bool);
}

TEST(AlgebraLogic, IfElseIsNumPyWhere) {
    EXPECT_TRUE(Is(ev("ifelse", {b(true), i32(1), i32(2)}), i32(1)));
    EXPECT_TRUE(Is(ev("ifelse", {b(false), i32(1), i32(2)}), i32(2)));
    EXPECT_TRUE(Is(ev("ifelse", {i32(5), i8(1), f32(2)}), f32(1)));    // promote(int8, float32)
    EXPECT_TRUE(Is(ev("ifelse", {f64(0), u8(1), i8(-2)}), i16(-2)));   // promote(uint8, int8)
    EXPECT_TRUE(ev("ifelse", {b(true), f64(kNaN), f64(0)}).is_nan());
    EXPECT_EQ(rt("ifelse", {ValueType::Float64, ValueType::Bool, ValueType::Int64}),
              ValueType::Int64);
    EXPECT_TRUE(ThrowsWith([] { ev("ifelse", {b(true), i32(1)}); },
                           "operator 'ifelse' takes 3 arguments, not 2"));
}
