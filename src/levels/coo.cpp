// SparseCOO: one level for k dimensions. Fibre p holds positions pos[p] .. pos[p+1]-1; position q
// stores the coordinates crd0[q] .. crd{k-1}[q], lexicographically increasing within a fibre.
#include <algorithm>

#include <fmt/format.h>

#include "levels/level_format.hpp"
#include "siskin/error.hpp"
#include "levels/level_codegen.hpp"
#include "lowering/tensor_binding.hpp"

namespace siskin::levels {

namespace {


// SparseCOO, codegen face. Reading (walk protocol): one level stores k coordinates per position,
// sorted lexicographically within a fibre. Mode d of the level is unfurled over a range of
// positions [p, p_end) that share the coordinates of modes before d: a Stepper over the
// segments of equal crd_d (each segment [p, q) is one chunk), whose Spike tail is mode d+1 over
// that segment; the last mode's chunks are single positions, like a SparseList.
cast::Expr idx(const cast::Expr& base, const cast::Expr& i) { return cast::at(base, i); }
cast::Expr lt(const cast::Expr& a, const cast::Expr& b) { return cast::bin(cast::BinaryOp::Lt, a, b); }

class CooCodegen final : public LevelCodegen {
public:
    std::vector<std::string_view> protocols() const override { return {"walk"}; }

    LoopletPtr unfurl(LowerCtx& ctx, const Fiber& f, std::string_view) const override {
        const TensorBinding& t = *f.tensor;
        int modes = static_cast<int>(t.format.levels()[static_cast<size_t>(f.level)].modes.size());
        bool last_mode = f.sub + 1 == modes;
        cast::Expr crd = t.buffer(f.level, "crd" + std::to_string(f.sub)).data_var();
        ValueType itype = t.index_type(f.level);
        cast::Expr dim = t.level_dim(f.level, f.sub);
        auto i64 = cast::Type::of(ValueType::Int64);

        std::string p_name = ctx.fresh("p"), end_name = ctx.fresh("p_end"), last_name = ctx.fresh("p_last");
        cast::Expr p = cast::var(p_name), end = cast::var(end_name), last = cast::var(last_name);
        cast::Expr lo = f.pos.front(), hi = f.sub == 0 ? c_add(f.pos.front(), 1) : f.pos.back();
        if (f.sub == 0) {
            cast::Expr pos = t.buffer(f.level, "pos").data_var();
            lo = idx(pos, f.pos.front());
            hi = idx(pos, c_add(f.pos.front(), 1));
        }
        // Only the last mode's walk has positions a window stepper hands on (Fiber::resume).
        if (last_mode && f.resume) lo = *f.resume;
        std::vector<cast::Stmt> pre{
            cast::Decl::make(i64, p_name, lo),
            cast::Decl::make(i64, end_name, hi),
            cast::Decl::make(i64, last_name,
                             cast::Ternary::make(lt(p, end), c_add(idx(crd, c_add(end, -1)), 1), c_int(0))),
        };
        auto fiber = std::make_shared<const Fiber>(f);
        std::string fn = "siskin_gallop_" + std::string(search_suffix(itype));
        auto seek_to = [=](const cast::Expr& start) -> std::vector<cast::Stmt> {
            if (c_constant(start) == 0) return {};
            return {cast::assign(p, cast::call(fn, {crd, p, end, cast::Cast::make(cast::Type::of(itype), start)}))};
        };

        auto s = std::make_shared<Stepper>(c_add(idx(crd, p), 1));
        s->stop_bounds = {last, dim};
        if (last_mode) {
            s->seek = [seek_to](LowerCtx&, const cast::Expr& start) { return seek_to(start); };
            s->chunk = [fiber, p](LowerCtx& c, const cast::Expr&) -> LoopletPtr {
                return make_looplet<Spike>(fill_leaf(*fiber), child_fiber(c, *fiber, {p}, fiber->dirty));
            };
            s->next = {cast::Increment::make(p)};
            s->positions = PositionLoop{p, end, last};
        } else {
            std::string q_name = ctx.fresh("q");
            cast::Expr q = cast::var(q_name);
            pre.push_back(cast::Decl::make(i64, q_name, p));
            // q = the end of the segment starting at p (p < p_end).
            std::vector<cast::Stmt> segment{
                cast::assign(q, c_add(p, 1)),
                cast::While::make(cast::bin(cast::BinaryOp::LogAnd, lt(q, end),
                                            cast::bin(cast::BinaryOp::Eq, idx(crd, q), idx(crd, p))),
                                  cast::Increment::make(q)),
            };
            s->seek = [seek_to, segment](LowerCtx&, const cast::Expr& start) {
                auto out = seek_to(start);
                out.insert(out.end(), segment.begin(), segment.end());
                return out;
            };
            s->chunk = [fiber, p, q](LowerCtx& c, const cast::Expr&) -> LoopletPtr {
                return make_looplet<Spike>(fill_leaf(*fiber), next_sub(c, *fiber, {p, q}));
            };
            s->next = {cast::assign(p, q), cast::If::make(lt(p, end), cast::Block::make(segment))};
        }
        LoopletPtr stepper = s;
        LoopletPtr fill = make_looplet<Run>(fill_leaf(f));
        LoopletPtr seq = make_looplet<Sequence>(std::vector<Phase>{
            {last, [stepper](LowerCtx&, const Extent&) { return stepper; }},
            {std::nullopt, [fill](LowerCtx&, const Extent&) { return fill; }}});
        return make_looplet<Thunk>(std::move(pre), seq, std::vector<cast::Stmt>{},
                                   std::vector<Fact>{{c_int(0), last}, {last, dim}});
    }

    LExpr locate(LowerCtx&, const Fiber& f) const override {
        throw Error("the coo level of " + f.tensor->name +
                        " cannot be read by random access yet: loop over its indices in storage "
                        "order (outermost first)",
                    Error::Kind::Unsupported);
    }


    std::optional<std::pair<cast::Expr, cast::Expr>> stored_range(
        const TensorBinding& t, int level, const cast::Expr& lo, const cast::Expr& hi) const override {
        cast::Expr pos = t.buffer(level, "pos").data_var();
        return std::pair{idx(pos, lo), idx(pos, hi)};
    }

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

    // Writing fibre r: mode d's loop binds its coordinate into a local and hands the next mode
    // the fibre with pos = {r, c_0, .., c_d}; the last mode opens a slot at the next position
    // with a dirty flag, and commits the whole tuple (crd_k[count] = c_k) only when something
    // that differs from the fill was written below it, like a sparselist.
    LoopletPtr unfurl_write(LowerCtx& ctx, const Fiber& f) const override {
        const TensorBinding& t = *f.tensor;
        int modes = static_cast<int>(t.format.levels()[static_cast<size_t>(f.level)].modes.size());
        auto fiber = std::make_shared<const Fiber>(f);
        LoopletPtr slots;
        if (f.sub + 1 < modes) {
            slots = make_looplet<Lookup>([fiber](LowerCtx& c, const cast::Expr& i) -> LExpr {
                std::string name = c.fresh("c" + std::to_string(fiber->sub));
                std::vector<cast::Expr> state = fiber->pos;
                state.push_back(cast::var(name));
                std::vector<cast::Stmt> pre{cast::Decl::make(cast::Type::of(ValueType::Int64), name, i)};
                return Hoist::make(std::move(pre), next_sub(c, *fiber, std::move(state)), {});
            });
        } else {
            slots = make_looplet<Lookup>([fiber](LowerCtx& c, const cast::Expr& i) { return slot(c, *fiber, i); });
        }
        if (f.sub > 0) return slots;
        cast::Expr pos = t.buffer(f.level, "pos").data_var();
        cast::Expr count = ctx.level_var(t, f.level, "count");
        std::vector<cast::Stmt> close{cast::assign(idx(pos, c_add(f.pos.front(), 1)), count)};
        return make_looplet<Thunk>(std::vector<cast::Stmt>{}, slots, std::move(close));
    }

    LExpr locate_write(LowerCtx&, const Fiber& f) const override {
        refuse_random_write(f, "coo");
    }

    // A fibre lists its kept tuples in order, as a sparselist its coordinates.

    cast::Expr same_fibres(LowerCtx& ctx, const TensorBinding& t, int level, const cast::Expr& p,
                           const cast::Expr& q) const override {
        std::vector<std::string> crds;
        for (size_t k = 0; k < t.format.levels()[static_cast<size_t>(level)].modes.size(); ++k)
            crds.push_back("crd" + std::to_string(k));
        return same_listed_fibres(ctx, t, level, crds, p, q);
    }

    void discard_fibres(LowerCtx& ctx, const TensorBinding& t, int level, const cast::Expr& r) const override {
        discard_appended_fibres(ctx, t, level, r);
    }

    cast::Expr freeze(LowerCtx& ctx, const TensorBinding& t, int level,
                      const cast::Expr& parents) const override {
        const BufferBinding& pos = t.buffer(level, "pos");
        cast::Expr p = pos.data_var();
        // Fibres no loop reached (a sparse outer loop skipped them) end where the previous did.
        emit_range_loop(ctx, c_int(0), parents, [&](const cast::Expr& k) {
            cast::Expr next = idx(p, c_add(k, 1));
            return std::vector<cast::Stmt>{cast::If::make(lt(next, idx(p, k)), cast::assign(next, idx(p, k)))};
        });
        cast::Expr count = ctx.level_var(t, level, "count");
        ctx.emit(cast::assign(cast::Field::make(pos.raw_var(), "size"), c_add(parents, 1)));
        size_t modes = t.format.levels()[static_cast<size_t>(level)].modes.size();
        for (size_t k = 0; k < modes; ++k)
            ctx.emit(cast::assign(cast::Field::make(t.buffer(level, "crd" + std::to_string(k)).raw_var(), "size"),
                                  count));
        return count;
    }

private:
    // The last mode's slot for coordinate i of fibre f (pos = {r, c_0, .., c_{k-2}}).
    static LExpr slot(LowerCtx& ctx, const Fiber& f, const cast::Expr& i) {
        const TensorBinding& t = *f.tensor;
        cast::Expr count = ctx.level_var(t, f.level, "count");
        std::string dirty = ctx.fresh("dirty");
        cast::Expr d = cast::var(dirty);
        std::vector<cast::Stmt> pre = ctx.capture([&] {
            ctx.emit(cast::Decl::make(cast::Type::of(ValueType::Bool), dirty, cast::lit(Scalar::of(false))));
            init_child_slots(ctx, t, f.level, count, c_add(count, 1));
        });
        LExpr inner = child_fiber(ctx, f, {count}, d);
        cast::Expr keep = d;
        if (f.level + 1 == t.num_levels())
            keep = cast::bin(cast::BinaryOp::LogAnd, d, t.leaf().holds_value(ctx, t, count));
        std::vector<cast::Expr> coords(f.pos.begin() + 1, f.pos.end());
        coords.push_back(i);
        ValueType itype = t.index_type(f.level);
        std::vector<cast::Stmt> commit;
        for (size_t k = 0; k < coords.size(); ++k) {
            const BufferBinding& crd = t.buffer(f.level, "crd" + std::to_string(k));
            auto grow = ctx.reserve(crd, c_add(count, 1), /*written_first=*/true);
            commit.insert(commit.end(), grow.begin(), grow.end());
            commit.push_back(cast::assign(idx(crd.data_var(), count),
                                          cast::Cast::make(cast::Type::of(itype), coords[k])));
        }
        commit.push_back(cast::Increment::make(count));
        if (f.dirty) commit.push_back(cast::assign(*f.dirty, cast::lit(Scalar::of(true))));
        std::vector<cast::Stmt> post{cast::If::make(keep, cast::Block::make(commit))};
        return Hoist::make(std::move(pre), inner, std::move(post));
    }
};



std::string crd_name(size_t k) { return fmt::format("crd{}", k); }

class CooLevel final : public LevelFormat {
public:
    std::string_view name() const override { return "coo"; }
    LevelProperties properties() const override {
        return {.min_modes = 1, .max_modes = 1 << 20, .full = false, .ordered = true,
                .unique = true, .append_only = true};
    }
    std::vector<BufferSpec> buffers(const LevelSpec& spec) const override {
        std::vector<BufferSpec> out{{"pos", index_type(spec.index_bits), BufferRole::Positions}};
        for (size_t k = 0; k < spec.modes.size(); ++k)
            out.push_back({crd_name(k), index_type(spec.index_bits), BufferRole::Coordinates});
        return out;
    }

    LevelBuild build(const LevelSpec& spec, std::span<const int64_t> shape,
                     const LevelInput& in) const override {
        size_t k = spec.modes.size();
        std::vector<int64_t> pos(static_cast<size_t>(in.num_parents) + 1, 0);
        std::vector<std::vector<int64_t>> crd(k);
        LevelBuild out;
        out.positions.resize(static_cast<size_t>(in.size()));
        auto same_prefix = [&](int64_t e) {
            if (in.parents[static_cast<size_t>(e)] != in.parents[static_cast<size_t>(e - 1)])
                return false;
            for (int m : spec.modes)
                if (in.coord(e, m) != in.coord(e - 1, m)) return false;
            return true;
        };
        int64_t stored = 0;
        for (int64_t e = 0; e < in.size(); ++e) {
            if (e == 0 || !same_prefix(e)) {
                for (size_t j = 0; j < k; ++j) crd[j].push_back(in.coord(e, spec.modes[j]));
                ++pos[static_cast<size_t>(in.parents[static_cast<size_t>(e)]) + 1];
                ++stored;
            }
            out.positions[static_cast<size_t>(e)] = stored - 1;
        }
        prefix_sums(pos);
        out.num_positions = stored;
        int64_t largest = stored;
        for (size_t j = 0; j < k; ++j)
            largest = std::max(largest, mode_extent(spec, shape, static_cast<int>(j)));
        int bits = choose_index_bits(spec.index_bits, largest, "coo");
        out.storage.spec = spec;
        out.storage.spec.index_bits = bits;
        out.storage.names.push_back("pos");
        out.storage.buffers.push_back(make_index_buffer(bits, pos));
        for (size_t j = 0; j < k; ++j) {
            out.storage.names.push_back(crd_name(j));
            out.storage.buffers.push_back(make_index_buffer(bits, crd[j]));
        }
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
        for (size_t j = 0; j < out.size(); ++j) out[j] = IndexReader(s.buffers[j + 1])[position];
    }

    std::optional<int64_t> locate(const LevelStorage& s, std::span<const int64_t>,
                                  int64_t parent, std::span<const int64_t> coords) const override {
        IndexReader pos(s.buffer("pos"));
        // Compares the coordinates at position q with coords: <0, 0 or >0.
        auto compare = [&](int64_t q) {
            for (size_t j = 0; j < coords.size(); ++j) {
                int64_t c = IndexReader(s.buffers[j + 1])[q]; // buffers: pos, crd0, crd1, ...
                if (c != coords[j]) return c < coords[j] ? -1 : 1;
            }
            return 0;
        };
        int64_t lo = pos[parent], hi = pos[parent + 1];
        while (lo < hi) {
            int64_t mid = lo + (hi - lo) / 2;
            if (compare(mid) < 0) lo = mid + 1;
            else hi = mid;
        }
        if (lo < pos[parent + 1] && compare(lo) == 0) return lo;
        return std::nullopt;
    }

    const LevelCodegen* codegen() const override {
        static const CooCodegen face;
        return &face;
    }
};

} // namespace

const LevelFormat& coo_level() {
    static const CooLevel level;
    return level;
}

} // namespace siskin::levels
