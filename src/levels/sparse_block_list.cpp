// SparseBlockList (Finch's SparseBlockList/SparseVBL): the stored coordinates of a fibre in
// blocks of consecutive coordinates. The blocks of fibre p are pos[p] .. pos[p+1]-1; block b ends
// (exclusive) at idx[b] and holds the positions ofs[b] .. ofs[b+1]-1, one per coordinate, so it
// starts at idx[b] - (ofs[b+1] - ofs[b]) and coordinate i of it is at position
// ofs[b+1] - idx[b] + i: random access inside a block, no coordinate stored per entry. Blocks
// of a fibre are sorted and never touch (touching blocks are one block).
#include <algorithm>

#include "levels/level_codegen.hpp"
#include "levels/level_format.hpp"
#include "levels/sorted_walk.hpp"
#include "lowering/tensor_binding.hpp"
#include "siskin/error.hpp"

namespace siskin::levels {

namespace {

cast::Expr lt(const cast::Expr& a, const cast::Expr& b) { return cast::bin(cast::BinaryOp::Lt, a, b); }

// Block b of a level: where it starts, and the position of its coordinate 0 (base + i is the
// position of coordinate i).
struct Block {
    cast::Expr start, base;
};

Block block(const TensorBinding& t, int level, const cast::Expr& b) {
    cast::Expr idx = cast::at(t.buffer(level, "idx").data_var(), b);
    cast::Expr ofs = t.buffer(level, "ofs").data_var();
    cast::Expr next = cast::at(ofs, c_add(b, 1));
    return {c_sub(idx, c_sub(next, cast::at(ofs, b))), c_sub(next, idx)};
}

// SparseBlockList, codegen face. walk and gallop read fibre r as
//   Thunk(q = pos[r], q_end = pos[r+1], last) Sequence[
//       Phase(last, Stepper(stop = idx[q], chunk = Sequence[Phase(start_q, Run(fill)),
//                                                           Phase(Lookup(i -> child(base_q + i)))],
//                           next = q++)),
//       Phase(Run(fill))]
// so a block is one step and its coordinates a dense loop; a seek gallops over idx. follow
// binary-searches idx for the block that may hold i.
//
// Writing: in coordinate order, each fibre once. Each coordinate opens a child slot at the next
// free position (`slots`); a slot kept (something other than the fill written below it) extends
// the fibre's last block when that block ends right before the coordinate, else starts a block.
class SparseBlockListCodegen final : public LevelCodegen {
public:
    std::vector<std::string_view> protocols() const override { return {"walk", "gallop", "follow"}; }

    LoopletPtr unfurl(LowerCtx& ctx, const Fiber& f, std::string_view protocol) const override {
        if (protocol == "follow") return lookup_each(f, locate_at);
        return ended_fibre(ctx, f, f.tensor->buffer(f.level, "idx").data_var(), /*covers=*/false,
                           [](LowerCtx&, const Fiber& fb, const cast::Expr& q) -> LoopletPtr {
                               auto fiber = std::make_shared<const Fiber>(fb);
                               Block b = block(*fb.tensor, fb.level, q);
                               LoopletPtr gap = make_looplet<Run>(fill_leaf(fb));
                               LoopletPtr body = make_looplet<Lookup>([fiber, b](LowerCtx& c, const cast::Expr& i) {
                                   return child_fiber(c, *fiber, {c_add(b.base, i)}, fiber->dirty);
                               });
                               return make_looplet<Sequence>(std::vector<Phase>{
                                   {b.start, [gap](LowerCtx&, const Extent&) { return gap; }},
                                   {std::nullopt, [body](LowerCtx&, const Extent&) { return body; }}});
                           });
    }

    LExpr locate(LowerCtx& ctx, const Fiber& f) const override {
        return at_subscript(ctx, f, locate_at);
    }

    // `count` numbers the blocks (the pos array's), `slots` the child positions.
    void declare(LowerCtx& ctx, const TensorBinding& t, int level) const override {
        declare_appended_positions(ctx, t, level, "_blocks");
        std::string slots = ctx.fresh(t.name + "_slots" + std::to_string(level));
        ctx.emit(cast::Decl::make(cast::Type::of(ValueType::Int64), slots, c_int(0)));
        ctx.set_level_var(t, level, "slots", cast::var(slots));
        const BufferBinding& ofs = t.buffer(level, "ofs");
        ctx.emit(ctx.reserve(ofs, c_int(1)));
        ctx.emit(cast::assign(cast::at(ofs.data_var(), c_int(0)), c_int(0)));
    }

    void init_slots(LowerCtx& ctx, const TensorBinding& t, int level, const cast::Expr& lo,
                    const cast::Expr& hi) const override {
        init_appended_positions(ctx, t, level, lo, hi);
    }

    LoopletPtr unfurl_write(LowerCtx& ctx, const Fiber& f) const override {
        auto w = std::make_shared<Writer>(Writer{std::make_shared<const Fiber>(f), cast::var(ctx.fresh("f_start"))});
        LoopletPtr slots = make_looplet<Lookup>([w](LowerCtx& c, const cast::Expr& i) { return write_at(c, *w, i); });
        return appended_fibre_write(ctx, f, w->start, slots);
    }

    LExpr locate_write(LowerCtx&, const Fiber& f) const override {
        refuse_random_write(f, "sparseblocklist");
    }

    // Blocks are canonical (kept entries only, touching ones joined).

    cast::Expr same_fibres(LowerCtx& ctx, const TensorBinding& t, int level, const cast::Expr& p,
                           const cast::Expr& q) const override {
        return same_segmented_fibres(ctx, t, level, "idx", p, q);
    }

    // Blocks go back to fibre r's first, child positions to that block's first.
    void discard_fibres(LowerCtx& ctx, const TensorBinding& t, int level, const cast::Expr& r) const override {
        cast::Expr blocks = ctx.level_var(t, level, "count"), slots = ctx.level_var(t, level, "slots");
        ctx.emit(cast::assign(blocks, cast::at(t.buffer(level, "pos").data_var(), r)));
        ctx.emit(cast::assign(slots, cast::at(t.buffer(level, "ofs").data_var(), blocks)));
        discard_child_fibres(ctx, t, level, slots);
    }

    cast::Expr freeze(LowerCtx& ctx, const TensorBinding& t, int level,
                      const cast::Expr& parents) const override {
        freeze_appended_positions(ctx, t, level, parents);
        cast::Expr blocks = ctx.level_var(t, level, "count");
        set_buffer_size(ctx, t.buffer(level, "idx"), blocks);
        set_buffer_size(ctx, t.buffer(level, "ofs"), c_add(blocks, 1));
        return ctx.level_var(t, level, "slots");
    }

private:
    // The fibre being written and its first block.
    struct Writer {
        std::shared_ptr<const Fiber> fiber;
        cast::Expr start;
    };

    // The child slot of coordinate i at the next free position, kept as described above.
    static LExpr write_at(LowerCtx& ctx, const Writer& w, const cast::Expr& i) {
        const Fiber& f = *w.fiber;
        const TensorBinding& t = *f.tensor;
        cast::Expr blocks = ctx.level_var(t, f.level, "count"), slots = ctx.level_var(t, f.level, "slots");
        const BufferBinding& idx = t.buffer(f.level, "idx");
        const BufferBinding& ofs = t.buffer(f.level, "ofs");
        auto itype = cast::Type::of(t.index_type(f.level));
        KeptSlot slot = open_kept_slot(ctx, f, slots);
        cast::Expr last = c_add(blocks, -1);
        cast::Expr extends = cast::bin(cast::BinaryOp::LogAnd, lt(w.start, blocks),
                                       cast::bin(cast::BinaryOp::Eq, cast::at(idx.data_var(), last), i));
        std::vector<cast::Stmt> start = ctx.capture([&] {
            ctx.emit(ctx.reserve(idx, c_add(blocks, 1), /*written_first=*/true));
            ctx.emit(ctx.reserve(ofs, c_add(blocks, 2), /*written_first=*/true));
        });
        start.push_back(cast::Increment::make(blocks));
        std::vector<cast::Stmt> kept{
            cast::If::make(cast::un(cast::UnaryOp::Not, extends), cast::Block::make(start)),
            cast::Increment::make(slots),
            cast::assign(cast::at(idx.data_var(), last), cast::Cast::make(itype, c_add(i, 1))),
            cast::assign(cast::at(ofs.data_var(), blocks), cast::Cast::make(itype, slots))};
        mark_parent_dirty(f, kept);
        std::vector<cast::Stmt> post{cast::If::make(slot.keep, cast::Block::make(kept))};
        return Hoist::make(std::move(slot.pre), slot.child, std::move(post));
    }

    // The block that may hold coordinate c: the first of the fibre ending past c.
    static LExpr locate_at(LowerCtx& ctx, const Fiber& f, const cast::Expr& c) {
        FibreSearch s = search_fibre(ctx, f, f.tensor->buffer(f.level, "idx").data_var(), c_add(c, 1));
        Block b = block(*f.tensor, f.level, s.q);
        cast::Expr found = cast::bin(cast::BinaryOp::LogAnd, lt(s.q, s.end), cast::bin(cast::BinaryOp::Le, b.start, c));
        return child_or_fill(ctx, f, std::move(s.pre), found, c_add(b.base, c));
    }
};

class SparseBlockListLevel final : public LevelFormat {
public:
    std::string_view name() const override { return "sparseblocklist"; }
    std::vector<std::string_view> aliases() const override { return {"blocklist", "vbl"}; }
    LevelProperties properties() const override {
        return {.min_modes = 1, .max_modes = 1, .full = false, .ordered = true, .unique = true,
                .append_only = true};
    }
    std::vector<BufferSpec> buffers(const LevelSpec& spec) const override {
        return {{"pos", index_type(spec.index_bits), BufferRole::Positions},
                {"idx", index_type(spec.index_bits), BufferRole::Coordinates},
                {"ofs", index_type(spec.index_bits), BufferRole::Positions}};
    }

    // Entries sharing parent and coordinate share a position; a coordinate right after the
    // previous one of the same fibre continues its block.
    LevelBuild build(const LevelSpec& spec, std::span<const int64_t> shape,
                     const LevelInput& in) const override {
        const int mode = spec.modes[0];
        std::vector<int64_t> pos(static_cast<size_t>(in.num_parents) + 1, 0), idx, ofs{0};
        LevelBuild out;
        out.positions.resize(static_cast<size_t>(in.size()));
        for (int64_t e = 0; e < in.size(); ++e) {
            int64_t p = in.parents[static_cast<size_t>(e)], c = in.coord(e, mode);
            bool same_fibre = e > 0 && in.parents[static_cast<size_t>(e - 1)] == p;
            if (!same_fibre || c != in.coord(e - 1, mode)) {
                if (same_fibre && idx.back() == c) {
                    ++idx.back();
                } else {
                    idx.push_back(c + 1);
                    ofs.push_back(ofs.back());
                    ++pos[static_cast<size_t>(p) + 1];
                }
                ++ofs.back();
            }
            out.positions[static_cast<size_t>(e)] = ofs.back() - 1;
        }
        prefix_sums(pos);
        out.num_positions = ofs.back();
        store_index_buffers(out, spec, std::max(out.num_positions, mode_extent(spec, shape, 0)), "sparseblocklist",
                            {{"pos", pos}, {"idx", idx}, {"ofs", ofs}});
        return out;
    }

    int64_t num_positions(const LevelStorage& s, std::span<const int64_t>, int64_t num_parents) const override {
        return IndexReader(s.buffer("ofs"))[IndexReader(s.buffer("pos"))[num_parents]];
    }

    // The entries of a fibre are the positions of its blocks, one per coordinate.
    FibreRange fibre(const LevelStorage& s, std::span<const int64_t>, int64_t parent) const override {
        IndexReader pos(s.buffer("pos")), ofs(s.buffer("ofs"));
        return {ofs[pos[parent]], ofs[pos[parent + 1]]};
    }

    // The block holding a position: the last whose first position is not past it.
    void coordinates(const LevelStorage& s, std::span<const int64_t>, int64_t position,
                     std::span<int64_t> out) const override {
        IndexReader idx(s.buffer("idx")), ofs(s.buffer("ofs"));
        int64_t lo = 0, hi = idx.size();
        while (hi - lo > 1) {
            int64_t mid = lo + (hi - lo) / 2;
            if (ofs[mid] <= position) lo = mid;
            else hi = mid;
        }
        out[0] = idx[lo] - (ofs[lo + 1] - position);
    }

    std::optional<int64_t> locate(const LevelStorage& s, std::span<const int64_t>, int64_t parent,
                                  std::span<const int64_t> coords) const override {
        IndexReader idx(s.buffer("idx")), ofs(s.buffer("ofs"));
        FibreRange blocks = pos_fibre(s, parent);
        int64_t lo = first_at_least(idx, blocks.begin, blocks.end, coords[0] + 1); // the first block ending past it
        if (lo == blocks.end) return std::nullopt;
        int64_t start = idx[lo] - (ofs[lo + 1] - ofs[lo]);
        if (coords[0] < start) return std::nullopt;
        return ofs[lo + 1] - (idx[lo] - coords[0]);
    }

    const LevelCodegen* codegen() const override {
        static const SparseBlockListCodegen face;
        return &face;
    }
};

} // namespace

const LevelFormat& sparseblocklist_level() {
    static const SparseBlockListLevel level;
    return level;
}

} // namespace siskin::levels
