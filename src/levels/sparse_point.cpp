// SparsePoint (Finch's SparsePoint/SparsePinpoint): at most one stored coordinate per fibre and
// no pos array. Position p of the level is fibre p itself, whose coordinate is idx[p], or n (the
// extent, one past every coordinate) when the fibre is empty; an empty fibre's child slot is
// unused (it holds the fill, or an empty fibre below). A permutation matrix is
// dense(0)/sparsepoint(1): one idx per row and the values, nothing else.
#include <fmt/format.h>

#include "levels/level_codegen.hpp"
#include "levels/level_format.hpp"
#include "levels/single_region.hpp"
#include "lowering/tensor_binding.hpp"
#include "siskin/error.hpp"

namespace siskin::levels {

namespace {

// SparsePoint, codegen face: the single region [idx[r], idx[r] + 1) of single_region.hpp (an
// empty fibre's region lies past the extent). A kept write into a fibre that has its entry
// already stops the kernel (SISKIN_ERR_STRUCTURE).
class SparsePointCodegen final : public LevelCodegen {
public:
    std::vector<std::string_view> protocols() const override { return {"walk", "gallop", "follow"}; }

    LoopletPtr unfurl(LowerCtx& ctx, const Fiber& f, std::string_view protocol) const override {
        if (protocol == "follow") return lookup_each(f, at);
        std::vector<cast::Stmt> pre;
        cast::Expr lo = point(ctx, f, pre);
        cast::Expr n = f.tensor->level_dim(f.level);
        return single_region_fibre(f, lo, c_add(lo, 1), std::move(pre), {{c_int(0), lo}, {lo, n}});
    }

    LExpr locate(LowerCtx& ctx, const Fiber& f) const override {
        return at_subscript(ctx, f, at);
    }

    void declare(LowerCtx& ctx, const TensorBinding& t, int level) const override {
        declare_single_region(ctx, t, level);
    }

    void init_slots(LowerCtx& ctx, const TensorBinding& t, int level, const cast::Expr& lo,
                    const cast::Expr& hi) const override {
        const BufferBinding& idx = t.buffer(level, "idx");
        ctx.emit(ctx.reserve(idx, hi));
        cast::Expr empty = cast::Cast::make(cast::Type::of(t.index_type(level)), t.level_dim(level));
        init_single_region_slots(ctx, t, level, lo, hi, [&](const cast::Expr& k) {
            return std::vector<cast::Stmt>{cast::assign(cast::at(idx.data_var(), k), empty)};
        });
    }

    LoopletPtr unfurl_write(LowerCtx&, const Fiber& f) const override {
        const TensorBinding& t = *f.tensor;
        cast::Expr slot = cast::at(t.buffer(f.level, "idx").data_var(), f.pos.front());
        ValueType itype = t.index_type(f.level);
        RegionWrite w{cast::bin(cast::BinaryOp::Lt, slot, t.level_dim(f.level)), {}, {}};
        w.record = [slot, itype](const cast::Expr& lo, const cast::Expr&) {
            return std::vector<cast::Stmt>{cast::assign(slot, cast::Cast::make(cast::Type::of(itype), lo))};
        };
        w.again = [](LowerCtx&, const cast::Expr&, const cast::Expr&, const cast::Expr&) {
            return std::vector<cast::Stmt>{structure_error()};
        };
        auto fiber = std::make_shared<const Fiber>(f);
        return make_looplet<Lookup>([fiber, w](LowerCtx& c, const cast::Expr& i) {
            return write_single_region(c, *fiber, w, i, c_add(i, 1));
        });
    }

    LExpr locate_write(LowerCtx&, const Fiber& f) const override {
        refuse_random_write(f, "sparsepoint");
    }

    // The same coordinate (n for both when empty), and the same below it.

    cast::Expr same_fibres(LowerCtx& ctx, const TensorBinding& t, int level, const cast::Expr& p,
                           const cast::Expr& q) const override {
        cast::Expr idx = t.buffer(level, "idx").data_var();
        cast::Expr same = ctx.local("same", cast::bin(cast::BinaryOp::Eq, cast::at(idx, p), cast::at(idx, q)),
                                    ValueType::Bool);
        std::vector<cast::Stmt> below = ctx.capture([&] {
            cast::Expr equal = same_child_fibres(ctx, t, level, p, q);
            ctx.emit(cast::assign(same, equal));
        });
        cast::Expr stored = cast::bin(cast::BinaryOp::Lt, cast::at(idx, p), t.level_dim(level));
        ctx.emit(cast::If::make(cast::bin(cast::BinaryOp::LogAnd, same, stored), cast::Block::make(below)));
        return same;
    }

    // Fibre r is emptied when reopened (init_slots); below, its child fibre is forgotten.
    void discard_fibres(LowerCtx& ctx, const TensorBinding& t, int level, const cast::Expr& r) const override {
        discard_child_fibres(ctx, t, level, r);
    }

    cast::Expr freeze(LowerCtx& ctx, const TensorBinding& t, int level,
                      const cast::Expr& parents) const override {
        ctx.emit(cast::assign(cast::Field::make(t.buffer(level, "idx").raw_var(), "size"), parents));
        return parents;
    }

private:
    // Declares the coordinate of fibre f's entry into `pre`.
    static cast::Expr point(LowerCtx& ctx, const Fiber& f, std::vector<cast::Stmt>& pre) {
        std::string name = ctx.fresh("pt");
        pre.push_back(cast::Decl::make(cast::Type::of(ValueType::Int64), name,
                                       cast::at(f.tensor->buffer(f.level, "idx").data_var(), f.pos.front())));
        return cast::var(name);
    }

    static LExpr at(LowerCtx& ctx, const Fiber& f, const cast::Expr& c) {
        std::vector<cast::Stmt> pre;
        cast::Expr lo = point(ctx, f, pre);
        return single_region_at(ctx, f, lo, c_add(lo, 1), std::move(pre), c);
    }
};

class SparsePointLevel final : public LevelFormat {
public:
    std::string_view name() const override { return "sparsepoint"; }
    std::vector<std::string_view> aliases() const override { return {"point"}; }
    LevelProperties properties() const override {
        return {.min_modes = 1, .max_modes = 1, .full = false, .ordered = true, .unique = true,
                .append_only = true, .direct_locate = true};
    }
    std::vector<BufferSpec> buffers(const LevelSpec& spec) const override {
        return {{"idx", index_type(spec.index_bits), BufferRole::Coordinates}};
    }

    LevelBuild build(const LevelSpec& spec, std::span<const int64_t> shape,
                     const LevelInput& in) const override {
        const int mode = spec.modes[0];
        const int64_t n = mode_extent(spec, shape, 0);
        std::vector<int64_t> idx(static_cast<size_t>(in.num_parents), n);
        LevelBuild out;
        out.positions.resize(static_cast<size_t>(in.size()));
        for (int64_t e = 0; e < in.size(); ++e) {
            int64_t p = in.parents[static_cast<size_t>(e)], c = in.coord(e, mode);
            int64_t& stored = idx[static_cast<size_t>(p)];
            if (stored != n && stored != c)
                throw Error(fmt::format("a sparsepoint level holds at most one coordinate per fibre, "
                                        "but dimension {} has coordinates {} and {} under the same "
                                        "outer coordinates (at entry {})",
                                        mode, stored, c, in.entry_text(e)));
            stored = c;
            out.positions[static_cast<size_t>(e)] = p;
        }
        out.num_positions = in.num_parents;
        store_index_buffers(out, spec, n, "sparsepoint", {{"idx", idx}});
        return out;
    }

    int64_t num_positions(const LevelStorage&, std::span<const int64_t>, int64_t num_parents) const override {
        return num_parents;
    }

    // Only fibres holding their entry count, whatever the parent.
    int64_t num_stored(const LevelStorage& s, std::span<const int64_t> shape, int64_t num_parents,
                       int64_t) const override {
        IndexReader idx(s.buffer("idx"));
        int64_t n = mode_extent(s.spec, shape, 0), count = 0;
        for (int64_t p = 0; p < num_parents; ++p) count += idx[p] != n;
        return count;
    }

    FibreRange fibre(const LevelStorage& s, std::span<const int64_t> shape, int64_t parent) const override {
        bool holds = IndexReader(s.buffer("idx"))[parent] != mode_extent(s.spec, shape, 0);
        return {parent, holds ? parent + 1 : parent};
    }

    void coordinates(const LevelStorage& s, std::span<const int64_t>, int64_t position,
                     std::span<int64_t> out) const override {
        out[0] = IndexReader(s.buffer("idx"))[position];
    }

    std::optional<int64_t> locate(const LevelStorage& s, std::span<const int64_t>, int64_t parent,
                                  std::span<const int64_t> coords) const override {
        if (IndexReader(s.buffer("idx"))[parent] == coords[0]) return parent;
        return std::nullopt;
    }

    const LevelCodegen* codegen() const override {
        static const SparsePointCodegen face;
        return &face;
    }
};

} // namespace

const LevelFormat& sparsepoint_level() {
    static const SparsePointLevel level;
    return level;
}

} // namespace siskin::levels
