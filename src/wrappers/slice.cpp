// The slice window (see slice.hpp): a shift for unit steps, a stride filter and projection for
// larger ones.
#include "wrappers/slice.hpp"

#include <fmt/format.h>

#include "looplets/looplet.hpp"
#include "looplets/truncate.hpp"
#include "lowering/lower_ctx.hpp"
#include "siskin/error.hpp"

namespace siskin::wrappers {

using namespace lowering;
using namespace looplets;

namespace {

cast::Expr bound(std::optional<int64_t> b, const cast::Expr& dim, const cast::Expr& absent) {
    if (!b) return absent;
    return *b < 0 ? c_add(dim, *b) : c_int(*b);
}

// log2(n) when n is a power of two.
std::optional<int> log2_exact(int64_t n) {
    if (n <= 0 || (n & (n - 1)) != 0) return std::nullopt;
    int k = 0;
    while ((int64_t{1} << k) < n) ++k;
    return k;
}

// Steppers through strides of at least this many coordinates seek past their empty chunks
// (Stepper::seek_past_empty): on a 1-D stride-2 convolution at 1 % density the seek's check cost
// 12-30 % (0.075 -> 0.085-0.10 ms), on a split of email-Enron's 36,692-wide rows it halved the
// kernel (1.7 -> 0.92 ms).
constexpr int64_t kSeekPastEmptyStride = 16;

struct Stride {
    cast::Expr first;
    int64_t step;
    std::string what;

    // floor(d / step) for d >= 0: a shift for a power-of-two step (the signed division's
    // rounding towards zero costs a sign fix-up the compiler cannot drop, not knowing d >= 0).
    cast::Expr divide(const cast::Expr& d) const {
        if (auto k = log2_exact(step))
            return *k == 0 ? d : cast::bin(cast::BinaryOp::Shr, d, c_int(*k));
        return cast::bin(cast::BinaryOp::Div, d, c_int(step));
    }

    // The first index whose coordinate is >= c: ceil((c - first) / step), 0 below first.
    // `above`: c > first is known, which drops the test.
    cast::Expr index_of(const cast::Expr& c, bool above = false) const {
        cast::Expr d = c_sub(c, first);
        if (auto k = c_constant(d)) return c_int(*k > 0 ? (*k + step - 1) / step : 0);
        cast::Expr up = divide(c_add(d, step - 1));
        if (above) return up;
        return cast::Ternary::make(cast::bin(cast::BinaryOp::Gt, d, c_int(0)), up, c_int(0));
    }
    cast::Expr coord_of(const cast::Expr& i) const { return c_add(first, c_mul(i, c_int(step))); }

    // Whether coordinate c lies on the stride (and not before the window); `seeked`: c >= first
    // is known. A power-of-two step tests the low bits, which is exact for negative d as well.
    cast::Expr on_stride(const cast::Expr& c, bool seeked = false) const {
        cast::Expr d = c_sub(c, first);
        cast::Expr rest = log2_exact(step) ? cast::bin(cast::BinaryOp::BitAnd, d, c_int(step - 1))
                                           : cast::bin(cast::BinaryOp::Mod, d, c_int(step));
        cast::Expr divides = cast::bin(cast::BinaryOp::Eq, rest, c_int(0));
        if (seeked) return divides;
        return cast::bin(cast::BinaryOp::LogAnd, cast::bin(cast::BinaryOp::Ge, d, c_int(0)), divides);
    }
};

// `l` describes coordinates up to coord_hi (exclusive) when known; the result describes the
// indices up to index_of(coord_hi). `seeked`: l is a chunk of a stepper that was sought to a
// coordinate >= first, so every coordinate it names is >= first.
LoopletPtr stride(LowerCtx& ctx, const Stride& s, const LoopletPtr& l,
                  const std::optional<cast::Expr>& coord_hi, bool seeked = false) {
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
            {s.on_stride(c_add(*coord_hi, -1), seeked), l}, {std::nullopt, make_looplet<Run>(sp.body)}});
    }
    case LoopletKind::Sequence: {
        std::vector<Phase> phases;
        for (const auto& p : l->as<Sequence>()->phases) {
            Phase q;
            if (p.stop) q.stop = s.index_of(*p.stop);
            // p.nonempty tests the coordinate range, not the index range: dropped.
            std::optional<cast::Expr> hi = p.stop ? p.stop : coord_hi;
            auto body = p.body;
            q.body = [body, s, hi, seeked](LowerCtx& c, const Extent& e) -> LoopletPtr {
                cast::Expr chi = hi ? *hi : s.coord_of(e.hi);
                LoopletPtr strided = stride(c, s, body(c, Extent{s.coord_of(e.lo), chi}), chi, seeked);
                return truncate(c, strided, Extent{e.lo, s.index_of(chi)}, e);
            };
            phases.push_back(std::move(q));
        }
        return make_looplet<Sequence>(std::move(phases));
    }
    case LoopletKind::Stepper: {
        const auto& st = *l->as<Stepper>();
        // The seek below moves to a coordinate >= first, so each chunk's stop (one past a
        // coordinate it covers) lies above first.
        auto out = std::make_shared<Stepper>(s.index_of(st.stop, /*above=*/true));
        auto seek = st.seek;
        auto chunk = st.chunk;
        cast::Expr stop = st.stop; // read before `next` moves the state
        out->seek = [seek, s](LowerCtx& c, const cast::Expr& start) { return seek(c, s.coord_of(start)); };
        out->chunk = [chunk, s, stop](LowerCtx& c, const cast::Expr&) {
            return stride(c, s, chunk(c, stop), stop, /*seeked=*/true);
        };
        out->next = st.next;
        out->may_be_empty = true; // an entry off the stride ends where the previous one did
        // A short stride leaves about one entry per index; the check a seek costs would not pay.
        out->seek_past_empty = s.step >= kSeekPastEmptyStride;
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
        for (const auto& c : l->as<Switch>()->cases)
            cases.push_back({c.cond, stride(ctx, s, c.body, coord_hi, seeked)});
        return make_looplet<Switch>(std::move(cases));
    }
    case LoopletKind::Thunk: {
        const auto& t = *l->as<Thunk>();
        return make_looplet<Thunk>(t.preamble, stride(ctx, s, t.body, coord_hi, seeked), t.epilogue, t.facts);
    }
    case LoopletKind::Shift: {
        const auto& sh = *l->as<Shift>();
        return stride(ctx, s, shift_looplet(sh.body, sh.delta), coord_hi, seeked);
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

namespace {

class SliceWindow final : public IndexWrapper {
public:
    SliceWindow(cast::Expr first, int64_t step) : first_(std::move(first)), step_(step) {
        SISKIN_ASSERT(step_ > 0, "a slice with a step below 1 reached the lowerer");
    }

    std::string key() const override { return fmt::format("{}/{}", expr_key(first_), step_); }

    cast::Expr coordinate(const cast::Expr& i) const override {
        return c_add(first_, c_mul(i, c_int(step_)));
    }

    LoopletPtr unfurl(LowerCtx& ctx, const LoopletPtr& l, const cast::Expr& dim, const Extent& ext,
                      const std::string& what) const override {
        if (step_ == 1) {
            cast::Expr delta = c_sub(c_int(0), first_);
            return truncate(ctx, shift_looplet(l, delta), Extent{delta, c_sub(dim, first_)}, ext);
        }
        Stride s{first_, step_, what};
        return truncate(ctx, stride(ctx, s, l, dim), Extent{c_int(0), s.index_of(dim)}, ext);
    }

private:
    cast::Expr first_;
    int64_t step_;
};

} // namespace

IndexWrapperPtr slice_window(cast::Expr first, int64_t step) {
    return std::make_shared<SliceWindow>(std::move(first), step);
}

} // namespace siskin::wrappers
