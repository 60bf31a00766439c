// Block copies of CSR rows (see block_copy.hpp).
#include "compiler/block_copy.hpp"

#include <limits>

#include "compiler/lower.hpp"
#include "lowering/index_wrapper.hpp"
#include "levels/level_codegen.hpp"
#include "lowering/tensor_binding.hpp"

namespace siskin::compiler {

namespace {

using cast::BinaryOp;
using cast::bin;

// The two layouts a block copy moves, both in mode order (0, 1): CSR (dense rows over a
// sparselist: the entries of rows lo..hi-1 are positions pos[lo]..pos[hi]) and COO (one coo
// level over both modes: they are the positions whose row coordinate lies in lo..hi-1, found by
// binary search, since the rows are sorted).
enum class Layout { Csr, Coo };

std::optional<Layout> layout_of(const TensorBinding& t) {
    const auto& l = t.format.levels();
    if (t.format.leaf() != Leaf::Element || !t.values.has_value()) return std::nullopt;
    if (l.size() == 2 && l[0].kind == "dense" && l[0].modes == std::vector<int>{0} && l[1].kind == "sparselist" &&
        l[1].modes == std::vector<int>{1})
        return Layout::Csr;
    if (l.size() == 1 && l[0].kind == "coo" && l[0].modes == std::vector<int>{0, 1}) return Layout::Coo;
    return std::nullopt;
}

/// The level holding the column coordinates.
int column_level(Layout layout) { return layout == Layout::Csr ? 1 : 0; }

bool at_root(const Fiber& f) {
    return f.level == 0 && f.sub == 0 && f.pos.size() == 1 && c_constant(f.pos[0]) == 0;
}

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
    const std::optional<Layout> layout = layout_of(C);
    if (&C == &T || !layout || layout_of(T) != layout || C.keep_contents || C.workspace || C.type != T.type ||
        !C.fill.same(T.fill) || C.fill.is_nan())
        return false;
    const int crd_level = column_level(*layout);
    const ValueType itype = C.index_type(crd_level);
    if (T.index_type(crd_level) != itype) return false;
    cast::Expr first = c_int(0);
    if (out->subscripts.size() != 2 || in->subscripts.size() != 2 ||
        plain_or_shifted(out->subscripts[0], &first) != rows->index ||
        plain_or_shifted(out->subscripts[1], nullptr) != cols->index ||
        plain_or_shifted(in->subscripts[0], nullptr) != rows->index ||
        plain_or_shifted(in->subscripts[1], nullptr) != cols->index)
        return false;

    // The nest as lowered: what runs when a test below fails.
    std::vector<cast::Stmt> fallback = ctx.capture([&] { lower_body(ctx, s); });

    const bool csr = *layout == Layout::Csr;
    cast::Expr lo = c_value(ctx, rows->lo), hi = c_value(ctx, rows->hi);
    cast::Expr col_lo = c_value(ctx, cols->lo), col_hi = c_value(ctx, cols->hi);
    cast::Expr t_pos = T.buffer(crd_level, "pos").data_var();
    cast::Expr t_crd = T.buffer(crd_level, csr ? "crd" : "crd1").data_var();
    cast::Expr t_vals = T.values->data_var();
    const BufferBinding& c_crd = C.buffer(crd_level, csr ? "crd" : "crd1");
    const BufferBinding& c_vals = *C.values;
    cast::Expr count = ctx.level_var(C, crd_level, "count");
    auto i64 = cast::Type::of(ValueType::Int64);
    auto index = cast::Type::of(itype);
    int64_t index_max = itype == ValueType::Int32 ? std::numeric_limits<int32_t>::max()
                                                  : std::numeric_limits<int64_t>::max();

    // Entries [start, start + n) of T are rows lo..hi-1.
    std::string start = ctx.fresh("block_start"), n = ctx.fresh("block_n"), bulk = ctx.fresh("block");
    std::string has_fill = ctx.fresh("block_fill"), k = ctx.fresh("k");
    cast::Expr vk = cast::var(k), vn = cast::var(n), vstart = cast::var(start), vbulk = cast::var(bulk);
    cast::Expr rows_ok = bin(BinaryOp::LogAnd, bin(BinaryOp::Le, c_int(0), lo),
                             bin(BinaryOp::LogAnd, bin(BinaryOp::Le, lo, hi), bin(BinaryOp::Le, hi, T.level_dim(0))));
    cast::Expr cols_ok = bin(BinaryOp::LogAnd, bin(BinaryOp::Le, col_lo, c_int(0)),
                             bin(BinaryOp::Ge, col_hi, T.level_dim(crd_level, csr ? 0 : 1)));
    cast::Expr ok = bin(BinaryOp::LogAnd, rows_ok, cols_ok);
    // A COO copy writes C's row coordinates first + r: the last must fit C's index type.
    if (!csr) ok = bin(BinaryOp::LogAnd, ok, bin(BinaryOp::Le, c_add(first, hi), c_int(index_max)));
    ctx.emit(cast::Decl::make(cast::Type::of(ValueType::Bool), bulk, ok));
    if (csr) {
        ctx.emit(cast::Decl::make(i64, start, cast::Ternary::make(vbulk, cast::at(t_pos, lo), c_int(0))));
        ctx.emit(cast::Decl::make(i64, n, cast::Ternary::make(vbulk, c_sub(cast::at(t_pos, hi), vstart), c_int(0))));
    } else {
        // T's rows are sorted: rows lo..hi-1 lie between the first entries at or past lo and hi.
        std::string search = "siskin_lower_bound_" + std::string(levels::search_suffix(itype));
        cast::Expr t_rows = T.buffer(0, "crd0").data_var();
        cast::Expr begin = cast::at(t_pos, c_int(0)), end = cast::at(t_pos, c_int(1));
        auto lower_bound = [&](const cast::Expr& from, const cast::Expr& row) {
            return cast::call(search, {t_rows, from, end, cast::Cast::make(index, row)});
        };
        ctx.emit(cast::Decl::make(i64, start, cast::Ternary::make(vbulk, lower_bound(begin, lo), c_int(0))));
        ctx.emit(cast::Decl::make(i64, n, cast::Ternary::make(vbulk, c_sub(lower_bound(vstart, hi), vstart), c_int(0))));
    }
    // The last position must fit C's index type (else the lowered loops report the overflow).
    ctx.emit(cast::assign(vbulk, bin(BinaryOp::LogAnd, vbulk,
                                     bin(BinaryOp::Le, vn, c_sub(c_int(index_max), count)))));

    std::vector<cast::Stmt> block;
    std::vector<const BufferBinding*> written{&c_crd, &c_vals};
    if (!csr) written.push_back(&C.buffer(0, "crd0"));
    for (const BufferBinding* b : written)
        for (auto& r : ctx.reserve(*b, c_add(count, vn), /*written_first=*/true)) block.push_back(std::move(r));
    // One pass copies the entries (past C's: the lowered loops overwrite them if need be) and
    // notes a stored value equal to the fill, which the lowered loops would drop: any such sends
    // the rows there. The note is an int OR, which the C compiler vectorizes (a bool one it does
    // not); a COO copy's row coordinates are T's moved down by the rows before the window, in
    // C's index type (one width added and stored).
    block.push_back(cast::Decl::make(cast::Type::of(ValueType::Int32), has_fill, c_int(0)));
    cast::Expr v = cast::at(t_vals, c_add(vstart, vk));
    std::vector<cast::Stmt> per_entry{
        cast::assign(cast::at(c_crd.data_var(), c_add(count, vk)), cast::at(t_crd, c_add(vstart, vk))),
        cast::assign(cast::at(c_vals.data_var(), c_add(count, vk)), v),
        cast::Assign::make(cast::var(has_fill), cast::AssignOp::BitOr,
                           bin(BinaryOp::Eq, v, cast::lit(T.fill.cast(T.type))))};
    if (!csr) {
        std::string shift = ctx.fresh("block_shift");
        block.push_back(cast::Decl::make(index, shift, cast::Cast::make(index, first)));
        per_entry.push_back(cast::assign(
            cast::at(C.buffer(0, "crd0").data_var(), c_add(count, vk)),
            cast::Cast::make(index, c_add(cast::at(T.buffer(0, "crd0").data_var(), c_add(vstart, vk)),
                                          cast::var(shift)))));
    }
    block.push_back(counted_loop(k, c_int(0), vn, cast::Block::make(std::move(per_entry))));
    std::vector<cast::Stmt> commit;
    if (csr) {
        std::string r = ctx.fresh("r");
        cast::Expr vr = cast::var(r);
        // Row r of T ends at position pos[r + 1] of C's row first + r, shifted past what C holds.
        cast::Expr row_end = c_add(c_sub(cast::at(t_pos, c_add(vr, 1)), vstart), count);
        commit.push_back(counted_loop(r, lo, hi,
                                      cast::assign(cast::at(C.buffer(1, "pos").data_var(), c_add(c_add(first, vr), 1)),
                                                   cast::Cast::make(index, row_end))));
    }
    commit.push_back(cast::Assign::make(count, cast::AssignOp::Add, vn));
    // The root fibre of a coo level ends where its entries do (the lowered nest closes it so).
    if (!csr) commit.push_back(cast::assign(cast::at(C.buffer(0, "pos").data_var(), c_int(1)), count));
    block.push_back(cast::If::make(cast::un(cast::UnaryOp::Not, cast::var(has_fill)), cast::Block::make(std::move(commit)),
                                   cast::assign(vbulk, cast::lit(Scalar::of(false)))));
    ctx.emit(cast::If::make(vbulk, cast::Block::make(std::move(block))));
    ctx.emit(cast::If::make(cast::un(cast::UnaryOp::Not, vbulk), cast::Block::make(std::move(fallback))));
    return true;
}

} // namespace siskin::compiler
