#include "compiler/mask.hpp"

#include "compiler/affine_subscript.hpp"
#include "siskin/operators.hpp"

namespace siskin::compiler {

namespace {

LoopletPtr run_of(bool v) { return make_looplet<Run>(Literal::make(Scalar::of(v))); }

// `before` on [lo, from), `after` on [from, hi).
LoopletPtr split(const cast::Expr& from, bool before, bool after) {
    LoopletPtr b = run_of(before), a = run_of(after);
    return make_looplet<Sequence>(std::vector<Phase>{{from, [b](LowerCtx&, const Extent&) { return b; }},
                                                     {std::nullopt, [a](LowerCtx&, const Extent&) { return a; }}});
}

// `outside` except at the one index `at`.
LoopletPtr point(const cast::Expr& at, bool outside) {
    LoopletPtr o = run_of(outside), in = run_of(!outside);
    return make_looplet<Sequence>(std::vector<Phase>{{at, [o](LowerCtx&, const Extent&) { return o; }},
                                                     {c_add(at, 1), [in](LowerCtx&, const Extent&) { return in; }},
                                                     {std::nullopt, [o](LowerCtx&, const Extent&) { return o; }}});
}

} // namespace

std::optional<LoopletPtr> mask_looplet(LowerCtx& ctx, const LExpr& cmp, const std::string& index) {
    const auto* c = cmp->as<Call>();
    if (!c || c->args.size() != 2 || !is_integer(c->args[0]->type) || !is_integer(c->args[1]->type))
        return std::nullopt;
    std::string op = c->op->name;
    if (op != "lt" && op != "le" && op != "gt" && op != "ge" && op != "eq" && op != "ne") return std::nullopt;
    auto l = linear_form(ctx, c->args[0]), r = linear_form(ctx, c->args[1]);
    if (!l || !r) return std::nullopt;
    // lhs - rhs = k * index + rest, with k = +-1 and nothing else unbound.
    int64_t k = 0;
    for (const auto& t : l->open) {
        if (t.index != index) return std::nullopt;
        k += t.coef;
    }
    for (const auto& t : r->open) {
        if (t.index != index) return std::nullopt;
        k -= t.coef;
    }
    if (k != 1 && k != -1) return std::nullopt;
    // index OP' b, where b = (rhs_closed - lhs_closed) / k and OP flips when k = -1.
    cast::Expr b = k == 1 ? c_sub(r->closed, l->closed) : c_sub(l->closed, r->closed);
    if (k == -1) op = op == "lt" ? "gt" : op == "le" ? "ge" : op == "gt" ? "lt" : op == "ge" ? "le" : op;
    if (op == "lt") return split(b, true, false);            // index < b
    if (op == "le") return split(c_add(b, 1), true, false);  // index <= b
    if (op == "gt") return split(c_add(b, 1), false, true);  // index > b
    if (op == "ge") return split(b, false, true);            // index >= b
    return point(b, op == "ne");
}

} // namespace siskin::compiler
