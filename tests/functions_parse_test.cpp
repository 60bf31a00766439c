// Parsing function definitions and special cases: the canonical text they print to (written out
// by hand below), print -> parse round trips, programs that start with definitions, and syntax
// errors reported at the right line and column.
#include <gtest/gtest.h>

#include "functions_test_util.hpp"
#include "siskin/ir/text.hpp"

using namespace siskin;
using namespace siskin::functions_test;

namespace {

// Line and column (1-based) of the first occurrence of `needle` in `text`.
std::pair<int64_t, int64_t> where(std::string_view text, std::string_view needle) {
    size_t at = text.find(needle);
    SISKIN_ASSERT(at != std::string_view::npos, "where: needle not in text");
    int64_t line = 1, column = 1;
    for (size_t k = 0; k < at; ++k) {
        if (text[k] == '\n') {
            ++line;
            column = 1;
        } else {
            ++column;
        }
    }
    return {line, column};
}

const char* kGcdText = R"(# Euclid
def gcd_parse(a: int64, b: int64) -> int64 [commutative, associative, annihilator(1)] {
    while b != 0 { let t = b; b = a % b; a = t }
    return abs(a)
}
case gcd_parse(x, 0) = abs(x)
)";

const char* kGcdCanonical =
    R"(def gcd_parse(a: int64, b: int64) -> int64 [commutative, associative, annihilator(1)] {
    while b != 0 {
        let t = b
        b = a % b
        a = t
    }
    return abs(a)
}
case gcd_parse(x, 0) = abs(x)
)";

// Every statement form, else-if chains, an empty block, typed and negative literals,
// conversions, and cases with typed, negative and NaN constants.
const char* kMixCanonical = R"(def mix_parse(x: float32, n: int32, flag: bool) -> float64 {
    let y: float64 = x
    let k = 0
    if flag && n > 0 {
        y = y * 2.0
    } else if n < -3 {
        return -inf
    } else {}
    while k < n {
        k = k + 1
        {
            let z = int8(-3)
            y = y + float64(z)
        }
    }
    return y - -(1.5) + float32(0.25)
}
case mix_parse(x, int32(0), true) = nan
case mix_parse(-0.0, n, f) = float64(n)
)";

} // namespace

TEST(FunctionsParse, ReadsADefinitionWithPropertiesAndACase) {
    std::vector<FunctionDef> defs = parse_functions(kGcdText, "gcd.sk");
    ASSERT_EQ(defs.size(), 1u);
    const FunctionDef& d = defs[0];
    EXPECT_EQ(d.name(), "gcd_parse");
    ASSERT_EQ(d.params().size(), 2u);
    EXPECT_EQ(d.params()[0].name, "a");
    EXPECT_EQ(d.params()[1].type, ValueType::Int64);
    EXPECT_EQ(d.result(), ValueType::Int64);
    EXPECT_TRUE(d.properties().commutative);
    EXPECT_TRUE(d.properties().associative);
    EXPECT_FALSE(d.properties().idempotent);
    EXPECT_FALSE(d.properties().identity);
    ASSERT_TRUE(d.properties().annihilator);
    EXPECT_TRUE(Is(d.properties().annihilator->value, i64(1)));
    EXPECT_FALSE(d.properties().annihilator->position);
    EXPECT_EQ(d.cases().size(), 1u);
    ASSERT_TRUE(d.where());
    EXPECT_EQ(d.where()->file, "gcd.sk");
    EXPECT_EQ(d.where()->line, 2);
    EXPECT_EQ(d.to_string(), kGcdCanonical);
}

TEST(FunctionsParse, PrintedDefinitionsParseBackEqual) {
    for (const char* text : {kGcdCanonical, kMixCanonical}) {
        std::vector<FunctionDef> defs = parse_functions(text);
        ASSERT_EQ(defs.size(), 1u);
        EXPECT_EQ(defs[0].to_string(), text);
        EXPECT_EQ(parse_functions(defs[0].to_string())[0].to_string(), text);
    }
    // The mixed definition also checks: every form above is valid, not just parseable.
    EXPECT_NO_THROW(function_operator(parse_functions(kMixCanonical)[0]));
}

TEST(FunctionsParse, PositionsAndTheFiniteOnlyFlagPrintByName) {
    const char* text = "def pdiv(a: float64, b: float64) -> float64 [identity(1, b), "
                       "annihilator(0.0, a), annihilator_finite_only] { return a / b }\n";
    FunctionDef d = parse_functions(text)[0];
    ASSERT_TRUE(d.properties().identity);
    EXPECT_EQ(d.properties().identity->position, 1);
    EXPECT_EQ(d.properties().annihilator->position, 0);
    EXPECT_TRUE(d.properties().annihilator_finite_only);
    EXPECT_EQ(d.to_string(), "def pdiv(a: float64, b: float64) -> float64 [identity(1, b), "
                             "annihilator(0.0, a), annihilator_finite_only] {\n"
                             "    return a / b\n}\n");
}

TEST(FunctionsParse, TheCppBuilderPrintsTheSameText) {
    FunctionDef d("gcd_parse");
    d.param("a", ValueType::Int64)
        .param("b", ValueType::Int64)
        .returns(ValueType::Int64)
        .body("while b != 0 { let t = b; b = a % b; a = t }\nreturn abs(a)")
        .commutative()
        .associative()
        .annihilator(i64(1))
        .special_case("gcd_parse(x, 0) = abs(x)");
    EXPECT_EQ(d.to_string(), kGcdCanonical);
    EXPECT_FALSE(d.where());
}

TEST(FunctionsParse, ProgramsStartWithDefinitionsAndPrintThem) {
    std::string text = std::string(kGcdText) + "\nC[i] = gcd_parse(A[i], B[i])\n";
    ir::Program p = ir::parse_program(text);
    ASSERT_EQ(p.functions.size(), 1u);
    EXPECT_EQ(p.functions[0]->name(), "gcd_parse");
    std::string printed = ir::print(p);
    EXPECT_EQ(printed,
              std::string(kGcdCanonical) + "\nfor i {\n    C[i] = gcd_parse(A[i], B[i])\n}\n");
    ir::Program again = ir::parse_program(printed); // the same definition again: no clash
    EXPECT_TRUE(ir::equal(p, again));
    // A program without the definition is a different program, though the function still exists.
    ir::Program without = ir::parse_program("C[i] = gcd_parse(A[i], B[i])");
    EXPECT_TRUE(ir::equal(without.body, p.body));
    EXPECT_FALSE(ir::equal(without, p));
}

TEST(FunctionsParse, DefAndCaseAreOrdinaryNamesElsewhere) {
    ir::Program p = ir::parse_program("def[i] = case[i] + 1");
    EXPECT_TRUE(p.functions.empty());
    EXPECT_EQ(p.outputs(), std::vector<std::string>{"def"});
    EXPECT_EQ(p.inputs(), std::vector<std::string>{"case"});
}

TEST(FunctionsParse, EmptyAndOnlyDefinitions) {
    EXPECT_TRUE(parse_functions("").empty());
    EXPECT_TRUE(parse_functions("\n# nothing\n;\n").empty());
    ir::Program p = ir::parse_program("def only_defs_parse(x: int8) -> int8 { return x }\n");
    EXPECT_EQ(p.functions.size(), 1u);
    EXPECT_TRUE(ir::equal(ir::parse_program(ir::print(p)), p));
}

struct SyntaxCase {
    const char* text;
    const char* at; // the text at the error's position (first occurrence)
    const char* message;
    int shift = 0; // columns past `at` (for errors at the end of input)
    int line = 0;  // when not 0: the error is at line:shift instead
};

TEST(FunctionsParse, SyntaxErrorsPointAtTheProblem) {
    const SyntaxCase cases[] = {
        {"def f(a: int64) int64 { return a }", "int64 {", "expected '->' and the result type of f"},
        {"def f(a: int65) -> int64 { return a }", "int65", "expected a type (bool, int8"},
        {"def f(a: int64) -> int64 {\n    a += 1\n    return a\n}",
         "+=", "only '=' assigns in a function body: write a = a + ..."},
        {"def f(a: int64) -> int64 {\n    a -= 1\n    return a\n}",
         "-=", "only '=' assigns in a function body: write a = a - ..."},
        {"def f(a: int64, b: int64) -> int64 [commutative, fast] { return a }", "fast",
         "unknown property 'fast'"},
        {"def f(a: int64, b: int64) -> int64 [idempotent, idempotent] { return a }", "idempotent]",
         "property idempotent is given twice"},
        {"def f(a: int64, b: int64) -> int64 [identity(0, c)] { return a }", "c)]",
         "f has no parameter named c"},
        {"def f(a: int64, b: int64) -> int64 [identity(x)] { return a }", "x)]",
         "expected the identity value (a number"},
        {"def f(a: int64, a: int64) -> int64 { return a }", "a: int64)",
         "parameter a is declared twice (first at 1:7)"},
        {"def f(a: int64, b: int64, c: int64, d: int64) -> int64 { return a }", "f(",
         "function f has 4 parameters; a function takes 1, 2 or 3"},
        {"def f() -> int64 { return 1 }", "f(", "function f has 0 parameters"},
        {"def f(a: int64) -> int64 {\n    return\n}", "\n}", "expected the value to return"},
        {"def f(a: int64) -> int64 { return A[a] }", "A[", "cannot index a tensor"},
        {"def f(a: int64) -> int64 {\n    return a\n", "a\n",
         "expected '}' to close the '{' at 1:26", 1},
        {"def f(a: int64) -> int64 { let if = 2; return a }",
         "if =", "expected a variable name after let, found the keyword 'if'"},
        {"def f(int8: int64) -> int64 { return 1 }",
         "int8:", "expected a parameter name, found the type name 'int8'"},
        {"def f(a: int64) -> int64 { return a } def g(a: int64) -> int64 { return a }", "def g",
         "expected a newline after the definition"},
        {"case g(x, 0) = x\ndef g(a: int64, b: int64) -> int64 { return a }", "case",
         "case for g, which is not defined above it in this text"},
        {"def g(a: int64, b: int64) -> int64 { return a }\ncase g(x, x) = x", "x) = x",
         "x names two arguments of the case"},
        {"def g(a: int64, b: int64) -> int64 { return a }\ncase g(x, y) x", ") x",
         "expected '=' and the case's result", 2},
        {"def g(a: int64) -> int64 { return a }\ndef g(a: int64) -> int64 { return a }", "",
         "function g is defined twice in this text (first at 1:1)", 1, 2},
        {"def g(a: int64) -> int64 { return a }\nC[i] = g(A[i])", "C[",
         "expected 'def' or 'case', found 'C'"},
        {"def f(a: int64) -> int64 { return 99999999999999999999 }", "9999",
         "integer 99999999999999999999 does not fit int64"},
    };
    for (const SyntaxCase& c : cases) {
        auto [line, column] = where(c.text, c.at);
        column += c.shift;
        if (c.line) std::tie(line, column) = std::pair<int64_t, int64_t>{c.line, c.shift};
        EXPECT_TRUE(ThrowsAt([&] { parse_functions(c.text); }, line, column, c.message)) << c.text;
    }
}

TEST(FunctionsParse, DefinitionsComeBeforeTheStatements) {
    EXPECT_TRUE(ThrowsAt(
        [] { ir::parse_program("y[i] = x[i]\ndef late_parse(a: int64) -> int64 { return a }"); }, 2,
        1, "'def' forms come before the first statement of the program"));
}

TEST(FunctionsParse, BodyAndCaseTextOfTheBuilderReportTheirOwnPositions) {
    FunctionDef d("built_parse");
    EXPECT_TRUE(
        ThrowsAt([&] { d.body("let x = 1\nreturn x +"); }, 2, 11, "expected an expression"));
    EXPECT_TRUE(ThrowsWith([&] { d.body("return )"); }, "<function built_parse>:1:8"));
    EXPECT_TRUE(ThrowsAt([&] { d.special_case("built_parse(x 0) = x"); }, 1, 15,
                         "expected ',' or ')' in the case's arguments"));
    EXPECT_NO_THROW(d.special_case("case built_parse(0) = 1"));
}

// Function bodies read the expressions of program text: its keywords (a body adds while and
// return), its access protocols, its constants (any expression that reads as a literal) and
// its nesting limits.
TEST(FunctionsParse, BodiesShareTheExpressionRulesOfProgramText) {
    EXPECT_TRUE(ThrowsAt([] { parse_functions("def f(a: int64) -> int64 { let for = 2; return a }"); },
                         1, 32, "expected a variable name after let, found the keyword 'for'"));
    EXPECT_TRUE(ThrowsAt([] { parse_functions("def f(in: int64) -> int64 { return in }"); }, 1, 7,
                         "expected a parameter name, found the keyword 'in'"));
    EXPECT_TRUE(ThrowsAt([] { parse_functions("def f(a: int64) -> int64 { return walk(a) }"); }, 1,
                         35, "walk(...) is an access protocol"));
    // A program may still name a tensor after a body's keyword.
    EXPECT_EQ(ir::parse_program("return[i] = while[i]").outputs(),
              std::vector<std::string>{"return"});
    // Constants are as in fill declarations: parentheses allowed, an operation refused.
    FunctionDef d = parse_functions("def shared_constants_parse(a: int64, b: int64) -> int64 "
                                    "[identity((0))] { return a + b }\n"
                                    "case shared_constants_parse(x, (-1)) = x - 1\n")[0];
    EXPECT_TRUE(Is(d.properties().identity->value, i64(0)));
    EXPECT_TRUE(ThrowsAt(
        [] { parse_functions("def f(a: int64, b: int64) -> int64 [identity(1 + 2)] { return a }"); },
        1, 46, "expected the identity value (a number, inf, nan, true, false or a typed literal "
               "such as int8(3)), found 1 + 2"));
}

TEST(FunctionsParse, NestingLimitsAreThoseOfProgramText) {
    auto body = [](const std::string& e) {
        return "def f(x: int64) -> int64 { return " + e + " }";
    };
    EXPECT_TRUE(ThrowsWith([&] { parse_functions(body(std::string(600, '(') + "x" +
                                                      std::string(600, ')'))); },
                           "nests more than 500 levels deep"));
    std::string sum = "x";
    for (int k = 0; k < 2000; ++k) sum += " + x";
    EXPECT_TRUE(ThrowsWith([&] { parse_functions(body(sum)); }, "nests more than 2000 operations "
                                                                 "deep"));
    // Just inside both limits, a body checks and runs: the checker and the interpreter recurse
    // as deep as the parser allows.
    std::string deep = "x";
    for (int k = 0; k < 1990; ++k) deep += " + 1";
    std::string blocks = std::string(480, '{') + " return " + deep + " " + std::string(480, '}');
    const Operator& op = define("def nesting_limits_parse(x: int64) -> int64 { " + blocks + " }");
    EXPECT_TRUE(Is(call(op, {i64(10)}), i64(2000)));
}
