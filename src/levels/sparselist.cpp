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
        auto fiber = std::make_shared<const Fiber>(f);
        if (protocol == "follow")
            return make_looplet<Lookup>([this, fiber](LowerCtx& c, const cast::Expr& i) {
                return locate_at(c, *fiber, i);
            });
        const TensorBinding& t = *f.tensor;
        cast::Expr pos = t.buffer(f.level, "pos").data_var();
        const cast::Expr& r = f.pos.front();
        return sorted_fibre(ctx, f, t.buffer(f.level, "crd").data_var(), idx(pos, r),
                            idx(pos, c_add(r, 1)), protocol == "gallop", std::nullopt);
    }

    LExpr locate(LowerCtx& ctx, const Fiber& f) const override {
        return locate_at(ctx, f, c_value(ctx, f.subscripts.front()));
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
        const TensorBinding* tp = &t;
        auto fiber = std::make_shared<const Fiber>(f);
        cast::Expr count = ctx.level_var(t, f.level, "count");
        const BufferBinding crd = t.buffer(f.level, "crd");
        bool leaf_below = f.level + 1 == t.num_levels();
        ValueType itype = t.index_type(f.level);
        LoopletPtr slots = make_looplet<Lookup>([=](LowerCtx& c, const cast::Expr& i) -> LExpr {
            const TensorBinding& t = *tp;
            // A value leaf right below starts at the fill and changes only by writes, so what it
            // holds at the end says alone whether it was written: no dirty flag to keep up to
            // date on every write (the row loop of a masked mxv updates its element per entry).
            std::optional<cast::Expr> d;
            std::vector<cast::Stmt> pre = c.capture([&] {
                if (!leaf_below || !t.values) {
                    std::string dirty = c.fresh("dirty");
                    d = cast::var(dirty);
                    c.emit(cast::Decl::make(cast::Type::of(ValueType::Bool), dirty, cast::lit(Scalar::of(false))));
                }
                init_child_slots(c, t, fiber->level, count, c_add(count, 1));
            });
            LExpr inner = child_fiber(c, *fiber, {count}, d);
            std::optional<cast::Expr> keep = d;
            if (leaf_below) {
                cast::Expr holds = t.leaf().holds_value(c, t, count);
                keep = d ? cast::bin(cast::BinaryOp::LogAnd, *d, holds) : holds;
            }
            std::vector<cast::Stmt> commit = c.reserve(crd, c_add(count, 1), /*written_first=*/true);
            commit.push_back(cast::assign(idx(crd.data_var(), count),
                                          cast::Cast::make(cast::Type::of(itype), i)));
            commit.push_back(cast::Increment::make(count));
            if (fiber->dirty) commit.push_back(cast::assign(*fiber->dirty, cast::lit(Scalar::of(true))));
            std::vector<cast::Stmt> post{cast::If::make(*keep, cast::Block::make(commit))};
            return Hoist::make(std::move(pre), inner, std::move(post));
        });
        cast::Expr pos = t.buffer(f.level, "pos").data_var();
        std::vector<cast::Stmt> close{cast::assign(idx(pos, c_add(f.pos.front(), 1)), count)};
        return make_looplet<Thunk>(std::vector<cast::Stmt>{}, slots, std::move(close));
    }

    LExpr locate_write(LowerCtx&, const Fiber& f) const override {
        throw Error("sparselist level of " + f.tensor->name + " cannot be written by random access",
                    Error::Kind::Unsupported);
    }

    cast::Expr freeze(LowerCtx& ctx, const TensorBinding& t, int level,
                      const cast::Expr& parents) const override {
        freeze_appended_positions(ctx, t, level, parents);
        cast::Expr count = ctx.level_var(t, level, "count");
        ctx.emit(cast::assign(cast::Field::make(t.buffer(level, "crd").raw_var(), "size"), count));
        return count;
    }

private:
    // Binary search for coordinate c in fibre f.
    LExpr locate_at(LowerCtx& ctx, const Fiber& f, const cast::Expr& c) const {
        const TensorBinding& t = *f.tensor;
        cast::Expr pos = t.buffer(f.level, "pos").data_var();
        cast::Expr crd = t.buffer(f.level, "crd").data_var();
        ValueType itype = t.index_type(f.level);
        const cast::Expr& r = f.pos.front();
        auto i64 = cast::Type::of(ValueType::Int64);
        std::string end = ctx.fresh("q_end"), q = ctx.fresh("q");
        std::string fn = "siskin_lower_bound_" + std::string(search_suffix(itype));
        std::vector<cast::Stmt> pre{
            cast::Decl::make(i64, end, idx(pos, c_add(r, 1))),
            cast::Decl::make(i64, q, cast::call(fn, {crd, idx(pos, r), cast::var(end),
                                                      cast::Cast::make(cast::Type::of(itype), c)})),
        };
        cast::Expr found = cast::bin(cast::BinaryOp::LogAnd, lt(cast::var(q), cast::var(end)),
                                     cast::bin(cast::BinaryOp::Eq, idx(crd, cast::var(q)), c));
        auto sel = std::make_shared<Select>(
            std::vector<Select::Case>{{found, child_fiber(ctx, f, {cast::var(q)}, f.dirty)},
                                      {std::nullopt, fill_leaf(f)}},
            f.type);
        return Hoist::make(std::move(pre), sel, {});
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
        for (size_t p = 1; p < pos.size(); ++p) pos[p] += pos[p - 1];
        out.num_positions = static_cast<int64_t>(crd.size());
        int bits = choose_index_bits(
            spec.index_bits, std::max(out.num_positions, mode_extent(spec, shape, 0)),
            "sparselist");
        out.storage.spec = spec;
        out.storage.spec.index_bits = bits;
        out.storage.names = {"pos", "crd"};
        out.storage.buffers.push_back(make_index_buffer(bits, pos));
        out.storage.buffers.push_back(make_index_buffer(bits, crd));
        return out;
    }

    int64_t num_positions(const LevelStorage& s, std::span<const int64_t>,
                          int64_t num_parents) const override {
        return IndexReader(s.buffer("pos"))[num_parents];
    }

    FibreRange fibre(const LevelStorage& s, std::span<const int64_t>,
                     int64_t parent) const override {
        IndexReader pos(s.buffer("pos"));
        return {pos[parent], pos[parent + 1]};
    }

    void coordinates(const LevelStorage& s, std::span<const int64_t>, int64_t position,
                     std::span<int64_t> out) const override {
        out[0] = IndexReader(s.buffer("crd"))[position];
    }

    std::optional<int64_t> locate(const LevelStorage& s, std::span<const int64_t>,
                                  int64_t parent, std::span<const int64_t> coords) const override {
        IndexReader pos(s.buffer("pos")), crd(s.buffer("crd"));
        int64_t lo = pos[parent], hi = pos[parent + 1];
        while (lo < hi) { // first position whose coordinate is not below coords[0]
            int64_t mid = lo + (hi - lo) / 2;
            if (crd[mid] < coords[0]) lo = mid + 1;
            else hi = mid;
        }
        if (lo < pos[parent + 1] && crd[lo] == coords[0]) return lo;
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
