// The registry: the builtin names, unknown names with suggestions, validation of user
// registrations, replacement, reduction identities, and instantiating C templates.
#include <algorithm>

#include "algebra_test_util.hpp"

using namespace siskin;
using namespace siskin::algebra_test;

namespace {

struct Builtin {
    const char* name;
    int arity;
};
const Builtin kBuiltins[] = {
    {"add", 2}, {"sub", 2}, {"mul", 2}, {"div", 2}, {"floordiv", 2}, {"mod", 2}, {"neg", 1},
    {"abs", 1}, {"eq", 2}, {"ne", 2}, {"lt", 2}, {"le", 2}, {"gt", 2}, {"ge", 2}, {"min", 2},
    {"max", 2}, {"and", 2}, {"or", 2}, {"xor", 2}, {"not", 1}, {"ifelse", 3},
    {"bitwise_and", 2}, {"bitwise_or", 2}, {"bitwise_xor", 2}, {"bitwise_not", 1}, {"shl", 2},
    {"shr", 2}, {"exp", 1}, {"log", 1}, {"sqrt", 1}, {"pow", 2}, {"ldexp", 2}, {"sign", 1},
    {"logaddexp", 2}, {"copysign", 2}, {"hypot", 2}, {"nextafter", 2}, {"signbit", 1},
};

// A minimal well-formed user operator: the integer part of its first argument.
Operator user_op(std::string name, int arity) {
    Operator op;
    op.name = std::move(name);
    op.arity = arity;
    op.result_type = [](std::span<const ValueType>) { return ValueType::Int64; };
    op.evaluate = [](std::span<const Scalar> a) { return Scalar::of(a[0].as_int()); };
    return op;
}

std::string c_expr(std::string_view op, std::initializer_list<ValueType> types,
                   std::initializer_list<std::string> args) {
    std::vector<ValueType> t(types);
    std::vector<std::string> a(args);
    return c_expression(find_operator(op), t, a);
}

} // namespace

TEST(AlgebraRegistry, EveryBuiltinIsRegisteredWithItsArity) {
    std::vector<std::string> names = operator_names();
    EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
    for (const auto& [name, arity] : kBuiltins) {
        EXPECT_NE(std::find(names.begin(), names.end(), name), names.end()) << name;
        const Operator& op = find_operator(name);
        EXPECT_EQ(op.name, name);
        EXPECT_EQ(op.arity, arity) << name;
        EXPECT_FALSE(op.c_template.empty()) << name;
        EXPECT_TRUE(op.operand_types) << name;
    }
    EXPECT_EQ(lookup_operator("add"), &find_operator("add"));
    EXPECT_EQ(lookup_operator("no_such_operator"), nullptr);
}

TEST(AlgebraRegistry, UnknownNamesSuggestNearOnes) {
    EXPECT_TRUE(ThrowsWith([] { find_operator("ad"); },
                           "unknown operator 'ad' (did you mean 'add' or 'and'?)"));
    EXPECT_TRUE(ThrowsWith([] { find_operator("bitwise_nto"); }, "did you mean 'bitwise_not'?"));
    EXPECT_TRUE(ThrowsWith([] { find_operator("Max"); }, "did you mean 'max'"));
    // C's spellings point at siskin's names (NumPy's are names: ufuncs_numpy_test).
    EXPECT_TRUE(ThrowsWith([] { find_operator("+"); }, "did you mean 'add'?"));
    EXPECT_TRUE(ThrowsWith([] { find_operator("<<"); }, "did you mean 'shl'?"));
    EXPECT_TRUE(ThrowsWith([] { find_operator("select"); }, "did you mean 'ifelse'?"));
    EXPECT_EQ(&find_operator("subtract"), &find_operator("sub"));
    EXPECT_EQ(&find_operator("where"), &find_operator("ifelse"));
    try {
        find_operator("frobnicate");
        ADD_FAILURE() << "no error";
    } catch (const Error& e) {
        EXPECT_EQ(std::string(e.what()), "unknown operator 'frobnicate'");
        EXPECT_EQ(e.kind(), Error::Kind::User);
    }
}

TEST(AlgebraRegistry, MalformedRegistrationsAreRefused) {
    EXPECT_TRUE(ThrowsWith([] { register_operator(user_op("", 1)); },
                           "cannot register an operator without a name"));
    EXPECT_TRUE(ThrowsWith([] { register_operator(user_op("two words", 1)); },
                           "cannot register operator 'two words': its name must be an identifier"));
    EXPECT_TRUE(ThrowsWith([] { register_operator(user_op("t_zero", 0)); },
                           "cannot register operator 't_zero': arity 0 is not 1, 2 or 3"));
    EXPECT_TRUE(ThrowsWith([] { register_operator(user_op("t_four", 4)); }, "arity 4"));
    EXPECT_TRUE(ThrowsWith(
        [] {
            Operator op = user_op("t_noeval", 2);
            op.evaluate = nullptr;
            register_operator(op);
        },
        "cannot register operator 't_noeval': it has no evaluate function"));
    EXPECT_TRUE(ThrowsWith(
        [] {
            Operator op = user_op("t_notype", 2);
            op.result_type = nullptr;
            register_operator(op);
        },
        "it has no result_type function"));
    EXPECT_TRUE(ThrowsWith(
        [] {
            Operator op = user_op("t_unary_id", 1);
            op.identity = [](ValueType t, int) -> std::optional<Scalar> { return Scalar::zero(t); };
            register_operator(op);
        },
        "only binary operators have an identity"));
    EXPECT_TRUE(ThrowsWith(
        [] {
            Operator op = user_op("t_ternary_ann", 3);
            op.annihilator = [](ValueType t, int) -> std::optional<std::pair<Scalar, Scalar>> {
                return std::pair{Scalar::zero(t), Scalar::zero(t)};
            };
            register_operator(op);
        },
        "only binary operators have an annihilator"));
    EXPECT_TRUE(ThrowsWith(
        [] {
            Operator op = user_op("t_unary_comm", 1);
            op.commutative = true;
            register_operator(op);
        },
        "only binary operators are commutative"));
    EXPECT_TRUE(ThrowsWith(
        [] {
            Operator op = user_op("t_finite", 2);
            op.annihilator_finite_only = true;
            register_operator(op);
        },
        "annihilator_finite_only is set but there is no annihilator"));
    EXPECT_TRUE(ThrowsWith(
        [] {
            Operator op = user_op("t_tmpl", 2);
            op.c_template = "($0 + $2)";
            register_operator(op);
        },
        "its c_template uses $2 but it takes 2 arguments"));
    EXPECT_TRUE(ThrowsWith(
        [] {
            Operator op = user_op("t_tmpl2", 1);
            op.c_template = "f($x)";
            register_operator(op);
        },
        "its c_template has '$x'"));
    // None of the refused ones got in.
    for (const char* name : {"t_zero", "t_four", "t_noeval", "t_notype", "t_unary_id",
                             "t_ternary_ann", "t_unary_comm", "t_finite", "t_tmpl", "t_tmpl2"})
        EXPECT_EQ(lookup_operator(name), nullptr) << name;
}

TEST(AlgebraRegistry, UserOperatorsCanBeAddedAndReplaced) {
    Operator first = user_op("test_trunc", 1);
    first.c_template = "((int64_t)$0)";
    register_operator(first);
    const Operator& old = find_operator("test_trunc");
    std::vector<Scalar> args{f64(2.75)};
    EXPECT_TRUE(Is(old.evaluate(args), i64(2)));

    Operator second = user_op("test_trunc", 1);
    second.evaluate = [](std::span<const Scalar> a) { return Scalar::of(a[0].as_int() + 1); };
    register_operator(second);
    EXPECT_TRUE(Is(find_operator("test_trunc").evaluate(args), i64(3)));
    // The reference taken before the replacement still works and is the old operator.
    EXPECT_TRUE(Is(old.evaluate(args), i64(2)));
    EXPECT_EQ(old.c_template, "((int64_t)$0)");
}

TEST(AlgebraRegistry, ReductionIdentities) {
    auto rid = [](std::string_view op, ValueType t) { return find_operator(op).reduction_identity(t); };
    EXPECT_TRUE(Is(*rid("add", ValueType::Int32), i32(0)));
    EXPECT_TRUE(Is(*rid("add", ValueType::Bool), b(false)));
    EXPECT_TRUE(Is(*rid("mul", ValueType::Float32), f32(1)));
    EXPECT_TRUE(Is(*rid("min", ValueType::Float64), f64(kInf)));
    EXPECT_TRUE(Is(*rid("min", ValueType::Int8), i8(127)));
    EXPECT_TRUE(Is(*rid("min", ValueType::UInt16), u16(65535)));
    EXPECT_TRUE(Is(*rid("min", ValueType::Bool), b(true)));
    EXPECT_TRUE(Is(*rid("max", ValueType::Float32), f32(-kInf)));
    EXPECT_TRUE(Is(*rid("max", ValueType::Int64), i64(std::numeric_limits<int64_t>::min())));
    EXPECT_TRUE(Is(*rid("max", ValueType::UInt8), u8(0)));
    EXPECT_TRUE(Is(*rid("max", ValueType::Bool), b(false)));
    EXPECT_TRUE(Is(*rid("and", ValueType::Int32), b(true)));
    EXPECT_TRUE(Is(*rid("or", ValueType::Float64), b(false)));
    EXPECT_TRUE(Is(*rid("xor", ValueType::Bool), b(false)));
    EXPECT_TRUE(Is(*rid("bitwise_and", ValueType::Int16), i16(-1)));
    EXPECT_TRUE(Is(*rid("bitwise_and", ValueType::UInt32), u32(0xFFFFFFFFu)));
    EXPECT_TRUE(Is(*rid("bitwise_or", ValueType::UInt8), u8(0)));
    EXPECT_TRUE(Is(*rid("bitwise_xor", ValueType::Int64), i64(0)));
    // Identities on one side only, or none, give no reduction identity.
    for (const char* op : {"sub", "div", "pow", "shl", "shr", "ldexp", "floordiv", "eq", "neg"})
        EXPECT_FALSE(rid(op, ValueType::Int32).has_value()) << op;
    EXPECT_FALSE(rid("bitwise_and", ValueType::Float64).has_value());
}

TEST(AlgebraRegistry, CExpressionsConvertArgumentsAndPickTheHelper) {
    using V = ValueType;
    EXPECT_EQ(c_expr("add", {V::Int32, V::Float32}, {"a[i]", "x"}),
              "siskin_add_f64(((double)a[i]), ((double)x))");
    EXPECT_EQ(c_expr("add", {V::Int32, V::Int32}, {"a", "b + 1"}), "siskin_add_i32(a, (b + 1))");
    EXPECT_EQ(c_expr("floordiv", {V::Bool, V::Bool}, {"p", "q"}),
              "siskin_floordiv_i8(((int8_t)p), ((int8_t)q))");
    EXPECT_EQ(c_expr("lt", {V::Int8, V::UInt8}, {"p", "q"}), "(((int16_t)p) < ((int16_t)q))");
    EXPECT_EQ(c_expr("div", {V::Int32, V::Int32}, {"x", "y"}), "(((double)x) / ((double)y))");
    EXPECT_EQ(c_expr("bitwise_and", {V::UInt8, V::UInt8}, {"m", "n"}), "((uint8_t)(m & n))");
    EXPECT_EQ(c_expr("ifelse", {V::Float64, V::Int8, V::Float32}, {"c", "a", "b"}),
              "(((bool)c) ? ((float)a) : b)");
    EXPECT_EQ(c_expr("not", {V::Int32}, {"k"}), "(!((bool)k))");
    EXPECT_EQ(c_expr("ldexp", {V::Float32, V::Int32}, {"x", "n"}),
              "siskin_ldexp_f32(x, ((int64_t)n))");
    EXPECT_EQ(c_expr("sqrt", {V::UInt16}, {"f(a, b)"}), "siskin_sqrt_f64(((double)f(a, b)))");
    EXPECT_EQ(c_expr("neg", {V::Float32}, {"(a + b) * c"}), "siskin_neg_f32(((a + b) * c))");

    EXPECT_TRUE(ThrowsWith([] { c_expr("shl", {V::Float32, V::Int32}, {"x", "n"}); },
                           "operator 'shl' does not take float32 and int32 arguments"));
    EXPECT_TRUE(ThrowsWith([] { c_expr("add", {V::Int32}, {"x"}); }, "takes 2 arguments"));
    Operator no_c = user_op("test_no_c", 1);
    std::vector<ValueType> t{V::Int32};
    std::vector<std::string> a{"x"};
    try {
        c_expression(no_c, t, a);
        ADD_FAILURE() << "no error";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), Error::Kind::Unsupported);
        EXPECT_NE(std::string(e.what()).find("has no C template"), std::string::npos);
    }
}
