// Parse errors: what was expected and found, at the exact line and column, with a caret.
#include "ir_test_support.hpp"

using namespace siskin;
using namespace siskin::ir;
using namespace siskin::ir::test;

namespace {
// Expects a parse error containing `part` at line:column.
void expect_parse_error(std::string_view text, const std::string& part, int line, int column) {
    SCOPED_TRACE(std::string(text));
    Error e = expect_error([&] { parse_program(text); }, part);
    ASSERT_TRUE(e.where().has_value()) << e.what();
    EXPECT_EQ(e.where()->line, line) << e.what();
    EXPECT_EQ(e.where()->column, column) << e.what();
    EXPECT_EQ(e.kind(), Error::Kind::User);
}
} // namespace

TEST(IrParseError, PositionsOfMistakes) {
    expect_parse_error("y[i = 3", "expected ',' or ']' in the indices of y, found '='", 1, 5);
    expect_parse_error("for i {\n  y[i] = x[i] +* 2\n}", "expected an expression, found '*'", 2,
                       16);
    expect_parse_error("y[i] += A[i,j] *\n", "expected an expression, found end of input", 1, 17);
    expect_parse_error("for i { y[i] = 1",
                       "expected '}' to close the '{' at 1:7, found end of input", 1, 17);
    expect_parse_error("y[i] @= 2", "unexpected character '@'", 1, 6);
    expect_parse_error("y = 3", "expected '[' after the tensor name y (write y[] for a scalar), "
                                "found '='", 1, 3);
    expect_parse_error("y[i] == 3", "expected an assignment operator", 1, 6);
    expect_parse_error("y[i] = 3 4",
                       "expected a newline or ';' after the statement, found number 4", 1, 10);
    expect_parse_error("let for = 3 { }", "expected a variable name after let, found the keyword "
                                          "'for'", 1, 5);
    expect_parse_error("y[i] = 1.e5", "expected a digit after the decimal point", 1, 10);
    expect_parse_error("y[i] = 2e+", "expected the digits of an exponent", 1, 11);
    expect_parse_error("y[i] = 99999999999999999999", "integer 99999999999999999999 does not fit "
                                                      "int64", 1, 8);
    expect_parse_error("y[i] = int8(300)", "'300' is not a int8 value (out of range)", 1, 13);
    expect_parse_error("\n\n}", "expected a statement", 3, 1);
    expect_parse_error("y[i] = walk(i)", "walk(...) is an access protocol", 1, 8);
    expect_parse_error("for i in 0 10 { }", "expected ':' between the bounds of i", 1, 12);
    expect_parse_error("s[] <<max>= 1", "expected '>>=' after <<max, found '>='", 1, 10);
    expect_parse_error("if x { s[] = 1 } else s[] = 2",
                       "expected '{' to start the body of the else, found 's'", 1, 23);
    expect_parse_error("y[i] = f(a, b", "expected ',' or ')' in the arguments of f, found end of "
                                        "input", 1, 14);
    expect_parse_error("for i { y[i] = 1 } z[] = 2", "expected a newline or ';'", 1, 20);
    expect_parse_error("y[i] = (a + b", "expected ')', found end of input", 1, 14);
    expect_parse_error("y[in] = 1", "expected an expression, found 'in'", 1, 3);
    expect_parse_error("else { }", "expected a statement", 1, 1);
    expect_parse_error("s[] gcd= 1", "expected an assignment operator", 1, 5);
}

TEST(IrParseError, MessageShowsFileLineAndCaret) {
    Error e = expect_error([] { parse_program("for i {\n  y[i] = x[i] +* 2\n}", "prog.sk"); },
                           "prog.sk:2:16: expected an expression, found '*'");
    EXPECT_EQ(e.where()->file, "prog.sk");
    EXPECT_EQ(e.message(), "expected an expression, found '*'\n"
                           "    y[i] = x[i] +* 2\n"
                           "                 ^");
    // Tabs are copied into the caret line so the caret lines up under the token.
    Error t = expect_error([] { parse_program("\ty[i] = * 2"); }, "<program>:1:9:");
    EXPECT_EQ(t.message(), "expected an expression, found '*'\n  \ty[i] = * 2\n  \t       ^");
}

TEST(IrParseError, SingleExpressions) {
    Error e = expect_error([] { parse_expr("a +"); }, "<expr>:1:4: expected an expression");
    e = expect_error([] { parse_expr("a b"); }, "expected end of the expression, found 'b'");
    EXPECT_EQ(e.where()->column, 3);
    e = expect_error([] { parse_expr("x[i] = 1"); }, "expected end of the expression, found '='");
}

// Deep nesting is an error, not a stack overflow here or in a later pass over the IR.
TEST(IrParseError, NestingLimits) {
    std::string parens = "y[] = " + std::string(100000, '(') + "1" + std::string(100000, ')');
    Error e = expect_error([&] { parse_program(parens); }, "nests more than 500 levels deep");
    EXPECT_EQ(e.where()->line, 1);
    std::string minus = "y[] = " + std::string(100000, '!') + "x[]";
    expect_error([&] { parse_program(minus); }, "nests more than 500 levels deep");
    std::string braces = std::string(100000, '{') + std::string(100000, '}');
    expect_error([&] { parse_program(braces); }, "nests more than 500 levels deep");
    std::string chain = "if a[] { y[] = 1 }"; // nests like the If it builds
    for (int k = 0; k < 100000; ++k) chain += " else if a[] { y[] = 1 }";
    expect_error([&] { parse_program(chain); }, "nests more than 500 levels deep");
    std::string sum = "y[] = x[]";
    for (int k = 0; k < 100000; ++k) sum += " + x[]";
    expect_error([&] { parse_program(sum); }, "nests more than 2000 operations deep");
    // Wide is fine: many statements, and moderately deep expressions.
    std::string many;
    for (int k = 0; k < 5000; ++k) many += "y[] += x[]\n";
    EXPECT_EQ(parse_program(many).body->as<Block>()->stmts.size(), 5000u);
    std::string deep = "y[] = x[]";
    for (int k = 0; k < 1000; ++k) deep += " * x[]";
    Program p = parse_program(deep);
    EXPECT_TRUE(equal(parse_program(print(p)), p));
}
