// SparseBand (Finch's SparseBand): one dense block of coordinates per fibre. Fibre p holds the
// positions ofs[p] .. ofs[p+1]-1, which store the consecutive coordinates ending just before
// idx[p] (an exclusive end, Finch's 1-based inclusive end): position q of fibre p stores
// coordinate idx[p] - (ofs[p+1] - q). An empty fibre has ofs[p] == ofs[p+1] and idx[p] == 0.
//
// A block spans from the fibre's first entry to its last, so coordinates between entries that
// were not given are stored positions holding the fill (explicit fills; they read as the fill,
// and a pattern leaf cannot follow this level). Below it, such gap positions own empty or
// all-fill fibres.
#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "lowering/tensor_binding.hpp"
#include "levels/level_codegen.hpp"
#include "levels/level_format.hpp"
#include "siskin/error.hpp"

namespace siskin::levels {

namespace {


// SparseBand, codegen face. With b_end = idx[r], b_start = b_end - (ofs[r+1] - ofs[r]) and
// b_base = ofs[r+1] - b_end (coordinate i of the block is at position b_base + i), every
// protocol but follow reads fibre r as
//   Thunk(b_start, b_end, b_base) Sequence[Phase(b_start, Run(fill)),
//                                          Phase(b_end, Lookup(i -> child(b_base + i))),
//                                          Phase(Run(fill))]
// so nothing outside the block is visited; follow and random access test the block bounds.
//
// Writing: in coordinate order, each fibre once. While the fibre's block is empty, coordinate i
// is tried at the next free position; once the block starts at b_first, i goes to position
// f_start + (i - b_first). An entry is kept only when something other than the fill was written
// (a dirty flag, and the leaf's value): the block then grows to i, and the positions between
// its old end and i are gap entries holding the fill. `inited` is the first position whose
// child slots are not ready yet, so each gap position is readied once. Closing the fibre sets
// ofs[r+1] and idx[r] (0 for an empty fibre).
struct Band {
    cast::Expr start, end, base;
};

class SparseBandCodegen final : public LevelCodegen {
public:
    std::vector<std::string_view> protocols() const override { return {"walk", "gallop", "follow"}; }

    LoopletPtr unfurl(LowerCtx& ctx, const Fiber& f, std::string_view protocol) const override {
        if (protocol == "follow") return lookup_each(f, locate_at);
        std::vector<cast::Stmt> pre;
        Band b = bounds(ctx, f, pre);
        LoopletPtr fill = make_looplet<Run>(fill_leaf(f));
        auto fiber = std::make_shared<const Fiber>(f);
        LoopletPtr block = make_looplet<Lookup>([fiber, b](LowerCtx& c, const cast::Expr& i) {
            return child_fiber(c, *fiber, {c_add(b.base, i)}, fiber->dirty);
        });
        LoopletPtr seq = make_looplet<Sequence>(std::vector<Phase>{
            {b.start, [fill](LowerCtx&, const Extent&) { return fill; }},
            {b.end, [block](LowerCtx&, const Extent&) { return block; }},
            {std::nullopt, [fill](LowerCtx&, const Extent&) { return fill; }}});
        return make_looplet<Thunk>(std::move(pre), seq, std::vector<cast::Stmt>{},
                                   std::vector<Fact>{{c_int(0), b.start},
                                                     {b.start, b.end},
                                                     {b.end, f.tensor->level_dim(f.level)}});
    }

    LExpr locate(LowerCtx& ctx, const Fiber& f) const override {
        return at_subscript(ctx, f, locate_at);
    }


    void declare(LowerCtx& ctx, const TensorBinding& t, int level) const override {
        auto i64 = cast::Type::of(ValueType::Int64);
        std::string count = ctx.fresh(t.name + "_count" + std::to_string(level));
        std::string inited = ctx.fresh(t.name + "_inited" + std::to_string(level));
        ctx.emit(cast::Decl::make(i64, count, c_int(0)));
        ctx.emit(cast::Decl::make(i64, inited, c_int(0)));
        ctx.set_level_var(t, level, "count", cast::var(count));
        ctx.set_level_var(t, level, "inited", cast::var(inited));
        const BufferBinding& ofs = t.buffer(level, "ofs");
        ctx.emit(ctx.reserve(ofs, c_int(1)));
        ctx.emit(cast::assign(cast::at(ofs.data_var(), c_int(0)), c_int(0)));
    }

    // Fibres [lo, hi) start empty: no block, ending where the level's positions end so far.
    void init_slots(LowerCtx& ctx, const TensorBinding& t, int level, const cast::Expr& lo,
                    const cast::Expr& hi) const override {
        const BufferBinding& ofs = t.buffer(level, "ofs");
        const BufferBinding& idx = t.buffer(level, "idx");
        cast::Expr count = ctx.level_var(t, level, "count");
        ctx.emit(ctx.reserve(ofs, c_add(hi, 1)));
        ctx.emit(ctx.reserve(idx, hi));
        emit_range_loop(ctx, lo, hi, [&](const cast::Expr& k) {
            return std::vector<cast::Stmt>{cast::assign(cast::at(ofs.data_var(), c_add(k, 1)), count),
                                           cast::assign(cast::at(idx.data_var(), k), c_int(0))};
        });
    }

    LoopletPtr unfurl_write(LowerCtx& ctx, const Fiber& f) const override {
        const TensorBinding& t = *f.tensor;
        const int level = f.level;
        const cast::Expr& r = f.pos.front();
        cast::Expr count = ctx.level_var(t, level, "count");
        auto i64 = cast::Type::of(ValueType::Int64);
        auto w = std::make_shared<Writer>(Writer{std::make_shared<const Fiber>(f),
                                                 cast::var(ctx.fresh("f_start")),
                                                 cast::var(ctx.fresh("b_first"))});
        // Positions from `inited` on may hold what an entry that was not kept left there.
        std::vector<cast::Stmt> pre{
            cast::Decl::make(i64, w->start.as<cast::Var>().name, count),
            cast::Decl::make(i64, w->first.as<cast::Var>().name, c_int(-1)),
            cast::assign(ctx.level_var(t, level, "inited"), count)};
        cast::Expr started = cast::bin(cast::BinaryOp::Ge, w->first, c_int(0));
        std::vector<cast::Stmt> post{
            cast::assign(cast::at(t.buffer(level, "ofs").data_var(), c_add(r, 1)), count),
            cast::assign(cast::at(t.buffer(level, "idx").data_var(), r),
                         cast::Cast::make(cast::Type::of(t.index_type(level)),
                                          cast::Ternary::make(started,
                                                              c_add(w->first, c_sub(count, w->start)),
                                                              c_int(0))))};
        LoopletPtr slots = make_looplet<Lookup>(
            [w](LowerCtx& c, const cast::Expr& i) { return write_at(c, *w, i); });
        return make_looplet<Thunk>(std::move(pre), slots, std::move(post));
    }

    LExpr locate_write(LowerCtx&, const Fiber& f) const override {
        refuse_random_write(f, "sparseband");
    }

    // Blocks are canonical (they span the first kept entry to the last), so two fibres hold the
    // same when their blocks end alike, are as long, and hold the same below each position.

    cast::Expr same_fibres(LowerCtx& ctx, const TensorBinding& t, int level, const cast::Expr& p,
                           const cast::Expr& q) const override {
        cast::Expr ofs = t.buffer(level, "ofs").data_var(), idx = t.buffer(level, "idx").data_var();
        cast::Expr p0 = ctx.local("p_first", cast::at(ofs, p)), q0 = ctx.local("q_first", cast::at(ofs, q));
        cast::Expr length = ctx.local("length", c_sub(cast::at(ofs, c_add(p, 1)), p0));
        cast::Expr alike = ctx.local(
            "alike",
            cast::bin(cast::BinaryOp::LogAnd, cast::bin(cast::BinaryOp::Eq, cast::at(idx, p), cast::at(idx, q)),
                      cast::bin(cast::BinaryOp::Eq, length, c_sub(cast::at(ofs, c_add(q, 1)), q0))),
            ValueType::Bool);
        cast::Expr same = all_below(ctx, cast::Ternary::make(alike, length, c_int(0)), [&](const cast::Expr& k) {
            return same_child_fibres(ctx, t, level, c_add(p0, k), c_add(q0, k));
        });
        return cast::bin(cast::BinaryOp::LogAnd, alike, same);
    }

    // The level's positions go back to where fibre r starts.
    void discard_fibres(LowerCtx& ctx, const TensorBinding& t, int level, const cast::Expr& r) const override {
        cast::Expr count = ctx.level_var(t, level, "count");
        ctx.emit(cast::assign(count, cast::at(t.buffer(level, "ofs").data_var(), r)));
        discard_child_fibres(ctx, t, level, count);
    }

    cast::Expr freeze(LowerCtx& ctx, const TensorBinding& t, int level,
                      const cast::Expr& parents) const override {
        const BufferBinding& ofs = t.buffer(level, "ofs");
        const BufferBinding& idx = t.buffer(level, "idx");
        cast::Expr o = ofs.data_var();
        // Fibres no loop reached (a sparse outer loop skipped them) end where the previous did.
        emit_range_loop(ctx, c_int(0), parents, [&](const cast::Expr& k) {
            cast::Expr next = cast::at(o, c_add(k, 1));
            return std::vector<cast::Stmt>{cast::If::make(cast::bin(cast::BinaryOp::Lt, next, cast::at(o, k)),
                                                          cast::assign(next, cast::at(o, k)))};
        });
        cast::Expr count = ctx.level_var(t, level, "count");
        ctx.emit(cast::assign(cast::Field::make(ofs.raw_var(), "size"), c_add(parents, 1)));
        ctx.emit(cast::assign(cast::Field::make(idx.raw_var(), "size"), parents));
        return count;
    }

private:
    // The fibre being written: its first position, and the coordinate of its first kept entry
    // (-1 while there is none).
    struct Writer {
        std::shared_ptr<const Fiber> fiber;
        cast::Expr start, first;
    };

    // The slot of coordinate i: the block's position for it (the next position while the block
    // is empty). Positions between the block's end and it are readied as gap entries (the fill)
    // first. The entry is kept when something other than the fill was written: the block then
    // reaches to i.
    static LExpr write_at(LowerCtx& ctx, const Writer& w, const cast::Expr& i) {
        const Fiber& f = *w.fiber;
        const TensorBinding& t = *f.tensor;
        int level = f.level;
        cast::Expr count = ctx.level_var(t, level, "count"), inited = ctx.level_var(t, level, "inited");
        auto i64 = cast::Type::of(ValueType::Int64);
        std::string q_name = ctx.fresh("q"), dirty = ctx.fresh("dirty");
        cast::Expr q = cast::var(q_name), d = cast::var(dirty);
        cast::Expr started = cast::bin(cast::BinaryOp::Ge, w.first, c_int(0));
        std::vector<cast::Stmt> pre = ctx.capture([&] {
            ctx.emit(cast::Decl::make(i64, q_name,
                                      cast::Ternary::make(started, c_add(w.start, c_sub(i, w.first)), w.start)));
            ctx.emit(cast::Decl::make(cast::Type::of(ValueType::Bool), dirty, cast::lit(Scalar::of(false))));
            std::vector<cast::Stmt> gap = ctx.capture([&] {
                init_child_slots(ctx, t, level, inited, q);
                ctx.emit(cast::assign(inited, c_add(q, 1)));
            });
            ctx.emit(cast::If::make(cast::bin(cast::BinaryOp::Le, inited, q), cast::Block::make(gap)));
            init_child_slots(ctx, t, level, q, c_add(q, 1));
        });
        LExpr inner = child_fiber(ctx, f, {q}, d);
        cast::Expr keep = d;
        if (level + 1 == t.num_levels())
            keep = cast::bin(cast::BinaryOp::LogAnd, d, t.leaf().holds_value(ctx, t, q));
        std::vector<cast::Stmt> commit{
            cast::If::make(cast::un(cast::UnaryOp::Not, started), cast::assign(w.first, i)),
            cast::assign(count, c_add(q, 1))};
        if (f.dirty) commit.push_back(cast::assign(*f.dirty, cast::lit(Scalar::of(true))));
        std::vector<cast::Stmt> post{cast::If::make(keep, cast::Block::make(commit))};
        return Hoist::make(std::move(pre), inner, std::move(post));
    }

    // Declares the block bounds of fibre f into `pre`.
    static Band bounds(LowerCtx& ctx, const Fiber& f, std::vector<cast::Stmt>& pre) {
        const TensorBinding& t = *f.tensor;
        cast::Expr ofs = t.buffer(f.level, "ofs").data_var();
        cast::Expr idx = t.buffer(f.level, "idx").data_var();
        const cast::Expr& r = f.pos.front();
        auto i64 = cast::Type::of(ValueType::Int64);
        Band b{cast::var(ctx.fresh("b_start")), cast::var(ctx.fresh("b_end")),
               cast::var(ctx.fresh("b_base"))};
        cast::Expr next = cast::at(ofs, c_add(r, 1));
        pre.push_back(cast::Decl::make(i64, b.end.as<cast::Var>().name, cast::at(idx, r)));
        pre.push_back(cast::Decl::make(i64, b.base.as<cast::Var>().name,
                                       c_sub(next, b.end)));
        pre.push_back(cast::Decl::make(
            i64, b.start.as<cast::Var>().name,
            c_sub(b.end, c_sub(next, cast::at(ofs, r)))));
        return b;
    }

    static LExpr locate_at(LowerCtx& ctx, const Fiber& f, const cast::Expr& c) {
        std::vector<cast::Stmt> pre;
        Band b = bounds(ctx, f, pre);
        cast::Expr inside = cast::bin(cast::BinaryOp::LogAnd, cast::bin(cast::BinaryOp::Le, b.start, c),
                                      cast::bin(cast::BinaryOp::Lt, c, b.end));
        auto sel = std::make_shared<Select>(
            std::vector<Select::Case>{{inside, child_fiber(ctx, f, {c_add(b.base, c)}, f.dirty)},
                                      {std::nullopt, fill_leaf(f)}},
            f.type);
        return Hoist::make(std::move(pre), sel, {});
    }
};

class SparseBandLevel final : public LevelFormat {
public:
    std::string_view name() const override { return "sparseband"; }
    std::vector<std::string_view> aliases() const override { return {"band"}; }
    LevelProperties properties() const override {
        return {.min_modes = 1, .max_modes = 1, .full = false, .ordered = true, .unique = true,
                .runs = false, .stores_fill = true, .append_only = true};
    }
    std::vector<BufferSpec> buffers(const LevelSpec& spec) const override {
        return {{"ofs", index_type(spec.index_bits), BufferRole::Positions},
                {"idx", index_type(spec.index_bits), BufferRole::Coordinates}};
    }

    LevelBuild build(const LevelSpec& spec, std::span<const int64_t> shape,
                     const LevelInput& in) const override {
        const int mode = spec.modes[0];
        const int64_t n = mode_extent(spec, shape, 0);
        std::vector<int64_t> ofs{0}, idx;
        ofs.reserve(static_cast<size_t>(in.num_parents) + 1);
        idx.reserve(static_cast<size_t>(in.num_parents));
        LevelBuild out;
        out.positions.resize(static_cast<size_t>(in.size()));
        int64_t e = 0;
        for (int64_t p = 0; p < in.num_parents; ++p) {
            int64_t first = e;
            while (e < in.size() && in.parents[static_cast<size_t>(e)] == p) ++e;
            if (first == e) { // no entries: an empty block
                idx.push_back(0);
                ofs.push_back(ofs.back());
                continue;
            }
            // Entries are sorted by coordinate within the fibre: the block is first..last.
            int64_t lo = in.coord(first, mode), hi = in.coord(e - 1, mode) + 1;
            if (ofs.back() > std::numeric_limits<int64_t>::max() - (hi - lo))
                throw Error(fmt::format("a sparseband level of extent {} under {} fibres has "
                                        "more than 2^63 positions",
                                        n, in.num_parents));
            for (int64_t k = first; k < e; ++k)
                out.positions[static_cast<size_t>(k)] = ofs.back() + in.coord(k, mode) - lo;
            idx.push_back(hi);
            ofs.push_back(ofs.back() + hi - lo);
        }
        SISKIN_ASSERT(e == in.size(), "sparseband entries come with parents in order");

        out.num_positions = ofs.back();
        store_index_buffers(out, spec, std::max(out.num_positions, n), "sparseband", {{"ofs", ofs}, {"idx", idx}});
        return out;
    }

    int64_t num_positions(const LevelStorage& s, std::span<const int64_t>,
                          int64_t num_parents) const override {
        return IndexReader(s.buffer("ofs"))[num_parents];
    }

    FibreRange fibre(const LevelStorage& s, std::span<const int64_t>,
                     int64_t parent) const override {
        IndexReader ofs(s.buffer("ofs"));
        return {ofs[parent], ofs[parent + 1]};
    }

    FibreEntry fibre_entry(const LevelStorage& s, std::span<const int64_t>, int64_t parent,
                           int64_t k, std::span<int64_t> coords) const override {
        IndexReader ofs(s.buffer("ofs")), idx(s.buffer("idx"));
        coords[0] = idx[parent] - (ofs[parent + 1] - k);
        return {k, 1};
    }

    // A position alone does not name its fibre: find the fibre whose block holds it.
    void coordinates(const LevelStorage& s, std::span<const int64_t>, int64_t position,
                     std::span<int64_t> out) const override {
        IndexReader ofs(s.buffer("ofs")), idx(s.buffer("idx"));
        int64_t lo = 0, hi = ofs.size() - 1; // the last fibre p with ofs[p] <= position
        while (hi - lo > 1) {
            int64_t mid = lo + (hi - lo) / 2;
            if (ofs[mid] <= position) lo = mid;
            else hi = mid;
        }
        out[0] = idx[lo] - (ofs[lo + 1] - position);
    }

    std::optional<int64_t> locate(const LevelStorage& s, std::span<const int64_t>,
                                  int64_t parent, std::span<const int64_t> coords) const override {
        IndexReader ofs(s.buffer("ofs")), idx(s.buffer("idx"));
        int64_t end = idx[parent], start = end - (ofs[parent + 1] - ofs[parent]);
        if (coords[0] >= start && coords[0] < end) return ofs[parent] + coords[0] - start;
        return std::nullopt;
    }

    const LevelCodegen* codegen() const override {
        static const SparseBandCodegen face;
        return &face;
    }
};

} // namespace

const LevelFormat& sparseband_level() {
    static const SparseBandLevel level;
    return level;
}

} // namespace siskin::levels
