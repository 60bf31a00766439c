// SparseRunList (Finch's SparseRunList/SparseRLE): runs of equal values with gaps of the fill
// between them. The runs of fibre p are the positions pos[p] .. pos[p+1]-1; run q covers the
// coordinates [left[q], right[q]) (an exclusive end) and holds the leaf value at q. Runs of a
// fibre are sorted and do not overlap; neighbouring runs that touch (right[q] == left[q+1]) hold
// different values, because building and writing merge them. Coordinates outside every run are
// the fill. With a pattern leaf this is the run-length image: dense(0)/sparserunlist(1)/pattern.
//
// The level is the last one: a run holds one leaf value (runs of sub-fibres are refused when
// spelled, as for runlist).
#include <algorithm>

#include <fmt/format.h>

#include "levels/level_codegen.hpp"
#include "levels/level_format.hpp"
#include "levels/sorted_walk.hpp"
#include "lowering/tensor_binding.hpp"
#include "siskin/error.hpp"

namespace siskin::levels {

namespace {

cast::Expr lt(const cast::Expr& a, const cast::Expr& b) { return cast::bin(cast::BinaryOp::Lt, a, b); }

// SparseRunList, codegen face. Fibre r holds runs q = pos[r] .. pos[r+1]-1. walk and gallop read
//   Thunk(q, q_end, last) Sequence[Phase(last, Stepper(stop = right[q],
//                                                      chunk = Sequence[Phase(left[q], Run(fill)),
//                                                                       Phase(Run(child(q)))],
//                                                      next = q++)),
//                                  Phase(Run(fill))]
// so a run is one step whatever its length (a sum over it is integrated) and a gap one more; a
// seek gallops over right to the first run ending past the start. follow binary-searches right.
//
// Writing: in coordinate order, each fibre once. Coordinates [lo, hi) given one value (one index
// from a Lookup, or a whole run at once: Lookup::run) open a leaf slot at position count; a
// value other than the fill is kept, merged into the previous run of the fibre when that run
// ends at lo and holds the same value (LeafCodegen::same_values), else appended as run
// [lo, hi). Writes of the fill leave nothing behind.
class SparseRunListCodegen final : public LevelCodegen {
public:
    std::vector<std::string_view> protocols() const override { return {"walk", "gallop", "follow"}; }

    LoopletPtr unfurl(LowerCtx& ctx, const Fiber& f, std::string_view protocol) const override {
        if (protocol == "follow") return lookup_each(f, locate_at);
        cast::Expr left = f.tensor->buffer(f.level, "left").data_var();
        return ended_fibre(ctx, f, f.tensor->buffer(f.level, "right").data_var(), /*covers=*/false,
                           [left](LowerCtx& c, const Fiber& fb, const cast::Expr& q) -> LoopletPtr {
                               LoopletPtr gap = make_looplet<Run>(fill_leaf(fb));
                               LoopletPtr run = make_looplet<Run>(child_fiber(c, fb, {q}, fb.dirty));
                               return make_looplet<Sequence>(std::vector<Phase>{
                                   {cast::at(left, q), [gap](LowerCtx&, const Extent&) { return gap; }},
                                   {std::nullopt, [run](LowerCtx&, const Extent&) { return run; }}});
                           });
    }

    LExpr locate(LowerCtx& ctx, const Fiber& f) const override {
        return at_subscript(ctx, f, locate_at);
    }

    void declare(LowerCtx& ctx, const TensorBinding& t, int level) const override {
        declare_appended_positions(ctx, t, level, "_runs");
    }

    void init_slots(LowerCtx& ctx, const TensorBinding& t, int level, const cast::Expr& lo,
                    const cast::Expr& hi) const override {
        init_appended_positions(ctx, t, level, lo, hi);
    }

    LoopletPtr unfurl_write(LowerCtx& ctx, const Fiber& f) const override {
        auto w = std::make_shared<Writer>(Writer{std::make_shared<const Fiber>(f), cast::var(ctx.fresh("f_start"))});
        LoopletPtr slots = make_looplet<Lookup>(
            [w](LowerCtx& c, const cast::Expr& i) { return write_run(c, *w, i, c_add(i, 1)); },
            [w](LowerCtx& c, const Extent& e) { return write_run(c, *w, e.lo, e.hi); });
        return appended_fibre_write(ctx, f, w->start, slots);
    }

    LExpr locate_write(LowerCtx&, const Fiber& f) const override {
        refuse_random_write(f, "sparserunlist");
    }

    // Runs are canonical (touching runs of one value are joined, the fill is not stored).

    cast::Expr same_fibres(LowerCtx& ctx, const TensorBinding& t, int level, const cast::Expr& p,
                           const cast::Expr& q) const override {
        return same_listed_fibres(ctx, t, level, {"left", "right"}, p, q);
    }

    void discard_fibres(LowerCtx& ctx, const TensorBinding& t, int level, const cast::Expr& r) const override {
        discard_appended_fibres(ctx, t, level, r);
    }

    cast::Expr freeze(LowerCtx& ctx, const TensorBinding& t, int level,
                      const cast::Expr& parents) const override {
        freeze_appended_positions(ctx, t, level, parents);
        cast::Expr count = ctx.level_var(t, level, "count");
        set_buffer_size(ctx, t.buffer(level, "left"), count);
        set_buffer_size(ctx, t.buffer(level, "right"), count);
        return count;
    }

private:
    // The fibre being written and its first run.
    struct Writer {
        std::shared_ptr<const Fiber> fiber;
        cast::Expr start;
    };

    // The leaf slot for coordinates [lo, hi), all given one value, at the next free position;
    // kept when it holds something other than the fill, as a new run or merged into the last.
    static LExpr write_run(LowerCtx& ctx, const Writer& w, const cast::Expr& lo, const cast::Expr& hi) {
        const Fiber& f = *w.fiber;
        const TensorBinding& t = *f.tensor;
        cast::Expr count = ctx.level_var(t, f.level, "count");
        const BufferBinding& left = t.buffer(f.level, "left");
        const BufferBinding& right = t.buffer(f.level, "right");
        auto itype = cast::Type::of(t.index_type(f.level));
        KeptSlot slot = open_kept_slot(ctx, f, count);
        cast::Expr last = c_add(count, -1);
        cast::Expr merge = cast::bin(
            cast::BinaryOp::LogAnd, lt(w.start, count),
            cast::bin(cast::BinaryOp::LogAnd, cast::bin(cast::BinaryOp::Eq, cast::at(right.data_var(), last), lo),
                      t.leaf().same_values(ctx, t, count, last)));
        std::vector<cast::Stmt> append = ctx.capture([&] {
            ctx.emit(ctx.reserve(left, c_add(count, 1), /*written_first=*/true));
            ctx.emit(ctx.reserve(right, c_add(count, 1), /*written_first=*/true));
        });
        append.push_back(cast::assign(cast::at(left.data_var(), count), cast::Cast::make(itype, lo)));
        append.push_back(cast::assign(cast::at(right.data_var(), count), cast::Cast::make(itype, hi)));
        append.push_back(cast::Increment::make(count));
        std::vector<cast::Stmt> kept{cast::If::make(merge, cast::assign(cast::at(right.data_var(), last), cast::Cast::make(itype, hi)),
                                                    cast::Block::make(append))};
        mark_parent_dirty(f, kept);
        std::vector<cast::Stmt> post{cast::If::make(slot.keep, cast::Block::make(kept))};
        return Hoist::make(std::move(slot.pre), slot.child, std::move(post));
    }

    // The run holding coordinate c, if any: the first of the fibre ending past c, when it starts
    // at or before c.
    static LExpr locate_at(LowerCtx& ctx, const Fiber& f, const cast::Expr& c) {
        cast::Expr left = f.tensor->buffer(f.level, "left").data_var();
        FibreSearch s = search_fibre(ctx, f, f.tensor->buffer(f.level, "right").data_var(), c_add(c, 1));
        cast::Expr found = cast::bin(cast::BinaryOp::LogAnd, lt(s.q, s.end),
                                     cast::bin(cast::BinaryOp::Le, cast::at(left, s.q), c));
        return child_or_fill(ctx, f, std::move(s.pre), found, s.q);
    }
};

class SparseRunListLevel final : public LevelFormat {
public:
    std::string_view name() const override { return "sparserunlist"; }
    std::vector<std::string_view> aliases() const override { return {"sparserle"}; }
    LevelProperties properties() const override {
        return {.min_modes = 1, .max_modes = 1, .full = false, .ordered = true, .unique = true,
                .runs = true, .append_only = true};
    }
    std::vector<BufferSpec> buffers(const LevelSpec& spec) const override {
        return {{"pos", index_type(spec.index_bits), BufferRole::Positions},
                {"left", index_type(spec.index_bits), BufferRole::Coordinates},
                {"right", index_type(spec.index_bits), BufferRole::Coordinates}};
    }

    void check_place(const Format& format, size_t k) const override {
        require_last_level(format, k, name(), "its runs hold leaf values");
    }

    // Consecutive entries of a fibre with the same value (Scalar::same) share one run.
    LevelBuild build(const LevelSpec& spec, std::span<const int64_t> shape,
                     const LevelInput& in) const override {
        SISKIN_ASSERT(in.last && in.fill != nullptr, "a sparserunlist level is built as the last level");
        const int mode = spec.modes[0];
        const int64_t n = mode_extent(spec, shape, 0);
        std::vector<int64_t> pos(static_cast<size_t>(in.num_parents) + 1, 0), left, right;
        LevelBuild out;
        out.positions.resize(static_cast<size_t>(in.size()));
        for (int64_t e = 0; e < in.size(); ++e) {
            int64_t p = in.parents[static_cast<size_t>(e)], c = in.coord(e, mode);
            bool joins = e > 0 && in.parents[static_cast<size_t>(e - 1)] == p && right.back() == c &&
                         in.values[static_cast<size_t>(e)].same(in.values[static_cast<size_t>(e - 1)]);
            if (joins) {
                right.back() = c + 1;
            } else {
                left.push_back(c);
                right.push_back(c + 1);
                ++pos[static_cast<size_t>(p) + 1];
            }
            out.positions[static_cast<size_t>(e)] = static_cast<int64_t>(right.size()) - 1;
        }
        prefix_sums(pos);
        out.num_positions = static_cast<int64_t>(right.size());
        store_index_buffers(out, spec, std::max(out.num_positions, n), "sparserunlist",
                            {{"pos", pos}, {"left", left}, {"right", right}});
        return out;
    }

    int64_t num_positions(const LevelStorage& s, std::span<const int64_t>, int64_t num_parents) const override {
        return IndexReader(s.buffer("pos"))[num_parents];
    }

    FibreRange fibre(const LevelStorage& s, std::span<const int64_t>, int64_t parent) const override {
        return pos_fibre(s, parent);
    }

    FibreEntry fibre_entry(const LevelStorage& s, std::span<const int64_t>, int64_t, int64_t k,
                           std::span<int64_t> coords) const override {
        int64_t lo = IndexReader(s.buffer("left"))[k];
        coords[0] = lo;
        return {k, IndexReader(s.buffer("right"))[k] - lo};
    }

    void coordinates(const LevelStorage& s, std::span<const int64_t>, int64_t position,
                     std::span<int64_t> out) const override {
        out[0] = IndexReader(s.buffer("left"))[position];
    }

    // The run holding the coordinate: the first of the fibre ending past it, if it starts early enough.
    std::optional<int64_t> locate(const LevelStorage& s, std::span<const int64_t>, int64_t parent,
                                  std::span<const int64_t> coords) const override {
        FibreRange fibre = pos_fibre(s, parent);
        int64_t q = first_at_least(IndexReader(s.buffer("right")), fibre.begin, fibre.end, coords[0] + 1);
        if (q < fibre.end && IndexReader(s.buffer("left"))[q] <= coords[0]) return q;
        return std::nullopt;
    }

    const LevelCodegen* codegen() const override {
        static const SparseRunListCodegen face;
        return &face;
    }
};

} // namespace

const LevelFormat& sparserunlist_level() {
    static const SparseRunListLevel level;
    return level;
}

} // namespace siskin::levels
