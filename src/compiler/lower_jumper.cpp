// Jumper: like a stepper, but a step ends at the largest stop among the jumpers (clamped to the
// extent): the step is exactly one chunk of the leading jumper, and the others describe the
// wider range themselves (usually a walk over several of their chunks, which a fill region of
// the leader then removes). Two jumpers gallop: each step skips to the larger next coordinate.
#include "compiler/lower.hpp"
#include "compiler/vocabulary.hpp"

namespace siskin::compiler {

void lower_jumper(LowerCtx& ctx, const std::string& index, const Extent& ext, const LStmt& body) {
    auto nodes = unfurled_of(body, index, LoopletKind::Jumper);
    Prover& pr = ctx.prover();
    for (const auto* u : nodes) ctx.emit(u->looplet->as<Jumper>()->seek(ctx, ext.lo));

    std::string start_name = ctx.fresh(index + "_start");
    cast::Expr start = cast::var(start_name);
    ctx.emit(cast::Decl::make(cast::Type::of(ValueType::Int64), start_name, ext.lo));

    size_t mark = pr.mark();
    auto code = ctx.capture([&] {
        std::vector<cast::Expr> stops;
        for (const auto* u : nodes) {
            const auto* j = u->looplet->as<Jumper>();
            cast::Expr stop = ctx.local("stop", j->stop);
            for (const auto& b : j->stop_bounds) pr.assume_le(stop, b);
            stops.push_back(stop);
        }
        cast::Expr end = pr.min({pr.max(stops), ext.hi});
        if (end.kind() != cast::ExprKind::Var) end = ctx.local(index + "_end", end);
        Extent step{start, end};

        std::set<const Node*> skip(nodes.begin(), nodes.end());
        LStmt part = truncate_all(ctx, body, index, ext, step, skip);
        std::map<const Node*, LExpr> by;
        for (size_t k = 0; k < nodes.size(); ++k)
            by.emplace(nodes[k], nodes[k]->with(nodes[k]->looplet->as<Jumper>()->chunk(ctx, stops[k], step)));
        lower_extent(ctx, index, step, replace_unfurled(part, by));

        for (size_t k = 0; k < nodes.size(); ++k) {
            const auto& next = nodes[k]->looplet->as<Jumper>()->next;
            if (pr.eq(end, stops[k])) ctx.emit(next);
            else ctx.emit(cast::If::make(cast::bin(cast::BinaryOp::Eq, end, stops[k]), cast::Block::make(next)));
        }
        ctx.emit(cast::assign(start, end));
    });
    pr.rollback(mark);
    ctx.emit(cast::While::make(cast::bin(cast::BinaryOp::Lt, start, ext.hi), cast::Block::make(code)));
}

} // namespace siskin::compiler
