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

#include "compiler/lower.hpp"
#include "compiler/tensor_binding.hpp"
#include "levels/level_codegen.hpp"
#include "levels/level_format.hpp"
#include "siskin/error.hpp"

namespace siskin::levels {

namespace {

using namespace siskin::compiler;

// SparseBand, codegen face. With b_end = idx[r], b_start = b_end - (ofs[r+1] - ofs[r]) and
// b_base = ofs[r+1] - b_end (coordinate i of the block is at position b_base + i), every
// protocol but follow reads fibre r as
//   Thunk(b_start, b_end, b_base) Sequence[Phase(b_start, Run(fill)),
//                                          Phase(b_end, Lookup(i -> child(b_base + i))),
//                                          Phase(Run(fill))]
// so nothing outside the block is visited; follow and random access test the block bounds.
// Writing a sparseband is not supported yet.
struct Band {
    cast::Expr start, end, base;
};

class SparseBandCodegen final : public LevelCodegen {
public:
    std::vector<std::string_view> protocols() const override { return {"walk", "gallop", "follow"}; }

    LoopletPtr unfurl(LowerCtx& ctx, const Fiber& f, std::string_view protocol) const override {
        auto fiber = std::make_shared<const Fiber>(f);
        if (protocol == "follow")
            return make_looplet<Lookup>([fiber](LowerCtx& c, const cast::Expr& i) {
                return locate_at(c, *fiber, i);
            });
        std::vector<cast::Stmt> pre;
        Band b = bounds(ctx, f, pre);
        LoopletPtr fill = make_looplet<Run>(fill_leaf(f));
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
        throw Error("output " + t.name + " has a sparseband level; compiled code cannot write "
                    "sparseband levels yet",
                    Error::Kind::Unsupported);
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
                .runs = false, .stores_fill = true};
    }
    std::vector<BufferSpec> buffers(const LevelSpec& spec) const override {
        return {{"ofs", index_type(spec.index_bits)}, {"idx", index_type(spec.index_bits)}};
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
        int bits = choose_index_bits(spec.index_bits, std::max(out.num_positions, n), "sparseband");
        out.storage.spec = spec;
        out.storage.spec.index_bits = bits;
        out.storage.names = {"ofs", "idx"};
        out.storage.buffers.push_back(make_index_buffer(bits, ofs));
        out.storage.buffers.push_back(make_index_buffer(bits, idx));
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
