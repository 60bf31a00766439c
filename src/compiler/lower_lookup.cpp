// Lookup: a for loop over the extent (or the one index of a one-element extent), with every
// Lookup's leaf at the loop variable substituted. Also the loop with no looplet at all.
#include "compiler/lower.hpp"
#include "simplify/collapse.hpp"

namespace siskin::compiler {

namespace {

void emit_at(LowerCtx& ctx, const std::string& index, const LStmt& body, const cast::Expr& i) {
    std::map<const Node*, LExpr> leaves;
    for (const auto* u : unfurled_of(body, index, LoopletKind::Lookup))
        leaves.emplace(u, u->looplet->as<Lookup>()->body(ctx, i));
    LStmt bound = replace_unfurled(body, leaves);
    bound = substitute_index(bound, index, CValue::make(i, ValueType::Int64));
    lower_body(ctx, bound);
}

} // namespace

void lower_lookup(LowerCtx& ctx, const std::string& index, const Extent& ext, const LStmt& body) {
    if (ctx.prover().difference(ext.lo, ext.hi) == 1) {
        bool simple = ext.lo.kind() == cast::ExprKind::Var || ext.lo.kind() == cast::ExprKind::Literal ||
                      ext.lo.kind() == cast::ExprKind::Index;
        cast::Expr i = simple ? ext.lo : ctx.local(index, ext.lo);
        emit_at(ctx, index, body, i);
        return;
    }
    std::string name = ctx.fresh(index);
    cast::Expr i = cast::var(name);
    auto code = ctx.capture([&] { emit_at(ctx, index, body, i); });
    if (code.empty()) return;
    ctx.emit(cast::For::make(cast::Decl::make(cast::Type::of(ValueType::Int64), name, ext.lo),
                             cast::bin(cast::BinaryOp::Lt, i, ext.hi), cast::Increment::make(i),
                             cast::Block::make(code)));
}

void lower_plain(LowerCtx& ctx, const std::string& index, const Extent& ext, const LStmt& body) {
    if (!mentions_index(body, index) && ctx.prover().difference(ext.lo, ext.hi) == 1)
        return lower_body(ctx, body);
    if (!mentions_index(body, index))
        if (auto once = collapse_loop(ctx, ext, body)) return lower_body(ctx, *once);
    lower_lookup(ctx, index, ext, body);
}

} // namespace siskin::compiler
