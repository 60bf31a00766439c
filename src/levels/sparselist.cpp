// SparseList (compressed): fibre p holds positions pos[p] .. pos[p+1]-1, whose coordinates are
// crd[q], strictly increasing within a fibre.
#include <algorithm>

#include "levels/level_format.hpp"
#include "siskin/error.hpp"
#include "levels/level_codegen.hpp"
#include "compiler/lower.hpp"
#include "compiler/tensor_binding.hpp"

namespace siskin::levels {

namespace {

using namespace siskin::compiler;

// SparseList, codegen face. Fibre r holds positions pos[r] .. pos[r+1]-1 with sorted
// coordinates crd[q].
//
// Reading (p, p_end, last: locals of a Thunk run before the loop; last = crd[p_end-1] + 1):
//   walk    Sequence[Phase(stop = last, Stepper(stop = crd[p]+1, chunk = Spike(fill, child(p)),
//                                               next = p++)),
//                    Phase(Run(fill))]
//   gallop  the same with a Jumper whose chunk is that Spike when the step ends at its stop,
//           else the walk Stepper (the leader jumped over several of its entries)
//   follow  Lookup(i -> binary search for i; Select(found: child(q), else: fill))
// Writing: in coordinate order only. The loop over the fibre opens one slot at the level's
// next free position for each coordinate, and commits it (crd[n] = i; n++) only when something
// that differs from the fill was written below it: the stored set is exactly the non-fill set.
cast::Expr idx(const cast::Expr& base, const cast::Expr& i) { return cast::at(base, i); }
cast::Expr lt(const cast::Expr& a, const cast::Expr& b) { return cast::bin(cast::BinaryOp::Lt, a, b); }

struct Walk {
    cast::Expr crd, p, end, last, dim;
    ValueType index_type;
};

// Statements moving p to the first entry whose coordinate is >= start.
std::vector<cast::Stmt> seek(const Walk& w, const cast::Expr& start) {
    if (c_constant(start) == 0) return {};
    std::string fn = "siskin_gallop_" + std::string(search_suffix(w.index_type));
    cast::Expr target = cast::Cast::make(cast::Type::of(w.index_type), start);
    return {cast::assign(w.p, cast::call(fn, {w.crd, w.p, w.end, target}))};
}

LoopletPtr walk_stepper(const Walk& w, const std::shared_ptr<const Fiber>& f) {
    auto s = std::make_shared<Stepper>(c_add(idx(w.crd, w.p), 1));
    s->seek = [w](LowerCtx&, const cast::Expr& start) { return seek(w, start); };
    s->chunk = [w, f](LowerCtx& ctx, const cast::Expr&) -> LoopletPtr {
        return make_looplet<Spike>(fill_leaf(*f), child_fiber(ctx, *f, {w.p}, f->dirty));
    };
    s->next = {cast::Increment::make(w.p)};
    s->stop_bounds = {w.last, w.dim};
    s->positions = PositionLoop{w.p, w.end, w.last};
    return s;
}

LoopletPtr gallop_jumper(const Walk& w, const std::shared_ptr<const Fiber>& f) {
    auto j = std::make_shared<Jumper>(c_add(idx(w.crd, w.p), 1));
    j->seek = [w](LowerCtx&, const cast::Expr& start) { return seek(w, start); };
    j->chunk = [w, f](LowerCtx& ctx, const cast::Expr& stop, const Extent& ext) -> LoopletPtr {
        LoopletPtr own = make_looplet<Spike>(fill_leaf(*f), child_fiber(ctx, *f, {w.p}, f->dirty));
        if (ctx.prover().eq(ext.hi, stop)) return own;
        return make_looplet<Switch>(std::vector<Switch::Case>{
            {cast::bin(cast::BinaryOp::Eq, ext.hi, stop), own}, {std::nullopt, walk_stepper(w, f)}});
    };
    j->next = {cast::Increment::make(w.p)};
    j->stop_bounds = {w.last, w.dim};
    return j;
}

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
        Walk w{t.buffer(f.level, "crd").data_var(), cast::var(ctx.fresh("p")),
               cast::var(ctx.fresh("p_end")), cast::var(ctx.fresh("p_last")), t.level_dim(f.level),
               t.index_type(f.level)};
        const cast::Expr& r = f.pos.front();
        auto i64 = cast::Type::of(ValueType::Int64);
        std::vector<cast::Stmt> pre{
            cast::Decl::make(i64, w.p.as<cast::Var>().name, idx(pos, r)),
            cast::Decl::make(i64, w.end.as<cast::Var>().name, idx(pos, c_add(r, 1))),
            cast::Decl::make(i64, w.last.as<cast::Var>().name,
                             cast::Ternary::make(lt(w.p, w.end), c_add(idx(w.crd, c_add(w.end, -1)), 1),
                                                 c_int(0))),
        };
        LoopletPtr stepper = protocol == "gallop" ? gallop_jumper(w, fiber) : walk_stepper(w, fiber);
        LoopletPtr fill = make_looplet<Run>(fill_leaf(f));
        LoopletPtr seq = make_looplet<Sequence>(std::vector<Phase>{
            {w.last, [stepper](LowerCtx&, const Extent&) { return stepper; }},
            {std::nullopt, [fill](LowerCtx&, const Extent&) { return fill; }}});
        return make_looplet<Thunk>(std::move(pre), seq, std::vector<cast::Stmt>{},
                                   std::vector<Fact>{{c_int(0), w.last}, {w.last, w.dim}});
    }

    LExpr locate(LowerCtx& ctx, const Fiber& f) const override {
        return locate_at(ctx, f, c_value(ctx, f.subscripts.front()));
    }

    bool random_write() const override { return false; }

    void declare(LowerCtx& ctx, const TensorBinding& t, int level) const override {
        std::string n = ctx.fresh(t.name + "_count" + std::to_string(level));
        ctx.emit(cast::Decl::make(cast::Type::of(ValueType::Int64), n, c_int(0)));
        ctx.set_level_var(t, level, "count", cast::var(n));
        const BufferBinding& pos = t.buffer(level, "pos");
        ctx.emit(ctx.reserve(pos, c_int(1)));
        ctx.emit(cast::assign(idx(pos.data_var(), c_int(0)), c_int(0)));
    }

    void init_slots(LowerCtx& ctx, const TensorBinding& t, int level, const cast::Expr& lo,
                    const cast::Expr& hi) const override {
        const BufferBinding& pos = t.buffer(level, "pos");
        cast::Expr count = ctx.level_var(t, level, "count");
        ctx.emit(ctx.reserve(pos, c_add(hi, 1)));
        emit_range_loop(ctx, lo, hi, [&](const cast::Expr& k) {
            return std::vector<cast::Stmt>{cast::assign(idx(pos.data_var(), c_add(k, 1)), count)};
        });
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
            std::string dirty = c.fresh("dirty");
            cast::Expr d = cast::var(dirty);
            std::vector<cast::Stmt> pre = c.capture([&] {
                c.emit(cast::Decl::make(cast::Type::of(ValueType::Bool), dirty, cast::lit(Scalar::of(false))));
                init_child_slots(c, t, fiber->level, count, c_add(count, 1));
            });
            LExpr inner = child_fiber(c, *fiber, {count}, d);
            cast::Expr keep = d;
            if (leaf_below)
                keep = cast::bin(cast::BinaryOp::LogAnd, d,
                                 leaf_codegen(t.format.leaf()).holds_value(c, t, count));
            std::vector<cast::Stmt> commit = c.reserve(crd, c_add(count, 1));
            commit.push_back(cast::assign(idx(crd.data_var(), count),
                                          cast::Cast::make(cast::Type::of(itype), i)));
            commit.push_back(cast::Increment::make(count));
            if (fiber->dirty) commit.push_back(cast::assign(*fiber->dirty, cast::lit(Scalar::of(true))));
            std::vector<cast::Stmt> post{cast::If::make(keep, cast::Block::make(commit))};
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
        const BufferBinding& pos = t.buffer(level, "pos");
        const BufferBinding& crd = t.buffer(level, "crd");
        cast::Expr p = pos.data_var();
        // Fibres no loop reached (a sparse outer loop skipped them) end where the previous did.
        emit_range_loop(ctx, c_int(0), parents, [&](const cast::Expr& k) {
            cast::Expr next = idx(p, c_add(k, 1));
            return std::vector<cast::Stmt>{
                cast::If::make(lt(next, idx(p, k)), cast::assign(next, idx(p, k)))};
        });
        cast::Expr count = ctx.level_var(t, level, "count");
        ctx.emit(cast::assign(cast::Field::make(pos.raw_var(), "size"), c_add(parents, 1)));
        ctx.emit(cast::assign(cast::Field::make(crd.raw_var(), "size"), count));
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
        return {.min_modes = 1, .max_modes = 1, .full = false, .ordered = true, .unique = true};
    }
    std::vector<BufferSpec> buffers(const LevelSpec& spec) const override {
        return {{"pos", index_type(spec.index_bits)}, {"crd", index_type(spec.index_bits)}};
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

} // namespace siskin::levels
