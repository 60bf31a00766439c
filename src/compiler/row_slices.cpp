#include "compiler/row_slices.hpp"

#include <algorithm>

#include "compiler/lower.hpp"
#include "lowering/lower_ctx.hpp"
#include "simplify/simplify.hpp"

namespace siskin::compiler {

bool fits_row_slices(const ParallelMark& mark) {
    return mark.weight && mark.workspaces.empty() &&
           std::all_of(mark.appended.begin(), mark.appended.end(),
                       [](const TensorBinding* t) { return t->num_levels() == 1; });
}

namespace {

// `positions[k] = e` into an appended vector's positions (closing its one fibre after its rows).
bool closes_vector(const cast::Stmt& s, const ParallelMark& mark) {
    if (s.kind() != cast::StmtKind::Assign) return false;
    const cast::Expr& target = s.as<cast::Assign>().target;
    if (target.kind() != cast::ExprKind::Index || target.as<cast::Index>().base.kind() != cast::ExprKind::Var) return false;
    const std::string& array = target.as<cast::Index>().base.as<cast::Var>().name;
    for (const TensorBinding* t : mark.appended)
        for (const auto& b : t->levels[0])
            if (b.role == BufferRole::Positions && b.data == array) return true;
    return false;
}

} // namespace

cast::Expr lower_in_row_slices(LowerCtx& ctx, const For& loop, const ParallelMark& mark, int slices) {
    const BufferBinding& weight = *mark.weight;
    cast::Expr lo = c_value(ctx, simplify_expr(ctx, loop.lo));
    cast::Expr hi = c_value(ctx, simplify_expr(ctx, loop.hi));
    // Rows that stop early weigh more than their entries (siskin_chunk_first_early).
    const std::string first = std::string(mark.stops_early ? "siskin_chunk_first_early_" : "siskin_chunk_first_") +
                              (weight.type == ValueType::Int64 ? "i64" : "i32");
    std::string name = ctx.fresh("slice");
    cast::Expr slice = cast::var(name);
    auto run_start = [&](const cast::Expr& k) {
        return cast::call(first, {weight.data_var(), lo, hi, k, c_int(slices)});
    };
    std::vector<cast::Stmt> each = ctx.capture([&] {
        cast::Expr from = ctx.local(loop.index + "_first", run_start(slice));
        cast::Expr to = ctx.local(loop.index + "_end", run_start(c_add(slice, 1)));
        Prover& pr = ctx.prover();
        size_t facts = pr.mark();
        pr.assume_le(lo, from);
        pr.assume_le(from, to);
        pr.assume_le(to, hi);
        lower_body(ctx, std::make_shared<For>(loop.index, CValue::make(from, ValueType::Int64),
                                              CValue::make(to, ValueType::Int64), loop.body));
        pr.rollback(facts);
    });
    // The rows' loop closes an appended vector's fibre after them (positions[1] = its count):
    // once after the runs, when the count is the whole.
    std::vector<cast::Stmt> closing;
    while (!each.empty() && closes_vector(each.back(), mark)) {
        closing.insert(closing.begin(), each.back());
        each.pop_back();
    }
    ctx.emit(cast::For::make(cast::Decl::make(cast::Type::of(ValueType::Int64), name, c_int(0)),
                             cast::bin(cast::BinaryOp::Lt, slice, c_int(slices)), cast::Increment::make(slice),
                             cast::Block::make(std::move(each))));
    ctx.emit(closing);
    return row_loop_work(&weight, lo, hi, mark.stops_early);
}

} // namespace siskin::compiler
