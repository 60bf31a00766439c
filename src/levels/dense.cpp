// Dense: every coordinate of a fibre has a position, q = p * n + i; nothing is stored.
#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "levels/level_format.hpp"
#include "siskin/error.hpp"
#include "levels/level_codegen.hpp"
#include "lowering/tensor_binding.hpp"

namespace siskin::levels {

namespace {


// Dense, codegen face: the child position of coordinate i in fibre p is p * n + i; every
// protocol reads it with a Lookup, and writes go anywhere in any order.
class DenseCodegen final : public LevelCodegen {
public:
    std::vector<std::string_view> protocols() const override { return {"walk", "follow", "gallop"}; }

    LoopletPtr unfurl(LowerCtx&, const Fiber& f, std::string_view) const override {
        return lookup(f);
    }

    LExpr locate(LowerCtx& ctx, const Fiber& f) const override {
        return child_fiber(ctx, f, {position(f, c_value(ctx, f.subscripts.front()))}, f.dirty);
    }

    void declare(LowerCtx&, const TensorBinding&, int) const override {}

    void init_slots(LowerCtx& ctx, const TensorBinding& t, int level, const cast::Expr& lo,
                    const cast::Expr& hi) const override {
        cast::Expr n = t.level_dim(level);
        init_child_slots(ctx, t, level, c_mul(lo, n), c_mul(hi, n));
    }

    LoopletPtr unfurl_write(LowerCtx&, const Fiber& f) const override { return lookup(f); }

    LExpr locate_write(LowerCtx& ctx, const Fiber& f) const override { return locate(ctx, f); }

    cast::Expr freeze(LowerCtx&, const TensorBinding& t, int level,
                      const cast::Expr& parents) const override {
        return c_mul(parents, t.level_dim(level));
    }


    cast::Expr same_fibres(LowerCtx& ctx, const TensorBinding& t, int level, const cast::Expr& p,
                           const cast::Expr& q) const override {
        cast::Expr n = t.level_dim(level);
        return all_below(ctx, n, [&](const cast::Expr& i) {
            return same_child_fibres(ctx, t, level, c_add(c_mul(p, n), i), c_add(c_mul(q, n), i));
        });
    }

    void discard_fibres(LowerCtx& ctx, const TensorBinding& t, int level, const cast::Expr& r) const override {
        discard_child_fibres(ctx, t, level, c_mul(r, t.level_dim(level)));
    }

    std::optional<std::pair<cast::Expr, cast::Expr>> stored_range(
        const TensorBinding& t, int level, const cast::Expr& lo, const cast::Expr& hi) const override {
        cast::Expr n = t.level_dim(level);
        return std::pair{c_mul(lo, n), c_mul(hi, n)};
    }

private:
    static cast::Expr position(const Fiber& f, const cast::Expr& i) {
        return c_add(c_mul(f.pos.front(), f.tensor->level_dim(f.level)), i);
    }

    static LoopletPtr lookup(const Fiber& f) {
        auto fiber = std::make_shared<const Fiber>(f);
        return make_looplet<Lookup>([fiber](LowerCtx& ctx, const cast::Expr& i) {
            return child_fiber(ctx, *fiber, {position(*fiber, i)}, fiber->dirty);
        });
    }
};


int64_t checked_positions(int64_t num_parents, int64_t n) {
    if (n != 0 && num_parents > std::numeric_limits<int64_t>::max() / n)
        throw Error(fmt::format("a dense level of extent {} under {} fibres has more than 2^63 "
                                "positions",
                                n, num_parents));
    return num_parents * n;
}

class DenseLevel final : public LevelFormat {
public:
    std::string_view name() const override { return "dense"; }
    std::vector<std::string_view> aliases() const override { return {"d"}; }
    LevelProperties properties() const override {
        return {.min_modes = 1, .max_modes = 1, .full = true, .ordered = true, .unique = true,
                .implicit = true};
    }
    std::vector<BufferSpec> buffers(const LevelSpec&) const override { return {}; }

    LevelBuild build(const LevelSpec& spec, std::span<const int64_t> shape,
                     const LevelInput& in) const override {
        int64_t n = mode_extent(spec, shape, 0);
        int mode = spec.modes[0];
        LevelBuild out;
        out.num_positions = checked_positions(in.num_parents, n);
        out.storage.spec = spec;
        out.storage.spec.index_bits =
            choose_index_bits(spec.index_bits, std::max(out.num_positions, n), "dense");
        out.positions.resize(static_cast<size_t>(in.size()));
        for (int64_t e = 0; e < in.size(); ++e)
            out.positions[static_cast<size_t>(e)] = in.parents[static_cast<size_t>(e)] * n +
                                                    in.coord(e, mode);
        return out;
    }

    int64_t num_positions(const LevelStorage& s, std::span<const int64_t> shape,
                          int64_t num_parents) const override {
        return checked_positions(num_parents, mode_extent(s.spec, shape, 0));
    }

    FibreRange fibre(const LevelStorage& s, std::span<const int64_t> shape,
                     int64_t parent) const override {
        int64_t n = mode_extent(s.spec, shape, 0);
        return {parent * n, parent * n + n};
    }

    void coordinates(const LevelStorage& s, std::span<const int64_t> shape, int64_t position,
                     std::span<int64_t> out) const override {
        out[0] = position % mode_extent(s.spec, shape, 0);
    }

    std::optional<int64_t> locate(const LevelStorage& s, std::span<const int64_t> shape,
                                  int64_t parent, std::span<const int64_t> coords) const override {
        return parent * mode_extent(s.spec, shape, 0) + coords[0];
    }

    const LevelCodegen* codegen() const override {
        static const DenseCodegen face;
        return &face;
    }
};

} // namespace

const LevelFormat& dense_level() {
    static const DenseLevel level;
    return level;
}

} // namespace siskin::levels
