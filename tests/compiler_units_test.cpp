// Unit tests of the compiler's parts: the extent prover, the simplifier's rules, the priority
// table and truncation.
#include <limits>

#include "codegen/c_printer.hpp"
#include "compiler/finite.hpp"
#include "compiler/looplet_priority.hpp"
#include "lowering/lower_ctx.hpp"
#include "lowering/tensor_binding.hpp"
#include "compiler_test_util.hpp"
#include "looplets/truncate.hpp"
#include "simplify/simplify.hpp"
#include "siskin/operators.hpp"
#include "siskin/reference.hpp"

namespace siskin::testing {
namespace {

using namespace compiler;
using namespace lowering;
using namespace looplets;
using namespace simplify;

cast::Expr v(const std::string& n) { return cast::var(n); }

TEST(CompilerProver, FoldsLinearIndexArithmetic) {
    cast::Expr crd = cast::at(v("crd"), v("p"));
    EXPECT_EQ(cast::print(c_add(c_add(crd, 1), -1)), "crd[p]");
    EXPECT_EQ(cast::print(c_mul(c_int(0), v("n"))), "0LL");
    EXPECT_EQ(cast::print(c_add(c_mul(c_int(0), v("n")), v("i"))), "i");
    EXPECT_EQ(c_constant(c_sub(c_add(v("hi"), 3), v("hi"))), 3);
    EXPECT_EQ(c_constant(v("hi")), std::nullopt);
}

TEST(CompilerProver, ProvesWhatItCanAndNothingElse) {
    Prover pr;
    cast::Expr x = v("x"), n = v("n"), s = v("s");
    EXPECT_TRUE(pr.le(x, c_add(x, 1)));
    EXPECT_FALSE(pr.le(c_add(x, 1), x));
    EXPECT_TRUE(pr.lt(x, c_add(x, 1)));
    EXPECT_FALSE(pr.le(x, n)); // unknown both ways
    EXPECT_FALSE(pr.le(n, x));
    EXPECT_EQ(pr.difference(c_add(x, 2), c_add(x, 5)), 3);
    EXPECT_EQ(cast::print(pr.min({x, c_add(x, 3)})), "x");
    EXPECT_EQ(cast::print(pr.max({x, c_add(x, 3)})), "x + 3LL");
    EXPECT_EQ(cast::print(pr.min({x, n})), "siskin_min_i64(x, n)");

    size_t mark = pr.mark();
    pr.assume_le(s, n); // a phase stop is at most the dimension
    EXPECT_TRUE(pr.le(s, n));
    EXPECT_TRUE(pr.le(c_add(s, -1), n));
    EXPECT_FALSE(pr.le(c_add(s, 1), n));
    EXPECT_EQ(cast::print(pr.min({n, s})), "s");
    EXPECT_TRUE(pr.le(s, pr.min({n, c_add(s, 2)})));
    pr.rollback(mark);
    EXPECT_FALSE(pr.le(s, n));
}

struct CompilerSimplify : ::testing::Test {
    LowerCtx ctx;
    TensorBinding y;
    CompilerSimplify() {
        y.name = "y";
        y.type = ValueType::Float64;
        y.fill = Scalar::of(0.0);
    }
    LExpr simp(const LExpr& e) { return simplify_expr(ctx, e); }
    static LExpr f(double d) { return Literal::make(Scalar::of(d)); }
    static LExpr x(bool finite) { return CValue::make(v("x"), ValueType::Float64, finite); }
    static LExpr call(const char* op, LExpr a, LExpr b) { return Call::make(find_operator(op), {a, b}); }
    static bool is_literal(const LExpr& e, double d) {
        const auto* l = e->as<Literal>();
        return l && l->value.same_value(Scalar::of(d));
    }
    LStmt write(const char* op, LExpr rhs, bool single = false) {
        auto slot = std::make_shared<Slot>(v("y0"), ValueType::Float64, std::nullopt);
        return std::make_shared<Assign>(&y, slot, op ? &find_operator(op) : nullptr, rhs, single);
    }
};

TEST_F(CompilerSimplify, FoldsConstants) {
    EXPECT_TRUE(is_literal(simp(call("add", f(2), call("mul", f(3), f(4)))), 14));
}

TEST_F(CompilerSimplify, AnnihilatorsRespectFiniteness) {
    EXPECT_TRUE(is_literal(simp(call("mul", x(true), f(0))), 0));
    EXPECT_TRUE(is_literal(simp(call("mul", f(0), x(true))), 0));
    EXPECT_NE(simp(call("mul", x(false), f(0)))->as<Call>(), nullptr); // 0 * inf is NaN
    LExpr i = CValue::make(v("k"), ValueType::Int64);
    EXPECT_TRUE(simp(call("mul", i, Literal::make(Scalar::of(int64_t{0}))))->as<Literal>());
    const double inf = std::numeric_limits<double>::infinity();
    EXPECT_TRUE(is_literal(simp(call("max", x(true), f(inf))), inf));
}

TEST_F(CompilerSimplify, IdentitiesDisappear) {
    EXPECT_EQ(simp(call("add", x(false), f(0)))->as<CValue>() != nullptr, true);
    EXPECT_EQ(simp(call("mul", f(1), x(false)))->as<CValue>() != nullptr, true);
    const double inf = std::numeric_limits<double>::infinity();
    EXPECT_EQ(simp(call("max", x(false), f(-inf)))->as<CValue>() != nullptr, true);
    // An identity of another type would change the result type: kept.
    LExpr i = CValue::make(v("k"), ValueType::Int32);
    EXPECT_NE(simp(call("add", i, f(0)))->as<Call>(), nullptr);
}

TEST_F(CompilerSimplify, WritesThatChangeNothingAreDropped) {
    EXPECT_TRUE(is_nothing(simplify_stmt(ctx, write("add", f(0)))));
    EXPECT_TRUE(is_nothing(simplify_stmt(ctx, write("mul", f(1)))));
    EXPECT_FALSE(is_nothing(simplify_stmt(ctx, write("mul", f(0)))));
    // `y = fill` only when nothing else writes the element.
    EXPECT_TRUE(is_nothing(simplify_stmt(ctx, write(nullptr, f(0), true))));
    EXPECT_FALSE(is_nothing(simplify_stmt(ctx, write(nullptr, f(0), false))));
    EXPECT_FALSE(is_nothing(simplify_stmt(ctx, write(nullptr, f(2), true))));
}

TEST_F(CompilerSimplify, ConditionsAndLets) {
    LStmt w = write("add", x(false));
    auto yes = std::make_shared<If>(Literal::make(Scalar::of(true)), w, nullptr);
    auto no = std::make_shared<If>(Literal::make(Scalar::of(false)), w, nullptr);
    EXPECT_EQ(simplify_stmt(ctx, yes), w);
    EXPECT_TRUE(is_nothing(simplify_stmt(ctx, no)));
    // let t = 0 { y += t * x }: the literal flows in, and the write of 0 disappears.
    auto let = std::make_shared<Let>("t", f(0), write("add", call("mul", Variable::make("t", ValueType::Float64), x(true))));
    EXPECT_TRUE(is_nothing(simplify_stmt(ctx, let)));
    // An empty loop disappears.
    auto loop = std::make_shared<For>("i", f(0), f(5), no);
    EXPECT_TRUE(is_nothing(simplify_stmt(ctx, loop)));
}

TEST(CompilerPriority, TableOrder) {
    std::vector<LoopletKind> order{LoopletKind::Shift,    LoopletKind::Thunk,  LoopletKind::Switch,
                                   LoopletKind::Run,      LoopletKind::Spike,  LoopletKind::Sequence,
                                   LoopletKind::Jumper,   LoopletKind::Stepper, LoopletKind::Lookup};
    for (size_t k = 0; k + 1 < order.size(); ++k) {
        EXPECT_GT(looplet_priority(order[k]), looplet_priority(order[k + 1]))
            << looplet_kind_name(order[k]) << " vs " << looplet_kind_name(order[k + 1]);
        EXPECT_EQ(highest_priority({order[k + 1], order[k]}), order[k]);
    }
}

TEST(CompilerTruncate, SpikeBecomesRunOrSwitch) {
    LowerCtx ctx;
    auto spike = make_looplet<Spike>(Literal::make(Scalar::of(0.0)), Literal::make(Scalar::of(5.0)));
    Extent whole{c_int(0), v("hi")};
    EXPECT_EQ(truncate(ctx, spike, whole, {c_int(0), v("hi")})->kind, LoopletKind::Spike);
    EXPECT_EQ(truncate(ctx, spike, whole, {c_int(0), c_add(v("hi"), -1)})->kind, LoopletKind::Run);
    auto unknown = truncate(ctx, spike, whole, {c_int(0), v("mid")});
    ASSERT_EQ(unknown->kind, LoopletKind::Switch);
    EXPECT_EQ(unknown->as<Switch>()->cases.size(), 2u);
    auto run = make_looplet<looplets::Run>(Literal::make(Scalar::of(1.0)));
    EXPECT_EQ(truncate(ctx, run, whole, {c_int(3), v("mid")}), run);
}

// Inputs are scanned for inf and NaN only where a sparse neighbour's fill lets a finite-only
// rule fold (0 * x, inf + x): A + B under fill 0 folds by x + 0 = x, true of inf and NaN too.
TEST(CompilerFiniteness, ScansOnlyWhereAFillFoldsByAFiniteOnlyRule) {
    const double inf = std::numeric_limits<double>::infinity();
    Tensor a = make({2, 3}, "csr", {{{0, 0}, 1}}), b = make({2, 3}, "csr", {{{1, 2}, inf}});
    Tensor a_inf = make({2, 3}, "csr", {{{0, 0}, 1}}, inf), a_one = make({2, 3}, "csr", {{{0, 0}, 2}}, 1.0);
    Tensor x = make({3}, "dense", {{{0}, 1}}), d = make({2}, "dense", {{{0}, 1}});
    auto scanned = [](const std::string& program, const std::map<std::string, const Tensor*>& inputs) {
        return finiteness_matters(ir::parse_program(program), inputs);
    };
    using Names = std::set<std::string>;
    EXPECT_EQ(scanned("C[i,j] = A[i,j] + B[i,j]", {{"A", &a}, {"B", &b}}), Names{});
    EXPECT_EQ(scanned("C[i,j] = A[i,j] - B[i,j]", {{"A", &a}, {"B", &b}}), Names{});
    EXPECT_EQ(scanned("C[i,j] = A[i,j] * B[i,j]", {{"A", &a}, {"B", &b}}), (Names{"A", "B"}));
    EXPECT_EQ(scanned("y[i] += A[i,j] * x[j]", {{"A", &a}, {"x", &x}}), Names{"x"});
    EXPECT_EQ(scanned("y[i] += A[i,j] * x[j]", {{"A", &a_one}, {"x", &x}}), Names{});
    EXPECT_EQ(scanned("C[i,j] = d[i] + A[i,j]", {{"A", &a_inf}, {"d", &d}}), Names{"d"});
    // A min= reduction may stop early at -inf where its right side is finite: all of it.
    EXPECT_EQ(scanned("y[j] min= d[i] + A[i,j]", {{"A", &a_inf}, {"d", &d}}), (Names{"A", "d"}));
    EXPECT_EQ(scanned("C[i,j] = A[i,j] + B[i,j]", {{"A", &a_inf}, {"B", &b}}), Names{"B"});
    // More than a plain read next to the operand: any literal may appear, so it is scanned
    // (x beside the sum A + B; not A and B, whose neighbour x is dense and holds no fill).
    EXPECT_EQ(scanned("C[i,j] = (A[i,j] * 2) + B[i,j]", {{"A", &a}, {"B", &b}}), Names{"B"});
    EXPECT_EQ(scanned("C[i,j] = (A[i,j] + B[i,j]) * x[j]", {{"A", &a}, {"B", &b}, {"x", &x}}), Names{"x"});
    // What the unscanned sum computes with inf and NaN stored: the reference's values.
    Tensor c = make({2, 3}, "csr", {{{0, 0}, std::nan("")}, {{1, 2}, -inf}, {{1, 0}, 4}});
    const std::map<std::string, const Tensor*> inputs{{"A", &c}, {"B", &b}};
    auto program = ir::parse_program("C[i,j] = A[i,j] + B[i,j]");
    EXPECT_TRUE(run_compiled("C[i,j] = A[i,j] + B[i,j]", inputs).at("C").equals(evaluate_reference(program, inputs).at("C")));
}

} // namespace
} // namespace siskin::testing
