// SparseInterval (Finch's SparseInterval): at most one run per fibre, of one value, and no pos
// array. Position p of the level is fibre p itself, whose run covers the coordinates
// [left[p], right[p]) (an exclusive end; left == right == 0 when the fibre is empty) and whose
// value is the leaf at p. The run holds one value, so the level is the last one (runs of
// sub-fibres are refused when spelled). Building from entries that are not one run of one value
// per fibre is an error that names the entry, and so is a kernel writing a second run.
#include <fmt/format.h>

#include "levels/level_codegen.hpp"
#include "levels/level_format.hpp"
#include "levels/single_region.hpp"
#include "lowering/tensor_binding.hpp"
#include "siskin/error.hpp"

namespace siskin::levels {

namespace {

// SparseInterval, codegen face: the single region [left[r], right[r]) of single_region.hpp, so a
// sum over the run is one multiply-add. Writing takes a whole run at once (Lookup::run) or one
// coordinate at a time; a kept write right after the run with the same value extends it, any
// other kept write after it stops the kernel (SISKIN_ERR_STRUCTURE).
class SparseIntervalCodegen final : public LevelCodegen {
public:
    std::vector<std::string_view> protocols() const override { return {"walk", "gallop", "follow"}; }

    LoopletPtr unfurl(LowerCtx& ctx, const Fiber& f, std::string_view protocol) const override {
        if (protocol == "follow") return lookup_each(f, at);
        std::vector<cast::Stmt> pre;
        auto [lo, hi] = bounds(ctx, f, pre);
        cast::Expr n = f.tensor->level_dim(f.level);
        return single_region_fibre(f, lo, hi, std::move(pre), {{c_int(0), lo}, {lo, hi}, {hi, n}});
    }

    LExpr locate(LowerCtx& ctx, const Fiber& f) const override {
        return at_subscript(ctx, f, at);
    }

    void declare(LowerCtx& ctx, const TensorBinding& t, int level) const override {
        declare_single_region(ctx, t, level);
    }

    void init_slots(LowerCtx& ctx, const TensorBinding& t, int level, const cast::Expr& lo,
                    const cast::Expr& hi) const override {
        const BufferBinding& left = t.buffer(level, "left");
        const BufferBinding& right = t.buffer(level, "right");
        ctx.emit(ctx.reserve(left, hi));
        ctx.emit(ctx.reserve(right, hi));
        init_single_region_slots(ctx, t, level, lo, hi, [&](const cast::Expr& k) {
            return std::vector<cast::Stmt>{cast::assign(cast::at(left.data_var(), k), c_int(0)),
                                           cast::assign(cast::at(right.data_var(), k), c_int(0))};
        });
    }

    LoopletPtr unfurl_write(LowerCtx&, const Fiber& f) const override {
        const TensorBinding& t = *f.tensor;
        const cast::Expr& r = f.pos.front();
        cast::Expr left = cast::at(t.buffer(f.level, "left").data_var(), r);
        cast::Expr right = cast::at(t.buffer(f.level, "right").data_var(), r);
        auto itype = cast::Type::of(t.index_type(f.level));
        const TensorBinding* tp = &t;
        RegionWrite w{cast::bin(cast::BinaryOp::Lt, left, right), {}, {}};
        w.record = [=](const cast::Expr& lo, const cast::Expr& hi) {
            return std::vector<cast::Stmt>{cast::assign(left, cast::Cast::make(itype, lo)),
                                           cast::assign(right, cast::Cast::make(itype, hi))};
        };
        w.again = [=](LowerCtx& c, const cast::Expr& lo, const cast::Expr& hi, const cast::Expr& scratch) {
            cast::Expr extends = cast::bin(cast::BinaryOp::LogAnd, cast::bin(cast::BinaryOp::Eq, lo, right),
                                           tp->leaf().same_values(c, *tp, scratch, r));
            return std::vector<cast::Stmt>{
                cast::If::make(extends, cast::assign(right, cast::Cast::make(itype, hi)), structure_error())};
        };
        auto fiber = std::make_shared<const Fiber>(f);
        return make_looplet<Lookup>(
            [fiber, w](LowerCtx& c, const cast::Expr& i) { return write_single_region(c, *fiber, w, i, c_add(i, 1)); },
            [fiber, w](LowerCtx& c, const Extent& e) { return write_single_region(c, *fiber, w, e.lo, e.hi); });
    }

    LExpr locate_write(LowerCtx&, const Fiber& f) const override {
        refuse_random_write(f, "sparseinterval");
    }

    // The same run (0, 0 for both when empty) of the same value. The level is the last one, so
    // there is nothing below to discard: a reopened fibre is emptied by init_slots.

    cast::Expr same_fibres(LowerCtx& ctx, const TensorBinding& t, int level, const cast::Expr& p,
                           const cast::Expr& q) const override {
        cast::Expr left = t.buffer(level, "left").data_var(), right = t.buffer(level, "right").data_var();
        cast::Expr same = ctx.local(
            "same",
            cast::bin(cast::BinaryOp::LogAnd, cast::bin(cast::BinaryOp::Eq, cast::at(left, p), cast::at(left, q)),
                      cast::bin(cast::BinaryOp::Eq, cast::at(right, p), cast::at(right, q))),
            ValueType::Bool);
        std::vector<cast::Stmt> value = ctx.capture([&] {
            cast::Expr equal = same_child_fibres(ctx, t, level, p, q);
            ctx.emit(cast::assign(same, equal));
        });
        cast::Expr stored = cast::bin(cast::BinaryOp::Lt, cast::at(left, p), cast::at(right, p));
        ctx.emit(cast::If::make(cast::bin(cast::BinaryOp::LogAnd, same, stored), cast::Block::make(value)));
        return same;
    }

    void discard_fibres(LowerCtx&, const TensorBinding&, int, const cast::Expr&) const override {}

    cast::Expr freeze(LowerCtx& ctx, const TensorBinding& t, int level,
                      const cast::Expr& parents) const override {
        ctx.emit(cast::assign(cast::Field::make(t.buffer(level, "left").raw_var(), "size"), parents));
        ctx.emit(cast::assign(cast::Field::make(t.buffer(level, "right").raw_var(), "size"), parents));
        return parents;
    }

private:
    // Declares the run bounds of fibre f into `pre`.
    static std::pair<cast::Expr, cast::Expr> bounds(LowerCtx& ctx, const Fiber& f, std::vector<cast::Stmt>& pre) {
        const TensorBinding& t = *f.tensor;
        auto i64 = cast::Type::of(ValueType::Int64);
        std::string lo = ctx.fresh("run_lo"), hi = ctx.fresh("run_hi");
        pre.push_back(cast::Decl::make(i64, lo, cast::at(t.buffer(f.level, "left").data_var(), f.pos.front())));
        pre.push_back(cast::Decl::make(i64, hi, cast::at(t.buffer(f.level, "right").data_var(), f.pos.front())));
        return {cast::var(lo), cast::var(hi)};
    }

    static LExpr at(LowerCtx& ctx, const Fiber& f, const cast::Expr& c) {
        std::vector<cast::Stmt> pre;
        auto [lo, hi] = bounds(ctx, f, pre);
        return single_region_at(ctx, f, lo, hi, std::move(pre), c);
    }
};

class SparseIntervalLevel final : public LevelFormat {
public:
    std::string_view name() const override { return "sparseinterval"; }
    std::vector<std::string_view> aliases() const override { return {"interval"}; }
    LevelProperties properties() const override {
        return {.min_modes = 1, .max_modes = 1, .full = false, .ordered = true, .unique = true,
                .runs = true, .append_only = true, .direct_locate = true};
    }
    std::vector<BufferSpec> buffers(const LevelSpec& spec) const override {
        return {{"left", index_type(spec.index_bits), BufferRole::Coordinates},
                {"right", index_type(spec.index_bits), BufferRole::Coordinates}};
    }

    void check_place(const Format& format, size_t k) const override {
        require_last_level(format, k, name(), "its run holds one leaf value");
    }

    LevelBuild build(const LevelSpec& spec, std::span<const int64_t> shape,
                     const LevelInput& in) const override {
        SISKIN_ASSERT(in.last && in.fill != nullptr, "a sparseinterval level is built as the last level");
        const int mode = spec.modes[0];
        const int64_t n = mode_extent(spec, shape, 0);
        std::vector<int64_t> left(static_cast<size_t>(in.num_parents), 0), right = left;
        LevelBuild out;
        out.positions.resize(static_cast<size_t>(in.size()));
        for (int64_t e = 0; e < in.size(); ++e) {
            auto p = static_cast<size_t>(in.parents[static_cast<size_t>(e)]);
            int64_t c = in.coord(e, mode);
            if (left[p] == right[p]) {
                left[p] = c;
            } else if (c != right[p] || !in.values[static_cast<size_t>(e)].same(in.values[static_cast<size_t>(e - 1)])) {
                throw Error(fmt::format("a sparseinterval level holds one run of one value per fibre, "
                                        "but the entry at {} ({}) {} the run {}..{} of {} before it",
                                        in.entry_text(e), in.values[static_cast<size_t>(e)].to_string(),
                                        c != right[p] ? "does not continue" : "differs from",
                                        left[p], right[p] - 1, in.values[static_cast<size_t>(e - 1)].to_string()));
            }
            right[p] = c + 1;
            out.positions[static_cast<size_t>(e)] = static_cast<int64_t>(p);
        }
        out.num_positions = in.num_parents;
        store_index_buffers(out, spec, n, "sparseinterval", {{"left", left}, {"right", right}});
        return out;
    }

    int64_t num_positions(const LevelStorage&, std::span<const int64_t>, int64_t num_parents) const override {
        return num_parents;
    }

    // Only fibres holding their run count, whatever the parent.
    int64_t num_stored(const LevelStorage& s, std::span<const int64_t>, int64_t num_parents,
                       int64_t) const override {
        IndexReader left(s.buffer("left")), right(s.buffer("right"));
        int64_t count = 0;
        for (int64_t p = 0; p < num_parents; ++p) count += left[p] < right[p];
        return count;
    }

    FibreRange fibre(const LevelStorage& s, std::span<const int64_t>, int64_t parent) const override {
        bool holds = IndexReader(s.buffer("left"))[parent] < IndexReader(s.buffer("right"))[parent];
        return {parent, holds ? parent + 1 : parent};
    }

    FibreEntry fibre_entry(const LevelStorage& s, std::span<const int64_t>, int64_t parent, int64_t,
                           std::span<int64_t> coords) const override {
        int64_t lo = IndexReader(s.buffer("left"))[parent];
        coords[0] = lo;
        return {parent, IndexReader(s.buffer("right"))[parent] - lo};
    }

    void coordinates(const LevelStorage& s, std::span<const int64_t>, int64_t position,
                     std::span<int64_t> out) const override {
        out[0] = IndexReader(s.buffer("left"))[position];
    }

    std::optional<int64_t> locate(const LevelStorage& s, std::span<const int64_t>, int64_t parent,
                                  std::span<const int64_t> coords) const override {
        if (IndexReader(s.buffer("left"))[parent] <= coords[0] && coords[0] < IndexReader(s.buffer("right"))[parent])
            return parent;
        return std::nullopt;
    }

    const LevelCodegen* codegen() const override {
        static const SparseIntervalCodegen face;
        return &face;
    }
};

} // namespace

const LevelFormat& sparseinterval_level() {
    static const SparseIntervalLevel level;
    return level;
}

} // namespace siskin::levels
