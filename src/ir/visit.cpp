#include "siskin/ir/visit.hpp"

#include "siskin/error.hpp"

namespace siskin::ir {

void visit(const Expr& e, const ExprVisitor& f) {
    if (!e) return;
    if (f) f(e);
    if (auto a = e->as<Access>())
        for (const auto& i : a->indices) visit(i, f);
    else if (auto c = e->as<Call>())
        for (const auto& x : c->args) visit(x, f);
}

void visit(const Stmt& s, const StmtVisitor& on_stmt, const ExprVisitor& on_expr) {
    if (!s) return;
    if (on_stmt) on_stmt(s);
    auto expr = [&](const Expr& e) {
        if (on_expr) visit(e, on_expr);
    };
    switch (s->kind) {
    case StmtKind::For: {
        auto f = s->as<For>();
        expr(f->lo);
        expr(f->hi);
        visit(f->body, on_stmt, on_expr);
        break;
    }
    case StmtKind::Assign: {
        auto a = s->as<Assign>();
        expr(a->lhs);
        expr(a->rhs);
        break;
    }
    case StmtKind::If: {
        auto i = s->as<If>();
        expr(i->cond);
        visit(i->then_body, on_stmt, on_expr);
        visit(i->else_body, on_stmt, on_expr);
        break;
    }
    case StmtKind::Let: {
        auto l = s->as<Let>();
        expr(l->value);
        visit(l->body, on_stmt, on_expr);
        break;
    }
    case StmtKind::Block:
        for (const auto& x : s->as<Block>()->stmts) visit(x, on_stmt, on_expr);
        break;
    case StmtKind::While: {
        auto w = s->as<While>();
        expr(w->cond);
        visit(w->body, on_stmt, on_expr);
        break;
    }
    case StmtKind::Swap: break;
    }
}

namespace {
// Mutates each element; true when any changed identity.
template <class T, class F> bool mutate_all(const std::vector<T>& in, std::vector<T>& out, F&& f) {
    bool changed = false;
    out.reserve(in.size());
    for (const auto& x : in) {
        out.push_back(f(x));
        changed |= out.back() != x;
    }
    return changed;
}
} // namespace

Expr mutate(const Expr& e, const ExprMutator& f) {
    if (!e) return e;
    Expr node = e;
    auto rec = [&](const Expr& x) { return mutate(x, f); };
    if (auto a = e->as<Access>()) {
        std::vector<Expr> idx;
        if (mutate_all(a->indices, idx, rec))
            node = Access::make(a->tensor, std::move(idx), a->protocols, a->pos);
    } else if (auto c = e->as<Call>()) {
        std::vector<Expr> args;
        if (mutate_all(c->args, args, rec)) node = Call::make(c->op, std::move(args), c->pos);
    }
    return f ? f(node) : node;
}

Stmt mutate(const Stmt& s, const StmtMutator& on_stmt, const ExprMutator& on_expr) {
    if (!s) return s;
    auto expr = [&](const Expr& e) { return on_expr ? mutate(e, on_expr) : e; };
    auto stmt = [&](const Stmt& x) { return mutate(x, on_stmt, on_expr); };
    Stmt node = s;
    switch (s->kind) {
    case StmtKind::For: {
        auto f = s->as<For>();
        Expr lo = expr(f->lo), hi = expr(f->hi);
        Stmt body = stmt(f->body);
        if (lo != f->lo || hi != f->hi || body != f->body)
            node = For::make(f->index, body, lo, hi, f->pos);
        break;
    }
    case StmtKind::Assign: {
        auto a = s->as<Assign>();
        Expr lhs = expr(a->lhs), rhs = expr(a->rhs);
        if (lhs != a->lhs || rhs != a->rhs) {
            auto access = std::dynamic_pointer_cast<const Access>(lhs);
            SISKIN_ASSERT(access, "a mutator turned an assignment's left side into a non-access");
            node = Assign::make(access, a->op, rhs, a->pos);
        }
        break;
    }
    case StmtKind::If: {
        auto i = s->as<If>();
        Expr cond = expr(i->cond);
        Stmt then_body = stmt(i->then_body), else_body = stmt(i->else_body);
        if (cond != i->cond || then_body != i->then_body || else_body != i->else_body)
            node = If::make(cond, then_body, else_body, i->pos);
        break;
    }
    case StmtKind::Let: {
        auto l = s->as<Let>();
        Expr value = expr(l->value);
        Stmt body = stmt(l->body);
        if (value != l->value || body != l->body) node = Let::make(l->name, value, body, l->pos);
        break;
    }
    case StmtKind::Block: {
        auto b = s->as<Block>();
        std::vector<Stmt> stmts;
        if (mutate_all(b->stmts, stmts, stmt)) node = Block::make(std::move(stmts), b->pos);
        break;
    }
    case StmtKind::While: {
        auto w = s->as<While>();
        Expr cond = expr(w->cond);
        Stmt body = stmt(w->body);
        if (cond != w->cond || body != w->body) node = While::make(cond, body, w->pos);
        break;
    }
    case StmtKind::Swap: break;
    }
    return on_stmt ? on_stmt(node) : node;
}

Stmt rewrite_top_down(const Stmt& s, const std::function<std::optional<Stmt>(const Stmt&)>& f) {
    if (!s) return s;
    if (auto r = f(s)) return *r;
    auto rec = [&](const Stmt& x) { return rewrite_top_down(x, f); };
    switch (s->kind) {
    case StmtKind::For: {
        auto n = s->as<For>();
        Stmt body = rec(n->body);
        return body == n->body ? s : For::make(n->index, body, n->lo, n->hi, n->pos);
    }
    case StmtKind::If: {
        auto n = s->as<If>();
        Stmt then_body = rec(n->then_body), else_body = rec(n->else_body);
        if (then_body == n->then_body && else_body == n->else_body) return s;
        return If::make(n->cond, then_body, else_body, n->pos);
    }
    case StmtKind::Let: {
        auto n = s->as<Let>();
        Stmt body = rec(n->body);
        return body == n->body ? s : Let::make(n->name, n->value, body, n->pos);
    }
    case StmtKind::Block: {
        auto b = s->as<Block>();
        std::vector<Stmt> stmts;
        return mutate_all(b->stmts, stmts, rec) ? Block::make(std::move(stmts), b->pos) : s;
    }
    case StmtKind::While: {
        auto n = s->as<While>();
        Stmt body = rec(n->body);
        return body == n->body ? s : While::make(n->cond, body, n->pos);
    }
    case StmtKind::Assign:
    case StmtKind::Swap: return s;
    }
    return s;
}

} // namespace siskin::ir
