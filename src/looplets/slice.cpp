// Slicing looplets (see slice.hpp): a shift for unit steps, a stride filter and projection for
// larger ones.
#include "looplets/slice.hpp"

#include <fmt/format.h>

#include "compiler/lower_ctx.hpp"
#include "looplets/truncate.hpp"
#include "siskin/error.hpp"

namespace siskin::compiler {

namespace {

cast::Expr bound(std::optional<int64_t> b, const cast::Expr& dim, const cast::Expr& absent) {
    if (!b) return absent;
    return *b < 0 ? c_add(dim, *b) : c_int(*b);
}

struct Stride {
    cast::Expr first;
    int64_t step;
    std::string what;

    // The first index whose coordinate is >= c: ceil((c - first) / step), 0 below first.
    cast::Expr index_of(const cast::Expr& c) const {
        cast::Expr d = c_sub(c, first);
        if (auto k = c_constant(d)) return c_int(*k > 0 ? (*k + step - 1) / step : 0);
        return cast::Ternary::make(cast::bin(cast::BinaryOp::Gt, d, c_int(0)),
                                   cast::bin(cast::BinaryOp::Div, c_add(d, step - 1), c_int(step)),
                                   c_int(0));
    }
    cast::Expr coord_of(const cast::Expr& i) const { return c_add(first, c_mul(i, c_int(step))); }

    // Whether coordinate c lies on the stride (and not before the window).
    cast::Expr on_stride(const cast::Expr& c) const {
        cast::Expr d = c_sub(c, first);
        return cast::bin(cast::BinaryOp::LogAnd, cast::bin(cast::BinaryOp::Ge, d, c_int(0)),
                         cast::bin(cast::BinaryOp::Eq, cast::bin(cast::BinaryOp::Mod, d, c_int(step)),
                                   c_int(0)));
    }
};

// `l` describes coordinates up to coord_hi (exclusive) when known; the result describes the
// indices up to index_of(coord_hi).
LoopletPtr stride(LowerCtx& ctx, const Stride& s, const LoopletPtr& l,
                  const std::optional<cast::Expr>& coord_hi) {
    switch (l->kind) {
    case LoopletKind::Run: return l;
    case LoopletKind::Lookup: {
        auto body = l->as<Lookup>()->body;
        // No `run`: only a runlist writer has one, and only dense outputs are written sliced.
        return make_looplet<Lookup>(
            [body, s](LowerCtx& c, const cast::Expr& i) { return body(c, s.coord_of(i)); });
    }
    case LoopletKind::Spike: {
        SISKIN_ASSERT(coord_hi.has_value(), "a spike reached a stride without its extent");
        const auto& sp = *l->as<Spike>();
        // The tail at coordinate coord_hi - 1 is the last index exactly when it is on the stride.
        return make_looplet<Switch>(std::vector<Switch::Case>{
            {s.on_stride(c_add(*coord_hi, -1)), l}, {std::nullopt, make_looplet<Run>(sp.body)}});
    }
    case LoopletKind::Sequence: {
        std::vector<Phase> phases;
        for (const auto& p : l->as<Sequence>()->phases) {
            Phase q;
            if (p.stop) q.stop = s.index_of(*p.stop);
            // p.nonempty tests the coordinate range, not the index range: dropped.
            std::optional<cast::Expr> hi = p.stop ? p.stop : coord_hi;
            auto body = p.body;
            q.body = [body, s, hi](LowerCtx& c, const Extent& e) -> LoopletPtr {
                cast::Expr chi = hi ? *hi : s.coord_of(e.hi);
                LoopletPtr strided = stride(c, s, body(c, Extent{s.coord_of(e.lo), chi}), chi);
                return truncate(c, strided, Extent{e.lo, s.index_of(chi)}, e);
            };
            phases.push_back(std::move(q));
        }
        return make_looplet<Sequence>(std::move(phases));
    }
    case LoopletKind::Stepper: {
        const auto& st = *l->as<Stepper>();
        auto out = std::make_shared<Stepper>(s.index_of(st.stop));
        auto seek = st.seek;
        auto chunk = st.chunk;
        cast::Expr stop = st.stop; // read before `next` moves the state
        out->seek = [seek, s](LowerCtx& c, const cast::Expr& start) { return seek(c, s.coord_of(start)); };
        out->chunk = [chunk, s, stop](LowerCtx& c, const cast::Expr&) {
            return stride(c, s, chunk(c, stop), stop);
        };
        out->next = st.next;
        out->may_be_empty = true; // an entry off the stride ends where the previous one did
        for (const auto& b : st.stop_bounds) out->stop_bounds.push_back(s.index_of(b));
        if (st.positions)
            out->positions = PositionLoop{st.positions->p, st.positions->end,
                                          s.index_of(st.positions->last_stop)};
        return out;
    }
    case LoopletKind::Jumper:
        throw Error(fmt::format("{} is read with gallop through a strided slice, which compiled "
                                "code does not support; read it with walk",
                                s.what),
                    Error::Kind::Unsupported);
    case LoopletKind::Switch: {
        std::vector<Switch::Case> cases;
        for (const auto& c : l->as<Switch>()->cases) cases.push_back({c.cond, stride(ctx, s, c.body, coord_hi)});
        return make_looplet<Switch>(std::move(cases));
    }
    case LoopletKind::Thunk: {
        const auto& t = *l->as<Thunk>();
        return make_looplet<Thunk>(t.preamble, stride(ctx, s, t.body, coord_hi), t.epilogue, t.facts);
    }
    case LoopletKind::Shift: {
        const auto& sh = *l->as<Shift>();
        return stride(ctx, s, shift_looplet(sh.body, sh.delta), coord_hi);
    }
    }
    SISKIN_ASSERT(false, "unknown looplet kind");
}

} // namespace

cast::Expr slice_first(const ir::Slice& s, const cast::Expr& dim) { return bound(s.lo, dim, c_int(0)); }

cast::Expr slice_length(const ir::Slice& s, const cast::Expr& dim) {
    cast::Expr first = slice_first(s, dim), hi = bound(s.hi, dim, dim);
    cast::Expr d = c_sub(hi, first);
    if (auto k = c_constant(d)) return c_int(*k > 0 ? (*k + s.step - 1) / s.step : 0);
    cast::Expr len = s.step == 1 ? d : cast::bin(cast::BinaryOp::Div, c_add(d, s.step - 1), c_int(s.step));
    return cast::Ternary::make(cast::bin(cast::BinaryOp::Gt, d, c_int(0)), len, c_int(0));
}

LoopletPtr slice_looplet(LowerCtx& ctx, const LoopletPtr& l, const cast::Expr& first,
                         int64_t step, const cast::Expr& dim, const Extent& ext,
                         const std::string& what) {
    SISKIN_ASSERT(step > 0, "a slice with a step below 1 reached the lowerer");
    if (step == 1) {
        cast::Expr delta = c_sub(c_int(0), first);
        return truncate(ctx, shift_looplet(l, delta), Extent{delta, c_sub(dim, first)}, ext);
    }
    Stride s{first, step, what};
    return truncate(ctx, stride(ctx, s, l, dim), Extent{c_int(0), s.index_of(dim)}, ext);
}

} // namespace siskin::compiler
