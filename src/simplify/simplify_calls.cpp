// Expression rules: constant folding, annihilators, identities, declared iteration spaces,
// known selects; and resolution
// of fibres whose coordinates became known.
#include <cmath>

#include "lowering/lower_ctx.hpp"
#include "simplify/resolve.hpp"
#include "lowering/tensor_binding.hpp"
#include "simplify/simplify.hpp"
#include "siskin/error.hpp"
#include "siskin/operators.hpp"

namespace siskin::simplify {

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

// Whether e can be neither NaN nor the infinity `inf`: a literal; a stored value read from a
// tensor whose stored values are finite; a read of such a tensor whose fill is neither.
bool excludes_nan_and(const LExpr& e, double inf) {
    if (!is_float(e->type)) return true;
    auto allowed = [&](const Scalar& s) {
        double v = s.as_double();
        return !std::isnan(v) && v != inf;
    };
    switch (e->kind) {
    case NodeKind::Literal: return allowed(e->as<Literal>()->value);
    case NodeKind::CValue: {
        const auto* c = e->as<CValue>();
        return c->finite || (c->not_nan_nor != 0 && c->not_nan_nor == inf);
    }
    case NodeKind::Fiber: {
        const auto* t = e->as<Fiber>()->tensor;
        return t->finite && allowed(t->fill);
    }
    case NodeKind::Unfurled: {
        const auto* t = e->as<Unfurled>()->tensor;
        return t && t->finite && allowed(t->fill);
    }
    default: return false;
    }
}

// inf + x, x + inf and inf - x are inf, x - inf is -inf (and the same for -inf) when x can be
// neither NaN nor the infinity that would cancel: an infinite fill (the (min, +) semiring's
// "no edge") absorbs the finite stored values it meets, so those regions fold away.
std::optional<LExpr> infinity_rule(const Call& c) {
    if (c.args.size() != 2 || !is_float(c.type)) return std::nullopt;
    bool add = c.op->name == "add", sub = c.op->name == "sub";
    if (!add && !sub) return std::nullopt;
    for (int k = 0; k < 2; ++k) {
        const auto* lit = c.args[static_cast<size_t>(k)]->as<Literal>();
        if (!lit || !is_float(lit->value.type())) continue;
        double v = lit->value.as_double();
        if (!std::isinf(v)) continue;
        const LExpr& other = c.args[static_cast<size_t>(1 - k)];
        if (!excludes_nan_and(other, add ? -v : v)) continue;
        double result = sub && k == 1 ? -v : v;
        return Literal::make(Scalar::of(result).cast(c.type));
    }
    return std::nullopt;
}

// A call whose literal arguments decide it (a user function's declared iteration space says
// the call is outside it): the operator's known result.
std::optional<LExpr> known_rule(const Call& c) {
    if (!c.op->known_result) return std::nullopt;
    std::vector<std::optional<Scalar>> known;
    bool any = false;
    for (const auto& a : c.args) {
        const auto* lit = a->as<Literal>();
        any = any || lit;
        known.push_back(lit ? std::optional<Scalar>(lit->value) : std::nullopt);
    }
    if (!any) return std::nullopt;
    if (auto v = c.op->known_result(known)) return Literal::make(v->cast(c.type));
    return std::nullopt;
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
        if (auto r = known_rule(c)) return *r;
        if (auto r = infinity_rule(c)) return *r;
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

} // namespace siskin::simplify
