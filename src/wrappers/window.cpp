// Window offsets (see window.hpp).
#include "wrappers/window.hpp"

#include "looplets/truncate.hpp"
#include "lowering/lower_ctx.hpp"

namespace siskin::wrappers {

using namespace lowering;
using namespace looplets;

namespace {

struct Window {
    cast::Expr width;
    LExpr access, fill;

    bool is_fill(const LExpr& e) const {
        const auto* l = e->as<Literal>();
        return l && l->value.same(fill->as<Literal>()->value);
    }
    LoopletPtr maybe() const {
        LExpr a = access;
        return make_looplet<Lookup>([a](LowerCtx&, const cast::Expr&) { return a; });
    }
    LoopletPtr empty() const { return make_looplet<Run>(fill); }
    // Fill before `from`, the access from there on.
    LoopletPtr fill_until(const cast::Expr& from) const {
        LoopletPtr e = empty(), m = maybe();
        return make_looplet<Sequence>(std::vector<Phase>{
            {from, [e](LowerCtx&, const Extent&) { return e; }},
            {std::nullopt, [m](LowerCtx&, const Extent&) { return m; }}});
    }

    // `l` over coordinates ending at `hi` (when known); `followed`: stored entries may follow hi.
    LoopletPtr starts(LowerCtx& ctx, const LoopletPtr& l, const std::optional<cast::Expr>& hi,
                      bool followed) const {
        switch (l->kind) {
        case LoopletKind::Run:
            if (!is_fill(l->as<Run>()->body)) return maybe();
            if (!followed) return empty();
            // The last width - 1 starts reach past hi.
            return hi ? fill_until(c_add(c_sub(*hi, width), 1)) : maybe();
        case LoopletKind::Lookup: return maybe();
        case LoopletKind::Spike: {
            const auto& s = *l->as<Spike>();
            if (!is_fill(s.body)) return maybe();
            if (is_fill(s.tail)) return starts(ctx, make_looplet<Run>(s.body), hi, followed);
            // The last width starts hold the entry at hi - 1.
            return hi ? fill_until(c_sub(*hi, width)) : maybe();
        }
        case LoopletKind::Sequence: {
            const auto& phases = l->as<Sequence>()->phases;
            std::vector<Phase> out;
            for (size_t k = 0; k < phases.size(); ++k) {
                bool more = followed || k + 1 < phases.size();
                auto body = phases[k].body;
                Window self = *this;
                // The phase's coordinate test says nothing of its windows: dropped.
                out.push_back({phases[k].stop, [self, body, more](LowerCtx& c, const Extent& e) {
                                   return self.starts(c, body(c, e), e.hi, more);
                               }});
            }
            return make_looplet<Sequence>(std::move(out));
        }
        case LoopletKind::Stepper: {
            const auto& st = *l->as<Stepper>();
            auto out = std::make_shared<Stepper>(st.stop);
            out->seek = st.seek;
            auto chunk = st.chunk;
            Window self = *this;
            // Every window start of entry p's chunk lies above the entries before p, so a read
            // of a window may walk the fibre from p on (Fiber::resume).
            if (const auto* f = access->as<Fiber>(); f && st.positions)
                self.access = f->resumed_at(st.positions->p);
            out->chunk = [self, chunk](LowerCtx& c, const cast::Expr& stop) {
                return self.starts(c, chunk(c, stop), stop, true);
            };
            out->next = st.next;
            out->stop_bounds = st.stop_bounds;
            out->positions = st.positions;
            out->may_be_empty = st.may_be_empty;
            out->seek_past_empty = st.seek_past_empty;
            return out;
        }
        case LoopletKind::Jumper: return maybe();
        case LoopletKind::Switch: {
            std::vector<Switch::Case> cases;
            for (const auto& c : l->as<Switch>()->cases) cases.push_back({c.cond, starts(ctx, c.body, hi, followed)});
            return make_looplet<Switch>(std::move(cases));
        }
        case LoopletKind::Thunk: {
            const auto& t = *l->as<Thunk>();
            return make_looplet<Thunk>(t.preamble, starts(ctx, t.body, hi, followed), t.epilogue, t.facts);
        }
        case LoopletKind::Shift: {
            const auto& sh = *l->as<Shift>();
            return starts(ctx, shift_looplet(sh.body, sh.delta), hi, followed);
        }
        }
        return maybe();
    }
};

} // namespace

LoopletPtr window_offsets(LowerCtx& ctx, const LoopletPtr& level, const cast::Expr& width,
                          const LExpr& access, const LExpr& fill) {
    return Window{width, access, fill}.starts(ctx, level, std::nullopt, false);
}

} // namespace siskin::wrappers
