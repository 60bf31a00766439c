// Walking and galloping over a sorted coordinate list (see sorted_walk.hpp):
//   walk    Sequence[Phase(stop = last, Stepper(stop = crd[p]+1, chunk = Spike(fill, child(p)),
//                                               next = p++)),
//                    Phase(Run(fill))]
//   gallop  the same with a Jumper whose chunk is that Spike when the step ends at its stop,
//           else the walk Stepper (the leader jumped over several of its entries)
//   reversed the walk from the last entry down, in the coordinates dim-1-c (flip, negative
//           slice steps): the same Sequence, its stepper's state decreasing
#include "levels/sorted_walk.hpp"

#include "lowering/tensor_binding.hpp"

namespace siskin::levels {


namespace {

cast::Expr idx(const cast::Expr& base, const cast::Expr& i) { return cast::at(base, i); }
cast::Expr lt(const cast::Expr& a, const cast::Expr& b) { return cast::bin(cast::BinaryOp::Lt, a, b); }

cast::Expr child_pos(const SortedWalk& w) {
    if (w.positions) return idx(*w.positions, w.p);
    return w.base ? c_add(*w.base, idx(w.crd, w.p)) : w.p;
}

LoopletPtr own_spike(LowerCtx& ctx, const SortedWalk& w, const Fiber& f) {
    return make_looplet<Spike>(fill_leaf(f), child_fiber(ctx, f, {child_pos(w)}, f.dirty));
}

LoopletPtr walk_stepper(const SortedWalk& w, const std::shared_ptr<const Fiber>& f) {
    auto s = std::make_shared<Stepper>(c_add(idx(w.crd, w.p), 1));
    s->seek = [w](LowerCtx&, const cast::Expr& start) { return sorted_seek(w, start); };
    s->chunk = [w, f](LowerCtx& ctx, const cast::Expr&) { return own_spike(ctx, w, *f); };
    s->next = {cast::Increment::make(w.p)};
    s->stop_bounds = {w.last, w.dim};
    s->positions = PositionLoop{w.p, w.end, w.last};
    return s;
}

LoopletPtr gallop_jumper(const SortedWalk& w, const std::shared_ptr<const Fiber>& f) {
    auto j = std::make_shared<Jumper>(c_add(idx(w.crd, w.p), 1));
    j->seek = [w](LowerCtx&, const cast::Expr& start) { return sorted_seek(w, start); };
    j->chunk = [w, f](LowerCtx& ctx, const cast::Expr& stop, const Extent& ext) -> LoopletPtr {
        LoopletPtr own = own_spike(ctx, w, *f);
        if (ctx.prover().eq(ext.hi, stop)) return own;
        return make_looplet<Switch>(std::vector<Switch::Case>{
            {cast::bin(cast::BinaryOp::Eq, ext.hi, stop), own}, {std::nullopt, walk_stepper(w, f)}});
    };
    j->next = {cast::Increment::make(w.p)};
    j->stop_bounds = {w.last, w.dim};
    return j;
}

} // namespace

std::vector<cast::Stmt> sorted_seek(const SortedWalk& w, const cast::Expr& start) {
    if (c_constant(start) == 0) return {};
    std::string fn = "siskin_gallop_" + std::string(search_suffix(w.index_type));
    cast::Expr target = cast::Cast::make(cast::Type::of(w.index_type), start);
    return {cast::assign(w.p, cast::call(fn, {w.crd, w.p, w.end, target}))};
}

LoopletPtr sorted_fibre(LowerCtx& ctx, const Fiber& f, const cast::Expr& crd, const cast::Expr& pos_lo,
                        const cast::Expr& pos_hi, bool gallop, std::optional<cast::Expr> base,
                        std::optional<cast::Expr> positions) {
    const TensorBinding& t = *f.tensor;
    auto fiber = std::make_shared<const Fiber>(f);
    SortedWalk w{crd, cast::var(ctx.fresh("p")), cast::var(ctx.fresh("p_end")),
                 cast::var(ctx.fresh("p_last")), t.level_dim(f.level), t.index_type(f.level),
                 std::move(base), std::move(positions)};
    auto i64 = cast::Type::of(ValueType::Int64);
    std::vector<cast::Stmt> pre{
        cast::Decl::make(i64, w.p.as<cast::Var>().name, f.resume ? *f.resume : pos_lo),
        cast::Decl::make(i64, w.end.as<cast::Var>().name, pos_hi),
        cast::Decl::make(i64, w.last.as<cast::Var>().name,
                         cast::Ternary::make(lt(w.p, w.end), c_add(idx(w.crd, c_add(w.end, -1)), 1),
                                             c_int(0))),
    };
    LoopletPtr stepper = gallop ? gallop_jumper(w, fiber) : walk_stepper(w, fiber);
    LoopletPtr fill = make_looplet<Run>(fill_leaf(f));
    LoopletPtr seq = make_looplet<Sequence>(std::vector<Phase>{
        {w.last, [stepper](LowerCtx&, const Extent&) { return stepper; },
         Phase::Test{c_int(0), lt(w.p, w.end)}},
        {std::nullopt, [fill](LowerCtx&, const Extent&) { return fill; }}});
    return make_looplet<Thunk>(std::move(pre), seq, std::vector<cast::Stmt>{},
                               std::vector<Fact>{{c_int(0), w.last}, {w.last, w.dim}});
}

LoopletPtr ended_fibre(LowerCtx& ctx, const Fiber& f, const cast::Expr& ends, bool covers, EndedChunk chunk) {
    const TensorBinding& t = *f.tensor;
    auto fiber = std::make_shared<const Fiber>(f);
    cast::Expr pos = t.buffer(f.level, "pos").data_var();
    ValueType itype = t.index_type(f.level);
    const cast::Expr& r = f.pos.front();
    cast::Expr q = cast::var(ctx.fresh("q")), q_end = cast::var(ctx.fresh("q_end"));
    cast::Expr dim = t.level_dim(f.level);
    auto i64 = cast::Type::of(ValueType::Int64);
    std::vector<cast::Stmt> pre{
        cast::Decl::make(i64, q.as<cast::Var>().name, idx(pos, r)),
        cast::Decl::make(i64, q_end.as<cast::Var>().name, idx(pos, c_add(r, 1))),
    };
    auto s = std::make_shared<Stepper>(idx(ends, q));
    s->seek = [=](LowerCtx&, const cast::Expr& start) -> std::vector<cast::Stmt> {
        if (c_constant(start) == 0) return {};
        std::string fn = "siskin_gallop_" + std::string(search_suffix(itype));
        cast::Expr target = cast::Cast::make(cast::Type::of(itype), c_add(start, 1));
        return {cast::assign(q, cast::call(fn, {ends, q, q_end, target}))};
    };
    s->chunk = [fiber, q, chunk](LowerCtx& c, const cast::Expr&) { return chunk(c, *fiber, q); };
    s->next = {cast::Increment::make(q)};
    if (covers) {
        s->stop_bounds = {dim};
        return make_looplet<Thunk>(std::move(pre), s, std::vector<cast::Stmt>{});
    }
    cast::Expr last = cast::var(ctx.fresh("q_last"));
    pre.push_back(cast::Decl::make(i64, last.as<cast::Var>().name,
                                   cast::Ternary::make(lt(q, q_end), idx(ends, c_add(q_end, -1)), c_int(0))));
    s->stop_bounds = {last, dim};
    LoopletPtr stepper = s;
    LoopletPtr fill = make_looplet<Run>(fill_leaf(f));
    LoopletPtr seq = make_looplet<Sequence>(std::vector<Phase>{
        {last, [stepper](LowerCtx&, const Extent&) { return stepper; }, Phase::Test{c_int(0), lt(q, q_end)}},
        {std::nullopt, [fill](LowerCtx&, const Extent&) { return fill; }}});
    return make_looplet<Thunk>(std::move(pre), seq, std::vector<cast::Stmt>{},
                               std::vector<Fact>{{c_int(0), last}, {last, dim}});
}

FibreSearch search_fibre(LowerCtx& ctx, const Fiber& f, const cast::Expr& sorted, const cast::Expr& target) {
    const TensorBinding& t = *f.tensor;
    cast::Expr pos = t.buffer(f.level, "pos").data_var();
    ValueType itype = t.index_type(f.level);
    const cast::Expr& r = f.pos.front();
    auto i64 = cast::Type::of(ValueType::Int64);
    std::string end = ctx.fresh("q_end"), q = ctx.fresh("q");
    std::string fn = "siskin_lower_bound_" + std::string(search_suffix(itype));
    std::vector<cast::Stmt> pre{
        cast::Decl::make(i64, end, idx(pos, c_add(r, 1))),
        cast::Decl::make(i64, q, cast::call(fn, {sorted, idx(pos, r), cast::var(end),
                                                  cast::Cast::make(cast::Type::of(itype), target)}))};
    return {std::move(pre), cast::var(q), cast::var(end)};
}

LExpr child_or_fill(LowerCtx& ctx, const Fiber& f, std::vector<cast::Stmt> pre, const cast::Expr& found,
                    const cast::Expr& position) {
    auto sel = std::make_shared<Select>(
        std::vector<Select::Case>{{found, child_fiber(ctx, f, {position}, f.dirty)}, {std::nullopt, fill_leaf(f)}},
        f.type);
    return Hoist::make(std::move(pre), sel, {});
}

LoopletPtr sorted_fibre_reversed(LowerCtx& ctx, const Fiber& f, const cast::Expr& crd,
                                 const cast::Expr& pos_lo, const cast::Expr& pos_hi,
                                 std::optional<cast::Expr> base,
                                 std::optional<cast::Expr> positions) {
    const TensorBinding& t = *f.tensor;
    auto fiber = std::make_shared<const Fiber>(f);
    cast::Expr dim = t.level_dim(f.level);
    // w.p walks down from the last entry; w.end is the fibre's first position (the walk is
    // valid while w.p >= w.end); w.last is one past the reversed coordinate of the first entry.
    SortedWalk w{crd, cast::var(ctx.fresh("q")), cast::var(ctx.fresh("q_lo")),
                 cast::var(ctx.fresh("q_last")), dim, t.index_type(f.level), std::move(base),
                 std::move(positions)};
    auto i64 = cast::Type::of(ValueType::Int64);
    std::vector<cast::Stmt> pre{
        cast::Decl::make(i64, w.p.as<cast::Var>().name, c_add(pos_hi, -1)),
        cast::Decl::make(i64, w.end.as<cast::Var>().name, pos_lo),
        cast::Decl::make(i64, w.last.as<cast::Var>().name,
                         cast::Ternary::make(lt(w.p, w.end), c_int(0),
                                             c_sub(dim, idx(w.crd, w.end)))),
    };
    auto stepper = std::make_shared<Stepper>(c_sub(dim, idx(w.crd, w.p)));
    stepper->seek = [w](LowerCtx&, const cast::Expr& start) -> std::vector<cast::Stmt> {
        if (c_constant(start) == 0) return {};
        // The last entry whose coordinate is below dim - start, i.e. whose reversed
        // coordinate is >= start: a gallop down from p, since a seek usually moves a few entries.
        std::string fn = "siskin_gallop_down_" + std::string(search_suffix(w.index_type));
        cast::Expr target = cast::Cast::make(cast::Type::of(w.index_type), c_sub(w.dim, start));
        return {cast::assign(w.p, cast::call(fn, {w.crd, w.end, c_add(w.p, 1), target}))};
    };
    stepper->chunk = [w, fiber](LowerCtx& c, const cast::Expr&) { return own_spike(c, w, *fiber); };
    stepper->next = {cast::assign(w.p, c_add(w.p, -1))};
    stepper->stop_bounds = {w.last, w.dim};
    LoopletPtr fill = make_looplet<Run>(fill_leaf(f));
    LoopletPtr walk = stepper;
    LoopletPtr seq = make_looplet<Sequence>(std::vector<Phase>{
        {w.last, [walk](LowerCtx&, const Extent&) { return walk; },
         Phase::Test{c_int(0), cast::bin(cast::BinaryOp::Ge, w.p, w.end)}},
        {std::nullopt, [fill](LowerCtx&, const Extent&) { return fill; }}});
    return make_looplet<Thunk>(std::move(pre), seq, std::vector<cast::Stmt>{},
                               std::vector<Fact>{{c_int(0), w.last}, {w.last, w.dim}});
}

LoopletPtr pos_bounded_fibre(LowerCtx& ctx, const Fiber& f, std::string_view crd, SortedOrder order,
                             std::optional<cast::Expr> base, std::optional<cast::Expr> positions) {
    const TensorBinding& t = *f.tensor;
    cast::Expr pos = t.buffer(f.level, "pos").data_var();
    cast::Expr coords = t.buffer(f.level, crd).data_var();
    const cast::Expr& r = f.pos.front();
    cast::Expr lo = idx(pos, r), hi = idx(pos, c_add(r, 1));
    if (order == SortedOrder::Reversed)
        return sorted_fibre_reversed(ctx, f, coords, lo, hi, std::move(base), std::move(positions));
    return sorted_fibre(ctx, f, coords, lo, hi, order == SortedOrder::Gallop, std::move(base),
                        std::move(positions));
}

} // namespace siskin::levels
