// Stepper: a while loop whose steps end at the smallest stop among the steppers, so no step
// crosses a chunk boundary of any of them (for two sorted lists: the two-finger merge). Each
// chunk is truncated to the step; a stepper whose chunk ended moves on.
//
// A lone stepper over positions p..end of a list whose last chunk ends where the extent ends is
// lowered as `for (; p < end; p++)`, the loop a person would write for CSR.
//
// Two sorted lists that only meet (a dot product) go to lower_intersection first, which
// chooses between these steps and a walk of the shorter galloping the longer at run time.
#include "compiler/lower.hpp"
#include "looplets/truncate.hpp"
#include "compiler/vocabulary.hpp"

namespace siskin::compiler {

namespace {

struct Step {
    const Unfurled* node;
    const Stepper* stepper;
    cast::Expr stop;
};

// Declares the step's stops (a local each, unless `inline_stop`), returns the steppers with them.
std::vector<Step> open_step(LowerCtx& ctx, const std::vector<const Unfurled*>& nodes,
                            bool inline_stop = false) {
    std::vector<Step> steps;
    for (const auto* u : nodes) {
        const auto* s = u->looplet->as<Stepper>();
        cast::Expr stop = inline_stop ? s->stop : ctx.local("stop", s->stop);
        for (const auto& b : s->stop_bounds) ctx.prover().assume_le(stop, b);
        steps.push_back({u, s, stop});
    }
    return steps;
}

LStmt step_body(LowerCtx& ctx, const std::string& index, const Extent& ext, const Extent& step,
                const std::vector<Step>& steps, const LStmt& body) {
    std::set<const Node*> skip;
    for (const auto& s : steps) skip.insert(s.node);
    LStmt truncated = truncate_all(ctx, body, index, ext, step, skip);
    std::map<const Node*, LExpr> by;
    for (const auto& s : steps) {
        LoopletPtr chunk = s.stepper->chunk(ctx, s.stop);
        Extent own{step.lo, s.stop};
        by.emplace(s.node, s.node->with(truncate(ctx, chunk, own, step)));
    }
    return replace_unfurled(truncated, by);
}

} // namespace

void lower_stepper(LowerCtx& ctx, const std::string& index, const Extent& ext, const LStmt& body) {
    if (lower_merge(ctx, index, ext, body)) return;        // many operands: linear code
    if (lower_intersection(ctx, index, ext, body)) return; // two lists, lengths chosen at run time
    lower_steps(ctx, index, ext, body);
}

void lower_steps(LowerCtx& ctx, const std::string& index, const Extent& ext, const LStmt& body, bool seeked) {
    auto nodes = unfurled_of(body, index, LoopletKind::Stepper);
    Prover& pr = ctx.prover();
    if (!seeked)
        for (const auto* u : nodes) ctx.emit(u->looplet->as<Stepper>()->seek(ctx, ext.lo));

    std::string start_name = ctx.fresh(index + "_start");
    cast::Expr start = cast::var(start_name);
    ctx.emit(cast::Decl::make(cast::Type::of(ValueType::Int64), start_name, ext.lo));

    // Steps of a stepper whose chunks may be empty are lowered only when not empty.
    bool guard = false;
    for (const auto* u : nodes) guard = guard || u->looplet->as<Stepper>()->may_be_empty;
    auto lower_step = [&](const Extent& step, const LStmt& step_code) {
        if (guard) lower_range(ctx, index, step, step_code);
        else lower_extent(ctx, index, step, step_code);
    };

    const Stepper* lone = nodes.size() == 1 ? nodes.front()->looplet->as<Stepper>() : nullptr;
    if (lone && lone->positions && pr.le(lone->positions->last_stop, ext.hi)) {
        const PositionLoop& pl = *lone->positions;
        size_t mark = pr.mark();
        auto code = ctx.capture([&] {
            // The stop stays an expression (crd[p] + 1), so the chunk's last index folds to crd[p].
            auto steps = open_step(ctx, nodes, true);
            Extent step{start, steps.front().stop};
            lower_step(step, step_body(ctx, index, ext, step, steps, body));
            ctx.emit(cast::assign(start, steps.front().stop));
        });
        pr.rollback(mark);
        ctx.emit(cast::For::make(std::nullopt, cast::bin(cast::BinaryOp::Lt, pl.p, pl.end),
                                 cast::Increment::make(pl.p), cast::Block::make(code)));
        return;
    }

    // The extent ends inside the list (a window, a shifted or masked read): the chunks that end
    // inside it in the position loop, stopped by the first that reaches past it, which is then
    // lowered truncated.
    if (lone && lone->positions && !guard && pr.le(ext.hi, lone->positions->last_stop) &&
        pr.difference(ext.lo, ext.hi) != 1) {
        const PositionLoop& pl = *lone->positions;
        size_t mark = pr.mark();
        auto code = ctx.capture([&] {
            auto steps = open_step(ctx, nodes, true);
            pr.assume_le(steps.front().stop, ext.hi);
            Extent step{start, steps.front().stop};
            lower_step(step, step_body(ctx, index, ext, step, steps, body));
            ctx.emit(cast::assign(start, steps.front().stop));
        });
        pr.rollback(mark);
        cast::Expr inside = cast::bin(cast::BinaryOp::LogAnd, cast::bin(cast::BinaryOp::Lt, pl.p, pl.end),
                                      cast::bin(cast::BinaryOp::Le, lone->stop, ext.hi));
        ctx.emit(cast::For::make(std::nullopt, inside, cast::Increment::make(pl.p), cast::Block::make(code)));
        // start < ext.hi <= last_stop: the list is not exhausted, and its chunk ends past ext.hi.
        mark = pr.mark();
        auto rest = ctx.capture([&] {
            auto steps = open_step(ctx, nodes, true);
            pr.assume_le(c_add(ext.hi, 1), steps.front().stop);
            Extent step{start, ext.hi};
            lower_step(step, step_body(ctx, index, ext, step, steps, body));
        });
        pr.rollback(mark);
        if (!rest.empty())
            ctx.emit(cast::If::make(cast::bin(cast::BinaryOp::Lt, start, ext.hi), cast::Block::make(rest)));
        return;
    }

    // One index: after the seek every chunk reaches past it, so a single step covers it.
    bool single = pr.difference(ext.lo, ext.hi) == 1;
    size_t mark = pr.mark();
    auto code = ctx.capture([&] {
        auto steps = open_step(ctx, nodes);
        if (single)
            for (const auto& s : steps) pr.assume_le(ext.hi, s.stop);
        std::vector<cast::Expr> stops{ext.hi};
        for (const auto& s : steps) stops.push_back(s.stop);
        cast::Expr end = pr.min(stops);
        if (end.kind() != cast::ExprKind::Var) end = ctx.local(index + "_end", end);
        Extent step{start, end};
        lower_step(step, step_body(ctx, index, ext, step, steps, body));
        for (const auto& s : steps) {
            // Seeking past the empty chunks that end here too (Stepper::seek_past_empty): the
            // gallop returns at once where the next chunk is not empty.
            std::vector<cast::Stmt> next = s.stepper->next;
            if (s.stepper->seek_past_empty && !single)
                for (auto& st : s.stepper->seek(ctx, end)) next.push_back(st);
            if (pr.eq(end, s.stop)) ctx.emit(next);
            else ctx.emit(cast::If::make(cast::bin(cast::BinaryOp::Eq, end, s.stop), cast::Block::make(next)));
        }
        if (!single) ctx.emit(cast::assign(start, end));
    });
    pr.rollback(mark);
    if (single) ctx.emit(code);
    else ctx.emit(cast::While::make(cast::bin(cast::BinaryOp::Lt, start, ext.hi), cast::Block::make(code)));
}

} // namespace siskin::compiler
