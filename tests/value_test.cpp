#include <cmath>

#include <gtest/gtest.h>

#include "siskin/error.hpp"
#include "siskin/value.hpp"

using namespace siskin;

TEST(Value, ParseAndPrintRoundTrip) {
    for (auto [text, type] : std::initializer_list<std::pair<const char*, ValueType>>{
             {"3", ValueType::Int32}, {"-7", ValueType::Int64}, {"2.5", ValueType::Float64},
             {"inf", ValueType::Float64}, {"-inf", ValueType::Float32}, {"nan", ValueType::Float64},
             {"true", ValueType::Bool}, {"255", ValueType::UInt8}, {"0.1", ValueType::Float32}}) {
        Scalar s = Scalar::parse(text, type);
        EXPECT_EQ(s.type(), type);
        EXPECT_TRUE(Scalar::parse(s.to_string(), type).same(s)) << text;
    }
    EXPECT_EQ(Scalar::parse("0.1", ValueType::Float32).to_string(), "0.1");
}

TEST(Value, ParseRejectsOutOfRangeAndJunk) {
    EXPECT_THROW(Scalar::parse("256", ValueType::UInt8), Error);
    EXPECT_THROW(Scalar::parse("-1", ValueType::UInt32), Error);
    EXPECT_THROW(Scalar::parse("12x", ValueType::Int64), Error);
    EXPECT_THROW(Scalar::parse("", ValueType::Float64), Error);
    EXPECT_THROW(Scalar::parse("maybe", ValueType::Bool), Error);
    EXPECT_THROW(parse_type("complex128"), Error);
}

TEST(Value, NanIsTheSameValueAsNan) {
    Scalar a = Scalar::of(std::nan("")), b = Scalar::parse("nan", ValueType::Float64);
    EXPECT_TRUE(a.same(b));
    EXPECT_FALSE(a.same(Scalar::of(0.0)));
    EXPECT_TRUE(Scalar::of(-0.0).same(Scalar::of(0.0)));
    EXPECT_TRUE(Scalar::of(int32_t{2}).same_value(Scalar::of(2.0)));
    EXPECT_FALSE(Scalar::of(int32_t{2}).same(Scalar::of(2.0)));
}

TEST(Value, CastFollowsC) {
    EXPECT_EQ(Scalar::of(2.9).cast(ValueType::Int32).as_int(), 2);
    EXPECT_EQ(Scalar::of(-2.9).cast(ValueType::Int32).as_int(), -2);
    EXPECT_EQ(Scalar::of(int64_t{300}).cast(ValueType::UInt8).as_uint(), 44u);
    EXPECT_TRUE(Scalar::of(0.5).cast(ValueType::Bool).as_bool());
    EXPECT_FLOAT_EQ(Scalar::of(0.1).cast(ValueType::Float32).as_double(), 0.1f);
}

TEST(Value, LoadStoreEveryType) {
    for (int k = 0; k <= static_cast<int>(ValueType::Float64); ++k) {
        auto t = static_cast<ValueType>(k);
        unsigned char mem[8] = {};
        Scalar s = Scalar::of(int64_t{5}).cast(t);
        s.store(mem);
        EXPECT_TRUE(Scalar::load(t, mem).same(s)) << type_name(t);
        EXPECT_EQ(parse_type(type_name(t)), t);
    }
}

TEST(Value, PromotionFollowsNumPy) {
    EXPECT_EQ(promote(ValueType::Bool, ValueType::Int8), ValueType::Int8);
    EXPECT_EQ(promote(ValueType::Int32, ValueType::Float32), ValueType::Float64);
    EXPECT_EQ(promote(ValueType::Int16, ValueType::Float32), ValueType::Float32);
    EXPECT_EQ(promote(ValueType::UInt8, ValueType::Int8), ValueType::Int16);
    EXPECT_EQ(promote(ValueType::UInt32, ValueType::Int32), ValueType::Int64);
    EXPECT_EQ(promote(ValueType::UInt64, ValueType::Int64), ValueType::Float64);
    EXPECT_EQ(promote(ValueType::Float32, ValueType::Float64), ValueType::Float64);
    EXPECT_EQ(promote(ValueType::Int64, ValueType::Int64), ValueType::Int64);
}
