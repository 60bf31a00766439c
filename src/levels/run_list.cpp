// RunList (dense run-length encoding, Finch's RunList/DenseRLE): the runs of fibre p are the
// positions pos[p] .. pos[p+1]-1; run q covers the coordinates [start, right[q]), where start is
// 0 for the first run of a fibre and right[q-1] otherwise (right holds exclusive ends, which are
// Finch's 1-based inclusive ends). The runs of a fibre cover all of [0, n), so a fibre with no
// entries is one run of the fill, and each run stores one value in the leaf.
//
// Building merges adjacent equal values (Scalar::same: NaN equals NaN, and +0.0 equals -0.0)
// into one run, the fill between entries included; an explicit entry equal to the fill joins
// the fill run around it. Tensor::stored() counts runs; for_each_stored visits every coordinate
// of every run, fill runs included, as it visits every position of a dense level.
//
// A runlist must be the last level: its runs hold leaf values. Runs of equal sub-fibres (a
// runlist over another level) are not supported, and such formats are refused when spelled.
#include <algorithm>

#include <fmt/format.h>

#include "compiler/lower.hpp"
#include "compiler/tensor_binding.hpp"
#include "levels/level_codegen.hpp"
#include "levels/level_format.hpp"
#include "siskin/error.hpp"

namespace siskin::levels {

namespace {

using namespace siskin::compiler;

// RunList, codegen face. Fibre r holds runs pos[r] .. pos[r+1]-1; run q ends (exclusive) at
// right[q] and its value is the leaf at q. Every protocol but follow reads the fibre as
//   Thunk(q = pos[r], q_end = pos[r+1]) Stepper(stop = right[q], chunk = Run(child(q)), next = q++)
// so a run is one step whatever its length, and the lowerer integrates the body over it (a sum
// over a run is `s += len * v`, not a loop). A seek gallops over right to the first run ending
// past the start. follow (and random access) binary-search right for the run holding i.
// Writing a runlist is not supported yet.
class RunListCodegen final : public LevelCodegen {
public:
    std::vector<std::string_view> protocols() const override { return {"walk", "gallop", "follow"}; }

    LoopletPtr unfurl(LowerCtx& ctx, const Fiber& f, std::string_view protocol) const override {
        auto fiber = std::make_shared<const Fiber>(f);
        if (protocol == "follow")
            return make_looplet<Lookup>([fiber](LowerCtx& c, const cast::Expr& i) {
                return locate_at(c, *fiber, i);
            });
        const TensorBinding& t = *f.tensor;
        cast::Expr pos = t.buffer(f.level, "pos").data_var();
        cast::Expr right = t.buffer(f.level, "right").data_var();
        ValueType itype = t.index_type(f.level);
        const cast::Expr& r = f.pos.front();
        cast::Expr q = cast::var(ctx.fresh("q")), q_end = cast::var(ctx.fresh("q_end"));
        auto i64 = cast::Type::of(ValueType::Int64);
        std::vector<cast::Stmt> pre{
            cast::Decl::make(i64, q.as<cast::Var>().name, cast::at(pos, r)),
            cast::Decl::make(i64, q_end.as<cast::Var>().name, cast::at(pos, c_add(r, 1))),
        };
        auto s = std::make_shared<Stepper>(cast::at(right, q));
        s->seek = [=](LowerCtx&, const cast::Expr& start) -> std::vector<cast::Stmt> {
            if (c_constant(start) == 0) return {};
            std::string fn = "siskin_gallop_" + std::string(search_suffix(itype));
            cast::Expr target = cast::Cast::make(cast::Type::of(itype), c_add(start, 1));
            return {cast::assign(q, cast::call(fn, {right, q, q_end, target}))};
        };
        s->chunk = [fiber, q](LowerCtx& c, const cast::Expr&) -> LoopletPtr {
            return make_looplet<Run>(child_fiber(c, *fiber, {q}, fiber->dirty));
        };
        s->next = {cast::Increment::make(q)};
        s->stop_bounds = {t.level_dim(f.level)};
        return make_looplet<Thunk>(std::move(pre), s, std::vector<cast::Stmt>{});
    }

    LExpr locate(LowerCtx& ctx, const Fiber& f) const override {
        return locate_at(ctx, f, c_value(ctx, f.subscripts.front()));
    }

    bool random_write() const override { return false; }
    void declare(LowerCtx&, const TensorBinding& t, int) const override { refuse(t); }
    void init_slots(LowerCtx&, const TensorBinding& t, int, const cast::Expr&,
                    const cast::Expr&) const override { refuse(t); }
    LoopletPtr unfurl_write(LowerCtx&, const Fiber& f) const override { refuse(*f.tensor); }
    LExpr locate_write(LowerCtx&, const Fiber& f) const override { refuse(*f.tensor); }
    cast::Expr freeze(LowerCtx&, const TensorBinding& t, int, const cast::Expr&) const override {
        refuse(t);
    }

private:
    [[noreturn]] static void refuse(const TensorBinding& t) {
        throw Error("output " + t.name + " has a runlist level; compiled code cannot write "
                    "runlist levels yet",
                    Error::Kind::Unsupported);
    }

    // The run holding coordinate c: the first of the fibre whose end is past c. The runs cover
    // the whole fibre, so it always exists.
    static LExpr locate_at(LowerCtx& ctx, const Fiber& f, const cast::Expr& c) {
        const TensorBinding& t = *f.tensor;
        cast::Expr pos = t.buffer(f.level, "pos").data_var();
        cast::Expr right = t.buffer(f.level, "right").data_var();
        ValueType itype = t.index_type(f.level);
        const cast::Expr& r = f.pos.front();
        std::string q = ctx.fresh("q");
        std::string fn = "siskin_lower_bound_" + std::string(search_suffix(itype));
        std::vector<cast::Stmt> pre{cast::Decl::make(
            cast::Type::of(ValueType::Int64), q,
            cast::call(fn, {right, cast::at(pos, r), cast::at(pos, c_add(r, 1)),
                            cast::Cast::make(cast::Type::of(itype), c_add(c, 1))}))};
        return Hoist::make(std::move(pre), child_fiber(ctx, f, {cast::var(q)}, f.dirty), {});
    }
};

class RunListLevel final : public LevelFormat {
public:
    std::string_view name() const override { return "runlist"; }
    std::vector<std::string_view> aliases() const override { return {"rle"}; }
    LevelProperties properties() const override {
        return {.min_modes = 1, .max_modes = 1, .full = true, .ordered = true, .unique = true,
                .runs = true, .stores_fill = true};
    }
    std::vector<BufferSpec> buffers(const LevelSpec& spec) const override {
        return {{"pos", index_type(spec.index_bits)}, {"right", index_type(spec.index_bits)}};
    }

    void check_place(const Format& format, size_t k) const override {
        if (k + 1 != format.levels().size())
            throw Error(fmt::format("a runlist level must be the last level: its runs hold leaf "
                                    "values, and runs of sub-fibres are not supported (in '{}')",
                                    format.to_string()));
    }

    LevelBuild build(const LevelSpec& spec, std::span<const int64_t> shape,
                     const LevelInput& in) const override {
        SISKIN_ASSERT(in.fill != nullptr, "a runlist level is built as the last level");
        const int mode = spec.modes[0];
        const int64_t n = mode_extent(spec, shape, 0);
        std::vector<int64_t> pos{0}, right;
        pos.reserve(static_cast<size_t>(in.num_parents) + 1);
        LevelBuild out;
        out.positions.resize(static_cast<size_t>(in.size()));

        Scalar last; // the value of the run right.back()
        size_t fibre_start = 0;
        int64_t covered = 0; // coordinates of the current fibre covered by runs so far
        // Covers [covered, end) with value v, extending the fibre's last run when v is equal.
        auto cover = [&](int64_t end, const Scalar& v) {
            if (right.size() > fibre_start && last.same(v)) {
                right.back() = end;
            } else {
                right.push_back(end);
                last = v;
            }
            covered = end;
        };
        int64_t e = 0;
        for (int64_t p = 0; p < in.num_parents; ++p) {
            fibre_start = right.size();
            covered = 0;
            for (; e < in.size() && in.parents[static_cast<size_t>(e)] == p; ++e) {
                int64_t c = in.coord(e, mode);
                if (c > covered) cover(c, *in.fill);
                cover(c + 1, in.values[static_cast<size_t>(e)]);
                out.positions[static_cast<size_t>(e)] = static_cast<int64_t>(right.size()) - 1;
            }
            if (covered < n) cover(n, *in.fill);
            pos.push_back(static_cast<int64_t>(right.size()));
        }
        SISKIN_ASSERT(e == in.size(), "runlist entries come with parents in order");

        out.num_positions = static_cast<int64_t>(right.size());
        int bits = choose_index_bits(spec.index_bits, std::max(out.num_positions, n), "runlist");
        out.storage.spec = spec;
        out.storage.spec.index_bits = bits;
        out.storage.names = {"pos", "right"};
        out.storage.buffers.push_back(make_index_buffer(bits, pos));
        out.storage.buffers.push_back(make_index_buffer(bits, right));
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
        IndexReader pos(s.buffer("pos"));
        return {pos[parent], pos[parent + 1]};
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
        IndexReader pos(s.buffer("pos")), right(s.buffer("right"));
        int64_t lo = pos[parent], hi = pos[parent + 1];
        while (lo < hi) {
            int64_t mid = lo + (hi - lo) / 2;
            if (right[mid] <= coords[0]) lo = mid + 1;
            else hi = mid;
        }
        if (lo < pos[parent + 1]) return lo;
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
