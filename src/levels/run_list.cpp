// RunList (dense run-length encoding, Finch's RunList/DenseRLE): the runs of fibre p are the
// positions pos[p] .. pos[p+1]-1; run q covers the coordinates [start, right[q]), where start is
// 0 for the first run of a fibre and right[q-1] otherwise (right holds exclusive ends, which are
// Finch's 1-based inclusive ends). The runs of a fibre cover all of [0, n), so a fibre with no
// entries is one run of the fill. Each run holds one leaf value (the last level) or one
// sub-fibre of the levels below (runs of sub-fibres, `runlist(0)/dense(1)`: a matrix whose equal
// neighbouring rows are stored once).
//
// Building merges neighbouring coordinates that hold the same into one run: equal values
// (Scalar::same: NaN equals NaN, and +0.0 equals -0.0), or sub-fibres with the same entries and
// values, the empty ones between entries included; an explicit fill is the same as no entry.
// Below the level, a merged sub-fibre's entries are dropped (kDropped). Tensor::stored() counts
// runs; for_each_stored visits every coordinate of every run, fill runs included, as it visits
// every position of a dense level. Above the leaf, a pattern leaf is refused (every coordinate
// would read as true).
#include <algorithm>

#include <fmt/format.h>

#include "lowering/tensor_binding.hpp"
#include "levels/level_codegen.hpp"
#include "levels/level_format.hpp"
#include "levels/sorted_walk.hpp"
#include "siskin/error.hpp"

namespace siskin::levels {

namespace {


// RunList, codegen face. Fibre r holds runs pos[r] .. pos[r+1]-1; run q ends (exclusive) at
// right[q] and its value is the leaf at q. Every protocol but follow reads the fibre as
//   Thunk(q = pos[r], q_end = pos[r+1]) Stepper(stop = right[q], chunk = Run(child(q)), next = q++)
// so a run is one step whatever its length, and the lowerer integrates the body over it (a sum
// over a run is `s += len * v`, not a loop). A seek gallops over right to the first run ending
// past the start. follow (and random access) binary-search right for the run holding i.
//
// Writing: in coordinate order, each fibre once (fibres in position order). A written fibre r
// starts at run f_start = count and tracks `covered`, how far its runs reach. Writing the
// coordinates [lo, hi) with one value or sub-fibre (one index from a Lookup, or a whole run at
// once when the body is constant over the extent: Lookup::run) first covers a gap [covered, lo)
// with the fill, then opens position count (a leaf slot holding the fill, or an empty fibre
// below); after the write, it joins the previous run when they hold the same, else becomes run
// count (right = hi). Values are compared with Scalar::same's rule; sub-fibres by the levels
// below (same_fibres, which every level has), and a joining sub-fibre is discarded below
// (discard_fibres), so its position is written again by the next run. Closing
// the fibre covers [covered, n) with the fill and sets pos[r+1]. Fibres no loop reaches (a
// sparse loop outside skipped them) get one fill run when a later fibre opens, when they are
// compared, or at freeze; `next` is the first fibre without runs. A sparse parent learns
// through its dirty flag whether the fibre holds anything but the fill (above another level:
// whether anything but the fill was written below it).
class RunListCodegen final : public LevelCodegen {
public:
    std::vector<std::string_view> protocols() const override { return {"walk", "gallop", "follow"}; }

    LoopletPtr unfurl(LowerCtx& ctx, const Fiber& f, std::string_view protocol) const override {
        if (protocol == "follow") return lookup_each(f, locate_at);
        return ended_fibre(ctx, f, f.tensor->buffer(f.level, "right").data_var(), /*covers=*/true,
                           [](LowerCtx& c, const Fiber& fb, const cast::Expr& q) -> LoopletPtr {
                               return make_looplet<Run>(child_fiber(c, fb, {q}, fb.dirty));
                           });
    }

    LExpr locate(LowerCtx& ctx, const Fiber& f) const override {
        return at_subscript(ctx, f, locate_at);
    }


    void declare(LowerCtx& ctx, const TensorBinding& t, int level) const override {
        std::string runs = ctx.fresh(t.name + "_runs" + std::to_string(level));
        std::string next = ctx.fresh(t.name + "_next" + std::to_string(level));
        auto i64 = cast::Type::of(ValueType::Int64);
        ctx.emit(cast::Decl::make(i64, runs, c_int(0)));
        ctx.emit(cast::Decl::make(i64, next, c_int(0)));
        ctx.set_level_var(t, level, "count", cast::var(runs));
        ctx.set_level_var(t, level, "next", cast::var(next));
        const BufferBinding& pos = t.buffer(level, "pos");
        ctx.emit(ctx.reserve(pos, c_int(1)));
        ctx.emit(cast::assign(cast::at(pos.data_var(), c_int(0)), c_int(0)));
    }

    // Fibres get their runs when they are written, or when a later fibre (or freeze) passes them.
    void init_slots(LowerCtx&, const TensorBinding&, int, const cast::Expr&,
                    const cast::Expr&) const override {}

    LoopletPtr unfurl_write(LowerCtx& ctx, const Fiber& f) const override {
        const TensorBinding& t = *f.tensor;
        const int level = f.level;
        const bool leaf_below = level + 1 == t.num_levels();
        const cast::Expr& r = f.pos.front();
        cast::Expr count = ctx.level_var(t, level, "count"), next = ctx.level_var(t, level, "next");
        cast::Expr pos = t.buffer(level, "pos").data_var();
        auto i64 = cast::Type::of(ValueType::Int64);
        std::vector<cast::Stmt> pre = ctx.reserve(t.buffer(level, "pos"), c_add(r, 2));
        // A fibre before `next` is written again only when its parent dropped the slot it was
        // written under (a sparse parent keeps a slot only if something non-fill was stored
        // below): what was written from it on is discarded, below this level too.
        // (The root fibre, 0, is the first and is written once.)
        if (c_constant(r) != 0) {
            std::vector<cast::Stmt> rewind = ctx.capture([&] { discard_fibres(ctx, t, level, r); });
            pre.insert(pre.end(), rewind.begin(), rewind.end());
            pre.push_back(skip_fibres(ctx, t, level, r));
        }
        auto fiber = std::make_shared<const Fiber>(f);
        auto w = std::make_shared<Writer>(Writer{fiber, cast::var(ctx.fresh("f_start")),
                                                 cast::var(ctx.fresh("covered")), std::nullopt});
        pre.push_back(cast::Decl::make(i64, w->start.as<cast::Var>().name, count));
        pre.push_back(cast::Decl::make(i64, w->covered.as<cast::Var>().name, c_int(0)));
        if (!leaf_below) {
            // Set when something other than the fill is written below a run of this fibre.
            std::string written = ctx.fresh("written");
            pre.push_back(cast::Decl::make(cast::Type::of(ValueType::Bool), written, cast::lit(Scalar::of(false))));
            w->written = cast::var(written);
        }

        cast::Expr n = t.level_dim(level);
        std::vector<cast::Stmt> post{cast::If::make(cast::bin(cast::BinaryOp::Lt, w->covered, n),
                                                    cast::Block::make(fill_to(ctx, *w, n)))};
        post.push_back(cast::assign(cast::at(pos, c_add(r, 1)), count));
        post.push_back(cast::assign(next, c_add(r, 1)));
        if (f.dirty) {
            // The fibre holds something other than the fill: more than one run (adjacent runs
            // differ), or one run that is not the fill.
            cast::Expr runs = c_sub(count, w->start);
            cast::Expr one_not_fill = w->written ? *w->written : t.leaf().holds_value(ctx, t, w->start);
            cast::Expr non_fill = cast::bin(
                cast::BinaryOp::LogOr, cast::bin(cast::BinaryOp::Gt, runs, c_int(1)),
                cast::bin(cast::BinaryOp::LogAnd, cast::bin(cast::BinaryOp::Eq, runs, c_int(1)), one_not_fill));
            post.push_back(cast::If::make(non_fill, cast::assign(*f.dirty, cast::lit(Scalar::of(true)))));
        }
        LoopletPtr slots = make_looplet<Lookup>(
            [w](LowerCtx& c, const cast::Expr& i) { return write_run(c, *w, i, c_add(i, 1)); },
            [w](LowerCtx& c, const Extent& e) { return write_run(c, *w, e.lo, e.hi); });
        return make_looplet<Thunk>(std::move(pre), slots, std::move(post));
    }

    LExpr locate_write(LowerCtx&, const Fiber& f) const override {
        refuse_random_write(f, "runlist");
    }


    // A fibre no loop wrote has no runs yet: it gets its fill run first.
    cast::Expr same_fibres(LowerCtx& ctx, const TensorBinding& t, int level, const cast::Expr& p,
                           const cast::Expr& q) const override {
        for (const cast::Expr& r : {p, q}) {
            ctx.emit(ctx.reserve(t.buffer(level, "pos"), c_add(r, 2)));
            ctx.emit(skip_fibres(ctx, t, level, c_add(r, 1)));
        }
        return same_listed_fibres(ctx, t, level, {"right"}, p, q);
    }

    // Only fibres before `next` hold runs.
    void discard_fibres(LowerCtx& ctx, const TensorBinding& t, int level, const cast::Expr& r) const override {
        cast::Expr next = ctx.level_var(t, level, "next");
        std::vector<cast::Stmt> rewind = ctx.capture([&] {
            ctx.emit(cast::assign(next, r));
            discard_appended_fibres(ctx, t, level, r);
        });
        ctx.emit(cast::If::make(cast::bin(cast::BinaryOp::Lt, r, next), cast::Block::make(rewind)));
    }

    cast::Expr freeze(LowerCtx& ctx, const TensorBinding& t, int level,
                      const cast::Expr& parents) const override {
        const BufferBinding& pos = t.buffer(level, "pos");
        const BufferBinding& right = t.buffer(level, "right");
        cast::Expr count = ctx.level_var(t, level, "count");
        ctx.emit(ctx.reserve(pos, c_add(parents, 1)));
        ctx.emit(skip_fibres(ctx, t, level, parents));
        // Past `parents` lie only fibres of a slot the parent dropped.
        ctx.emit(cast::assign(count, cast::at(pos.data_var(), parents)));
        set_buffer_size(ctx, pos, c_add(parents, 1));
        set_buffer_size(ctx, right, count);
        return count;
    }

private:
    // The fibre being written and its state: its first run, how far its runs reach, and (above
    // another level) whether anything but the fill was written below it.
    struct Writer {
        std::shared_ptr<const Fiber> fiber;
        cast::Expr start, covered;
        std::optional<cast::Expr> written;
    };

    // Statements opening position `count` for a run: room in right, and the slots below it
    // (the leaf's set to the fill, an empty fibre of the next level).
    static std::vector<cast::Stmt> open_run(LowerCtx& ctx, const TensorBinding& t, int level) {
        cast::Expr count = ctx.level_var(t, level, "count");
        return ctx.capture([&] {
            ctx.emit(ctx.reserve(t.buffer(level, "right"), c_add(count, 1)));
            init_child_slots(ctx, t, level, count, c_add(count, 1));
        });
    }

    // Statements appending a run that ends at `end` and holds the fill (below it: an empty fibre).
    static std::vector<cast::Stmt> new_run(LowerCtx& ctx, const TensorBinding& t, int level,
                                           const cast::Expr& end) {
        cast::Expr count = ctx.level_var(t, level, "count");
        std::vector<cast::Stmt> out = open_run(ctx, t, level);
        out.push_back(cast::assign(cast::at(t.buffer(level, "right").data_var(), count),
                                   cast::Cast::make(cast::Type::of(t.index_type(level)), end)));
        out.push_back(cast::Increment::make(count));
        return out;
    }

    // Statements ending the run just written at position count at `end`: it joins the fibre's
    // run before it when that holds the same (the value, or the sub-fibre below, which is then
    // discarded), else it becomes run count.
    static std::vector<cast::Stmt> close_run(LowerCtx& ctx, const Writer& w, const cast::Expr& end) {
        const TensorBinding& t = *w.fiber->tensor;
        int level = w.fiber->level;
        cast::Expr count = ctx.level_var(t, level, "count");
        cast::Expr last = c_add(count, -1);
        cast::Expr right = t.buffer(level, "right").data_var();
        cast::Expr end_idx = cast::Cast::make(cast::Type::of(t.index_type(level)), end);
        cast::Expr after_first = cast::bin(cast::BinaryOp::Gt, count, w.start);
        std::vector<cast::Stmt> out;
        std::optional<cast::Expr> joins;
        std::vector<cast::Stmt> discard;
        if (level + 1 == t.num_levels()) {
            joins = cast::bin(cast::BinaryOp::LogAnd, after_first, t.leaf().same_values(ctx, t, count, last));
        } else {
            // The sub-fibres are compared only when there is a run before this one.
            std::string same = ctx.fresh("joins");
            out.push_back(cast::Decl::make(cast::Type::of(ValueType::Bool), same, cast::lit(Scalar::of(false))));
            std::vector<cast::Stmt> compare = ctx.capture([&] {
                cast::Expr equal = same_child_fibres(ctx, t, level, count, last);
                ctx.emit(cast::assign(cast::var(same), equal));
            });
            out.push_back(cast::If::make(after_first, cast::Block::make(compare)));
            joins = cast::var(same);
            discard = ctx.capture([&] { discard_child_fibres(ctx, t, level, count); });
        }
        discard.insert(discard.begin(), cast::assign(cast::at(right, last), end_idx));
        out.push_back(cast::If::make(*joins, cast::Block::make(discard),
                                     cast::Block::make({cast::assign(cast::at(right, count), end_idx),
                                                        cast::Increment::make(count)})));
        out.push_back(cast::assign(w.covered, end));
        return out;
    }

    // Covers the fibre up to `end` with the fill: a run of the fill (an empty sub-fibre), joining
    // the run before it when that holds the fill too.
    static std::vector<cast::Stmt> fill_to(LowerCtx& ctx, const Writer& w, const cast::Expr& end) {
        std::vector<cast::Stmt> out = open_run(ctx, *w.fiber->tensor, w.fiber->level);
        std::vector<cast::Stmt> close = close_run(ctx, w, end);
        out.insert(out.end(), close.begin(), close.end());
        return out;
    }

    // Gives every fibre from `next` up to `upto` (exclusive) one run of the fill (none when the
    // extent is 0): fibres no loop wrote.
    static cast::Stmt skip_fibres(LowerCtx& ctx, const TensorBinding& t, int level,
                                  const cast::Expr& upto) {
        cast::Expr count = ctx.level_var(t, level, "count"), next = ctx.level_var(t, level, "next");
        cast::Expr n = t.level_dim(level);
        std::vector<cast::Stmt> body{cast::If::make(cast::bin(cast::BinaryOp::Gt, n, c_int(0)),
                                                    cast::Block::make(new_run(ctx, t, level, n))),
                                     cast::Increment::make(next),
                                     cast::assign(cast::at(t.buffer(level, "pos").data_var(), next), count)};
        return cast::While::make(cast::bin(cast::BinaryOp::Lt, next, upto), cast::Block::make(body));
    }

    // The slot for coordinates [lo, hi) of the fibre, all given one value (or sub-fibre): a
    // new run at the next position, after a fill run over any gap since the last write. Once
    // written, it joins the run before it when they hold the same (close_run).
    static LExpr write_run(LowerCtx& ctx, const Writer& w, const cast::Expr& lo, const cast::Expr& hi) {
        const TensorBinding& t = *w.fiber->tensor;
        int level = w.fiber->level;
        cast::Expr count = ctx.level_var(t, level, "count");
        std::vector<cast::Stmt> pre{cast::If::make(cast::bin(cast::BinaryOp::Lt, w.covered, lo),
                                                   cast::Block::make(fill_to(ctx, w, lo)))};
        std::vector<cast::Stmt> open = open_run(ctx, t, level);
        pre.insert(pre.end(), open.begin(), open.end());
        LExpr slot = child_fiber(ctx, *w.fiber, {count}, w.written);
        return Hoist::make(std::move(pre), slot, close_run(ctx, w, hi));
    }

    // The run holding coordinate c: the first of the fibre whose end is past c. The runs cover
    // the whole fibre, so it always exists.
    static LExpr locate_at(LowerCtx& ctx, const Fiber& f, const cast::Expr& c) {
        FibreSearch s = search_fibre(ctx, f, f.tensor->buffer(f.level, "right").data_var(), c_add(c, 1));
        return Hoist::make(std::move(s.pre), child_fiber(ctx, f, {s.q}, f.dirty), {});
    }
};

// The entries [begin, end) of a build's input that share a parent and a coordinate of the
// level; empty for coordinates no entry names.
struct Group {
    int64_t begin = 0, end = 0;
};

// Whether two groups hold the same: the same entries other than those equal to the fill, with
// the same coordinates below the level and the same values (Scalar::same: NaN equals NaN). An
// explicit fill is the same as no entry, as it reads the same.
bool group_equal(const LevelInput& in, int mode, Group a, Group b) {
    auto skip_fill = [&](Group& g) {
        while (g.begin < g.end && in.values[static_cast<size_t>(g.begin)].same(*in.fill)) ++g.begin;
    };
    for (;;) {
        skip_fill(a);
        skip_fill(b);
        if (a.begin == a.end || b.begin == b.end) return a.begin == a.end && b.begin == b.end;
        if (!in.values[static_cast<size_t>(a.begin)].same(in.values[static_cast<size_t>(b.begin)])) return false;
        for (int m = 0; m < in.ndims; ++m)
            if (m != mode && in.coord(a.begin, m) != in.coord(b.begin, m)) return false;
        ++a.begin;
        ++b.begin;
    }
}

class RunListLevel final : public LevelFormat {
public:
    std::string_view name() const override { return "runlist"; }
    std::vector<std::string_view> aliases() const override { return {"rle"}; }
    LevelProperties properties() const override {
        return {.min_modes = 1, .max_modes = 1, .full = true, .ordered = true, .unique = true,
                .runs = true, .stores_fill = true, .append_only = true};
    }
    std::vector<BufferSpec> buffers(const LevelSpec& spec) const override {
        return {{"pos", index_type(spec.index_bits), BufferRole::Positions},
                {"right", index_type(spec.index_bits), BufferRole::Coordinates}};
    }

    // A run holds one group of entries: those sharing the parent and this level's coordinate
    // (one entry above the leaf), or none for coordinates no entry names. Neighbouring groups
    // that hold the same (group_equal) share a run: its position is the first one's, and below
    // the leaf the later groups' entries are dropped.
    LevelBuild build(const LevelSpec& spec, std::span<const int64_t> shape,
                     const LevelInput& in) const override {
        SISKIN_ASSERT(in.fill != nullptr, "a runlist level is built with the entries' values");
        const int mode = spec.modes[0];
        const int64_t n = mode_extent(spec, shape, 0);
        std::vector<int64_t> pos{0}, right;
        pos.reserve(static_cast<size_t>(in.num_parents) + 1);
        LevelBuild out;
        out.positions.resize(static_cast<size_t>(in.size()));

        Group last;          // the group of the run right.back()
        size_t fibre_start = 0;
        int64_t covered = 0; // coordinates of the current fibre covered by runs so far
        // Covers [covered, end) with group g: the fibre's last run grows when g holds the same.
        auto cover = [&](int64_t end, Group g) {
            bool joins = right.size() > fibre_start && group_equal(in, mode, last, g);
            if (joins) {
                right.back() = end;
            } else {
                right.push_back(end);
                last = g;
            }
            covered = end;
            int64_t position = static_cast<int64_t>(right.size()) - 1;
            for (int64_t e = g.begin; e < g.end; ++e)
                out.positions[static_cast<size_t>(e)] = joins && !in.last ? kDropped : position;
        };
        int64_t e = 0;
        for (int64_t p = 0; p < in.num_parents; ++p) {
            fibre_start = right.size();
            covered = 0;
            while (e < in.size() && in.parents[static_cast<size_t>(e)] == p) {
                int64_t c = in.coord(e, mode);
                Group g{e, e + 1};
                while (g.end < in.size() && in.parents[static_cast<size_t>(g.end)] == p && in.coord(g.end, mode) == c)
                    ++g.end;
                if (c > covered) cover(c, Group{});
                cover(c + 1, g);
                e = g.end;
            }
            if (covered < n) cover(n, Group{});
            pos.push_back(static_cast<int64_t>(right.size()));
        }
        SISKIN_ASSERT(e == in.size(), "runlist entries come with parents in order");

        out.num_positions = static_cast<int64_t>(right.size());
        store_index_buffers(out, spec, std::max(out.num_positions, n), "runlist", {{"pos", pos}, {"right", right}});
        return out;
    }

    int64_t num_positions(const LevelStorage& s, std::span<const int64_t>,
                          int64_t num_parents) const override {
        return IndexReader(s.buffer("pos"))[num_parents];
    }

    // Fibres under unused parent slots (below a sparsebytemap) are one fill run each.
    int64_t num_stored(const LevelStorage& s, std::span<const int64_t> shape, int64_t num_parents,
                       int64_t used_parents) const override {
        int64_t unused_runs = mode_extent(s.spec, shape, 0) > 0 ? num_parents - used_parents : 0;
        return num_positions(s, shape, num_parents) - unused_runs;
    }

    FibreRange fibre(const LevelStorage& s, std::span<const int64_t>,
                     int64_t parent) const override {
        return pos_fibre(s, parent);
    }

    FibreEntry fibre_entry(const LevelStorage& s, std::span<const int64_t>, int64_t parent,
                           int64_t k, std::span<int64_t> coords) const override {
        IndexReader pos(s.buffer("pos")), right(s.buffer("right"));
        int64_t start = k == pos[parent] ? 0 : right[k - 1];
        coords[0] = start;
        return {k, right[k] - start};
    }

    // The first coordinate of run q: a run starts where the one before it ends, unless that one
    // ended its fibre (at n).
    void coordinates(const LevelStorage& s, std::span<const int64_t> shape, int64_t position,
                     std::span<int64_t> out) const override {
        IndexReader right(s.buffer("right"));
        int64_t previous = position == 0 ? 0 : right[position - 1];
        out[0] = previous == mode_extent(s.spec, shape, 0) ? 0 : previous;
    }

    // The run covering the coordinate: the first of the fibre whose end lies beyond it.
    std::optional<int64_t> locate(const LevelStorage& s, std::span<const int64_t>,
                                  int64_t parent, std::span<const int64_t> coords) const override {
        FibreRange runs = pos_fibre(s, parent);
        int64_t q = first_at_least(IndexReader(s.buffer("right")), runs.begin, runs.end, coords[0] + 1);
        if (q < runs.end) return q;
        return std::nullopt;
    }

    const LevelCodegen* codegen() const override {
        static const RunListCodegen face;
        return &face;
    }
};

} // namespace

const LevelFormat& runlist_level() {
    static const RunListLevel level;
    return level;
}

} // namespace siskin::levels
