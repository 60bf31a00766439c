// The traversal helpers: visiting order, and rebuilding that keeps unchanged subtrees.
#include "ir_test_support.hpp"
#include "siskin/ir/visit.hpp"

using namespace siskin;
using namespace siskin::ir;
using namespace siskin::ir::test;

TEST(IrVisit, VisitsInTextOrder) {
    Program p = parse_program("for i in 0:n { let t = a[i] { if t > b[i] { y[c[i]] = d[i] } } }");
    std::vector<std::string> tensors;
    std::vector<StmtKind> kinds;
    visit(p.body, [&](const Stmt& s) { kinds.push_back(s->kind); },
          [&](const Expr& e) {
              if (auto a = e->as<Access>()) tensors.push_back(a->tensor);
          });
    EXPECT_EQ(tensors, (std::vector<std::string>{"a", "b", "y", "c", "d"}));
    EXPECT_EQ(kinds, (std::vector<StmtKind>{StmtKind::For, StmtKind::Let, StmtKind::If,
                                            StmtKind::Assign}));
    int indices = 0;
    visit(parse_expr("f(i, A[j, i + 1])"),
          [&](const Expr& e) { indices += e->kind == ExprKind::Index; });
    EXPECT_EQ(indices, 3);
}

TEST(IrVisit, MutateKeepsUnchangedSubtrees) {
    Program p = parse_program("y[i] += A[i,j] * x[j]\nz[i] = w[i]");
    // A mutator that changes nothing returns the very same tree.
    EXPECT_EQ(mutate(p.body, [](const Stmt& s) { return s; }, [](const Expr& e) { return e; }),
              p.body);
    EXPECT_EQ(mutate(p.body, {}, {}), p.body);
    // Renaming tensor x rebuilds the first nest only.
    Stmt renamed = mutate(p.body, {}, [](const Expr& e) -> Expr {
        auto a = e->as<Access>();
        if (!a || a->tensor != "x") return e;
        return Access::make("v", a->indices, a->protocols, a->pos);
    });
    EXPECT_IR_EQ(renamed, parse_program("y[i] += A[i,j] * v[j]\nz[i] = w[i]").body);
    auto before = p.body->as<Block>(), after = renamed->as<Block>();
    EXPECT_NE(before->stmts[0], after->stmts[0]);
    EXPECT_EQ(before->stmts[1], after->stmts[1]);
    // Statements are rewritten after their children: swap every += for max=.
    Stmt swapped = mutate(p.body, [](const Stmt& s) -> Stmt {
        auto a = s->as<Assign>();
        if (!a || a->op != "add") return s;
        return Assign::make(a->lhs, "max", a->rhs, a->pos);
    });
    EXPECT_IR_EQ(swapped, parse_program("y[i] max= A[i,j] * x[j]\nz[i] = w[i]").body);
}

TEST(IrVisit, MutateChecksTheLeftSideStaysAnAccess) {
    Program p = parse_program("y[] = 1");
    Error e = expect_error(
        [&] { mutate(p.body, {}, [](const Expr& e) { return e->as<Access>() ? L(0) : e; }); },
        "left side into a non-access");
    EXPECT_EQ(e.kind(), Error::Kind::Internal);
}
