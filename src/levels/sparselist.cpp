// SparseList (compressed): fibre p holds positions pos[p] .. pos[p+1]-1, whose coordinates are
// crd[q], strictly increasing within a fibre.
#include <algorithm>

#include "levels/level_format.hpp"
#include "siskin/error.hpp"
#include "levels/level_codegen.hpp"
#include "levels/sorted_walk.hpp"
#include "lowering/tensor_binding.hpp"

namespace siskin::levels {

namespace {


// SparseList, codegen face. Fibre r holds positions pos[r] .. pos[r+1]-1 with sorted
// coordinates crd[q].
//
// Reading: walk and gallop are the sorted-list looplets of sorted_walk.hpp over crd, child
// position p;
//   follow  Lookup(i -> binary search for i; Select(found: child(q), else: fill))
// Writing: in coordinate order only. The loop over the fibre opens one slot at the level's
// next free position for each coordinate, and commits it (crd[n] = i; n++) only when something
// that differs from the fill was written below it: the stored set is exactly the non-fill set.
cast::Expr idx(const cast::Expr& base, const cast::Expr& i) { return cast::at(base, i); }
cast::Expr lt(const cast::Expr& a, const cast::Expr& b) { return cast::bin(cast::BinaryOp::Lt, a, b); }

class SparseListCodegen final : public LevelCodegen {
public:
    std::vector<std::string_view> protocols() const override { return {"walk", "gallop", "follow"}; }

    LoopletPtr unfurl(LowerCtx& ctx, const Fiber& f, std::string_view protocol) const override {
        if (protocol == "follow") return lookup_each(f, locate_at);
        return pos_bounded_fibre(ctx, f, "crd", sorted_order(protocol),
                                 std::nullopt);
    }

    LoopletPtr unfurl_reversed(LowerCtx& ctx, const Fiber& f) const override {
        return pos_bounded_fibre(ctx, f, "crd", SortedOrder::Reversed, std::nullopt);
    }

    LExpr locate(LowerCtx& ctx, const Fiber& f) const override {
        return at_subscript(ctx, f, locate_at);
    }


    std::optional<std::pair<cast::Expr, cast::Expr>> stored_range(
        const TensorBinding& t, int level, const cast::Expr& lo, const cast::Expr& hi) const override {
        cast::Expr pos = t.buffer(level, "pos").data_var();
        return std::pair{idx(pos, lo), idx(pos, hi)};
    }

    void declare(LowerCtx& ctx, const TensorBinding& t, int level) const override {
        declare_appended_positions(ctx, t, level, "_count");
    }

    void init_slots(LowerCtx& ctx, const TensorBinding& t, int level, const cast::Expr& lo,
                    const cast::Expr& hi) const override {
        init_appended_positions(ctx, t, level, lo, hi);
    }

    LoopletPtr unfurl_write(LowerCtx& ctx, const Fiber& f) const override {
        const TensorBinding& t = *f.tensor;
        auto fiber = std::make_shared<const Fiber>(f);
        cast::Expr count = ctx.level_var(t, f.level, "count");
        const BufferBinding crd = t.buffer(f.level, "crd");
        ValueType itype = t.index_type(f.level);
        LoopletPtr slots = make_looplet<Lookup>([=](LowerCtx& c, const cast::Expr& i) -> LExpr {
            KeptSlot slot = open_kept_slot(c, *fiber, count);
            std::vector<cast::Stmt> commit = c.reserve(crd, c_add(count, 1), /*written_first=*/true);
            commit.push_back(cast::assign(idx(crd.data_var(), count),
                                          cast::Cast::make(cast::Type::of(itype), i)));
            commit.push_back(cast::Increment::make(count));
            mark_parent_dirty(*fiber, commit);
            std::vector<cast::Stmt> post{cast::If::make(slot.keep, cast::Block::make(commit))};
            return Hoist::make(std::move(slot.pre), slot.child, std::move(post));
        });
        return appended_fibre_write(ctx, f, std::nullopt, slots);
    }

    LExpr locate_write(LowerCtx&, const Fiber& f) const override {
        refuse_random_write(f, "sparselist");
    }


    cast::Expr same_fibres(LowerCtx& ctx, const TensorBinding& t, int level, const cast::Expr& p,
                           const cast::Expr& q) const override {
        return same_listed_fibres(ctx, t, level, {"crd"}, p, q);
    }

    void discard_fibres(LowerCtx& ctx, const TensorBinding& t, int level, const cast::Expr& r) const override {
        discard_appended_fibres(ctx, t, level, r);
    }

    cast::Expr freeze(LowerCtx& ctx, const TensorBinding& t, int level,
                      const cast::Expr& parents) const override {
        freeze_appended_positions(ctx, t, level, parents);
        cast::Expr count = ctx.level_var(t, level, "count");
        set_buffer_size(ctx, t.buffer(level, "crd"), count);
        return count;
    }

private:
    // Binary search for coordinate c in fibre f.
    static LExpr locate_at(LowerCtx& ctx, const Fiber& f, const cast::Expr& c) {
        cast::Expr crd = f.tensor->buffer(f.level, "crd").data_var();
        FibreSearch s = search_fibre(ctx, f, crd, c);
        cast::Expr found = cast::bin(cast::BinaryOp::LogAnd, lt(s.q, s.end),
                                     cast::bin(cast::BinaryOp::Eq, idx(crd, s.q), c));
        return child_or_fill(ctx, f, std::move(s.pre), found, s.q);
    }
};


class SparseListLevel final : public LevelFormat {
public:
    std::string_view name() const override { return "sparselist"; }
    std::vector<std::string_view> aliases() const override { return {"s", "compressed"}; }
    LevelProperties properties() const override {
        return {.min_modes = 1, .max_modes = 1, .full = false, .ordered = true, .unique = true,
                .append_only = true, .appends_fibres = true};
    }
    std::vector<BufferSpec> buffers(const LevelSpec& spec) const override {
        return {{"pos", index_type(spec.index_bits), BufferRole::Positions},
                {"crd", index_type(spec.index_bits), BufferRole::Coordinates}};
    }

    LevelBuild build(const LevelSpec& spec, std::span<const int64_t> shape,
                     const LevelInput& in) const override {
        int mode = spec.modes[0];
        std::vector<int64_t> pos(static_cast<size_t>(in.num_parents) + 1, 0), crd;
        LevelBuild out;
        out.positions.resize(static_cast<size_t>(in.size()));
        for (int64_t e = 0; e < in.size(); ++e) {
            int64_t parent = in.parents[static_cast<size_t>(e)], c = in.coord(e, mode);
            // Entries sharing parent and coordinate share this level's position.
            if (e == 0 || parent != in.parents[static_cast<size_t>(e - 1)] ||
                c != in.coord(e - 1, mode)) {
                crd.push_back(c);
                ++pos[static_cast<size_t>(parent) + 1];
            }
            out.positions[static_cast<size_t>(e)] = static_cast<int64_t>(crd.size()) - 1;
        }
        prefix_sums(pos);
        out.num_positions = static_cast<int64_t>(crd.size());
        store_index_buffers(out, spec, std::max(out.num_positions, mode_extent(spec, shape, 0)), "sparselist",
                            {{"pos", pos}, {"crd", crd}});
        return out;
    }

    int64_t num_positions(const LevelStorage& s, std::span<const int64_t>,
                          int64_t num_parents) const override {
        return IndexReader(s.buffer("pos"))[num_parents];
    }

    FibreRange fibre(const LevelStorage& s, std::span<const int64_t>,
                     int64_t parent) const override {
        return pos_fibre(s, parent);
    }

    void coordinates(const LevelStorage& s, std::span<const int64_t>, int64_t position,
                     std::span<int64_t> out) const override {
        out[0] = IndexReader(s.buffer("crd"))[position];
    }

    std::optional<int64_t> locate(const LevelStorage& s, std::span<const int64_t>,
                                  int64_t parent, std::span<const int64_t> coords) const override {
        IndexReader crd(s.buffer("crd"));
        FibreRange fibre = pos_fibre(s, parent);
        int64_t q = first_at_least(crd, fibre.begin, fibre.end, coords[0]);
        if (q < fibre.end && crd[q] == coords[0]) return q;
        return std::nullopt;
    }

    const LevelCodegen* codegen() const override {
        static const SparseListCodegen face;
        return &face;
    }
};

} // namespace

const LevelFormat& sparselist_level() {
    static const SparseListLevel level;
    return level;
}

bool is_compressed_matrix(const Format& f) {
    const auto& l = f.levels();
    return f.leaf() == Leaf::Element && l.size() == 2 && properties_of(l[0]).implicit &&
           l[1].kind == sparselist_level().name() && l[0].modes.size() == 1;
}

} // namespace siskin::levels
