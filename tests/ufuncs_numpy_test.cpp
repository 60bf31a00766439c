// NumPy's ufuncs by their NumPy names: each name finds the builtin it stands for, and the
// results (value and type) agree with NumPy 1.24 on sample values: NaN, inf, -0.0, integer
// wrap-around, true division of integers, shift counts past the width and negative ones. The
// expected values were computed with numpy (np.<name>(np.array([x], dtype), ...)) and checked by
// hand against the IEEE and NumPy rules written next to them.
#include <algorithm>
#include <set>

#include "algebra_test_util.hpp"

using namespace siskin;
using namespace siskin::algebra_test;

namespace {

struct Expect {
    const char* ufunc;
    std::vector<Scalar> args;
    Scalar want; // NumPy's result, its dtype included
};

// One element arrays in NumPy, so no value-based casting of Python scalars is involved.
const std::vector<Expect>& numpy_results() {
    static const std::vector<Expect> cases = {
        // add, subtract, multiply: integers wrap; bool add is or.
        {"add", {i8(127), i8(1)}, i8(-128)},
        {"add", {b(true), b(true)}, b(true)},
        {"subtract", {i32(3), i64(5)}, i64(-2)},
        {"multiply", {f64(0.0), f64(kInf)}, f64(kNaN)},
        {"multiply", {u8(16), u8(17)}, u8(16)}, // 272 mod 256
        // divide is true division: integers and bool give float64.
        {"divide", {i64(7), i64(2)}, f64(3.5)},
        {"divide", {i64(1), i64(0)}, f64(kInf)},
        {"divide", {i64(0), i64(0)}, f64(kNaN)},
        {"divide", {i8(-1), i8(0)}, f64(-kInf)},
        {"divide", {f32(1), f32(3)}, f32(1.0f / 3.0f)},
        {"divide", {b(true), b(true)}, f64(1.0)},
        {"true_divide", {i64(7), i64(2)}, f64(3.5)},
        // power: integers stay integers (and wrap); 0^0, NaN^0 and 1^NaN are 1.
        {"power", {i64(2), i64(10)}, i64(1024)},
        {"power", {f64(2), f64(-1)}, f64(0.5)},
        {"power", {f64(0), f64(0)}, f64(1)},
        {"power", {f64(kNaN), f64(0)}, f64(1)},
        {"power", {f64(1), f64(kNaN)}, f64(1)},
        {"power", {i8(2), i8(7)}, i8(-128)},
        {"power", {f64(-8), f64(1.0 / 3.0)}, f64(kNaN)},
        // ldexp(x, n) = x * 2^n in x's float type (integers: float64).
        {"ldexp", {f64(1.5), i64(3)}, f64(12)},
        {"ldexp", {i64(3), i64(2)}, f64(12)},
        {"ldexp", {f64(1), i64(-1075)}, f64(0)},
        {"ldexp", {f64(kInf), i64(-5)}, f64(kInf)},
        {"ldexp", {f32(1), i32(200)}, f32(kInf)},
        // right_shift: arithmetic for negative values; a count outside 0..63 (negative counts
        // included) gives 0, or -1 for a negative value.
        {"right_shift", {i64(-8), i64(1)}, i64(-4)},
        {"right_shift", {i64(5), i64(64)}, i64(0)},
        {"right_shift", {i64(-8), i64(100)}, i64(-1)},
        {"right_shift", {i64(8), i64(-1)}, i64(0)},
        {"right_shift", {i64(-8), i64(-1)}, i64(-1)},
        {"right_shift", {u8(200), u8(3)}, u8(25)},
        // left_shift: wraps in the type; counts outside the width give 0; bool computes in int8.
        {"left_shift", {i64(1), i64(3)}, i64(8)},
        {"left_shift", {i8(1), i8(7)}, i8(-128)},
        {"left_shift", {i64(1), i64(64)}, i64(0)},
        {"left_shift", {i64(1), i64(-1)}, i64(0)},
        {"left_shift", {b(true), b(true)}, i8(2)},
        // logical_*: any type, nonzero and NaN are true, bool result.
        {"logical_and", {f64(2.5), f64(kNaN)}, b(true)},
        {"logical_and", {f64(0), f64(kNaN)}, b(false)},
        {"logical_or", {i64(0), i64(0)}, b(false)},
        {"logical_xor", {i64(3), f64(0)}, b(true)},
        {"logical_xor", {f64(kNaN), f64(kNaN)}, b(false)},
        // bitwise_*: int8 with uint8 promotes to int16.
        {"bitwise_and", {i8(-1), u8(255)}, i16(255)},
        {"bitwise_or", {b(true), b(false)}, b(true)},
        {"bitwise_xor", {i32(6), i32(3)}, i32(5)},
        // maximum/minimum propagate NaN; fmax/fmin ignore it.
        {"maximum", {f64(kNaN), f64(1)}, f64(kNaN)},
        {"maximum", {f64(1), f64(kNaN)}, f64(kNaN)},
        {"minimum", {f64(-kInf), f64(kNaN)}, f64(kNaN)},
        {"maximum", {i64(-3), u8(200)}, i64(200)},
        {"fmax", {f64(kNaN), f64(1)}, f64(1)},
        {"fmax", {f64(1), f64(kNaN)}, f64(1)},
        {"fmin", {f64(kNaN), f64(kNaN)}, f64(kNaN)},
        {"fmin", {f64(-kInf), f64(kNaN)}, f64(-kInf)},
        // Comparisons in the promoted type (int64 with uint64: float64); NaN compares unequal.
        {"equal", {f64(kNaN), f64(kNaN)}, b(false)},
        {"not_equal", {f64(kNaN), f64(kNaN)}, b(true)},
        {"less", {i64(-1), u64(0)}, b(true)},
        {"greater_equal", {f64(kInf), f64(kInf)}, b(true)},
        {"less_equal", {f64(kNaN), f64(1)}, b(false)},
        {"greater", {i8(-1), u8(255)}, b(false)},
        {"equal", {i64((int64_t{1} << 53) + 1), f64(9007199254740992.0)}, b(true)},
        // Unary.
        {"absolute", {i8(-128)}, i8(-128)},
        {"absolute", {f64(-0.0)}, f64(0.0)},
        {"absolute", {f64(-kInf)}, f64(kInf)},
        {"abs", {i64(-7)}, i64(7)},
        {"negative", {u8(1)}, u8(255)},
        {"negative", {i64(-5)}, i64(5)},
        {"invert", {i8(0)}, i8(-1)},
        {"invert", {u8(0)}, u8(255)},
        {"invert", {b(true)}, b(false)},
        {"logical_not", {f64(kNaN)}, b(false)},
        {"logical_not", {f64(0)}, b(true)},
        {"exp", {i64(0)}, f64(1)},
        {"exp", {f64(-kInf)}, f64(0)},
        {"exp", {f64(710)}, f64(kInf)},
        // float32 exp(1) is 2.71828175 correctly rounded, as siskin computes it (expf); NumPy's
        // vectorised float32 exp gives 2.71828198, one ulp off, so it is left out here.
        {"exp", {f32(0)}, f32(1)},
        {"exp", {f32(-kInf)}, f32(0)},
        {"log", {f64(0)}, f64(-kInf)},
        {"log", {f64(-1)}, f64(kNaN)},
        {"log", {f64(kNaN)}, f64(kNaN)},
        {"sqrt", {f64(-1)}, f64(kNaN)},
        {"sqrt", {i64(4)}, f64(2)},
        // copysign: x's magnitude, y's sign bit (-0.0 counts); integers give float64.
        {"copysign", {f64(3), f64(-0.0)}, f64(-3)},
        {"copysign", {f64(-2), f64(kInf)}, f64(2)},
        {"copysign", {i64(-2), i64(1)}, f64(2)},
        {"copysign", {f64(0), f64(-1)}, f64(-0.0)},
        {"copysign", {f32(1.5f), f32(-1)}, f32(-1.5f)},
        // hypot: an infinity wins over NaN (IEEE), integers give float64.
        {"hypot", {f64(3), f64(4)}, f64(5)},
        {"hypot", {f64(kInf), f64(kNaN)}, f64(kInf)},
        {"hypot", {f64(kNaN), f64(1)}, f64(kNaN)},
        {"hypot", {i64(3), i64(4)}, f64(5)},
        {"hypot", {f32(1e30f), f32(1e30f)}, f32(1.4142135e30f)},
        // signbit: -0.0 and -inf have it, an integer below 0 has it.
        {"signbit", {f64(-0.0)}, b(true)},
        {"signbit", {f64(0.0)}, b(false)},
        {"signbit", {f64(-kInf)}, b(true)},
        {"signbit", {i64(-3)}, b(true)},
        {"signbit", {u8(200)}, b(false)},
        // nextafter: one ulp towards y; NaN in, NaN out; x == y gives y (-0.0 here).
        {"nextafter", {f64(1), f64(2)}, f64(1.0000000000000002)},
        {"nextafter", {f64(0), f64(-1)}, f64(-5e-324)},
        {"nextafter", {f32(1), f32(2)}, f32(1.00000012f)},
        {"nextafter", {f64(1), f64(kNaN)}, f64(kNaN)},
        {"nextafter", {f64(0), f64(-0.0)}, f64(-0.0)},
        {"nextafter", {i64(1), i64(2)}, f64(1.0000000000000002)},
        // where(c, a, b): c is truthy when nonzero or NaN; a and b promote.
        {"where", {b(true), i8(1), f32(2)}, f32(1)},
        {"where", {f64(kNaN), i64(1), i64(2)}, i64(1)},
        {"where", {f64(0), i64(1), i64(2)}, i64(2)},
    };
    return cases;
}

std::string show(const Expect& e) {
    std::string s = std::string(e.ufunc) + "(";
    for (size_t k = 0; k < e.args.size(); ++k)
        s += (k ? ", " : "") + std::string(type_name(e.args[k].type())) + " " +
             e.args[k].to_string();
    return s + ")";
}

} // namespace

TEST(UfuncsNumpy, ResultsAndTypesMatchNumpy) {
    for (const Expect& e : numpy_results()) {
        const Operator& op = find_operator(e.ufunc);
        std::vector<ValueType> types;
        for (const Scalar& a : e.args) types.push_back(a.type());
        EXPECT_EQ(op.result_type(types), e.want.type()) << show(e);
        EXPECT_TRUE(Is(op.apply(e.args), e.want)) << show(e);
    }
}

TEST(UfuncsNumpy, TypesNumpyRefusesAreRefused) {
    // np.subtract on bool, ldexp with a uint64 or float exponent, bitwise ops and shifts on
    // floats (int64 with uint64 promotes to float64) all raise TypeError in NumPy.
    EXPECT_TRUE(ThrowsWith([] { rt("subtract", {ValueType::Bool, ValueType::Bool}); },
                           "does not take"));
    EXPECT_TRUE(ThrowsWith([] { rt("ldexp", {ValueType::Float64, ValueType::UInt64}); },
                           "does not take"));
    EXPECT_TRUE(ThrowsWith([] { rt("ldexp", {ValueType::Float64, ValueType::Float64}); },
                           "does not take"));
    EXPECT_TRUE(ThrowsWith([] { rt("bitwise_and", {ValueType::Float64, ValueType::Float64}); },
                           "does not take"));
    EXPECT_TRUE(ThrowsWith([] { rt("left_shift", {ValueType::Int64, ValueType::UInt64}); },
                           "does not take"));
    EXPECT_TRUE(ThrowsWith([] { rt("invert", {ValueType::Float32}); }, "does not take"));
}

TEST(UfuncsNumpy, NumpyNamesFindTheBuiltinItself) {
    std::set<std::string> names;
    for (const auto& [alias, builtin] : operator_aliases()) {
        EXPECT_TRUE(names.insert(alias).second) << alias << " listed twice";
        const Operator* op = lookup_operator(alias);
        ASSERT_NE(op, nullptr) << alias;
        EXPECT_EQ(op, &find_operator(builtin)) << alias;
        EXPECT_EQ(op->name, builtin) << alias;
        // An alias is never also a registered name (that would shadow the builtin).
        std::vector<std::string> registered = operator_names();
        EXPECT_EQ(std::find(registered.begin(), registered.end(), alias), registered.end());
    }
    EXPECT_EQ(find_operator("where").name, "ifelse");
    EXPECT_EQ(find_operator("maximum").name, "max");
    EXPECT_EQ(find_operator("logical_xor").name, "xor");
    EXPECT_EQ(find_operator("invert").name, "bitwise_not");
    // Every ufunc of the issue is callable by its NumPy name.
    for (const char* ufunc :
         {"add", "subtract", "multiply", "divide", "power", "ldexp", "right_shift", "left_shift",
          "logical_and", "logical_or", "logical_xor", "logical_not", "bitwise_and", "bitwise_or",
          "bitwise_xor", "invert", "maximum", "minimum", "fmax", "fmin", "equal", "not_equal",
          "less", "less_equal", "greater", "greater_equal", "abs", "absolute", "negative", "exp",
          "log", "sqrt", "where"})
        EXPECT_NE(lookup_operator(ufunc), nullptr) << ufunc;
    // Spellings that are not names still point at one.
    EXPECT_TRUE(ThrowsWith([] { find_operator("select"); }, "did you mean 'ifelse'?"));
    EXPECT_TRUE(ThrowsWith([] { find_operator("maximun"); }, "did you mean 'maximum'?"));
}

TEST(UfuncsNumpy, FminFmaxPropertiesHold) {
    for (const char* name : {"fmin", "fmax", "eq", "ne"}) {
        std::vector<PropertyViolation> v = check_properties(find_operator(name));
        std::string all;
        for (const auto& p : v) all += p.property + ": " + p.message + "\n";
        EXPECT_TRUE(v.empty()) << name << ":\n" << all;
    }
    // NaN is fmax's identity for floats and +inf an annihilator that NaN does not defeat.
    const Operator& fmax = find_operator("fmax");
    EXPECT_TRUE(fmax.identity(ValueType::Float64, 0)->is_nan());
    EXPECT_TRUE(Is(fmax.annihilator(ValueType::Float64, 1)->second, f64(kInf)));
    EXPECT_FALSE(fmax.annihilator_finite_only);
    EXPECT_TRUE(Is(*fmax.identity(ValueType::Int32, 1), i32(INT32_MIN)));
    // eq and ne are xnor and xor on bool: identities true and false there, none elsewhere.
    EXPECT_TRUE(Is(*find_operator("equal").identity(ValueType::Bool, 0), b(true)));
    EXPECT_TRUE(Is(*find_operator("not_equal").identity(ValueType::Bool, 1), b(false)));
    EXPECT_FALSE(find_operator("equal").identity(ValueType::Int64, 0).has_value());
}

TEST(UfuncsNumpy, PropertiesThatDecideIterationSpaces) {
    // logical_xor: identity false (union under false fills, as the paper's xor);
    // logical_and: annihilator false (intersection); logical_or: identity false (union).
    EXPECT_TRUE(Is(*find_operator("logical_xor").identity(ValueType::Bool, 0), b(false)));
    EXPECT_FALSE(find_operator("logical_xor").annihilator);
    EXPECT_TRUE(Is(find_operator("logical_and").annihilator(ValueType::Bool, 1)->first, b(false)));
    EXPECT_TRUE(Is(*find_operator("logical_or").identity(ValueType::Bool, 1), b(false)));
    // ldexp and right_shift: 0 annihilates at position 0 only (iterate x1 under zero fills).
    const Operator& ldexp = find_operator("ldexp");
    ASSERT_TRUE(ldexp.annihilator);
    EXPECT_TRUE(ldexp.annihilator(ValueType::Int64, 0).has_value());
    EXPECT_FALSE(ldexp.annihilator(ValueType::Float64, 1).has_value());
    EXPECT_TRUE(find_operator("right_shift").annihilator(ValueType::Int64, 0).has_value());
    EXPECT_FALSE(find_operator("right_shift").annihilator(ValueType::Int64, 1).has_value());
    // power: x^0 == 1 and 1^y == 1 even for NaN (so a zero-filled exponent gives fill 1).
    auto z = find_operator("power").annihilator(ValueType::Float64, 1);
    ASSERT_TRUE(z);
    EXPECT_TRUE(Is(z->first, f64(0)));
    EXPECT_TRUE(Is(z->second, f64(1)));
    EXPECT_FALSE(find_operator("power").annihilator_finite_only);
    std::vector<PropertyViolation> v = check_properties(ldexp);
    EXPECT_TRUE(v.empty()) << (v.empty() ? "" : v.front().message);
}
