// Randomized check of the printer against a C compiler: random integer expression trees are
// printed, compiled in one batch and run; every value must equal an evaluation of the tree itself.
// A missing or misplaced parenthesis changes the parse and so, almost always, the value.
//
// The reference models the C types involved: uint64_t variables and literals, int32_t variables
// and int literals, int results of comparisons and logical operators, the usual arithmetic
// conversions between them, and casts to uint64_t. Trees whose C evaluation would be undefined
// (division by zero, out-of-range shifts, int overflow) are dropped.
#include <cstdlib>
#include <cstring>
#include <optional>
#include <random>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "codegen/c_ast.hpp"
#include "codegen/c_printer.hpp"
#include "codegen_test_util.hpp"
#include "siskin/codegen/jit.hpp"

namespace siskin::cast {
namespace {

using codegen_test::TempDir;

enum class CType { Int, U64 };

struct Env {
    uint64_t u[4]; // a, b, c, d
    int32_t s[2];  // e, f
};

const char* kUnsignedVars[] = {"a", "b", "c", "d"};
const char* kSignedVars[] = {"e", "f"};

CType type_of(const Expr& e);

CType common(const Expr& l, const Expr& r) {
    return type_of(l) == CType::U64 || type_of(r) == CType::U64 ? CType::U64 : CType::Int;
}

bool is_comparison_or_logic(BinaryOp op) { return op >= BinaryOp::Lt && op <= BinaryOp::Ne; }

CType type_of(const Expr& e) {
    switch (e.kind()) {
    case ExprKind::Literal:
        return e.as<Literal>().value.type() == ValueType::UInt64 ? CType::U64 : CType::Int;
    case ExprKind::Var: return e.as<Var>().name < "e" ? CType::U64 : CType::Int;
    case ExprKind::Cast: return CType::U64; // the generator casts to uint64_t only
    case ExprKind::Unary: {
        const auto& u = e.as<Unary>();
        return u.op == UnaryOp::Not ? CType::Int : type_of(u.operand);
    }
    case ExprKind::Binary: {
        const auto& b = e.as<Binary>();
        if (is_comparison_or_logic(b.op) || b.op == BinaryOp::LogAnd || b.op == BinaryOp::LogOr)
            return CType::Int;
        if (b.op == BinaryOp::Shl || b.op == BinaryOp::Shr)
            return type_of(b.lhs); // left operand's type
        return common(b.lhs, b.rhs);
    }
    case ExprKind::Ternary: {
        const auto& t = e.as<Ternary>();
        return common(t.then_value, t.else_value);
    }
    default: ADD_FAILURE() << "unexpected node"; return CType::Int;
    }
}

// Values travel as uint64_t bits; an int is held sign-extended, which is also its conversion to
// uint64_t.
using Val = std::optional<uint64_t>;

Val int_result(int64_t v) {
    if (v < INT32_MIN || v > INT32_MAX) return std::nullopt; // int overflow: undefined
    return static_cast<uint64_t>(v);
}

Val eval(const Expr& e, const Env& env);

Val binary(const Binary& b, const Env& env) {
    if (b.op == BinaryOp::LogAnd || b.op == BinaryOp::LogOr) {
        Val l = eval(b.lhs, env);
        if (!l) return l;
        // Short circuit: the right operand is not evaluated, so its undefined cases do not count.
        if (b.op == BinaryOp::LogAnd && *l == 0) return 0;
        if (b.op == BinaryOp::LogOr && *l != 0) return 1;
        Val r = eval(b.rhs, env);
        if (!r) return r;
        return *r != 0 ? 1 : 0;
    }
    Val l = eval(b.lhs, env), r = eval(b.rhs, env);
    if (!l || !r) return std::nullopt;
    if (b.op == BinaryOp::Shl || b.op == BinaryOp::Shr) {
        // The amount must be in range as a value of its own type.
        int64_t amount = type_of(b.rhs) == CType::Int
                             ? static_cast<int64_t>(*r)
                             : (*r > 1000 ? 1000 : static_cast<int64_t>(*r));
        if (type_of(b.lhs) == CType::U64) {
            if (amount < 0 || amount >= 64) return std::nullopt;
            return b.op == BinaryOp::Shl ? *l << amount : *l >> amount;
        }
        int64_t v = static_cast<int64_t>(*l);
        if (amount < 0 || amount >= 31 || v < 0) return std::nullopt; // negative: undefined/impl.
        return int_result(b.op == BinaryOp::Shl ? v << amount : v >> amount);
    }
    if (common(b.lhs, b.rhs) == CType::U64) {
        uint64_t x = *l, y = *r;
        switch (b.op) {
        case BinaryOp::Add: return x + y;
        case BinaryOp::Sub: return x - y;
        case BinaryOp::Mul: return x * y;
        case BinaryOp::Div: return y == 0 ? Val() : x / y;
        case BinaryOp::Mod: return y == 0 ? Val() : x % y;
        case BinaryOp::BitAnd: return x & y;
        case BinaryOp::BitXor: return x ^ y;
        case BinaryOp::BitOr: return x | y;
        case BinaryOp::Lt: return x < y;
        case BinaryOp::Le: return x <= y;
        case BinaryOp::Gt: return x > y;
        case BinaryOp::Ge: return x >= y;
        case BinaryOp::Eq: return x == y;
        case BinaryOp::Ne: return x != y;
        default: break;
        }
    } else {
        int64_t x = static_cast<int64_t>(*l), y = static_cast<int64_t>(*r);
        switch (b.op) {
        case BinaryOp::Add: return int_result(x + y);
        case BinaryOp::Sub: return int_result(x - y);
        case BinaryOp::Mul: return int_result(x * y);
        case BinaryOp::Div: return y == 0 ? Val() : int_result(x / y);
        case BinaryOp::Mod:
            return y == 0 || (x == INT32_MIN && y == -1) ? Val() : int_result(x % y);
        case BinaryOp::BitAnd: return int_result(x & y);
        case BinaryOp::BitXor: return int_result(x ^ y);
        case BinaryOp::BitOr: return int_result(x | y);
        case BinaryOp::Lt: return x < y;
        case BinaryOp::Le: return x <= y;
        case BinaryOp::Gt: return x > y;
        case BinaryOp::Ge: return x >= y;
        case BinaryOp::Eq: return x == y;
        case BinaryOp::Ne: return x != y;
        default: break;
        }
    }
    ADD_FAILURE() << "unexpected operator";
    return std::nullopt;
}

Val eval(const Expr& e, const Env& env) {
    switch (e.kind()) {
    case ExprKind::Literal: {
        const Scalar& v = e.as<Literal>().value;
        return v.type() == ValueType::UInt64 ? v.as_uint() : static_cast<uint64_t>(v.as_int());
    }
    case ExprKind::Var: {
        const std::string& n = e.as<Var>().name;
        if (n < "e") return env.u[n[0] - 'a'];
        return static_cast<uint64_t>(static_cast<int64_t>(env.s[n[0] - 'e']));
    }
    case ExprKind::Cast: return eval(e.as<Cast>().operand, env); // int -> uint64_t: the same bits
    case ExprKind::Unary: {
        const auto& u = e.as<Unary>();
        Val v = eval(u.operand, env);
        if (!v) return v;
        if (u.op == UnaryOp::Not) return *v == 0 ? 1 : 0;
        if (type_of(u.operand) == CType::U64) return u.op == UnaryOp::Neg ? 0 - *v : ~*v;
        int64_t x = static_cast<int64_t>(*v);
        return int_result(u.op == UnaryOp::Neg ? -x : ~x);
    }
    case ExprKind::Binary: return binary(e.as<Binary>(), env);
    case ExprKind::Ternary: {
        const auto& t = e.as<Ternary>();
        Val c = eval(t.cond, env);
        if (!c) return c;
        // Only the chosen operand is evaluated; the result has the operands' common type, and an
        // int held sign-extended already is its uint64_t conversion.
        return eval(*c ? t.then_value : t.else_value, env);
    }
    default: ADD_FAILURE() << "unexpected node"; return std::nullopt;
    }
}

class Generator {
public:
    explicit Generator(uint64_t seed) : rng_(seed) {}

    Expr expr(int depth) {
        if (depth == 0 || pick(5) == 0) return leaf();
        switch (pick(10)) {
        case 0: return un(kUnary[pick(3)], expr(depth - 1));
        case 1: return Ternary::make(expr(depth - 1), expr(depth - 1), expr(depth - 1));
        case 2: return Cast::make(Type::of(ValueType::UInt64), expr(depth - 1));
        default: return bin(static_cast<BinaryOp>(pick(18)), expr(depth - 1), expr(depth - 1));
        }
    }

private:
    static constexpr UnaryOp kUnary[] = {UnaryOp::Neg, UnaryOp::Not, UnaryOp::BitNot};

    int pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }

    Expr leaf() {
        switch (pick(6)) {
        case 0: return var(kSignedVars[pick(2)]);
        case 1: return lit(Scalar::of(static_cast<int32_t>(pick(45) - 5)));
        case 2: return lit(Scalar::of(pick(4) == 0 ? rng_() : static_cast<uint64_t>(pick(70))));
        default: return var(kUnsignedVars[pick(4)]);
        }
    }

    std::mt19937_64 rng_;
};

TEST(CodegenPrecedence, RandomExpressionsCompileToTheirOwnValues) {
    // SISKIN_TEST_SEED=<n> reruns with another seed.
    const char* seed_env = std::getenv("SISKIN_TEST_SEED");
    const uint64_t seed = seed_env ? std::strtoull(seed_env, nullptr, 10) : 20240611;
    SCOPED_TRACE(fmt::format("seed {}", seed));
    Generator gen(seed);
    std::mt19937_64 rng(seed + 1);
    std::vector<Env> envs;
    for (int k = 0; k < 3; ++k) {
        Env env{};
        for (uint64_t& u : env.u) u = rng() % 3 == 0 ? rng() : rng() % 40;
        for (int32_t& s : env.s) s = static_cast<int32_t>(rng() % 9) - 4;
        envs.push_back(env);
    }

    // Keep the trees that are defined on every environment.
    std::vector<Expr> exprs;
    std::vector<std::vector<uint64_t>> expected(envs.size());
    for (int tries = 0; exprs.size() < 400 && tries < 20000; ++tries) {
        Expr e = gen.expr(1 + tries % 6);
        std::vector<uint64_t> values;
        for (const Env& env : envs)
            if (Val v = eval(e, env)) values.push_back(*v);
        if (values.size() != envs.size()) continue;
        exprs.push_back(e);
        for (size_t k = 0; k < envs.size(); ++k) expected[k].push_back(values[k]);
    }
    ASSERT_EQ(exprs.size(), 400u) << "the generator produced too few defined expressions";

    // eval_all(u, s, out) { uint64_t a = u[0]; ...; int32_t e = s[0]; ...; out[k] =
    // (uint64_t)(expr_k); }
    Type u64 = Type::of(ValueType::UInt64), s32 = Type::of(ValueType::Int32);
    std::vector<Stmt> body;
    for (int k = 0; k < 4; ++k)
        body.push_back(
            Decl::make(u64, kUnsignedVars[k], at(var("u"), lit(Scalar::of(int32_t{k})))));
    for (int k = 0; k < 2; ++k)
        body.push_back(Decl::make(s32, kSignedVars[k], at(var("s"), lit(Scalar::of(int32_t{k})))));
    for (size_t k = 0; k < exprs.size(); ++k)
        body.push_back(assign(at(var("out"), lit(Scalar::of(static_cast<int64_t>(k)))),
                              Cast::make(u64, exprs[k])));
    Function f = Function::make(Type::named("void"), "eval_all",
                                {{u64.as_const().pointer().restricted(), "u"},
                                 {s32.as_const().pointer().restricted(), "s"},
                                 {u64.pointer().restricted(), "out"}},
                                Block::make(body));
    std::string source = print_unit({f});

    TempDir cache;
    codegen::JitOptions options;
    options.cache_dir = cache.path();
    // -O0 keeps a 400-expression function quick to compile; -Werror=parentheses checks that the
    // printer adds the parentheses compilers ask for.
    options.flags = {"-O0", "-std=c11", "-Werror=parentheses", "-Werror=logical-not-parentheses"};
    codegen::JitResult r = codegen::jit_compile(source, options);
    auto* eval_all =
        r.library->function<void(const uint64_t*, const int32_t*, uint64_t*)>("eval_all");

    for (size_t k = 0; k < envs.size(); ++k) {
        std::vector<uint64_t> out(exprs.size());
        eval_all(envs[k].u, envs[k].s, out.data());
        for (size_t j = 0; j < exprs.size(); ++j)
            ASSERT_EQ(out[j], expected[k][j]) << "expression " << j << ": " << print(exprs[j]);
    }
}

} // namespace
} // namespace siskin::cast
