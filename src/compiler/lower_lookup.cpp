// Lookup: a for loop over the extent (or the one index of an extent of at most one), with every
// Lookup's leaf at the loop variable substituted. Also the loop with no looplet at all.
//
// When every Lookup left is a writer that accepts runs (Lookup::run), the body depends on the
// index through them only, and it writes nothing else, every index of the extent would receive
// the same value: the body runs once with the writers' leaves for the whole extent (Finch's
// AcceptRun; a runlist output stores a run read from a Run looplet in O(1)).
#include <set>

#include "compiler/lower.hpp"
#include "simplify/collapse.hpp"
#include "compiler/vocabulary.hpp"

namespace siskin::compiler {

namespace {

bool emit_run(LowerCtx& ctx, const std::string& index, const Extent& ext, const LStmt& body) {
    auto nodes = unfurled_of(body, index);
    std::set<const TensorBinding*> writers;
    std::map<const Node*, LExpr> placeholders;
    for (const auto* u : nodes) {
        const auto* l = u->looplet->as<Lookup>();
        if (!l || !l->run || !u->write || !u->tensor) return false;
        writers.insert(u->tensor);
        placeholders.emplace(u, Literal::make(Scalar::of(false)));
    }
    if (mentions_index(replace_unfurled(body, placeholders), index)) return false;
    bool only_writers = true;
    visit_stmt(body, [](const LExpr&) {}, [&](const LStmt& s) {
        if (const auto* a = s->as<Assign>(); a && !writers.count(a->tensor)) only_writers = false;
    });
    if (!only_writers) return false;
    std::map<const Node*, LExpr> leaves;
    for (const auto* u : nodes) leaves.emplace(u, u->looplet->as<Lookup>()->run(ctx, ext));
    LStmt once = replace_unfurled(body, leaves);
    if (ctx.prover().lt(ext.lo, ext.hi)) {
        lower_body(ctx, once);
        return true;
    }
    auto code = ctx.capture([&] { lower_body(ctx, once); });
    if (!code.empty())
        ctx.emit(cast::If::make(cast::bin(cast::BinaryOp::Lt, ext.lo, ext.hi), cast::Block::make(code)));
    return true;
}

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
    if (emit_run(ctx, index, ext, body)) return;
    if (ctx.prover().le(ext.hi, c_add(ext.lo, 1))) {
        // At most one index (a point's extent clipped to the loop's: [pt, min(n, pt + 1))): the
        // body at lo, behind the emptiness test, not a loop that runs once.
        auto code = ctx.capture([&] { emit_at(ctx, index, body, ctx.local(index, ext.lo)); });
        if (code.empty()) return;
        if (ctx.prover().lt(ext.lo, ext.hi)) {
            for (auto& c : code) ctx.emit(c);
            return;
        }
        ctx.emit(cast::If::make(cast::bin(cast::BinaryOp::Lt, ext.lo, ext.hi), cast::Block::make(code)));
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
    if (mentions_index(body, index))
        if (auto fixed = fix_monotone_index(index, ext, body))
            if (auto once = collapse_loop(ctx, ext, *fixed)) return lower_body(ctx, *once);
    lower_lookup(ctx, index, ext, body);
}

} // namespace siskin::compiler
