// Declared properties: every builtin's hold on sample values of every type (check_properties
// finds nothing), the declarations are the expected ones, and false claims are reported.
#include <algorithm>
#include <set>

#include "algebra/samples.hpp"
#include "algebra_test_util.hpp"

using namespace siskin;
using namespace siskin::algebra_test;

namespace {

const char* const kBuiltinNames[] = {
    "add", "sub", "mul", "div", "floordiv", "mod", "neg", "abs", "eq", "ne", "lt",
    "le", "gt", "ge", "min", "max", "and", "or", "xor", "not", "ifelse", "bitwise_and",
    "bitwise_or", "bitwise_xor", "bitwise_not", "shl", "shr", "exp", "log", "sqrt", "pow", "ldexp",
};

std::string describe(const std::vector<PropertyViolation>& v) {
    std::string s;
    for (const auto& x : v) s += x.property + ": " + x.message + "\n";
    return s;
}

bool reports(const std::vector<PropertyViolation>& v, std::string_view property,
             std::string_view needle = "") {
    return std::any_of(v.begin(), v.end(), [&](const PropertyViolation& x) {
        return x.property == property && x.message.find(needle) != std::string::npos;
    });
}

// A copy of a builtin under another name, to make false claims about.
Operator copy_of(std::string_view builtin, std::string name) {
    Operator op = find_operator(builtin);
    op.name = std::move(name);
    return op;
}

std::set<std::string> names_where(bool Operator::*flag) {
    std::set<std::string> out;
    for (const char* name : kBuiltinNames)
        if (find_operator(name).*flag) out.insert(name);
    return out;
}

} // namespace

TEST(AlgebraProperties, EveryBuiltinPropertyHolds) {
    for (const char* name : kBuiltinNames) {
        std::vector<PropertyViolation> v = check_properties(find_operator(name));
        EXPECT_TRUE(v.empty()) << name << ":\n" << describe(v);
    }
}

TEST(AlgebraProperties, DeclaredFlags) {
    using S = std::set<std::string>;
    EXPECT_EQ(names_where(&Operator::commutative),
              (S{"add", "mul", "min", "max", "and", "or", "xor", "bitwise_and", "bitwise_or",
                 "bitwise_xor", "eq", "ne"}));
    EXPECT_EQ(names_where(&Operator::associative),
              (S{"add", "mul", "min", "max", "and", "or", "xor", "bitwise_and", "bitwise_or",
                 "bitwise_xor"}));
    EXPECT_EQ(names_where(&Operator::idempotent),
              (S{"min", "max", "and", "or", "bitwise_and", "bitwise_or"}));
    EXPECT_EQ(names_where(&Operator::annihilator_finite_only), (S{"mul", "min", "max"}));
}

TEST(AlgebraProperties, IdentitiesPerPosition) {
    auto id = [](std::string_view op, ValueType t, int arg) {
        return find_operator(op).identity(t, arg);
    };
    using V = ValueType;
    EXPECT_FALSE(id("sub", V::Int32, 0));
    EXPECT_TRUE(Is(*id("sub", V::Int32, 1), i32(0)));
    EXPECT_FALSE(id("sub", V::Bool, 1)); // sub refuses bool
    EXPECT_FALSE(id("div", V::Float64, 0));
    EXPECT_TRUE(Is(*id("div", V::Float64, 1), f64(1)));
    EXPECT_TRUE(Is(*id("pow", V::UInt8, 1), u8(1)));
    EXPECT_FALSE(id("pow", V::UInt8, 0));
    EXPECT_TRUE(Is(*id("shl", V::Int64, 1), i64(0)));
    EXPECT_TRUE(Is(*id("shr", V::UInt16, 1), u16(0)));
    EXPECT_FALSE(id("shr", V::UInt16, 0));
    EXPECT_FALSE(id("shl", V::Float32, 1));
    EXPECT_TRUE(Is(*id("ldexp", V::Float32, 1), i64(0)));
    EXPECT_FALSE(id("ldexp", V::Float32, 0));
    EXPECT_TRUE(Is(*id("floordiv", V::Int32, 1), i32(1)));
    EXPECT_FALSE(id("floordiv", V::Float64, 1)); // 2.5 // 1 == 2
    EXPECT_TRUE(Is(*id("bitwise_and", V::UInt8, 0), u8(255)));
    EXPECT_TRUE(Is(*id("bitwise_and", V::Bool, 1), b(true)));
    // eq is xnor on bool (identity true there) and has no identity on other types.
    EXPECT_TRUE(Is(*id("eq", V::Bool, 0), b(true)));
    EXPECT_FALSE(id("eq", V::Int32, 0));
    EXPECT_FALSE(find_operator("lt").identity);
}

TEST(AlgebraProperties, AnnihilatorsPerPosition) {
    auto ann = [](std::string_view op, ValueType t, int arg) {
        return find_operator(op).annihilator(t, arg);
    };
    using V = ValueType;
    auto is = [](const std::optional<std::pair<Scalar, Scalar>>& a, const Scalar& z,
                 const Scalar& r) {
        return a && Is(a->first, z) && Is(a->second, r);
    };
    EXPECT_TRUE(is(ann("mul", V::Float64, 0), f64(0), f64(0)));
    EXPECT_TRUE(is(ann("mul", V::Bool, 1), b(false), b(false)));
    EXPECT_TRUE(is(ann("and", V::Int32, 0), b(false), b(false)));
    EXPECT_TRUE(is(ann("or", V::Float32, 1), b(true), b(true)));
    EXPECT_TRUE(is(ann("min", V::Float64, 0), f64(-kInf), f64(-kInf)));
    EXPECT_TRUE(is(ann("min", V::Int8, 0), i8(-128), i8(-128)));
    EXPECT_TRUE(is(ann("max", V::UInt8, 1), u8(255), u8(255)));
    EXPECT_TRUE(is(ann("max", V::Float32, 1), f32(kInf), f32(kInf)));
    EXPECT_TRUE(is(ann("bitwise_and", V::Int16, 0), i16(0), i16(0)));
    EXPECT_TRUE(is(ann("bitwise_or", V::Int16, 0), i16(-1), i16(-1)));
    EXPECT_TRUE(is(ann("pow", V::Float64, 0), f64(1), f64(1)));  // 1^y == 1
    EXPECT_TRUE(is(ann("pow", V::Float64, 1), f64(0), f64(1)));  // x^0 == 1
    EXPECT_TRUE(is(ann("pow", V::Bool, 1), b(false), i8(1)));
    EXPECT_TRUE(is(ann("shl", V::Int32, 0), i32(0), i32(0)));
    EXPECT_TRUE(is(ann("shr", V::Bool, 0), b(false), i8(0)));
    EXPECT_FALSE(ann("shr", V::Int32, 1));
    EXPECT_FALSE(find_operator("bitwise_xor").annihilator);
    EXPECT_FALSE(find_operator("add").annihilator);
    EXPECT_FALSE(find_operator("xor").annihilator);
}

TEST(AlgebraProperties, FalseClaimsAreReported) {
    Operator comm = copy_of("sub", "bad_sub_comm");
    comm.commutative = true;
    auto v = check_properties(comm);
    EXPECT_TRUE(reports(v, "commutative", "bad_sub_comm(")) << describe(v);
    EXPECT_LE(v.size(), 3u) << "at most a few examples per property";

    Operator assoc = copy_of("sub", "bad_sub_assoc");
    assoc.associative = true;
    EXPECT_TRUE(reports(check_properties(assoc), "associative"));

    Operator idem = copy_of("add", "bad_add_idem");
    idem.idempotent = true;
    EXPECT_TRUE(reports(check_properties(idem), "idempotent", "bad_add_idem(int8 1, int8 1) = int8 2"));

    Operator one = copy_of("add", "bad_add_identity");
    one.identity = [](ValueType t, int) -> std::optional<Scalar> { return Scalar::of(int64_t{1}).cast(t); };
    EXPECT_TRUE(reports(check_properties(one), "identity"));

    // sub's identity 0 holds only at position 1.
    Operator left = copy_of("sub", "bad_sub_left");
    left.identity = [](ValueType t, int) -> std::optional<Scalar> {
        if (t == ValueType::Bool) return std::nullopt;
        return Scalar::zero(t);
    };
    EXPECT_TRUE(reports(check_properties(left), "identity", "at position 0"));

    // 0 * inf is NaN: without the finite-only flag mul's annihilator is false for floats.
    Operator inf = copy_of("mul", "bad_mul_inf");
    inf.annihilator_finite_only = false;
    EXPECT_TRUE(reports(check_properties(inf), "annihilator", "inf"));

    Operator wrong_end = copy_of("min", "bad_min_ann");
    wrong_end.annihilator = [](ValueType t, int) -> std::optional<std::pair<Scalar, Scalar>> {
        Scalar top = find_operator("max").annihilator(t, 0)->first;
        return std::pair{top, top};
    };
    EXPECT_TRUE(reports(check_properties(wrong_end), "annihilator"));

    // An identity for a type the operator refuses (right for the integers, but given for floats).
    Operator float_shift = copy_of("shl", "bad_shl_float");
    float_shift.identity = [](ValueType t, int arg) -> std::optional<Scalar> {
        return arg == 1 ? std::optional(Scalar::zero(t)) : std::nullopt;
    };
    EXPECT_TRUE(reports(check_properties(float_shift), "identity", "refuses"));
}

TEST(AlgebraProperties, TypeDisagreementsAreReported) {
    Operator liar;
    liar.name = "bad_types";
    liar.arity = 1;
    liar.result_type = [](std::span<const ValueType>) { return ValueType::Int64; };
    liar.evaluate = [](std::span<const Scalar> a) { return Scalar::of(a[0].as_double()); };
    auto v = check_properties(liar);
    EXPECT_TRUE(reports(v, "types", "result_type says int64")) << describe(v);

    Operator refuses_but_runs = copy_of("neg", "bad_refusal");
    refuses_but_runs.result_type = [](std::span<const ValueType> t) {
        if (t[0] == ValueType::Int8 || t[0] == ValueType::Bool) throw Error("refused");
        return t[0];
    };
    EXPECT_TRUE(reports(check_properties(refuses_but_runs), "types",
                        "result_type refuses bad_refusal(int8"));
}

TEST(AlgebraProperties, SamplesCoverTheEdges) {
    using algebra::Samples;
    auto has = [](const std::vector<Scalar>& s, const Scalar& x) {
        return std::any_of(s.begin(), s.end(), [&](const Scalar& y) { return Is(y, x); });
    };
    auto f = algebra::sample_values(ValueType::Float64);
    EXPECT_TRUE(has(f, f64(-0.0)));
    EXPECT_TRUE(has(f, f64(kInf)));
    EXPECT_TRUE(has(f, f64(-kInf)));
    EXPECT_TRUE(std::any_of(f.begin(), f.end(), [](const Scalar& s) { return s.is_nan(); }));
    auto finite = algebra::sample_values(ValueType::Float32, Samples::Finite);
    EXPECT_TRUE(std::none_of(finite.begin(), finite.end(), [](const Scalar& s) {
        return s.is_nan() || std::isinf(s.as_double());
    }));
    auto i = algebra::sample_values(ValueType::Int8);
    for (int v : {-128, -127, -1, 0, 1, 7, 8, 100, 126, 127}) EXPECT_TRUE(has(i, i8(v))) << v;
    auto u = algebra::sample_values(ValueType::UInt64);
    EXPECT_TRUE(has(u, u64(~0ull)));
    EXPECT_TRUE(has(u, u64(64)));
    EXPECT_FALSE(has(u, u64(~0ull - 2)));
}
