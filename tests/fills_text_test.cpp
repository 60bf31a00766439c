// `fill A = VALUE` declarations in program text: what they parse to, how they print (and read
// back), and the parse errors at their line and column.
#include "ir_test_support.hpp"

#include <cmath>
#include <limits>

using namespace siskin;
using namespace siskin::ir;
using namespace siskin::ir::test;

namespace {

const double kInf = std::numeric_limits<double>::infinity();
const double kNaN = std::numeric_limits<double>::quiet_NaN();

void expect_fill_error(std::string_view text, const std::string& part, int line, int column) {
    SCOPED_TRACE(std::string(text));
    Error e = expect_error([&] { parse_program(text); }, part);
    ASSERT_TRUE(e.where().has_value()) << e.what();
    EXPECT_EQ(e.where()->line, line) << e.what();
    EXPECT_EQ(e.where()->column, column) << e.what();
}

void expect_round_trip(std::string_view text) {
    SCOPED_TRACE(std::string(text));
    Program p = parse_program(text);
    std::string printed = print(p);
    Program again = parse_program(printed);
    EXPECT_IR_EQ(again, p);
    EXPECT_EQ(print(again), printed);
}

} // namespace

TEST(FillsText, DeclarationsParseToTheirTensorsValuesAndLines) {
    Program p = parse_program("fill A = inf\n"
                              "  fill y = inf   # the (min, +) semiring's zero\n"
                              "y[i] min= A[i,j] + x[j]\n");
    ASSERT_EQ(p.fills.size(), 2u);
    EXPECT_EQ(p.fills[0].tensor, "A");
    EXPECT_TRUE(p.fills[0].value.same(Scalar::of(kInf)));
    EXPECT_EQ(p.fills[0].pos.line, 1);
    EXPECT_EQ(p.fills[0].pos.column, 1);
    EXPECT_EQ(p.fills[1].tensor, "y");
    EXPECT_EQ(p.fills[1].pos.line, 2);
    EXPECT_EQ(p.fills[1].pos.column, 3);
    ASSERT_NE(p.declared_fill("y"), nullptr);
    EXPECT_EQ(p.declared_fill("y")->tensor, "y");
    EXPECT_EQ(p.declared_fill("x"), nullptr);
    // The statements are those of the program without the declarations.
    EXPECT_TRUE(equal(p.body, parse_program("y[i] min= A[i,j] + x[j]").body));
    EXPECT_EQ(p.fills[0].describe(), "fill A = inf (line 1)");
}

TEST(FillsText, ValuesKeepTheTypeTheyAreWrittenIn) {
    Program p = parse_program("fill a = 0; fill b = -inf; fill c = nan; fill d = false\n"
                              "fill e = int8(-3); fill f = 2.5; fill g = uint64(7)\n"
                              "r[i] = a[i] + b[i] + c[i] + d[i] + e[i] + f[i] + g[i]");
    ASSERT_EQ(p.fills.size(), 7u);
    EXPECT_TRUE(p.fills[0].value.same(Scalar::of(int64_t{0})));
    EXPECT_TRUE(p.fills[1].value.same(Scalar::of(-kInf)));
    EXPECT_TRUE(p.fills[2].value.is_nan());
    EXPECT_TRUE(p.fills[3].value.same(Scalar::of(false)));
    EXPECT_TRUE(p.fills[4].value.same(Scalar::of(int8_t{-3})));
    EXPECT_TRUE(p.fills[5].value.same(Scalar::of(2.5)));
    EXPECT_TRUE(p.fills[6].value.same(Scalar::of(uint64_t{7})));
}

TEST(FillsText, MatchingComparesInTheTensorsType) {
    FillDecl zero{"A", Scalar::of(int64_t{0})};
    EXPECT_TRUE(zero.matches(Scalar::of(0.0)));
    EXPECT_TRUE(zero.matches(Scalar::of(false)));
    EXPECT_FALSE(zero.matches(Scalar::of(1.0)));
    FillDecl inf{"A", Scalar::of(kInf)};
    EXPECT_TRUE(inf.matches(Scalar::of(static_cast<float>(kInf))));
    EXPECT_FALSE(inf.matches(Scalar::of(int64_t{0})));          // no int64 is inf
    EXPECT_FALSE(inf.matches(Scalar::of(-kInf)));
    FillDecl tenth{"A", Scalar::of(0.1)};
    EXPECT_TRUE(tenth.matches(Scalar::of(0.1f)));                // rounded like the tensor's type
    EXPECT_FALSE(tenth.matches(Scalar::of(int64_t{0})));         // 0.1 is no integer
    FillDecl nan{"A", Scalar::of(kNaN)};
    EXPECT_TRUE(nan.matches(Scalar::of(kNaN)));
    EXPECT_FALSE(nan.matches(Scalar::of(0.0)));
    EXPECT_EQ(print(inf), "fill A = inf");
    EXPECT_EQ(inf.describe(), "fill A = inf"); // built in C++: no line
}

TEST(FillsText, PrintsBeforeTheStatementsAndReadsBack) {
    Program p = parse_program("fill A = inf\nfill y = inf\ny[i] min= A[i,j] + x[j]");
    EXPECT_EQ(print(p), "fill A = inf\n"
                        "fill y = inf\n"
                        "\n"
                        "for i, j {\n"
                        "    y[i] min= A[i, j] + x[j]\n"
                        "}\n");
    expect_round_trip("fill A = inf\nfill y = inf\ny[i] min= A[i,j] + x[j]");
    expect_round_trip("fill a = 0; fill b = -inf; fill c = nan; fill d = false\n"
                      "fill e = int8(-3); fill f = 2.0; fill g = uint64(7); fill r = -2.5\n"
                      "r[i] = a[i] + b[i] + c[i] + d[i] + e[i] + f[i] + g[i]");
    // The masked power of the paper with its output fill, and a definition in the header.
    expect_round_trip("fill a = 1\na[i] = pow(b[i], c[i]) * !d[i]");
    expect_round_trip("def fills_text_f(x: float64, y: float64) -> float64 [commutative] {\n"
                      "    return x + y\n}\n"
                      "fill w = 2.0\nfill x = 1.0\nfill y = 1.0\n"
                      "w[i] = fills_text_f(x[i], y[i])");
    // Definitions print first, then the declarations, whatever order the text had.
    Program mixed = parse_program("fill w = 2.0\n"
                                  "def fills_text_g(x: float64) -> float64 { return x }\n"
                                  "w[i] = fills_text_g(x[i])");
    std::string printed = print(mixed);
    EXPECT_LT(printed.find("def fills_text_g"), printed.find("fill w = 2.0")) << printed;
    EXPECT_IR_EQ(parse_program(printed), mixed);
}

TEST(FillsText, EqualityComparesDeclarations) {
    Program a = parse_program("fill x = 0\ny[i] = x[i]");
    EXPECT_TRUE(equal(a, parse_program("fill x = 0\ny[i] = x[i]")));
    EXPECT_FALSE(equal(a, parse_program("y[i] = x[i]")));
    EXPECT_FALSE(equal(a, parse_program("fill x = 0.0\ny[i] = x[i]"))); // another type
    EXPECT_FALSE(equal(a, parse_program("fill y = 0\ny[i] = x[i]")));
    EXPECT_TRUE(equal(parse_program("fill x = nan\ny[i] = x[i]"),
                      parse_program("fill x = nan\ny[i] = x[i]")));
}

TEST(FillsText, FillIsAKeywordOnlyBeforeAName) {
    // A tensor may still be called fill: an assignment has '[' after its tensor's name.
    Program p = parse_program("fill[i] = x[i]");
    EXPECT_TRUE(p.fills.empty());
    EXPECT_EQ(p.outputs(), std::vector<std::string>{"fill"});
    Program q = parse_program("fill fill = 3\nfill[i] = x[i]");
    ASSERT_EQ(q.fills.size(), 1u);
    EXPECT_EQ(q.fills[0].tensor, "fill");
    expect_round_trip("fill fill = 3\nfill[i] = x[i]");
}

TEST(FillsText, ErrorsNameLineAndColumn) {
    expect_fill_error("fill A = x\ny[i] = A[i]",
                      "the fill of A must be a constant: a number, inf, nan, true, false, or a "
                      "typed literal",
                      1, 10);
    expect_fill_error("fill A = 1 + 2\ny[i] = A[i]", "the fill of A must be a constant", 1, 10);
    expect_fill_error("fill A = -(3)\ny[i] = A[i]", "the fill of A must be a constant", 1, 10);
    expect_fill_error("fill A inf\ny[i] = A[i]", "expected '=' after fill A (as in fill A = inf), "
                                                 "found 'inf'",
                      1, 8);
    expect_fill_error("fill A = \ny[i] = A[i]", "expected an expression, found end of line", 1, 10);
    expect_fill_error("fill A = 0\n\nfill A = 1\ny[i] = A[i]",
                      "the fill of A is declared twice (first at 1:1)", 3, 6);
    expect_fill_error("fill B = 0\ny[i] = x[i]",
                      "fill declared for B, which the program does not read or write", 1, 1);
    expect_fill_error("y[i] = x[i]\nfill x = 0",
                      "'fill' forms come before the first statement of the program", 2, 1);
    expect_fill_error("fill A = 0 y[i] = A[i]",
                      "expected a newline after the fill declaration, found 'y'", 1, 12);
    expect_fill_error("fill for = 0\ny[i] = x[i]",
                      "expected a tensor name after fill (as in fill A = inf), found the keyword "
                      "'for'",
                      1, 6);
    expect_fill_error("fill A = int8(300)\ny[i] = A[i]", "'300' is not a int8 value", 1, 15);
    // A case belongs right after its def: a fill line between them is refused, saying so.
    expect_fill_error("def fills_text_h(x: float64, y: float64) -> float64 { return x }\n"
                      "fill w = 0\n"
                      "case fills_text_h(x, 0) = x\n"
                      "w[i] = fills_text_h(a[i], b[i])",
                      "a case follows the def of its function directly", 3, 1);
    // One text may not define a function twice, even with declarations between.
    expect_fill_error("def fills_text_k(x: float64) -> float64 { return x }\n"
                      "fill w = 0\n"
                      "def fills_text_k(x: float64) -> float64 { return x }\n"
                      "w[i] = fills_text_k(a[i])",
                      "function fills_text_k is defined twice in this text (first at 1:1)", 3, 1);
}
