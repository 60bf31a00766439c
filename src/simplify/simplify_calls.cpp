// Expression rules: constant folding, annihilators, identities, known selects; and resolution
// of fibres whose coordinates became known.
#include <cmath>

#include "compiler/lower_ctx.hpp"
#include "compiler/resolve.hpp"
#include "compiler/tensor_binding.hpp"
#include "simplify/simplify.hpp"
#include "siskin/error.hpp"
#include "siskin/operators.hpp"

namespace siskin::compiler {

namespace {

bool finite_scalar(const Scalar& s) {
    return !is_float(s.type()) || std::isfinite(s.as_double());
}

bool tensor_finite(const TensorBinding& t) {
    return !is_float(t.type) || (t.finite && finite_scalar(t.fill));
}

std::optional<LExpr> fold(const Call& c) {
    std::vector<Scalar> values;
    for (const auto& a : c.args) {
        const auto* lit = a->as<Literal>();
        if (!lit) return std::nullopt;
        values.push_back(lit->value);
    }
    return Literal::make(c.op->apply(values).cast(c.type));
}

// op(x, literal) or op(literal, x) for a binary operator.
std::optional<LExpr> binary_rules(const Call& c) {
    if (c.args.size() != 2) return std::nullopt;
    for (int k = 0; k < 2; ++k) {
        const auto* lit = c.args[static_cast<size_t>(k)]->as<Literal>();
        if (!lit) continue;
        const LExpr& other = c.args[static_cast<size_t>(1 - k)];
        if (c.op->annihilator) {
            if (auto z = c.op->annihilator(other->type, k)) {
                bool finite_ok = !c.op->annihilator_finite_only || known_finite(other);
                if (finite_ok && lit->value.same_value(z->first))
                    return Literal::make(z->second.cast(c.type));
            }
        }
        if (c.op->identity && other->type == c.type) {
            if (auto e = c.op->identity(other->type, k); e && lit->value.same_value(*e))
                return other;
        }
    }
    return std::nullopt;
}

// ifelse(c, a, b) (NumPy where) with a literal condition, or with the same literal twice, is
// the chosen value; a mask's fill region (where(M, A, B) with M at fill false) becomes B.
std::optional<LExpr> select_rule(const Call& c) {
    if (c.op->name != "ifelse" || c.args.size() != 3) return std::nullopt;
    const LExpr* chosen = nullptr;
    if (const auto* cond = c.args[0]->as<Literal>())
        chosen = &c.args[cond->value.as_bool() ? 1 : 2];
    const auto* a = c.args[1]->as<Literal>();
    const auto* b = c.args[2]->as<Literal>();
    if (!chosen && a && b && a->value.cast(c.type).same(b->value.cast(c.type))) chosen = &c.args[1];
    if (!chosen) return std::nullopt;
    if (const auto* lit = (*chosen)->as<Literal>()) return Literal::make(lit->value.cast(c.type));
    if ((*chosen)->type == c.type) return *chosen;
    return std::nullopt; // the value needs a conversion the lowering tree cannot express here
}

LExpr rule(LowerCtx& ctx, const LExpr& e) {
    switch (e->kind) {
    case NodeKind::Call: {
        const auto& c = *e->as<Call>();
        if (auto f = fold(c)) return *f;
        if (auto r = binary_rules(c)) return *r;
        if (auto r = select_rule(c)) return *r;
        return e;
    }
    case NodeKind::Fiber: {
        if (LExpr r = resolve_fiber(ctx, *e->as<Fiber>())) return simplify_expr(ctx, r);
        return e;
    }
    case NodeKind::Select: {
        const auto& s = *e->as<Select>();
        // All values the same literal: no choice to make.
        const auto* first = s.cases.front().value->as<Literal>();
        bool same = first != nullptr;
        for (const auto& c : s.cases) {
            const auto* lit = c.value->as<Literal>();
            same = same && lit && lit->value.same(first->value);
        }
        if (same) return s.cases.front().value;
        if (!s.cases.front().cond) return s.cases.front().value;
        return e;
    }
    case NodeKind::Hoist: {
        const auto& h = *e->as<Hoist>();
        // A search whose result nobody reads any more.
        if (h.post.empty() && h.inner->as<Literal>()) return h.inner;
        return e;
    }
    default: return e;
    }
}

} // namespace

bool known_finite(const LExpr& e) {
    if (!is_float(e->type)) return true;
    switch (e->kind) {
    case NodeKind::Literal: return finite_scalar(e->as<Literal>()->value);
    case NodeKind::CValue: return e->as<CValue>()->finite;
    case NodeKind::Fiber: return tensor_finite(*e->as<Fiber>()->tensor);
    case NodeKind::Unfurled: {
        const auto* t = e->as<Unfurled>()->tensor;
        return t && tensor_finite(*t);
    }
    default: return false;
    }
}

LExpr simplify_expr(LowerCtx& ctx, const LExpr& e) {
    return map_expr(e, [&](const LExpr& n) { return rule(ctx, n); });
}

} // namespace siskin::compiler
