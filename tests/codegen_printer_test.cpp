// Golden tests of the C printer: precedence, associativity, literals, statements, functions.
// Every expected string was written by hand from the C grammar, not copied from the output.
#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "codegen/c_ast.hpp"
#include "codegen/c_literal.hpp"
#include "codegen/c_printer.hpp"
#include "siskin/error.hpp"

namespace siskin::cast {
namespace {

using B = BinaryOp;
using U = UnaryOp;

Expr a = var("a"), b = var("b"), c = var("c"), d = var("d"), x = var("x"), i = var("i");

TEST(CodegenPrinter, AssociativityKeepsTheTreesShape) {
    EXPECT_EQ(print(bin(B::Sub, a, bin(B::Sub, b, c))), "a - (b - c)");
    EXPECT_EQ(print(bin(B::Sub, bin(B::Sub, a, b), c)), "a - b - c");
    EXPECT_EQ(print(bin(B::Div, a, bin(B::Mul, b, c))), "a / (b * c)");
    EXPECT_EQ(print(bin(B::Div, bin(B::Mul, a, b), c)), "a * b / c");
    EXPECT_EQ(print(bin(B::Mod, bin(B::Mul, a, b), c)), "a * b % c");
    EXPECT_EQ(print(bin(B::Mul, a, bin(B::Mod, b, c))), "a * (b % c)");
    // Floating-point addition is not associative: the right-nested sum keeps its parentheses.
    EXPECT_EQ(print(bin(B::Add, a, bin(B::Add, b, c))), "a + (b + c)");
    EXPECT_EQ(print(bin(B::Add, bin(B::Add, a, b), c)), "a + b + c");
}

TEST(CodegenPrinter, PrecedenceNeedsNoRedundantParentheses) {
    EXPECT_EQ(print(bin(B::Add, a, bin(B::Mul, b, c))), "a + b * c");
    EXPECT_EQ(print(bin(B::Mul, bin(B::Add, a, b), c)), "(a + b) * c");
    EXPECT_EQ(print(bin(B::Lt, bin(B::Add, a, b), bin(B::Mul, c, d))), "a + b < c * d");
    EXPECT_EQ(print(bin(B::LogAnd, bin(B::Lt, a, b), bin(B::Ne, c, d))), "a < b && c != d");
    EXPECT_EQ(print(bin(B::LogOr, bin(B::LogOr, a, b), c)), "a || b || c");
    EXPECT_EQ(print(bin(B::LogAnd, bin(B::LogOr, a, b), c)), "(a || b) && c");
    EXPECT_EQ(print(bin(B::Add, bin(B::Shl, a, b), c)), "(a << b) + c");
    EXPECT_EQ(print(bin(B::Shl, bin(B::Mul, a, b), c)), "a * b << c");
    EXPECT_EQ(print(bin(B::BitAnd, bin(B::BitAnd, a, b), c)), "a & b & c");
    EXPECT_EQ(print(bin(B::BitAnd, a, bin(B::BitOr, b, c))), "a & (b | c)");
}

TEST(CodegenPrinter, ParenthesesThatCompilersAskFor) {
    // Not needed by C, but -Wparentheses warns without them.
    EXPECT_EQ(print(bin(B::Eq, bin(B::Lt, a, b), c)), "(a < b) == c");
    EXPECT_EQ(print(bin(B::Lt, bin(B::Lt, a, b), c)), "(a < b) < c");
    EXPECT_EQ(print(bin(B::Eq, a, bin(B::Lt, b, c))), "a == (b < c)");
    EXPECT_EQ(print(bin(B::Lt, a, bin(B::Eq, b, c))), "a < (b == c)");
    EXPECT_EQ(print(bin(B::LogOr, bin(B::LogAnd, a, b), c)), "(a && b) || c");
    EXPECT_EQ(print(bin(B::LogOr, a, bin(B::LogAnd, b, c))), "a || (b && c)");
    EXPECT_EQ(print(bin(B::Shl, bin(B::Add, a, b), c)), "(a + b) << c");
    EXPECT_EQ(print(bin(B::Shr, a, bin(B::Sub, b, c))), "a >> (b - c)");
    EXPECT_EQ(print(bin(B::BitOr, bin(B::BitAnd, a, b), c)), "(a & b) | c");
    EXPECT_EQ(print(bin(B::BitAnd, bin(B::Eq, a, b), c)), "(a == b) & c");
    EXPECT_EQ(print(bin(B::BitXor, a, bin(B::Add, b, c))), "a ^ (b + c)");
    // A parenthesised operand inside an operand gets its own parentheses all the same.
    EXPECT_EQ(print(bin(B::Shl, bin(B::Add, Ternary::make(a, b, c), d), x)),
              "((a ? b : c) + d) << x");
    EXPECT_EQ(print(bin(B::Eq, un(U::Not, a), b)), "(!a) == b");
    EXPECT_EQ(print(bin(B::BitOr, a, un(U::Not, b))), "a | (!b)");
    EXPECT_EQ(print(bin(B::Add, un(U::Not, a), b)), "!a + b");
}

TEST(CodegenPrinter, UnaryOperators) {
    EXPECT_EQ(print(un(U::Neg, un(U::Neg, x))), "-(-x)");
    EXPECT_EQ(print(un(U::Neg, un(U::BitNot, x))), "-~x");
    EXPECT_EQ(print(un(U::Not, un(U::Not, x))), "!!x");
    EXPECT_EQ(print(un(U::Neg, bin(B::Add, a, b))), "-(a + b)");
    EXPECT_EQ(print(un(U::Not, bin(B::Lt, a, b))), "!(a < b)");
    EXPECT_EQ(print(bin(B::Sub, a, un(U::Neg, b))), "a - -b");
    EXPECT_EQ(print(bin(B::Mul, un(U::Neg, a), b)), "-a * b");
    EXPECT_EQ(print(un(U::Neg, un(U::Deref, x))), "-*x");
    EXPECT_EQ(print(un(U::Deref, un(U::AddressOf, x))), "*&x");
    EXPECT_EQ(print(un(U::AddressOf, at(a, i))), "&a[i]");
    EXPECT_EQ(print(at(un(U::Deref, x), i)), "(*x)[i]");
    EXPECT_EQ(print(Field::make(un(U::Deref, x), "size", false)), "(*x).size");
}

TEST(CodegenPrinter, NegativeLiteralsAreUnaryExpressions) {
    EXPECT_EQ(print(bin(B::Sub, a, i64(-3))), "a - -3LL");
    EXPECT_EQ(print(un(U::Neg, i64(-3))), "-(-3LL)");
    EXPECT_EQ(print(bin(B::Mul, i64(-3), a)), "-3LL * a");
    EXPECT_EQ(print(un(U::Neg, lit(Scalar::of(-0.0)))), "-(-0.0)");
    EXPECT_EQ(print(bin(B::Add, lit(Scalar::of(std::nan(""))), a)), "(double)NAN + a");
}

TEST(CodegenPrinter, PostfixCallsAndCasts) {
    Type f64 = Type::of(ValueType::Float64);
    Expr buf = var("buf");
    EXPECT_EQ(print(at(at(a, i), var("j"))), "a[i][j]");
    EXPECT_EQ(print(at(a, bin(B::Add, i, i64(1)))), "a[i + 1LL]");
    EXPECT_EQ(print(at(Field::make(var("s"), "pos"), i)), "s->pos[i]");
    EXPECT_EQ(print(Cast::make(f64, bin(B::Add, a, b))), "(double)(a + b)");
    EXPECT_EQ(print(bin(B::Add, Cast::make(f64, a), b)), "(double)a + b");
    EXPECT_EQ(print(Cast::make(Type::of(ValueType::Int64), un(U::Neg, x))), "(int64_t)-x");
    EXPECT_EQ(print(Cast::make(f64, at(a, i))), "(double)a[i]");
    EXPECT_EQ(print(Cast::make(f64, Cast::make(Type::of(ValueType::Int32), x))),
              "(double)(int32_t)x");
    Expr data = Cast::make(f64.pointer(), Field::make(buf, "data"));
    EXPECT_EQ(print(data), "(double *)buf->data");
    EXPECT_EQ(print(at(data, var("p"))), "((double *)buf->data)[p]");
    EXPECT_EQ(print(call("siskin_min_i64", {bin(B::Add, a, b), Ternary::make(c, d, x)})),
              "siskin_min_i64(a + b, c ? d : x)");
    EXPECT_EQ(print(call("f", {})), "f()");
    EXPECT_EQ(print(at(call("f", {a}), i)), "f(a)[i]");
}

TEST(CodegenPrinter, Ternaries) {
    EXPECT_EQ(print(bin(B::Add, Ternary::make(c, a, b), i64(1))), "(c ? a : b) + 1LL");
    EXPECT_EQ(print(Ternary::make(c, a, Ternary::make(d, b, x))), "c ? a : d ? b : x");
    EXPECT_EQ(print(Ternary::make(Ternary::make(c, a, b), d, x)), "(c ? a : b) ? d : x");
    EXPECT_EQ(print(Ternary::make(bin(B::Lt, a, b), a, b)), "a < b ? a : b");
    EXPECT_EQ(print(Ternary::make(bin(B::LogOr, a, b), c, d)), "a || b ? c : d");
    EXPECT_EQ(print(Ternary::make(bin(B::Add, a, bin(B::Lt, b, c)), d, x)),
              "(a + (b < c)) ? d : x");
    EXPECT_EQ(print(Ternary::make(bin(B::BitAnd, a, b), d, x)), "(a & b) ? d : x");
    EXPECT_EQ(print(Ternary::make(c, Ternary::make(d, a, b), x)), "c ? d ? a : b : x");
    EXPECT_EQ(print(un(U::Neg, Ternary::make(c, a, b))), "-(c ? a : b)");
    EXPECT_EQ(print(at(a, Ternary::make(c, i, x))), "a[c ? i : x]");
}

TEST(CodegenPrinter, LiteralsSpellTheirExactTypeAndValue) {
    EXPECT_EQ(c_literal(Scalar::of(true)), "true");
    EXPECT_EQ(c_literal(Scalar::of(false)), "false");
    EXPECT_EQ(c_literal(Scalar::of(int8_t{-5})), "-5");
    EXPECT_EQ(c_literal(Scalar::of(int16_t{300})), "300");
    EXPECT_EQ(c_literal(Scalar::of(int32_t{-7})), "-7");
    EXPECT_EQ(c_literal(Scalar::of(std::numeric_limits<int32_t>::min())), "INT32_MIN");
    EXPECT_EQ(c_literal(Scalar::of(std::numeric_limits<int32_t>::max())), "2147483647");
    EXPECT_EQ(c_literal(Scalar::of(int64_t{42})), "42LL");
    EXPECT_EQ(c_literal(Scalar::of(std::numeric_limits<int64_t>::min())), "INT64_MIN");
    EXPECT_EQ(c_literal(Scalar::of(std::numeric_limits<int64_t>::max())), "9223372036854775807LL");
    EXPECT_EQ(c_literal(Scalar::of(uint8_t{255})), "255");
    EXPECT_EQ(c_literal(Scalar::of(uint16_t{65535})), "65535");
    EXPECT_EQ(c_literal(Scalar::of(uint32_t{4294967295u})), "4294967295U");
    EXPECT_EQ(c_literal(Scalar::of(std::numeric_limits<uint64_t>::max())),
              "18446744073709551615ULL");
    EXPECT_EQ(c_literal(Scalar::of(0.1)), "0.1");
    EXPECT_EQ(c_literal(Scalar::of(1.0)), "1.0");
    EXPECT_EQ(c_literal(Scalar::of(-0.0)), "-0.0");
    EXPECT_EQ(c_literal(Scalar::of(-2.5)), "-2.5");
    EXPECT_EQ(c_literal(Scalar::of(1e300)), "1e+300");
    EXPECT_EQ(c_literal(Scalar::of(5e-324)), "5e-324");
    EXPECT_EQ(c_literal(Scalar::of(std::numeric_limits<double>::infinity())), "HUGE_VAL");
    EXPECT_EQ(c_literal(Scalar::of(-std::numeric_limits<double>::infinity())), "-HUGE_VAL");
    EXPECT_EQ(c_literal(Scalar::of(std::nan(""))), "(double)NAN");
    EXPECT_EQ(c_literal(Scalar::of(0.1f)), "0.1f");
    EXPECT_EQ(c_literal(Scalar::of(1.0f)), "1.0f");
    EXPECT_EQ(c_literal(Scalar::of(-0.0f)), "-0.0f");
    EXPECT_EQ(c_literal(Scalar::of(3.4028235e38f)), "3.4028235e+38f");
    EXPECT_EQ(c_literal(Scalar::of(std::numeric_limits<float>::infinity())), "HUGE_VALF");
    EXPECT_EQ(c_literal(Scalar::of(-std::numeric_limits<float>::infinity())), "-HUGE_VALF");
    EXPECT_EQ(c_literal(Scalar::of(std::nanf(""))), "NAN");
}

TEST(CodegenPrinter, Types) {
    Type f64 = Type::of(ValueType::Float64);
    EXPECT_EQ(print(f64), "double");
    EXPECT_EQ(print(f64.as_const().pointer().restricted()), "const double *restrict");
    EXPECT_EQ(print_declarator(f64.as_const().pointer().restricted(), "x"),
              "const double *restrict x");
    EXPECT_EQ(print_declarator(f64.pointer(), "y"), "double *y");
    EXPECT_EQ(print_declarator(Type::named("siskin_buffer").pointer().pointer(), "z"),
              "siskin_buffer **z");
    EXPECT_EQ(print_declarator(Type::of(ValueType::Int32), "n"), "int32_t n");
}

TEST(CodegenPrinter, SpmvFunction) {
    Type i64t = Type::of(ValueType::Int64), f64 = Type::of(ValueType::Float64);
    auto in = [](Type t) { return t.as_const().pointer().restricted(); };
    Expr n = var("n"), pos = var("pos"), crd = var("crd"), val = var("val"), y = var("y");
    Expr p = var("p"), s = var("s");
    Stmt inner =
        For::make(Decl::make(i64t, "p", at(pos, i)), bin(B::Lt, p, at(pos, bin(B::Add, i, i64(1)))),
                  Increment::make(p),
                  Assign::make(s, AssignOp::Add, bin(B::Mul, at(val, p), at(x, at(crd, p)))));
    Stmt body = Block::make({
        Comment::make("y = A x with A in CSR"),
        For::make(
            Decl::make(i64t, "i", i64(0)), bin(B::Lt, i, n), Increment::make(i),
            Block::make({Decl::make(f64, "s", lit(Scalar::of(0.0))), inner, assign(at(y, i), s)})),
        Return::make(lit(Scalar::of(int32_t{0}))),
    });
    Function f = Function::make(Type::named("int"), "spmv",
                                {{i64t, "n"},
                                 {in(i64t), "pos"},
                                 {in(Type::of(ValueType::Int32)), "crd"},
                                 {in(f64), "val"},
                                 {in(f64), "x"},
                                 {f64.pointer().restricted(), "y"}},
                                body);
    EXPECT_EQ(print(f),
              "int spmv(int64_t n, const int64_t *restrict pos, const int32_t *restrict crd, "
              "const double *restrict val, const double *restrict x, double *restrict y) {\n"
              "    // y = A x with A in CSR\n"
              "    for (int64_t i = 0LL; i < n; i++) {\n"
              "        double s = 0.0;\n"
              "        for (int64_t p = pos[i]; p < pos[i + 1LL]; p++) {\n"
              "            s += val[p] * x[crd[p]];\n"
              "        }\n"
              "        y[i] = s;\n"
              "    }\n"
              "    return 0;\n"
              "}\n");
    EXPECT_EQ(print_unit({f}).substr(0, 32), "#include \"siskin_prelude.h\"\n\nint");
}

TEST(CodegenPrinter, ControlFlowStatements) {
    Stmt s = Block::make({
        Decl::make(Type::of(ValueType::Int64), "k"),
        If::make(bin(B::Lt, a, b), assign(x, a),
                 If::make(bin(B::Eq, a, b), Block::make({}), Block::make({Break::make()}))),
        While::make(bin(B::LogAnd, bin(B::Lt, i, var("n")), un(U::Not, var("done"))),
                    Block::make({Increment::make(i, true), Continue::make()})),
        For::make(std::nullopt, std::nullopt, std::nullopt, Return::make()),
        Eval::make(call("free", {x})),
        Assign::make(at(a, i), AssignOp::Shl, bin(B::Add, b, i64(2))),
        Increment::make(un(U::Deref, var("q"))),
        Comment::make("two lines\nthe second ends with a backslash \\  "),
    });
    EXPECT_EQ(print(s, 1), "    {\n"
                           "        int64_t k;\n"
                           "        if (a < b) {\n"
                           "            x = a;\n"
                           "        } else if (a == b) {\n"
                           "        } else {\n"
                           "            break;\n"
                           "        }\n"
                           "        while (i < n && !done) {\n"
                           "            i--;\n"
                           "            continue;\n"
                           "        }\n"
                           "        for (;;) {\n"
                           "            return;\n"
                           "        }\n"
                           "        free(x);\n"
                           "        a[i] <<= b + 2LL;\n"
                           "        (*q)++;\n"
                           "        // two lines\n"
                           "        // the second ends with a backslash \\.\n"
                           "    }\n");
    // A comment may not hide a trigraph that would splice the next line in.
    EXPECT_EQ(print(Comment::make("what?\?/")), "// what? ?/\n");
}

TEST(CodegenPrinter, VoidFunctionWithoutParameters) {
    Function f =
        Function::make(Type::named("void"), "noop", {}, Return::make(), /*is_static=*/true);
    EXPECT_EQ(print(f), "static void noop(void) {\n    return;\n}\n");
}

TEST(CodegenAst, FactoriesRejectMalformedNodes) {
    // These are siskin bugs, reported as internal errors.
    auto internal = [](auto f) {
        try {
            f();
            ADD_FAILURE() << "no error";
        } catch (const Error& e) {
            EXPECT_EQ(e.kind(), Error::Kind::Internal) << e.what();
        }
    };
    internal([] { var("2x"); });
    internal([] { var("int"); });
    internal([] { var(""); });
    internal([] { assign(bin(B::Add, var("a"), var("b")), var("c")); });
    internal([] { Unary::make(U::AddressOf, i64(3)); });
    internal([] { Increment::make(call("f", {})); });
    internal([] { Type::of(ValueType::Float64).restricted(); });
    internal([] { Decl::make(Type::named("void"), "v"); });
    internal([] { For::make(Eval::make(var("a")), std::nullopt, std::nullopt, Block::make({})); });
    internal([] {
        Function::make(Type::named("void"), "f",
                       {{Type::of(ValueType::Int64), "n"}, {Type::of(ValueType::Int64), "n"}},
                       Block::make({}));
    });
    EXPECT_EQ(var("x").as<Var>().name, "x");
    internal([] { var("x").as<Binary>(); });
}

} // namespace
} // namespace siskin::cast
