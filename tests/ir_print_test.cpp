// The printer: golden output for a few programs and tricky nestings, and print -> parse round
// trips over many programs.
#include <limits>

#include "ir_test_support.hpp"

using namespace siskin;
using namespace siskin::ir;
using namespace siskin::ir::test;

TEST(IrPrint, MinimalParentheses) {
    Expr a = I("a"), b = I("b"), c = I("c");
    EXPECT_EQ(print(C("mul", {C("add", {a, b}), c})), "(a + b) * c");
    EXPECT_EQ(print(C("add", {a, C("mul", {b, c})})), "a + b * c");
    EXPECT_EQ(print(C("sub", {a, C("sub", {b, c})})), "a - (b - c)");
    EXPECT_EQ(print(C("sub", {C("sub", {a, b}), c})), "a - b - c");
    EXPECT_EQ(print(C("neg", {C("mul", {a, b})})), "-(a * b)");
    EXPECT_EQ(print(C("mul", {C("neg", {a}), b})), "-a * b");
    EXPECT_EQ(print(C("not", {C("lt", {a, b})})), "!(a < b)");
    EXPECT_EQ(print(C("and", {C("lt", {a, b}), C("or", {b, c})})), "a < b && (b || c)");
    EXPECT_EQ(print(C("or", {C("and", {a, b}), c})), "a && b || c");
    EXPECT_EQ(print(C("div", {a, C("mul", {b, c})})), "a / (b * c)");
    EXPECT_EQ(print(C("shl", {C("add", {a, L(1)}), b})), "a + 1 << b");
    EXPECT_EQ(print(C("bitwise_and", {a, C("eq", {b, c})})), "a & b == c");
    EXPECT_EQ(print(C("eq", {C("bitwise_and", {a, b}), c})), "(a & b) == c");
    EXPECT_EQ(print(C("max", {C("add", {a, b}), C("neg", {c})})), "max(a + b, -c)");
    EXPECT_EQ(print(C("neg", {C("neg", {a})})), "- -a");
    EXPECT_EQ(print(C("bitwise_not", {C("not", {a})})), "~!a");
    // A call with a symbol's name but another arity keeps the call spelling.
    EXPECT_EQ(print(C("add", {a, b, c})), "add(a, b, c)");
    EXPECT_EQ(print(C("neg", {a, b})), "neg(a, b)");
}

TEST(IrPrint, Literals) {
    EXPECT_EQ(print(L(3)), "3");
    EXPECT_EQ(print(L(-3)), "-3");
    EXPECT_EQ(print(F(2.0)), "2.0");
    EXPECT_EQ(print(F(-0.5)), "-0.5");
    EXPECT_EQ(print(F(1e300)), "1e+300");
    EXPECT_EQ(print(F(std::numeric_limits<double>::infinity())), "inf");
    EXPECT_EQ(print(F(-std::numeric_limits<double>::infinity())), "-inf");
    EXPECT_EQ(print(F(std::numeric_limits<double>::quiet_NaN())), "nan");
    EXPECT_EQ(print(B(true)), "true");
    EXPECT_EQ(print(Literal::make(Scalar::of(int8_t{-3}))), "int8(-3)");
    EXPECT_EQ(print(Literal::make(Scalar::of(uint32_t{7}))), "uint32(7)");
    EXPECT_EQ(print(Literal::make(Scalar::of(2.0f))), "float32(2)");
    // neg of a literal stays distinct from a negative literal.
    EXPECT_EQ(print(C("neg", {L(3)})), "-(3)");
    EXPECT_EQ(print(C("neg", {L(-3)})), "- -3");
    EXPECT_EQ(print(C("sub", {I("a"), L(-3)})), "a - -3");
    EXPECT_EQ(print(C("mul", {L(-3), I("a")})), "-3 * a");
    EXPECT_EQ(print(C("int8", {L(3)})), "int8((3))");
}

TEST(IrPrint, GoldenPrograms) {
    EXPECT_EQ(print(parse_program("y[i] += A[i,j] * x[j]")),
              "for i, j {\n"
              "    y[i] += A[i, j] * x[j]\n"
              "}\n");
    EXPECT_EQ(print(parse_program("C[i,j] = A[i,j] + B[i,j]\ns[] max= C[i,j]")),
              "for i, j {\n"
              "    C[i, j] = A[i, j] + B[i, j]\n"
              "}\n"
              "for i, j {\n"
              "    s[] max= C[i, j]\n"
              "}\n");
    EXPECT_EQ(print(parse_program("for i in 0:n { let t = x[gallop(i)] { if t > 0 && m[i] "
                                  "{ y[i] <<gcd>>= t } else if t < 0 { y[i] = -t } else {} } }")),
              "for i in 0:n {\n"
              "    let t = x[gallop(i)] {\n"
              "        if t > 0 && m[i] {\n"
              "            y[i] <<gcd>>= t\n"
              "        } else if t < 0 {\n"
              "            y[i] = -t\n"
              "        } else {}\n"
              "    }\n"
              "}\n");
    EXPECT_EQ(print(Program{Blk({Set(A("s", {}), "", L(1))})}), "{\n    s[] = 1\n}\n");
    EXPECT_EQ(print(Program{Blk({})}), "");
}

// Programs of every construct; each must print to text that parses back to an equal program,
// and printing that program again must give the same text.
TEST(IrPrint, RoundTrips) {
    const char* programs[] = {
        "y[i] += A[i,j] * x[j]",
        "C[i,j] = A[i,j] + B[i,j]",
        "s[] max= A[i,j]",
        "y[i] = max(A[i,j] * x[j], 0)",
        "C[i,j] += A[i,k] * B[k,j]",
        "C[i,j] min= A[i,k] + B[k,j]",
        "y[i] = x[i]\nz[i] *= y[i]; s[] = 1",
        "s[] |= A[i] > 0",
        "s[] &= A[i] != 0",
        "s[] <<max>>= A[i]",
        "s[] <<gcd>>= A[i]",
        "for i { for j { y[i] += A[i,j] } }",
        "for i in 0:10, j { y[i] += A[i,j] }",
        "for i in 0:4, j in 0:i + 1 { L[i,j] = A[i,j] }",
        "for i in -2:n - 1 { y[i + 2] = x[i + 2] }",
        "for i { if i < 3 { y[i] = 1 } }",
        "for i { if m[i] { y[i] = x[i] } else { y[i] = 0 } }",
        "for i { if a[i] < 0 { y[i] = 1 } else if a[i] == 0 { y[i] = 2 } else { y[i] = 3 } }",
        "for i { if a[i] { y[i] = 1 } else { if b[i] { y[i] = 2 } } }",
        "for i { if a[i] { y[i] = 1 } else { { if b[i] { y[i] = 2 } } } }",
        "let x = 2 * a[] { y[i] = x * b[i] }\nz[x] = c[x]",
        "let k = 3 { y[k] = A[k] }",
        "let a = 1 { let b = a + 1 { s[] = a * b } }",
        "{ y[] = 1; z[] = 2 }",
        "{ y[] = 1 }",
        "{}",
        "",
        "for i in 0:1 {}",
        "for i in 0:1 { { y[] = 1 } }",
        "for i in 0:1 { {} }",
        "{ {} }",
        "y[i] = -x[i]",
        "y[i] = -(x[i] * 2)",
        "y[i] = -(3) + -3 - -3",
        "y[i] = x[i] - (1 - x[i])",
        "y[i] = (a[i] + b[i]) * (c[i] - d[i]) / e[i] % 7",
        "y[i] = !(a[i] < b[i]) || a[i] >= b[i] && c[i] <= 1",
        "y[i] = a[i] & b[i] | c[i] ^ ~d[i]",
        "y[i] = (a[i] | b[i]) & c[i]",
        "y[i] = a[i] << 2 >> 1",
        "y[i] = a[i] << (2 >> 1)",
        "y[i] = ifelse(a[i] > 0, a[i], -inf)",
        "y[i] = ldexp(x[i], 3) + pow(x[i], 2.0) + exp(log(sqrt(abs(x[i]))))",
        "y[i] = x[i] * 1e-300 + nan - inf + 0.1 + 2.0 + -0.0",
        "y[i] = int8(-3) + uint64(18446744073709551615) + float32(0.1) + int16(7)",
        "y[i] = int8((3)) + float32(x[i])",
        "y[i] = true && !false",
        "y[i] = x[gallop(i)] + z[walk(i)]",
        "C[i,j] = A[i, follow(j)] * B[gallop(j), i]",
        "y[i] = x[i + 1] + x[2 * i - 1] + w[B[i], 0]",
        "s[] += f()",
        "y[i] = add(x[i], 1, 2)",
        "y[i] = -9223372036854775808 + 9223372036854775807",
        "for i { let v = x[i] { if v > 0 { y[i] += v } } }",
        "t[] = 0\ny[i] += A[i,j] * x[j]\nz[i] = y[i] + t[]",
        "for i { for j in 0:i { y[i] += A[i, j] } }",
        "let v = i { y[i] = v }",
        "if s[] > 0 { y[i] = x[i] }",
    };
    int count = 0;
    for (const char* text : programs) {
        SCOPED_TRACE(text);
        Program p = parse_program(text);
        std::string printed = print(p);
        Program q = parse_program(printed);
        EXPECT_TRUE(equal(p, q)) << "printed:\n" << printed << "reprinted:\n" << print(q);
        EXPECT_EQ(print(q), printed);
        ++count;
    }
    EXPECT_GE(count, 30);
}

// A long chain of signs prints no deeper than it was written (found by fuzz/function_fuzz): a
// parenthesis per pair of minuses used to push the printed text past the parser's depth limit.
TEST(IrPrint, AChainOfSignsRoundTripsWithinTheDepthLimit) {
    std::string signs;
    for (int k = 0; k < 150; ++k) signs += "-~-";
    Program p = parse_program("y[i] = " + signs + "x[i]");
    std::string printed = print(p);
    Program q = parse_program(printed);
    EXPECT_TRUE(equal(p, q));
    EXPECT_EQ(print(q), printed);
}

// Programs built in C++ (not by the parser) round-trip too, including shapes the parser never
// builds on its own: a Block of one statement as a loop body, a neg of a literal.
TEST(IrPrint, RoundTripsHandBuiltPrograms) {
    Stmt s1 = Set(A("y", {I("i")}), "", C("neg", {F(2.5)}));
    Stmt s2 = Set(A("y", {I("i")}), "mul", C("int8", {L(3)}));
    Stmt programs[] = {
        For_("i", Blk({s1})),
        For_("i", Blk({Blk({s1, s2})})),
        For_("i", If::make(C("lt", {I("i"), L(2)}), Blk({s1}), Blk({If::make(B(true), s2)}))),
        Let::make("v", F(1.0), For_("i", Set(A("y", {I("i")}), "min", V("v")))),
        Blk({For_("i", s1), Blk({}), For_("i", s2)}),
    };
    for (const auto& s : programs) {
        Program p{s};
        std::string printed = print(p);
        EXPECT_IR_EQ(parse_program(printed), p) << printed;
    }
}

namespace {
// A small deterministic generator (no <random> distribution differences across libraries).
struct Rng {
    uint64_t s;
    uint64_t next() {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        return s;
    }
    int below(int n) { return static_cast<int>(next() % static_cast<uint64_t>(n)); }
};

Expr random_expr(Rng& r, int depth) {
    static const char* binary[] = {"add", "sub", "mul", "div", "mod", "eq", "ne", "lt", "le",
                                   "gt", "ge", "and", "or", "bitwise_and", "bitwise_or",
                                   "bitwise_xor", "shl", "shr"};
    static const char* unary[] = {"neg", "not", "bitwise_not"};
    static const Scalar literals[] = {
        Scalar::of(int64_t{0}), Scalar::of(int64_t{-5}), Scalar::of(2.5), Scalar::of(-0.25),
        Scalar::of(std::numeric_limits<double>::infinity()),
        Scalar::of(-std::numeric_limits<double>::infinity()), Scalar::of(true),
        Scalar::of(int8_t{-3}), Scalar::of(3.0f), Scalar::of(uint16_t{9}), Scalar::of(1e-7)};
    int pick = depth <= 0 ? r.below(4) : r.below(9);
    switch (pick) {
    case 0: return Literal::make(literals[r.below(std::size(literals))]);
    case 1: return I(r.below(2) ? "i" : "j");
    case 2: return A("x", {I("i")});
    case 3: return A("M", {I("i"), C("add", {I("j"), L(1)})}, {"gallop", ""});
    case 4: return C(unary[r.below(3)], {random_expr(r, depth - 1)});
    case 5: return C("max", {random_expr(r, depth - 1), random_expr(r, depth - 1)});
    default:
        return C(binary[r.below(std::size(binary))],
                 {random_expr(r, depth - 1), random_expr(r, depth - 1)});
    }
}
} // namespace

// Random expression trees: printing adds exactly the parentheses parsing needs to rebuild them.
TEST(IrPrint, RandomExpressionsRoundTrip) {
    Rng r{0x9e3779b97f4a7c15ull};
    for (int n = 0; n < 2000; ++n) {
        Expr e = random_expr(r, 1 + n % 6);
        std::string text = print(e);
        EXPECT_IR_EQ(parse_expr(text), e) << text;
    }
}

// Random token soup never crashes or hangs the parser: it parses or throws siskin::Error.
TEST(IrParseError, RandomTokensGiveErrorsNotCrashes) {
    static const char* tokens[] = {"y", "[", "]", "i", ",", "=", "+=", "for", "in", "0", ":",
                                   "{", "}", "if", "else", "let", "(", ")", "-", "*", "<<",
                                   ">>", "\n", ";", "2.5", "max", "gallop", "int8", "#", "!"};
    Rng r{12345};
    int failed = 0;
    for (int n = 0; n < 3000; ++n) {
        std::string text;
        int len = 1 + r.below(14);
        for (int k = 0; k < len; ++k) text += std::string(tokens[r.below(std::size(tokens))]) + " ";
        try {
            Program p = parse_program(text);
            EXPECT_IR_EQ(parse_program(print(p)), p) << text;
        } catch (const Error& e) {
            EXPECT_TRUE(e.where().has_value()) << e.what();
            ++failed;
        }
    }
    EXPECT_GT(failed, 0);
}
