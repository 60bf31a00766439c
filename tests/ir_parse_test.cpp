// Program text -> IR, one construct at a time, against IR built by hand.
#include <cmath>
#include <limits>

#include "ir_test_support.hpp"

using namespace siskin;
using namespace siskin::ir;
using namespace siskin::ir::test;

namespace {
Stmt body(std::string_view text) { return parse_program(text).body; }
} // namespace

TEST(IrParse, SpmvEinsumHasOutputIndexFirst) {
    Stmt expected = For_("i", For_("j", Set(A("y", {I("i")}), "add",
                                            C("mul", {A("A", {I("i"), I("j")}),
                                                      A("x", {I("j")})}))));
    EXPECT_IR_EQ(body("y[i] += A[i,j] * x[j]"), expected);
}

TEST(IrParse, ElementwiseAdd) {
    Stmt expected = For_("i", For_("j", Set(A("C", {I("i"), I("j")}), "",
                                            C("add", {A("A", {I("i"), I("j")}),
                                                      A("B", {I("i"), I("j")})}))));
    EXPECT_IR_EQ(body("C[i,j] = A[i,j] + B[i,j]"), expected);
}

TEST(IrParse, ScalarMaxReduction) {
    Stmt expected = For_("i", For_("j", Set(A("s", {}), "max", A("A", {I("i"), I("j")}))));
    EXPECT_IR_EQ(body("s[] max= A[i,j]"), expected);
}

TEST(IrParse, CallWithLiteral) {
    Stmt expected = For_(
        "i", For_("j", Set(A("y", {I("i")}), "",
                           C("max", {C("mul", {A("A", {I("i"), I("j")}), A("x", {I("j")})}),
                                     L(0)}))));
    EXPECT_IR_EQ(body("y[i] = max(A[i,j] * x[j], 0)"), expected);
}

TEST(IrParse, LoopOrderFollowsOutputThenFirstAppearance) {
    // Output indices in their written order (j before i), then k, then l as they first appear.
    Stmt expected = For_(
        "j", For_("i", For_("k", For_("l", Set(A("C", {I("j"), I("i")}), "add",
                                                C("mul", {A("A", {I("i"), I("k")}),
                                                          A("B", {I("k"), I("l"), I("j")})}))))));
    EXPECT_IR_EQ(body("C[j,i] += A[i,k] * B[k,l,j]"), expected);
}

TEST(IrParse, EinsumStatementsFormABlockOfNests) {
    Stmt expected = Blk({For_("i", Set(A("y", {I("i")}), "", A("x", {I("i")}))),
                         For_("i", Set(A("z", {I("i")}), "mul", A("y", {I("i")}))),
                         Set(A("s", {}), "", L(1))});
    EXPECT_IR_EQ(body("y[i] = x[i]\nz[i] *= y[i]; s[] = 1"), expected);
    EXPECT_IR_EQ(body("\n\n  y[i] = x[i] ;;\n\n z[i] *= y[i]\n s[] = 1\n\n"), expected);
}

TEST(IrParse, AllAssignmentOperators) {
    struct Case {
        const char* text;
        const char* op;
    } cases[] = {{"s[] = t[]", ""},          {"s[] += t[]", "add"},     {"s[] *= t[]", "mul"},
                 {"s[] min= t[]", "min"},    {"s[] max= t[]", "max"},   {"s[] |= t[]", "or"},
                 {"s[] &= t[]", "and"},      {"s[] <<max>>= t[]", "max"},
                 {"s[] <<gcd>>= t[]", "gcd"}, {"s[] << gcd >> = t[]", "gcd"}};
    for (const auto& c : cases)
        EXPECT_IR_EQ(body(c.text), Set(A("s", {}), c.op, A("t", {}))) << c.text;
}

TEST(IrParse, ExplicitLoopsAndRanges) {
    Stmt inner = Set(A("y", {I("i")}), "add", A("A", {I("i"), I("j")}));
    EXPECT_IR_EQ(body("for i { for j { y[i] += A[i,j] } }"), For_("i", For_("j", inner)));
    EXPECT_IR_EQ(body("for i, j {\n  y[i] += A[i,j]\n}"), For_("i", For_("j", inner)));
    EXPECT_IR_EQ(body("for i in 0:10, j { y[i] += A[i,j] }"), ForIn("i", 0, 10, For_("j", inner)));
    EXPECT_IR_EQ(body("for i in 2:n { y[i] = 1 }"),
                 For::make("i", Set(A("y", {I("i")}), "", L(1)), L(2), I("n")));
    // A later range may use an earlier index (a triangular nest).
    EXPECT_IR_EQ(body("for i in 0:4, j in 0:i + 1 { y[i] += A[i,j] }"),
                 ForIn("i", 0, 4, For::make("j", inner, L(0), C("add", {I("i"), L(1)}))));
}

TEST(IrParse, EinsumInsideLoopAddsOnlyUnboundLoops) {
    Stmt expected = For_("i", For_("j", Set(A("y", {I("i")}), "add",
                                            C("mul", {A("A", {I("i"), I("j")}),
                                                      A("x", {I("j")})}))));
    EXPECT_IR_EQ(body("for i { y[i] += A[i,j] * x[j] }"), expected);
    // Same loop order as the pure einsum, and as the fully explicit program.
    EXPECT_IR_EQ(body("y[i] += A[i,j] * x[j]"), body("for i, j { y[i] += A[i,j] * x[j] }"));
    // An explicit outer j makes i the only implied loop, inside j.
    EXPECT_IR_EQ(body("for j { y[i] += A[i,j] * x[j] }"),
                 For_("j", For_("i", Set(A("y", {I("i")}), "add",
                                         C("mul", {A("A", {I("i"), I("j")}),
                                                   A("x", {I("j")})})))));
}

TEST(IrParse, IfElseAndElseIf) {
    Stmt s1 = Set(A("y", {I("i")}), "", L(1));
    Stmt s2 = Set(A("y", {I("i")}), "", L(2));
    Stmt s3 = Set(A("y", {I("i")}), "", L(3));
    Expr c1 = C("lt", {I("i"), L(3)}), c2 = C("eq", {A("m", {I("i")}), B(true)});
    EXPECT_IR_EQ(body("for i { if i < 3 { y[i] = 1 } }"), For_("i", If::make(c1, s1)));
    EXPECT_IR_EQ(body("for i { if i < 3 { y[i] = 1 } else { y[i] = 2 } }"),
                 For_("i", If::make(c1, s1, s2)));
    EXPECT_IR_EQ(body("for i {\n if i < 3 {\n y[i] = 1\n }\n else if m[i] == true {\n y[i] = 2\n"
                      " } else {\n y[i] = 3\n }\n}"),
                 For_("i", If::make(c1, s1, If::make(c2, s2, s3))));
}

TEST(IrParse, LetBindsAVariableInItsBracesOnly) {
    // x in the braces is the let variable; in the right side of the next statement it is an index.
    Stmt expected = Blk({
        Let::make("x", C("mul", {L(2), A("a", {})}),
                  For_("i", Set(A("y", {I("i")}), "", C("mul", {V("x"), A("b", {I("i")})})))),
        For_("x", Set(A("z", {I("x")}), "", A("c", {I("x")}))),
    });
    EXPECT_IR_EQ(body("let x = 2 * a[] { y[i] = x * b[i] }\nz[x] = c[x]"), expected);
    // A let variable is not an index: no loop is implied for it, in index position either.
    EXPECT_IR_EQ(body("let k = 3 { y[k] = A[k] }"),
                 Let::make("k", L(3), Set(A("y", {V("k")}), "", A("A", {V("k")}))));
}

TEST(IrParse, BlocksAndBodies) {
    Stmt a = Set(A("y", {}), "", L(1)), b = Set(A("z", {}), "", L(2));
    EXPECT_IR_EQ(body("{ y[] = 1; z[] = 2 }"), Blk({a, b}));
    EXPECT_IR_EQ(body("{ y[] = 1 }"), Blk({a}));
    EXPECT_IR_EQ(body("{}"), Blk({}));
    EXPECT_IR_EQ(body(""), Blk({}));
    EXPECT_IR_EQ(body("# only a comment\n"), Blk({}));
    // A body of one statement is that statement; several make a Block.
    EXPECT_IR_EQ(body("for i in 0:1 { y[] = 1 }"), ForIn("i", 0, 1, a));
    EXPECT_IR_EQ(body("for i in 0:1 { y[] = 1\n z[] = 2 }"), ForIn("i", 0, 1, Blk({a, b})));
    EXPECT_IR_EQ(body("for i in 0:1 { { y[] = 1 } }"), ForIn("i", 0, 1, Blk({a})));
    EXPECT_IR_EQ(body("for i in 0:1 {}"), ForIn("i", 0, 1, Blk({})));
}

TEST(IrParse, CommentsAndLineContinuation) {
    Stmt expected = For_("i", Set(A("y", {I("i")}), "",
                                  C("add", {A("a", {I("i")}), A("b", {I("i")})})));
    EXPECT_IR_EQ(body("# header\ny[i] = a[i] + # trailing\n  b[i]  # done"), expected);
    EXPECT_IR_EQ(body("y[\n i\n] = (a[i]\n + b[i])"), expected);
}

TEST(IrParse, OperatorSymbolsMapToNames) {
    struct Case {
        const char* text;
        const char* op;
    } binary[] = {{"a + b", "add"}, {"a - b", "sub"},  {"a * b", "mul"},  {"a / b", "div"},
                  {"a % b", "mod"}, {"a == b", "eq"},  {"a != b", "ne"},  {"a < b", "lt"},
                  {"a <= b", "le"}, {"a > b", "gt"},   {"a >= b", "ge"},  {"a && b", "and"},
                  {"a || b", "or"}, {"a & b", "bitwise_and"}, {"a | b", "bitwise_or"},
                  {"a ^ b", "bitwise_xor"}, {"a << b", "shl"}, {"a >> b", "shr"}};
    for (const auto& c : binary) EXPECT_IR_EQ(parse_expr(c.text), C(c.op, {I("a"), I("b")}));
    EXPECT_IR_EQ(parse_expr("-a"), C("neg", {I("a")}));
    EXPECT_IR_EQ(parse_expr("!a"), C("not", {I("a")}));
    EXPECT_IR_EQ(parse_expr("~a"), C("bitwise_not", {I("a")}));
    EXPECT_IR_EQ(parse_expr("ldexp(a, 3)"), C("ldexp", {I("a"), L(3)}));
    EXPECT_IR_EQ(parse_expr("ifelse(a > 0, b, -1)"),
                 C("ifelse", {C("gt", {I("a"), L(0)}), I("b"), L(-1)}));
    EXPECT_IR_EQ(parse_expr("f()"), C("f", {}));
}

TEST(IrParse, PrecedenceAndAssociativityAreCLike) {
    Expr a = I("a"), b = I("b"), c = I("c"), d = I("d");
    EXPECT_IR_EQ(parse_expr("a + b * c"), C("add", {a, C("mul", {b, c})}));
    EXPECT_IR_EQ(parse_expr("(a + b) * c"), C("mul", {C("add", {a, b}), c}));
    EXPECT_IR_EQ(parse_expr("a - b - c"), C("sub", {C("sub", {a, b}), c}));
    EXPECT_IR_EQ(parse_expr("a - (b - c)"), C("sub", {a, C("sub", {b, c})}));
    EXPECT_IR_EQ(parse_expr("a / b * c"), C("mul", {C("div", {a, b}), c}));
    EXPECT_IR_EQ(parse_expr("-a * b"), C("mul", {C("neg", {a}), b}));
    EXPECT_IR_EQ(parse_expr("a < b == c < d"), C("eq", {C("lt", {a, b}), C("lt", {c, d})}));
    EXPECT_IR_EQ(parse_expr("a || b && c"), C("or", {a, C("and", {b, c})}));
    EXPECT_IR_EQ(parse_expr("a | b ^ c & d"),
                 C("bitwise_or", {a, C("bitwise_xor", {b, C("bitwise_and", {c, d})})}));
    EXPECT_IR_EQ(parse_expr("a & b == c"), C("bitwise_and", {a, C("eq", {b, c})}));
    EXPECT_IR_EQ(parse_expr("a << b + c"), C("shl", {a, C("add", {b, c})}));
    EXPECT_IR_EQ(parse_expr("a < b << c"), C("lt", {a, C("shl", {b, c})}));
    EXPECT_IR_EQ(parse_expr("!a && !b"), C("and", {C("not", {a}), C("not", {b})}));
    EXPECT_IR_EQ(parse_expr("- - a"), C("neg", {C("neg", {a})}));
}

TEST(IrParse, Literals) {
    auto lit = [](std::string_view text) {
        Expr e = parse_expr(text);
        EXPECT_EQ(e->kind, ExprKind::Literal) << text;
        return e->as<Literal>()->value;
    };
    EXPECT_TRUE(lit("42").same(Scalar::of(int64_t{42})));
    EXPECT_TRUE(lit("2.5").same(Scalar::of(2.5)));
    EXPECT_TRUE(lit("1e3").same(Scalar::of(1000.0)));
    EXPECT_TRUE(lit("1.5E-2").same(Scalar::of(0.015)));
    EXPECT_TRUE(lit(".5").same(Scalar::of(0.5)));
    EXPECT_TRUE(lit("true").same(Scalar::of(true)));
    EXPECT_TRUE(lit("false").same(Scalar::of(false)));
    EXPECT_TRUE(lit("inf").same(Scalar::of(std::numeric_limits<double>::infinity())));
    EXPECT_TRUE(lit("nan").is_nan());
    // A minus sign applied to a number folds into a negative literal.
    EXPECT_TRUE(lit("-7").same(Scalar::of(int64_t{-7})));
    EXPECT_TRUE(lit("-inf").same(Scalar::of(-std::numeric_limits<double>::infinity())));
    EXPECT_TRUE(lit("-2.5e1").same(Scalar::of(-25.0)));
    EXPECT_TRUE(lit("-9223372036854775808").same(Scalar::of(std::numeric_limits<int64_t>::min())));
    // Typed literals.
    EXPECT_TRUE(lit("int8(-3)").same(Scalar::of(int8_t{-3})));
    EXPECT_TRUE(lit("uint64(18446744073709551615)").same(Scalar::of(~uint64_t{0})));
    EXPECT_TRUE(lit("float32(0.1)").same(Scalar::of(0.1f)));
    EXPECT_TRUE(lit("float32(-inf)").same(Scalar::of(-std::numeric_limits<float>::infinity())));
    EXPECT_TRUE(lit("bool(true)").same(Scalar::of(true)));
    // Parentheses keep a minus an operator, and a type name applied to an expression a call.
    EXPECT_IR_EQ(parse_expr("-(3)"), C("neg", {L(3)}));
    EXPECT_IR_EQ(parse_expr("int8((3))"), C("int8", {L(3)}));
    EXPECT_IR_EQ(parse_expr("int8(x)"), C("int8", {I("x")}));
    EXPECT_IR_EQ(parse_expr("a - 1"), C("sub", {I("a"), L(1)}));
    EXPECT_IR_EQ(parse_expr("a - -1"), C("sub", {I("a"), L(-1)}));
}

TEST(IrParse, AccessProtocolsAndIndexExpressions) {
    EXPECT_IR_EQ(parse_expr("x[gallop(i)]"), A("x", {I("i")}, {"gallop"}));
    EXPECT_IR_EQ(parse_expr("A[walk(i), follow(j)]"), A("A", {I("i"), I("j")}, {"walk", "follow"}));
    EXPECT_IR_EQ(parse_expr("A[i, gallop(j)]"), A("A", {I("i"), I("j")}, {"", "gallop"}));
    EXPECT_IR_EQ(parse_expr("A[i + 1, 2 * j - k]"),
                 A("A", {C("add", {I("i"), L(1)}), C("sub", {C("mul", {L(2), I("j")}), I("k")})}));
    EXPECT_IR_EQ(parse_expr("A[B[i], 0]"), A("A", {A("B", {I("i")}), L(0)}));
    // An index of an access on the left side implies its loop like any other.
    EXPECT_IR_EQ(body("y[i + 1] = x[gallop(i)]"),
                 For_("i", Set(A("y", {C("add", {I("i"), L(1)})}), "",
                               A("x", {I("i")}, {"gallop"}))));
}

TEST(IrParse, PositionsPointAtTheText) {
    Program p = parse_program("y[i] += A[i,j] *\n  x[j]");
    auto fi = p.body->as<For>();
    ASSERT_TRUE(fi);
    EXPECT_EQ(fi->pos.line, 1); // implied loops sit at their index's first appearance
    EXPECT_EQ(fi->pos.column, 3);
    auto fj = fi->body->as<For>();
    EXPECT_EQ(fj->pos.column, 13);
    auto as = fj->body->as<Assign>();
    EXPECT_EQ(as->pos.column, 1);
    auto mul = as->rhs->as<Call>();
    EXPECT_EQ(mul->pos.column, 16);
    EXPECT_EQ(mul->args[1]->pos.line, 2);
    EXPECT_EQ(mul->args[1]->pos.column, 3);
}

TEST(IrParse, AccessMakeChecksProtocols) {
    EXPECT_EQ(A("A", {I("i"), I("j")})->protocols, (std::vector<std::string>{"", ""}));
    expect_error([] { A("A", {I("i"), I("j")}, {"walk"}); }, "2 indices but 1 protocols");
}

TEST(IrParse, InputsAndOutputs) {
    Program p = parse_program("t[] = 0\ny[i] += A[i,j] * x[j]\nz[i] = y[i] + t[] + w[B[i]]");
    EXPECT_EQ(p.outputs(), (std::vector<std::string>{"t", "y", "z"}));
    EXPECT_EQ(p.inputs(), (std::vector<std::string>{"A", "x", "w", "B"}));
}

TEST(IrParse, EqualityIgnoresPositionsButNotStructure) {
    EXPECT_TRUE(equal(parse_expr("a + b"), parse_expr("  a+b")));
    EXPECT_FALSE(equal(parse_expr("a + b"), parse_expr("b + a")));
    EXPECT_FALSE(equal(parse_expr("x[i]"), parse_expr("x[gallop(i)]")));
    EXPECT_FALSE(equal(parse_expr("1"), parse_expr("1.0")));
    EXPECT_TRUE(equal(parse_expr("nan"), parse_expr("nan")));
    EXPECT_FALSE(equal(body("for i in 0:3 { y[i] = 1 }"), body("y[i] = 1")));
    EXPECT_FALSE(equal(body("s[] += 1"), body("s[] = 1")));
    EXPECT_FALSE(equal(body("if a { s[] = 1 }"), body("if a { s[] = 1 } else {}")));
}
