#include "levels/level_codegen.hpp"

#include <fmt/format.h>

#include "lowering/lower_ctx.hpp"
#include "lowering/prove.hpp"
#include "lowering/range_loop.hpp"
#include "lowering/tensor_binding.hpp"
#include "siskin/error.hpp"

namespace siskin::levels {


namespace {

std::vector<LExpr> rest(const std::vector<LExpr>& v) {
    if (v.empty()) return {};
    return {v.begin() + 1, v.end()};
}
std::vector<std::string> rest(const std::vector<std::string>& v) { return {v.begin() + 1, v.end()}; }

} // namespace

LExpr child_fiber(LowerCtx& ctx, const Fiber& f, std::vector<cast::Expr> pos,
                  const std::optional<cast::Expr>& dirty) {
    const TensorBinding& t = *f.tensor;
    int next = f.level + 1;
    if (next == t.num_levels()) {
        SISKIN_ASSERT(pos.size() == 1, "a leaf takes one position");
        const LeafCodegen& leaf = t.leaf();
        return f.write ? leaf.write(ctx, t, pos[0], dirty) : leaf.read(ctx, t, pos[0]);
    }
    return std::make_shared<Fiber>(f.tensor, f.type, next, 0, std::move(pos), rest(f.subscripts),
                                   rest(f.protocols), f.write, dirty, ctx.depth, Fiber::next_id(),
                                   rest(f.pads));
}

LExpr next_sub(LowerCtx& ctx, const Fiber& f, std::vector<cast::Expr> state) {
    return std::make_shared<Fiber>(f.tensor, f.type, f.level, f.sub + 1, std::move(state),
                                   rest(f.subscripts), rest(f.protocols), f.write, f.dirty,
                                   ctx.depth, Fiber::next_id(), rest(f.pads));
}

LExpr fill_leaf(const Fiber& f) { return Literal::make(f.tensor->fill); }

void init_child_slots(LowerCtx& ctx, const TensorBinding& t, int level, const cast::Expr& lo,
                      const cast::Expr& hi) {
    int next = level + 1;
    if (next == t.num_levels()) return t.leaf().init_slots(ctx, t, lo, hi);
    t.level(next).init_slots(ctx, t, next, lo, hi);
}

void declare_output(LowerCtx& ctx, const TensorBinding& t) {
    for (int k = 0; k < t.num_levels(); ++k)
        t.level(k).declare(ctx, t, k);
    // An output that keeps its contents arrives with every slot holding its starting value.
    if (!t.keep_contents) init_child_slots(ctx, t, -1, c_int(0), c_int(1));
}

void freeze_output(LowerCtx& ctx, const TensorBinding& t) {
    cast::Expr count = c_int(1);
    for (int k = 0; k < t.num_levels(); ++k)
        count = t.level(k).freeze(ctx, t, k, count);
    t.leaf().freeze(ctx, t, count);
}

cast::Expr same_child_fibres(LowerCtx& ctx, const TensorBinding& t, int level, const cast::Expr& p,
                             const cast::Expr& q) {
    int next = level + 1;
    if (next == t.num_levels()) return t.leaf().same_values(ctx, t, p, q);
    return t.level(next).same_fibres(ctx, t, next, p, q);
}

void discard_child_fibres(LowerCtx& ctx, const TensorBinding& t, int level, const cast::Expr& r) {
    int next = level + 1;
    if (next < t.num_levels()) t.level(next).discard_fibres(ctx, t, next, r);
}

cast::Expr all_below(LowerCtx& ctx, const cast::Expr& count,
                     const std::function<cast::Expr(const cast::Expr& k)>& test) {
    cast::Expr same = ctx.local("same", cast::lit(Scalar::of(true)), ValueType::Bool);
    std::string k = ctx.fresh("k");
    cast::Expr kv = cast::var(k);
    std::vector<cast::Stmt> body;
    body = ctx.capture([&] {
        cast::Expr holds = test(kv);
        ctx.emit(cast::assign(same, holds));
    });
    ctx.emit(cast::For::make(cast::Decl::make(cast::Type::of(ValueType::Int64), k, c_int(0)),
                             cast::bin(cast::BinaryOp::LogAnd, same, cast::bin(cast::BinaryOp::Lt, kv, count)),
                             cast::Increment::make(kv), cast::Block::make(body)));
    return same;
}

cast::Expr same_listed_fibres(LowerCtx& ctx, const TensorBinding& t, int level,
                              const std::vector<std::string>& crds, const cast::Expr& p, const cast::Expr& q) {
    cast::Expr pos = t.buffer(level, "pos").data_var();
    cast::Expr p0 = ctx.local("p_first", cast::at(pos, p)), q0 = ctx.local("q_first", cast::at(pos, q));
    cast::Expr length = ctx.local("length", c_sub(cast::at(pos, c_add(p, 1)), p0));
    cast::Expr equal_lengths = cast::bin(cast::BinaryOp::Eq, length, c_sub(cast::at(pos, c_add(q, 1)), q0));
    cast::Expr entries = cast::Ternary::make(equal_lengths, length, c_int(0));
    cast::Expr same = all_below(ctx, entries, [&](const cast::Expr& k) {
        cast::Expr a = c_add(p0, k), b = c_add(q0, k);
        cast::Expr below = same_child_fibres(ctx, t, level, a, b);
        for (const std::string& crd : crds) {
            cast::Expr c = t.buffer(level, crd).data_var();
            below = cast::bin(cast::BinaryOp::LogAnd, cast::bin(cast::BinaryOp::Eq, cast::at(c, a), cast::at(c, b)), below);
        }
        return below;
    });
    return cast::bin(cast::BinaryOp::LogAnd, equal_lengths, same);
}

cast::Expr same_segmented_fibres(LowerCtx& ctx, const TensorBinding& t, int level, std::string_view ends,
                                 const cast::Expr& p, const cast::Expr& q) {
    cast::Expr pos = t.buffer(level, "pos").data_var();
    cast::Expr ofs = t.buffer(level, "ofs").data_var();
    cast::Expr end = t.buffer(level, ends).data_var();
    cast::Expr p0 = ctx.local("p_first", cast::at(pos, p)), q0 = ctx.local("q_first", cast::at(pos, q));
    cast::Expr segments = ctx.local("segments", c_sub(cast::at(pos, c_add(p, 1)), p0));
    cast::Expr equal_counts = ctx.local(
        "equal_counts", cast::bin(cast::BinaryOp::Eq, segments, c_sub(cast::at(pos, c_add(q, 1)), q0)), ValueType::Bool);
    auto length = [&](const cast::Expr& k) { return c_sub(cast::at(ofs, c_add(k, 1)), cast::at(ofs, k)); };
    cast::Expr same_segments = all_below(ctx, cast::Ternary::make(equal_counts, segments, c_int(0)),
                                         [&](const cast::Expr& k) {
                                             cast::Expr a = c_add(p0, k), b = c_add(q0, k);
                                             return cast::bin(cast::BinaryOp::LogAnd,
                                                              cast::bin(cast::BinaryOp::Eq, cast::at(end, a), cast::at(end, b)),
                                                              cast::bin(cast::BinaryOp::Eq, length(a), length(b)));
                                         });
    cast::Expr alike = cast::bin(cast::BinaryOp::LogAnd, equal_counts, same_segments);
    // Equal segment lengths make the child ranges equally long.
    cast::Expr a0 = ctx.local("p_slots", cast::at(ofs, p0)), b0 = ctx.local("q_slots", cast::at(ofs, q0));
    cast::Expr slots = cast::Ternary::make(alike, c_sub(cast::at(ofs, c_add(p0, segments)), a0), c_int(0));
    cast::Expr same_below = all_below(ctx, slots, [&](const cast::Expr& k) {
        return same_child_fibres(ctx, t, level, c_add(a0, k), c_add(b0, k));
    });
    return cast::bin(cast::BinaryOp::LogAnd, alike, same_below);
}

void discard_appended_fibres(LowerCtx& ctx, const TensorBinding& t, int level, const cast::Expr& r) {
    cast::Expr count = ctx.level_var(t, level, "count");
    ctx.emit(cast::assign(count, cast::at(t.buffer(level, "pos").data_var(), r)));
    discard_child_fibres(ctx, t, level, count);
}

void emit_range_loop(LowerCtx& ctx, const cast::Expr& lo, const cast::Expr& hi,
                     const std::function<std::vector<cast::Stmt>(const cast::Expr&)>& body) {
    if (ctx.prover().difference(lo, hi) == 1) {
        ctx.emit(body(lo));
        return;
    }
    if (ctx.prover().le(hi, lo)) return;
    ctx.emit(range_loop(ctx, lo, hi, body));
}

void declare_appended_positions(LowerCtx& ctx, const TensorBinding& t, int level, std::string_view count_base) {
    std::string n = ctx.fresh(t.name + std::string(count_base) + std::to_string(level));
    ctx.emit(cast::Decl::make(cast::Type::of(ValueType::Int64), n, c_int(0)));
    ctx.set_level_var(t, level, "count", cast::var(n));
    const BufferBinding& pos = t.buffer(level, "pos");
    ctx.emit(ctx.reserve(pos, c_int(1)));
    ctx.emit(cast::assign(cast::at(pos.data_var(), c_int(0)), c_int(0)));
}

void init_appended_positions(LowerCtx& ctx, const TensorBinding& t, int level, const cast::Expr& lo,
                             const cast::Expr& hi) {
    const BufferBinding& pos = t.buffer(level, "pos");
    cast::Expr count = ctx.level_var(t, level, "count");
    ctx.emit(ctx.reserve(pos, c_add(hi, 1)));
    emit_range_loop(ctx, lo, hi, [&](const cast::Expr& k) {
        return std::vector<cast::Stmt>{cast::assign(cast::at(pos.data_var(), c_add(k, 1)), count)};
    });
}

void freeze_appended_positions(LowerCtx& ctx, const TensorBinding& t, int level, const cast::Expr& parents) {
    const BufferBinding& pos = t.buffer(level, "pos");
    cast::Expr p = pos.data_var();
    emit_range_loop(ctx, c_int(0), parents, [&](const cast::Expr& k) {
        cast::Expr next = cast::at(p, c_add(k, 1));
        return std::vector<cast::Stmt>{
            cast::If::make(cast::bin(cast::BinaryOp::Lt, next, cast::at(p, k)), cast::assign(next, cast::at(p, k)))};
    });
    set_buffer_size(ctx, pos, c_add(parents, 1));
}

KeptSlot open_kept_slot(LowerCtx& ctx, const Fiber& f, const cast::Expr& slot) {
    const TensorBinding& t = *f.tensor;
    bool leaf_below = f.level + 1 == t.num_levels();
    std::optional<cast::Expr> d;
    std::vector<cast::Stmt> pre = ctx.capture([&] {
        if (!leaf_below || !t.values) {
            std::string dirty = ctx.fresh("dirty");
            d = cast::var(dirty);
            ctx.emit(cast::Decl::make(cast::Type::of(ValueType::Bool), dirty, cast::lit(Scalar::of(false))));
        }
        init_child_slots(ctx, t, f.level, slot, c_add(slot, 1));
    });
    LExpr child = child_fiber(ctx, f, {slot}, d);
    std::optional<cast::Expr> keep = d;
    if (leaf_below) {
        cast::Expr holds = t.leaf().holds_value(ctx, t, slot);
        keep = d ? cast::bin(cast::BinaryOp::LogAnd, *d, holds) : holds;
    }
    return {std::move(pre), std::move(child), *keep};
}

void mark_parent_dirty(const Fiber& f, std::vector<cast::Stmt>& commit) {
    if (f.dirty) commit.push_back(cast::assign(*f.dirty, cast::lit(Scalar::of(true))));
}

LoopletPtr appended_fibre_write(LowerCtx& ctx, const Fiber& f, const std::optional<cast::Expr>& start,
                                LoopletPtr slots) {
    const TensorBinding& t = *f.tensor;
    cast::Expr count = ctx.level_var(t, f.level, "count");
    std::vector<cast::Stmt> pre;
    if (start) pre.push_back(cast::Decl::make(cast::Type::of(ValueType::Int64), start->as<cast::Var>().name, count));
    std::vector<cast::Stmt> close{
        cast::assign(cast::at(t.buffer(f.level, "pos").data_var(), c_add(f.pos.front(), 1)), count)};
    return make_looplet<Thunk>(std::move(pre), std::move(slots), std::move(close));
}

void refuse_random_write(const Fiber& f, std::string_view level) {
    throw Error(fmt::format("{} level of {} cannot be written by random access", level, f.tensor->name),
                Error::Kind::Unsupported);
}

LoopletPtr lookup_each(const Fiber& f, AtCoordinate at) {
    auto fiber = std::make_shared<const Fiber>(f);
    return make_looplet<Lookup>([fiber, at](LowerCtx& c, const cast::Expr& i) { return at(c, *fiber, i); });
}

LExpr at_subscript(LowerCtx& ctx, const Fiber& f, AtCoordinate at) {
    return at(ctx, f, c_value(ctx, f.subscripts.front()));
}

void set_buffer_size(LowerCtx& ctx, const BufferBinding& b, const cast::Expr& size) {
    ctx.emit(cast::assign(cast::Field::make(b.raw_var(), "size"), size));
}

std::string_view search_suffix(ValueType index_type) {
    return index_type == ValueType::Int32 ? "i32" : "i64";
}

} // namespace siskin::levels
