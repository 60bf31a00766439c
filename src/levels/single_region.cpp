#include "levels/single_region.hpp"

#include "lowering/tensor_binding.hpp"

namespace siskin::levels {

LoopletPtr single_region_fibre(const Fiber& f, cast::Expr lo, cast::Expr hi, std::vector<cast::Stmt> pre,
                               std::vector<Fact> facts) {
    auto fiber = std::make_shared<const Fiber>(f);
    LoopletPtr fill = make_looplet<Run>(fill_leaf(f));
    auto region = [fiber](LowerCtx& c, const Extent&) -> LoopletPtr {
        return make_looplet<Run>(child_fiber(c, *fiber, {fiber->pos.front()}, fiber->dirty));
    };
    LoopletPtr seq = make_looplet<Sequence>(std::vector<Phase>{
        {std::move(lo), [fill](LowerCtx&, const Extent&) { return fill; }},
        {std::move(hi), region},
        {std::nullopt, [fill](LowerCtx&, const Extent&) { return fill; }}});
    return make_looplet<Thunk>(std::move(pre), seq, std::vector<cast::Stmt>{}, std::move(facts));
}

LExpr single_region_at(LowerCtx& ctx, const Fiber& f, const cast::Expr& lo, const cast::Expr& hi,
                       std::vector<cast::Stmt> pre, const cast::Expr& c) {
    cast::Expr inside = cast::bin(cast::BinaryOp::LogAnd, cast::bin(cast::BinaryOp::Le, lo, c),
                                  cast::bin(cast::BinaryOp::Lt, c, hi));
    auto sel = std::make_shared<Select>(
        std::vector<Select::Case>{{inside, child_fiber(ctx, f, {f.pos.front()}, f.dirty)},
                                  {std::nullopt, fill_leaf(f)}},
        f.type);
    return Hoist::make(std::move(pre), sel, {});
}

void declare_single_region(LowerCtx& ctx, const TensorBinding& t, int level) {
    std::string high = ctx.fresh(t.name + "_high" + std::to_string(level));
    ctx.emit(cast::Decl::make(cast::Type::of(ValueType::Int64), high, c_int(0)));
    ctx.set_level_var(t, level, "high", cast::var(high));
}

void init_single_region_slots(LowerCtx& ctx, const TensorBinding& t, int level, const cast::Expr& lo,
                              const cast::Expr& hi,
                              const std::function<std::vector<cast::Stmt>(const cast::Expr&)>& mark_empty) {
    emit_range_loop(ctx, lo, hi, mark_empty);
    init_child_slots(ctx, t, level, lo, hi);
    cast::Expr high = ctx.level_var(t, level, "high");
    ctx.emit(cast::If::make(cast::bin(cast::BinaryOp::Lt, high, hi), cast::assign(high, hi)));
}

LExpr write_single_region(LowerCtx& ctx, const Fiber& f, const RegionWrite& w, const cast::Expr& lo,
                          const cast::Expr& hi) {
    const TensorBinding& t = *f.tensor;
    const cast::Expr& r = f.pos.front();
    std::string q_name = ctx.fresh("q");
    cast::Expr q = cast::var(q_name);
    KeptSlot slot = open_kept_slot(ctx, f, q);
    slot.pre.insert(slot.pre.begin(), cast::Decl::make(cast::Type::of(ValueType::Int64), q_name,
                                                       cast::Ternary::make(w.holds, ctx.level_var(t, f.level, "high"), r)));
    std::vector<cast::Stmt> first = w.record(lo, hi);
    mark_parent_dirty(f, first);
    std::vector<cast::Stmt> kept{cast::If::make(cast::bin(cast::BinaryOp::Eq, q, r), cast::Block::make(first),
                                                cast::Block::make(w.again(ctx, lo, hi, q)))};
    std::vector<cast::Stmt> post{cast::If::make(slot.keep, cast::Block::make(kept))};
    return Hoist::make(std::move(slot.pre), slot.child, std::move(post));
}

cast::Stmt structure_error() { return cast::Return::make(cast::var("SISKIN_ERR_STRUCTURE")); }

} // namespace siskin::levels
