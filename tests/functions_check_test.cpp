// The checker: every mistake in a definition is an Error at the line and column of the
// mistake (or naming the function, for its properties), and defining follows the one-name,
// one-meaning rule of the registry.
#include <gtest/gtest.h>

#include "functions_test_util.hpp"
#include "siskin/ir/text.hpp"

using namespace siskin;
using namespace siskin::functions_test;

namespace {

// Builds the operator of the single definition in `text` without registering it.
Operator build(const std::string& text) {
    std::vector<FunctionDef> defs = parse_functions(text, "<check>");
    SISKIN_ASSERT(defs.size() == 1, "build: one definition expected");
    return function_operator(defs[0]);
}

// `def f(a: int64) -> int64 {` + body lines + `}`: the body starts on line 2.
std::string f_of(const std::string& body, const std::string& head = "def f(a: int64) -> int64") {
    return head + " {\n" + body + "\n}\n";
}

struct BodyCase {
    std::string body;
    int64_t line, column;
    const char* message;
};

} // namespace

TEST(FunctionsCheck, BodyMistakesAreReportedWhereTheyAre) {
    const BodyCase cases[] = {
        {"    return c", 2, 12, "unknown name 'c' (the names here are a)"},
        {"    x = 1\n    return a", 2, 5,
         "unknown name 'x' (the names here are a); declare it with let"},
        {"    if a > 0 { let t = 1 }\n    return t", 3, 12, "unknown name 't'"},
        {"    return gdc(a, a)", 2, 12, "unknown operator 'gdc'"},
        {"    return maxx(a, a)", 2, 12, "unknown operator 'maxx' (did you mean 'max' or 'fmax'?)"},
        {"    return max(a)", 2, 12, "operator 'max' takes 2 arguments, not 1"},
        {"    return int32(a, a)", 2, 12, "the conversion int32(...) takes one value, not 2"},
        {"    return f(a)", 2, 12, "f calls itself; recursion is not supported"},
        {"    let x: int32 = a\n    return a", 2, 20,
         "x is int32 but this value is int64, which does not convert to int32 without loss; "
         "write int32(...) to convert"},
        {"    let x = 1\n    x = 2.5\n    return x", 3, 9, "x is int64 but this value is float64"},
        {"    return a / 2", 2, 14,
         "the result of f is int64 but this value is float64, which does not convert"},
        {"    return a << 1.5", 2, 14, "operator 'shl' does not take int64 and float64 arguments"},
        {"    if a > 0 { return a }", 3, 1,
         "function f can reach the end of its body without returning a value; add a return"},
        {"    while a > 0 { return a }", 3, 1, "can reach the end of its body"},
        {"    return a\n    a = 1", 3, 5,
         "this statement is never reached: every path before it returns"},
        {"    if a > 0 { return 1 } else { return 2 }\n    return 3", 3, 5, "never reached"},
        {"    let a = 1\n    return a", 2, 5, "a is a parameter; a let cannot declare it again"},
        {"    let t = 1\n    if a > 0 { let t = 2 }\n    return t", 3, 16,
         "t is already declared at 2:5; names cannot be declared twice or shadowed"},
    };
    for (const BodyCase& c : cases)
        EXPECT_TRUE(ThrowsAt([&] { build(f_of(c.body)); }, c.line, c.column, c.message)) << c.body;
}

TEST(FunctionsCheck, ValidBodies) {
    // Every path returns (if/else, while true), sibling blocks reuse a name, and a name of an
    // operator is a fine variable name.
    for (const char* body :
         {"    if a > 0 { return 1 } else if a < 0 { return -1 } else { return 0 }",
          "    while true { if a > 10 { return a }; a = a * 2 }",
          "    { let t = 1 }; { let t = 2; a = a + t }\n    return a",
          "    let max = 3\n    return max(a, max)",
          "    let b: float64 = a\n    return int64(b * 0.5)"})
        EXPECT_NO_THROW(build(f_of(body))) << body;
}

TEST(FunctionsCheck, PlainLiteralsTakeTheTypeTheyMeet) {
    // NumPy 2 rules: x + 1 stays int8 (and wraps), x * 0.5 stays float32.
    Operator inc = build(f_of("    return x + 1", "def f(x: int8) -> int8"));
    EXPECT_TRUE(Is(call(inc, {i8(127)}), i8(-128)));
    Operator half = build(f_of("    return x * 0.1", "def f(x: float32) -> float32"));
    EXPECT_TRUE(Is(call(half, {f32(3.0)}), f32(3.0f * 0.1f)));
    // A constant that does not fit the type it meets is an error, not a silent wrap.
    EXPECT_TRUE(ThrowsAt([] { build(f_of("    return x + 300", "def f(x: uint8) -> uint8")); }, 2,
                         16, "the constant 300 does not fit uint8, the type it is used at here"));
    // An integer literal does not become a float exponent: ldexp keeps its int64 count.
    Operator scale = build(f_of("    return ldexp(x, 3)", "def f(x: float32) -> float32"));
    EXPECT_TRUE(Is(call(scale, {f32(1.5)}), f32(12.0)));
}

TEST(FunctionsCheck, PropertiesAreCheckedForShapeAndType) {
    auto def2 = [](const std::string& props) {
        return "def g(a: int64, b: int64) -> int64 [" + props + "] { return a }";
    };
    EXPECT_TRUE(ThrowsAt([&] { build(def2("identity(-inf)")); }, 1, 1,
                         "function g: its identity -inf is not a value of type int64 (the type of "
                         "parameter a)"));
    EXPECT_TRUE(ThrowsWith([&] { build(def2("annihilator(0.5, b)")); },
                           "its annihilator 0.5 is not a value of type int64 (the type of "
                           "parameter b)"));
    EXPECT_TRUE(ThrowsWith(
        [] { build("def g(a: float64, b: float64) -> int64 [annihilator(0.5)] { return 1 }"); },
        "its annihilator 0.5 is not a value of type int64 (the result type)"));
    EXPECT_TRUE(ThrowsWith([&] { build(def2("annihilator_finite_only")); },
                           "annihilator_finite_only needs an annihilator"));
    EXPECT_TRUE(ThrowsWith([] { build("def g(a: int64) -> int64 [commutative] { return a }"); },
                           "only a function of two parameters can be commutative"));
    // The C++ builder can say things the text cannot.
    FunctionDef d("g_cpp");
    d.param("a", ValueType::Int64).param("b", ValueType::Int64).returns(ValueType::Int64);
    EXPECT_TRUE(ThrowsWith([&] { function_operator(d); }, "function g_cpp: it has no body"));
    d.body("return a");
    d.identity(i64(0), 2);
    EXPECT_TRUE(ThrowsWith([&] { function_operator(d); },
                           "its identity is for argument position 2, but positions are 0 and 1"));
    EXPECT_TRUE(ThrowsWith(
        [] {
            function_operator(FunctionDef("my-fn").param("a", ValueType::Bool).body("return a"));
        },
        "a function name must be an identifier"));
    EXPECT_TRUE(ThrowsWith(
        [] { function_operator(FunctionDef("int8").param("a", ValueType::Bool).body("return a")); },
        "a type name cannot name a function"));
    EXPECT_TRUE(ThrowsWith([] { function_operator(FunctionDef("nop").body("return 1")); },
                           "it has 0 parameters"));
    EXPECT_TRUE(ThrowsWith(
        [] {
            function_operator(
                FunctionDef("st").param("a", ValueType::Bool).body("return a").step_limit(0));
        },
        "its step limit must be at least 1"));
}

TEST(FunctionsCheck, CasesAreChecked) {
    const std::string def = "def h(a: int64, b: int64) -> int64 { return a + b }\n";
    EXPECT_TRUE(ThrowsAt([&] { build(def + "case h(x) = x"); }, 2, 1,
                         "h takes 2 arguments, but the case gives 1"));
    EXPECT_TRUE(ThrowsAt([&] { build(def + "case h(x, y) = x"); }, 2, 1,
                         "a case fixes at least one argument to a constant"));
    EXPECT_TRUE(ThrowsAt([&] { build(def + "case h(x, 0.5) = x"); }, 2, 11,
                         "0.5 is not a value of type int64 (the type of parameter b)"));
    EXPECT_TRUE(ThrowsAt([&] { build(def + "case h(x, 0) = 1.5"); }, 2, 16,
                         "the result of h is int64 but this value is float64"));
    EXPECT_TRUE(ThrowsAt([&] { build(def + "case h(x, 0) = y"); }, 2, 16,
                         "unknown name 'y' (the names here are x)"));
    FunctionDef d("h_cpp");
    d.param("a", ValueType::Int64)
        .returns(ValueType::Int64)
        .body("return a")
        .special_case("h(0) = 1");
    EXPECT_TRUE(ThrowsAt([&] { function_operator(d); }, 1, 1, "this case is for h, not for h_cpp"));
}

TEST(FunctionsCheck, OperatorTypingFollowsTheDeclaredTypes) {
    Operator op = build("def k(a: int32, b: float64) -> float32 { return float32(a * b) }");
    EXPECT_EQ(op.arity, 2);
    std::vector<ValueType> ok = {ValueType::Int16, ValueType::Int64};
    EXPECT_EQ(op.result_type(ok), ValueType::Float32);
    EXPECT_EQ(op.operand_types(ok), (std::vector<ValueType>{ValueType::Int32, ValueType::Float64}));
    std::vector<ValueType> lossy = {ValueType::Int64, ValueType::Float64};
    EXPECT_TRUE(ThrowsWith([&] { op.result_type(lossy); },
                           "function 'k' takes int32 as argument 1 (a); an int64 argument does "
                           "not convert to int32 without loss"));
    std::vector<ValueType> three = {ValueType::Int8, ValueType::Int8, ValueType::Int8};
    EXPECT_TRUE(
        ThrowsWith([&] { op.result_type(three); }, "function 'k' takes 2 arguments, not 3"));
    EXPECT_TRUE(ThrowsWith(
        [&] {
            call(op, {i64(1), f64(2)});
        },
        "an int64 argument does not convert"));
    EXPECT_TRUE(Is(call(op, {i8(3), u32(2)}), f32(6)));
}

TEST(FunctionsCheck, ANameMeansOneDefinition) {
    const char* text = "def once_check(a: int64) -> int64 { return a + 1 }";
    FunctionDef first = parse_functions(text, "one.sk")[0];
    const Operator& op = define_function(first);
    // The same definition again (the same program parsed twice) is the same operator.
    EXPECT_EQ(&define_function(parse_functions(text, "two.sk")[0]), &op);
    EXPECT_EQ(find_function("once_check")->to_string(), first.to_string());
    EXPECT_EQ(find_function("add"), nullptr);
    EXPECT_EQ(find_function("no_such_function"), nullptr);

    FunctionDef other =
        parse_functions("\n  def once_check(a: int64) -> int64 { return a + 2 }", "three.sk")[0];
    EXPECT_TRUE(ThrowsAt([&] { define_function(other); }, 2, 3,
                         "function once_check is already defined differently (at one.sk:1:1); "
                         "give this definition another name"));
    EXPECT_TRUE(Is(call(find_operator("once_check"), {i64(1)}), i64(2)));
    EXPECT_TRUE(ThrowsWith(
        [] {
            define_function(
                parse_functions("def max(a: int64, b: int64) -> int64 { return a }")[0]);
        },
        "max is a builtin operator; give the function another name"));
    // Replace is explicit.
    define_function(other, Redefinition::Replace);
    EXPECT_TRUE(Is(call(find_operator("once_check"), {i64(1)}), i64(3)));
    EXPECT_TRUE(Is(call(op, {i64(1)}), i64(2))); // the old operator stays valid
}

TEST(FunctionsCheck, ProgramTextFollowsTheSameRule) {
    ir::parse_program(
        "def twice_check(a: float64) -> float64 { return a * 2 }\ny[i] = twice_check(x[i])");
    EXPECT_NO_THROW(
        ir::parse_program("def twice_check(a: float64) -> float64 {\n    return a * 2\n}\n"));
    EXPECT_TRUE(ThrowsAt(
        [] {
            ir::parse_program("y[i] = x[i]", "a.sk");
            ir::parse_program("\ndef twice_check(a: float64) -> float64 { return a * 3 }", "b.sk");
        },
        2, 1, "function twice_check is already defined differently (at <program>:1:1)"));
}
