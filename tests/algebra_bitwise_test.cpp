// Hand-checked values for bitwise_and/or/xor/not and the shifts, including shift counts 0,
// width - 1, width, 100 and negative ones, which C leaves undefined and NumPy defines.
#include <cstdint>
#include <limits>

#include "algebra_test_util.hpp"

using namespace siskin;
using namespace siskin::algebra_test;

namespace {
constexpr int64_t kI64Min = std::numeric_limits<int64_t>::min();
constexpr int32_t kI32Min = std::numeric_limits<int32_t>::min();
} // namespace

TEST(AlgebraBitwise, AndOrXor) {
    EXPECT_TRUE(Is(ev("bitwise_and", {i32(12), i32(10)}), i32(8)));
    EXPECT_TRUE(Is(ev("bitwise_or", {i32(12), i32(10)}), i32(14)));
    EXPECT_TRUE(Is(ev("bitwise_xor", {i32(12), i32(10)}), i32(6)));
    EXPECT_TRUE(Is(ev("bitwise_and", {u8(0xF0), u8(0x3C)}), u8(0x30)));
    EXPECT_TRUE(Is(ev("bitwise_or", {u64(1ull << 63), u64(1)}), u64((1ull << 63) | 1)));
    EXPECT_TRUE(Is(ev("bitwise_and", {i8(-1), u8(255)}), i16(255))); // promoted to int16
    EXPECT_TRUE(Is(ev("bitwise_xor", {i8(-1), i8(0x0F)}), i8(-16)));
    EXPECT_TRUE(Is(ev("bitwise_and", {b(true), b(false)}), b(false)));
    EXPECT_TRUE(Is(ev("bitwise_or", {b(true), b(false)}), b(true)));
    EXPECT_TRUE(Is(ev("bitwise_xor", {b(true), b(true)}), b(false)));
}

TEST(AlgebraBitwise, RefusesFloats) {
    EXPECT_TRUE(ThrowsWith([] { ev("bitwise_and", {f64(1), i32(1)}); },
                           "operator 'bitwise_and' does not take float64 and int32 arguments; "
                           "it takes integers and bool"));
    // int64 with uint64 promotes to float64, so NumPy refuses it too.
    EXPECT_TRUE(ThrowsWith([] { rt("bitwise_or", {ValueType::Int64, ValueType::UInt64}); },
                           "does not take int64 and uint64 arguments"));
    EXPECT_TRUE(ThrowsWith([] { ev("bitwise_not", {f32(1)}); },
                           "operator 'bitwise_not' does not take a float32 argument"));
    EXPECT_TRUE(ThrowsWith([] { ev("shl", {f32(1), i32(1)}); }, "operator 'shl' does not take"));
    EXPECT_TRUE(ThrowsWith([] { ev("shr", {i32(1), f64(1)}); }, "operator 'shr' does not take"));
}

TEST(AlgebraBitwise, Not) {
    EXPECT_TRUE(Is(ev("bitwise_not", {i32(0)}), i32(-1)));
    EXPECT_TRUE(Is(ev("bitwise_not", {i8(5)}), i8(-6)));
    EXPECT_TRUE(Is(ev("bitwise_not", {u8(0)}), u8(255)));
    EXPECT_TRUE(Is(ev("bitwise_not", {u16(0x00FF)}), u16(0xFF00)));
    EXPECT_TRUE(Is(ev("bitwise_not", {b(true)}), b(false))); // NumPy invert on bool is not
}

TEST(AlgebraBitwise, ShiftLeft) {
    EXPECT_TRUE(Is(ev("shl", {i32(1), i32(0)}), i32(1)));
    EXPECT_TRUE(Is(ev("shl", {i32(1), i32(31)}), i32(kI32Min)));
    EXPECT_TRUE(Is(ev("shl", {i32(1), i32(32)}), i32(0)));
    EXPECT_TRUE(Is(ev("shl", {i32(1), i32(100)}), i32(0)));
    EXPECT_TRUE(Is(ev("shl", {i32(1), i32(-1)}), i32(0)));   // negative counts are huge
    EXPECT_TRUE(Is(ev("shl", {i32(-1), i32(1)}), i32(-2)));  // no UB for negative values
    EXPECT_TRUE(Is(ev("shl", {i8(1), i8(7)}), i8(-128)));
    EXPECT_TRUE(Is(ev("shl", {i8(1), i8(8)}), i8(0)));
    EXPECT_TRUE(Is(ev("shl", {u8(255), u8(1)}), u8(254)));
    EXPECT_TRUE(Is(ev("shl", {u8(1), u8(8)}), u8(0)));
    EXPECT_TRUE(Is(ev("shl", {i64(1), i64(63)}), i64(kI64Min)));
    EXPECT_TRUE(Is(ev("shl", {i64(1), i64(64)}), i64(0)));
    EXPECT_TRUE(Is(ev("shl", {u64(3), u64(62)}), u64(1ull << 63 | 1ull << 62)));
    EXPECT_TRUE(Is(ev("shl", {i8(1), i32(9)}), i32(512)));   // promoted before shifting
    EXPECT_TRUE(Is(ev("shl", {b(true), b(true)}), i8(2)));   // bool computes in int8
    EXPECT_EQ(rt("shl", {ValueType::Bool, ValueType::Bool}), ValueType::Int8);
    EXPECT_EQ(rt("shl", {ValueType::UInt8, ValueType::Int8}), ValueType::Int16);
}

TEST(AlgebraBitwise, ShiftRight) {
    EXPECT_TRUE(Is(ev("shr", {i32(5), i32(0)}), i32(5)));
    EXPECT_TRUE(Is(ev("shr", {i32(-8), i32(1)}), i32(-4)));
    EXPECT_TRUE(Is(ev("shr", {i32(-7), i32(1)}), i32(-4)));  // rounds toward -inf
    EXPECT_TRUE(Is(ev("shr", {i32(kI32Min), i32(31)}), i32(-1)));
    EXPECT_TRUE(Is(ev("shr", {i32(5), i32(31)}), i32(0)));
    EXPECT_TRUE(Is(ev("shr", {i32(-1), i32(32)}), i32(-1)));
    EXPECT_TRUE(Is(ev("shr", {i32(-5), i32(100)}), i32(-1)));
    EXPECT_TRUE(Is(ev("shr", {i32(-5), i32(-1)}), i32(-1)));
    EXPECT_TRUE(Is(ev("shr", {i32(5), i32(32)}), i32(0)));
    EXPECT_TRUE(Is(ev("shr", {i32(5), i32(-1)}), i32(0)));
    EXPECT_TRUE(Is(ev("shr", {i8(-128), i8(7)}), i8(-1)));
    EXPECT_TRUE(Is(ev("shr", {i8(100), i8(7)}), i8(0)));
    EXPECT_TRUE(Is(ev("shr", {i8(-100), i8(8)}), i8(-1)));
    EXPECT_TRUE(Is(ev("shr", {u8(255), u8(7)}), u8(1)));
    EXPECT_TRUE(Is(ev("shr", {u8(255), u8(8)}), u8(0)));
    EXPECT_TRUE(Is(ev("shr", {u32(0x80000000u), u32(31)}), u32(1)));
    EXPECT_TRUE(Is(ev("shr", {u32(0x80000000u), u32(32)}), u32(0)));
    EXPECT_TRUE(Is(ev("shr", {u64(~0ull), u64(63)}), u64(1)));
    EXPECT_TRUE(Is(ev("shr", {i64(kI64Min), i64(63)}), i64(-1)));
    EXPECT_TRUE(Is(ev("shr", {i64(kI64Min), i64(64)}), i64(-1)));
}
