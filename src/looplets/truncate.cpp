#include "looplets/truncate.hpp"

#include "lowering/lower_ctx.hpp"
#include "siskin/error.hpp"

namespace siskin::looplets {

LoopletPtr truncate(LowerCtx& ctx, const LoopletPtr& l, const Extent& from, const Extent& to) {
    switch (l->kind) {
    case LoopletKind::Lookup:
    case LoopletKind::Run:
    case LoopletKind::Sequence:
    case LoopletKind::Stepper:
    case LoopletKind::Jumper: return l;
    case LoopletKind::Spike: {
        const auto& s = *l->as<Spike>();
        Prover& pr = ctx.prover();
        if (pr.eq(to.hi, from.hi)) return l;
        LoopletPtr run = make_looplet<Run>(s.body);
        if (pr.lt(to.hi, from.hi)) return run;
        return make_looplet<Switch>(std::vector<Switch::Case>{
            {cast::bin(cast::BinaryOp::Eq, to.hi, from.hi), l}, {std::nullopt, run}});
    }
    case LoopletKind::Switch: {
        std::vector<Switch::Case> cases;
        for (const auto& c : l->as<Switch>()->cases)
            cases.push_back({c.cond, truncate(ctx, c.body, from, to)});
        return make_looplet<Switch>(std::move(cases));
    }
    case LoopletKind::Thunk: {
        const auto& t = *l->as<Thunk>();
        return make_looplet<Thunk>(t.preamble, truncate(ctx, t.body, from, to), t.epilogue, t.facts);
    }
    case LoopletKind::Shift: {
        const auto& s = *l->as<Shift>();
        Extent f{c_sub(from.lo, s.delta), c_sub(from.hi, s.delta)};
        Extent t{c_sub(to.lo, s.delta), c_sub(to.hi, s.delta)};
        return make_looplet<Shift>(s.delta, truncate(ctx, s.body, f, t));
    }
    }
    SISKIN_ASSERT(false, "unknown looplet kind");
}

LoopletPtr shift_looplet(const LoopletPtr& l, const cast::Expr& delta) {
    if (c_constant(delta) == 0) return l;
    auto back = [delta](const Extent& e) { return Extent{c_sub(e.lo, delta), c_sub(e.hi, delta)}; };
    switch (l->kind) {
    case LoopletKind::Run:
    case LoopletKind::Spike: return l;
    case LoopletKind::Lookup: {
        auto body = l->as<Lookup>()->body;
        auto run = l->as<Lookup>()->run;
        std::function<LExpr(LowerCtx&, const Extent&)> shifted_run;
        if (run)
            shifted_run = [run, back](LowerCtx& ctx, const Extent& e) { return run(ctx, back(e)); };
        return make_looplet<Lookup>(
            [body, delta](LowerCtx& ctx, const cast::Expr& i) { return body(ctx, c_sub(i, delta)); },
            std::move(shifted_run));
    }
    case LoopletKind::Sequence: {
        std::vector<Phase> phases;
        for (const auto& p : l->as<Sequence>()->phases) {
            Phase q;
            if (p.stop) q.stop = c_add(*p.stop, delta);
            if (p.nonempty) q.nonempty = Phase::Test{c_add(p.nonempty->from, delta), p.nonempty->test};
            auto body = p.body;
            q.body = [body, delta, back](LowerCtx& ctx, const Extent& e) {
                return shift_looplet(body(ctx, back(e)), delta);
            };
            phases.push_back(std::move(q));
        }
        return make_looplet<Sequence>(std::move(phases));
    }
    case LoopletKind::Stepper: {
        const auto& s = *l->as<Stepper>();
        auto out = std::make_shared<Stepper>(c_add(s.stop, delta));
        auto seek = s.seek;
        auto chunk = s.chunk;
        out->seek = [seek, delta](LowerCtx& ctx, const cast::Expr& start) {
            return seek(ctx, c_sub(start, delta));
        };
        out->chunk = [chunk, delta](LowerCtx& ctx, const cast::Expr& stop) {
            return shift_looplet(chunk(ctx, c_sub(stop, delta)), delta);
        };
        out->next = s.next;
        out->may_be_empty = s.may_be_empty;
        out->seek_past_empty = s.seek_past_empty;
        for (const auto& b : s.stop_bounds) out->stop_bounds.push_back(c_add(b, delta));
        if (s.positions)
            out->positions = PositionLoop{s.positions->p, s.positions->end,
                                          c_add(s.positions->last_stop, delta)};
        return out;
    }
    case LoopletKind::Jumper: {
        const auto& s = *l->as<Jumper>();
        auto out = std::make_shared<Jumper>(c_add(s.stop, delta));
        auto seek = s.seek;
        auto chunk = s.chunk;
        out->seek = [seek, delta](LowerCtx& ctx, const cast::Expr& start) {
            return seek(ctx, c_sub(start, delta));
        };
        out->chunk = [chunk, delta, back](LowerCtx& ctx, const cast::Expr& stop, const Extent& e) {
            return shift_looplet(chunk(ctx, c_sub(stop, delta), back(e)), delta);
        };
        out->next = s.next;
        for (const auto& b : s.stop_bounds) out->stop_bounds.push_back(c_add(b, delta));
        return out;
    }
    case LoopletKind::Switch: {
        std::vector<Switch::Case> cases;
        for (const auto& c : l->as<Switch>()->cases) cases.push_back({c.cond, shift_looplet(c.body, delta)});
        return make_looplet<Switch>(std::move(cases));
    }
    case LoopletKind::Thunk: {
        const auto& t = *l->as<Thunk>();
        return make_looplet<Thunk>(t.preamble, shift_looplet(t.body, delta), t.epilogue, t.facts);
    }
    case LoopletKind::Shift: {
        const auto& s = *l->as<Shift>();
        return shift_looplet(s.body, c_add(s.delta, delta));
    }
    }
    SISKIN_ASSERT(false, "unknown looplet kind");
}

} // namespace siskin::looplets
