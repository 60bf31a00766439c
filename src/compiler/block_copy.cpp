// Block copies of CSR rows (see block_copy.hpp).
#include "compiler/block_copy.hpp"

#include <limits>

#include "compiler/lower.hpp"
#include "lowering/index_wrapper.hpp"
#include "lowering/tensor_binding.hpp"

namespace siskin::compiler {

namespace {

using cast::BinaryOp;
using cast::bin;

bool is_csr(const TensorBinding& t) {
    const auto& l = t.format.levels();
    return t.format.leaf() == Leaf::Element && l.size() == 2 && l[0].kind == "dense" &&
           l[0].modes == std::vector<int>{0} && l[1].kind == "sparselist" && l[1].modes == std::vector<int>{1} &&
           t.values.has_value();
}

bool at_root(const Fiber& f) { return f.level == 0 && f.pos.size() == 1 && c_constant(f.pos[0]) == 0; }

// The index of subscript s when it is a plain index, or a window of step 1 (its first row in
// `first`); nullopt otherwise.
std::optional<std::string> plain_or_shifted(const LExpr& s, cast::Expr* first) {
    const auto* idx = s->as<Index>();
    if (!idx) return std::nullopt;
    if (!idx->wrapper) return first ? (*first = c_int(0), idx->name) : idx->name;
    if (!first || idx->wrapper->reads_backwards()) return std::nullopt;
    cast::Expr f = idx->wrapper->coordinate(c_int(0));
    if (c_constant(c_sub(idx->wrapper->coordinate(c_int(1)), f)) != 1) return std::nullopt;
    *first = f;
    return idx->name;
}

cast::Stmt counted_loop(const std::string& k, const cast::Expr& lo, const cast::Expr& hi, cast::Stmt body) {
    auto i64 = cast::Type::of(ValueType::Int64);
    return cast::For::make(cast::Decl::make(i64, k, lo), bin(BinaryOp::Lt, cast::var(k), hi),
                           cast::Increment::make(cast::var(k)), std::move(body));
}

} // namespace

bool lower_block_copy(LowerCtx& ctx, const LStmt& s) {
    const auto* rows = s->as<For>();
    const auto* cols = rows ? rows->body->as<For>() : nullptr;
    const auto* copy = cols ? cols->body->as<Assign>() : nullptr;
    if (!copy || copy->op || !is_closed(rows->lo) || !is_closed(rows->hi) || !is_closed(cols->lo) ||
        !is_closed(cols->hi))
        return false;
    const auto* out = copy->lhs->as<Fiber>();
    const auto* in = copy->rhs->as<Fiber>();
    if (!out || !in || !out->write || in->write || !at_root(*out) || !at_root(*in)) return false;
    const TensorBinding& C = *out->tensor;
    const TensorBinding& T = *in->tensor;
    if (&C == &T || !is_csr(C) || !is_csr(T) || C.keep_contents || C.workspace || C.type != T.type ||
        !C.fill.same(T.fill) || C.fill.is_nan() || T.index_type(1) != C.index_type(1))
        return false;
    cast::Expr first = c_int(0);
    if (out->subscripts.size() != 2 || in->subscripts.size() != 2 ||
        plain_or_shifted(out->subscripts[0], &first) != rows->index ||
        plain_or_shifted(out->subscripts[1], nullptr) != cols->index ||
        plain_or_shifted(in->subscripts[0], nullptr) != rows->index ||
        plain_or_shifted(in->subscripts[1], nullptr) != cols->index)
        return false;

    // The nest as lowered: what runs when a test below fails.
    std::vector<cast::Stmt> fallback = ctx.capture([&] { lower_body(ctx, s); });

    cast::Expr lo = c_value(ctx, rows->lo), hi = c_value(ctx, rows->hi);
    cast::Expr col_lo = c_value(ctx, cols->lo), col_hi = c_value(ctx, cols->hi);
    cast::Expr t_pos = T.buffer(1, "pos").data_var(), t_crd = T.buffer(1, "crd").data_var();
    cast::Expr t_vals = T.values->data_var();
    const BufferBinding& c_pos = C.buffer(1, "pos");
    const BufferBinding& c_crd = C.buffer(1, "crd");
    const BufferBinding& c_vals = *C.values;
    cast::Expr count = ctx.level_var(C, 1, "count");
    auto i64 = cast::Type::of(ValueType::Int64);
    int64_t position_max = C.index_type(1) == ValueType::Int32 ? std::numeric_limits<int32_t>::max()
                                                                : std::numeric_limits<int64_t>::max();

    // Entries [start, start + n) of T are rows lo..hi-1.
    std::string start = ctx.fresh("block_start"), n = ctx.fresh("block_n"), bulk = ctx.fresh("block");
    std::string has_fill = ctx.fresh("block_fill"), k = ctx.fresh("k");
    cast::Expr vk = cast::var(k), vn = cast::var(n), vstart = cast::var(start), vbulk = cast::var(bulk);
    cast::Expr rows_ok = bin(BinaryOp::LogAnd, bin(BinaryOp::Le, c_int(0), lo),
                             bin(BinaryOp::LogAnd, bin(BinaryOp::Le, lo, hi), bin(BinaryOp::Le, hi, T.level_dim(0))));
    cast::Expr cols_ok = bin(BinaryOp::LogAnd, bin(BinaryOp::Le, col_lo, c_int(0)),
                             bin(BinaryOp::Ge, col_hi, T.level_dim(1)));
    ctx.emit(cast::Decl::make(cast::Type::of(ValueType::Bool), bulk, bin(BinaryOp::LogAnd, rows_ok, cols_ok)));
    ctx.emit(cast::Decl::make(i64, start, cast::Ternary::make(vbulk, cast::at(t_pos, lo), c_int(0))));
    ctx.emit(cast::Decl::make(i64, n, cast::Ternary::make(vbulk, c_sub(cast::at(t_pos, hi), vstart), c_int(0))));
    // The last position must fit C's index type (else the lowered loops report the overflow).
    ctx.emit(cast::assign(vbulk, bin(BinaryOp::LogAnd, vbulk,
                                     bin(BinaryOp::Le, vn, c_sub(c_int(position_max), count)))));

    std::vector<cast::Stmt> block = ctx.reserve(c_crd, c_add(count, vn), /*written_first=*/true);
    for (auto& r : ctx.reserve(c_vals, c_add(count, vn), /*written_first=*/true)) block.push_back(std::move(r));
    // One pass copies coordinates and values and notes a stored value equal to the fill, which
    // the lowered loops would drop: any such sends the rows there.
    block.push_back(cast::Decl::make(cast::Type::of(ValueType::Bool), has_fill, cast::lit(Scalar::of(false))));
    cast::Expr v = cast::at(t_vals, c_add(vstart, vk));
    block.push_back(counted_loop(
        k, c_int(0), vn,
        cast::Block::make(std::vector<cast::Stmt>{
            cast::assign(cast::at(c_crd.data_var(), c_add(count, vk)), cast::at(t_crd, c_add(vstart, vk))),
            cast::assign(cast::at(c_vals.data_var(), c_add(count, vk)), v),
            cast::Assign::make(cast::var(has_fill), cast::AssignOp::BitOr,
                               bin(BinaryOp::Eq, v, cast::lit(T.fill.cast(T.type))))})));
    std::string r = ctx.fresh("r");
    cast::Expr vr = cast::var(r);
    // Row r of T ends at position pos[r + 1] of C's row first + r, shifted past what C holds.
    cast::Expr row_end = c_add(c_sub(cast::at(t_pos, c_add(vr, 1)), vstart), count);
    cast::Stmt positions = counted_loop(
        r, lo, hi,
        cast::assign(cast::at(c_pos.data_var(), c_add(c_add(first, vr), 1)),
                     cast::Cast::make(cast::Type::of(C.index_type(1)), row_end)));
    block.push_back(cast::If::make(cast::un(cast::UnaryOp::Not, cast::var(has_fill)),
                                   cast::Block::make(std::vector<cast::Stmt>{positions, cast::Assign::make(count, cast::AssignOp::Add, vn)}),
                                   cast::assign(vbulk, cast::lit(Scalar::of(false)))));
    ctx.emit(cast::If::make(vbulk, cast::Block::make(std::move(block))));
    ctx.emit(cast::If::make(cast::un(cast::UnaryOp::Not, vbulk), cast::Block::make(std::move(fallback))));
    return true;
}

} // namespace siskin::compiler
