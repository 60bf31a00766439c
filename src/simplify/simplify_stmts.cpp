// Statement rules: writes that change nothing, if true/false, let of a constant, empty loops
// and blocks.
#include "lowering/lower_ctx.hpp"
#include "lowering/tensor_binding.hpp"
#include "simplify/simplify.hpp"
#include "siskin/operators.hpp"

namespace siskin::simplify {

namespace {

// y op= rhs with rhs the operator's identity for y's type leaves y unchanged, and so does
// y op= fill when only this idempotent reduction writes y (single_write on a reduction, see
// convert.cpp); `y = fill` on an element nothing else writes leaves it at its initial fill.
bool write_changes_nothing(const Assign& a) {
    const auto* lit = a.rhs->as<Literal>();
    if (!lit) return false;
    ValueType out = a.lhs->type;
    if (a.op) {
        if (promote(out, lit->value.type()) != out) return false;
        if (a.single_write && lit->value.cast(out).same(a.tensor->fill)) return true;
        if (!a.op->identity) return false;
        auto e = a.op->identity(out, 1);
        return e && lit->value.same_value(*e);
    }
    return a.single_write && lit->value.cast(out).same(a.tensor->fill);
}

LStmt rule(LowerCtx& ctx, const LStmt& s) {
    switch (s->kind) {
    case StmtKind::For:
        if (is_nothing(s->as<For>()->body)) return nothing();
        return s;
    case StmtKind::Assign:
        if (write_changes_nothing(*s->as<Assign>())) return nothing();
        return s;
    case StmtKind::If: {
        const auto& n = *s->as<If>();
        LStmt otherwise = n.else_body ? n.else_body : nothing();
        if (const auto* lit = n.cond->as<Literal>()) return lit->value.as_bool() ? n.then_body : otherwise;
        if (is_nothing(n.then_body) && is_nothing(otherwise)) return nothing();
        return s;
    }
    case StmtKind::Let: {
        const auto& n = *s->as<Let>();
        if (is_nothing(n.body)) return nothing();
        if (n.value->as<Literal>()) {
            LStmt body = map_stmt(n.body, [&](const LExpr& e) -> LExpr {
                if (const auto* v = e->as<Variable>(); v && v->name == n.name) return n.value;
                return e;
            });
            return simplify_stmt(ctx, body);
        }
        return s;
    }
    case StmtKind::Block: {
        const auto& b = *s->as<Block>();
        std::vector<LStmt> kept;
        for (const auto& c : b.stmts)
            if (!is_nothing(c)) kept.push_back(c);
        if (kept.size() == b.stmts.size() && kept.size() != 1) return s;
        return kept.empty() ? nothing() : make_block(std::move(kept));
    }
    }
    return s;
}

} // namespace

LStmt simplify_stmt(LowerCtx& ctx, const LStmt& s) {
    return map_stmt_shallow(
        s, [&](const LExpr& e) { return simplify_expr(ctx, e); },
        [&](const LStmt& n) { return rule(ctx, n); });
}

} // namespace siskin::simplify
