// Block copies of CSR rows and COO entries (see block_copy.hpp).
#include "compiler/block_copy.hpp"

#include <limits>

#include "compiler/lower.hpp"
#include "lowering/index_wrapper.hpp"
#include "levels/level_codegen.hpp"
#include "lowering/range_loop.hpp"
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

/// The name of the column coordinates' buffer.
const char* column_buffer(Layout layout) { return layout == Layout::Csr ? "crd" : "crd1"; }

/// A tensor's number of columns.
cast::Expr columns(const TensorBinding& t, Layout layout) {
    return layout == Layout::Csr ? t.level_dim(1) : t.level_dim(0, 1);
}

bool at_root(const Fiber& f) {
    return f.level == 0 && f.sub == 0 && f.pos.size() == 1 && c_constant(f.pos[0]) == 0;
}

// The index of subscript s when it is a plain index, or a window of step 1 (its first coordinate
// in `first`); nullopt otherwise.
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

cast::Expr all_of(const std::vector<cast::Expr>& tests) {
    cast::Expr all = tests.front();
    for (size_t k = 1; k < tests.size(); ++k) all = bin(BinaryOp::LogAnd, all, tests[k]);
    return all;
}

cast::Expr le(const cast::Expr& a, const cast::Expr& b) { return bin(BinaryOp::Le, a, b); }

// One operand of a block copy: the loop over its columns and the copy in it,
//   for j in lo:hi { C[i(first:...), j(shift:...)] = T[i, j] }
struct Operand {
    const For* cols;
    const TensorBinding* tensor;
    cast::Expr shift; // the first column of C it writes
    bool plain;       // C's column subscript is j itself (shift 0)
};

// A nest the block copy moves: for i in lo:hi { the operands' column loops, one after another },
// every operand stored in C's layout, index width, type and fill.
struct Nest {
    const For* rows;
    const TensorBinding* out;
    Layout layout;
    cast::Expr first; // the first row of C it writes
    std::vector<Operand> operands;
};

// The column loop `cols` copying one operand into rows i(first:...) of C, or nullopt.
std::optional<Operand> operand_of(const For* rows, const For* cols, const TensorBinding** C,
                                  std::optional<cast::Expr>* first) {
    const auto* copy = cols ? cols->body->as<Assign>() : nullptr;
    if (!copy || copy->op || !is_closed(cols->lo) || !is_closed(cols->hi)) return std::nullopt;
    const auto* out = copy->lhs->as<Fiber>();
    const auto* in = copy->rhs->as<Fiber>();
    if (!out || !in || !out->write || in->write || !at_root(*out) || !at_root(*in)) return std::nullopt;
    if (*C && *C != out->tensor) return std::nullopt;
    *C = out->tensor;
    Operand o{cols, in->tensor, c_int(0), false};
    cast::Expr row_first = c_int(0);
    if (out->subscripts.size() != 2 || in->subscripts.size() != 2 ||
        plain_or_shifted(out->subscripts[0], &row_first) != rows->index ||
        plain_or_shifted(out->subscripts[1], &o.shift) != cols->index ||
        plain_or_shifted(in->subscripts[0], nullptr) != rows->index ||
        plain_or_shifted(in->subscripts[1], nullptr) != cols->index)
        return std::nullopt;
    // Every operand writes the same rows of C.
    if (*first && c_constant(c_sub(row_first, **first)) != 0) return std::nullopt;
    *first = row_first;
    o.plain = plain_or_shifted(out->subscripts[1], nullptr).has_value();
    return o;
}

std::optional<Nest> nest_of(const LStmt& s) {
    const auto* rows = s->as<For>();
    if (!rows || !is_closed(rows->lo) || !is_closed(rows->hi)) return std::nullopt;
    std::vector<const For*> loops;
    if (const auto* one = rows->body->as<For>()) {
        loops.push_back(one);
    } else if (const auto* block = rows->body->as<Block>()) {
        for (const LStmt& st : block->stmts) {
            if (is_nothing(st)) continue;
            const auto* loop = st->as<For>();
            if (!loop) return std::nullopt;
            loops.push_back(loop);
        }
    }
    if (loops.empty()) return std::nullopt;
    Nest nest{rows, nullptr, Layout::Csr, c_int(0), {}};
    std::optional<cast::Expr> first;
    for (const For* cols : loops) {
        std::optional<Operand> o = operand_of(rows, cols, &nest.out, &first);
        if (!o) return std::nullopt;
        nest.operands.push_back(*o);
    }
    nest.first = *first;
    const TensorBinding& C = *nest.out;
    const std::optional<Layout> layout = layout_of(C);
    if (!layout || C.keep_contents || C.workspace || C.fill.is_nan()) return std::nullopt;
    nest.layout = *layout;
    const int crd_level = column_level(*layout);
    for (const Operand& o : nest.operands) {
        const TensorBinding& T = *o.tensor;
        if (&C == &T || layout_of(T) != layout || C.type != T.type || !C.fill.same(T.fill) ||
            T.index_type(crd_level) != C.index_type(crd_level))
            return std::nullopt;
    }
    return nest;
}

// What a block copy needs from the lowered nest and the kernel around it.
struct Copy {
    const Nest& nest;
    LowerCtx& ctx;
    const TensorBinding& C;
    bool csr;
    int crd_level;
    cast::Type index;
    int64_t index_max;
    cast::Expr lo, hi, count;

    Copy(LowerCtx& c, const Nest& n)
        : nest(n), ctx(c), C(*n.out), csr(n.layout == Layout::Csr), crd_level(column_level(n.layout)),
          index(cast::Type::of(C.index_type(crd_level))),
          index_max(C.index_type(crd_level) == ValueType::Int32 ? std::numeric_limits<int32_t>::max()
                                                                 : std::numeric_limits<int64_t>::max()),
          lo(c_value(c, n.rows->lo)), hi(c_value(c, n.rows->hi)), count(c.level_var(C, crd_level, "count")) {}

    cast::Expr pos(const TensorBinding& t) const { return t.buffer(crd_level, "pos").data_var(); }
    cast::Expr crd(const TensorBinding& t) const { return t.buffer(crd_level, column_buffer(nest.layout)).data_var(); }
    cast::Expr rows(const TensorBinding& t) const { return t.buffer(0, "crd0").data_var(); }

    // What the compiler cannot know, tested when the kernel runs: the rows of every operand
    // that the loops cover, their columns, and (with several operands or a shifted column) that
    // each operand's columns land in C past the one before, in C's columns.
    cast::Expr covered() const {
        std::vector<cast::Expr> ok{le(c_int(0), lo), le(lo, hi)};
        const bool shifted = nest.operands.size() > 1 || !nest.operands[0].plain;
        for (size_t k = 0; k < nest.operands.size(); ++k) {
            const Operand& o = nest.operands[k];
            ok.push_back(le(hi, o.tensor->level_dim(0)));
            ok.push_back(le(c_value(ctx, o.cols->lo), c_int(0)));
            ok.push_back(le(columns(*o.tensor, nest.layout), c_value(ctx, o.cols->hi)));
            if (!shifted) continue;
            cast::Expr end = c_add(o.shift, columns(*o.tensor, nest.layout));
            ok.push_back(k == 0 ? le(c_int(0), o.shift) : le(c_add(nest.operands[k - 1].shift,
                                                                   columns(*nest.operands[k - 1].tensor, nest.layout)),
                                                             o.shift));
            if (k + 1 == nest.operands.size()) ok.push_back(le(end, columns(C, nest.layout)));
        }
        if (shifted) ok.push_back(bin(BinaryOp::LogAnd, le(c_int(0), nest.first), le(c_add(nest.first, hi), C.level_dim(0))));
        // A COO copy writes C's row coordinates first + r: the last must fit C's index type.
        if (!csr) ok.push_back(le(c_add(nest.first, hi), c_int(index_max)));
        return all_of(ok);
    }

    // Operand T's entries of rows lo..hi-1: positions [start, end) (declared here, each 0 unless
    // `bulk`).
    void entries(const TensorBinding& T, const cast::Expr& bulk, const std::string& start, const std::string& end) const {
        auto i64 = cast::Type::of(ValueType::Int64);
        cast::Expr vstart = cast::var(start);
        if (csr) {
            ctx.emit(cast::Decl::make(i64, start, cast::Ternary::make(bulk, cast::at(pos(T), lo), c_int(0))));
            ctx.emit(cast::Decl::make(i64, end, cast::Ternary::make(bulk, cast::at(pos(T), hi), c_int(0))));
            return;
        }
        // T's rows are sorted: rows lo..hi-1 lie between the first entries at or past lo and hi.
        std::string search = "siskin_lower_bound_" + std::string(levels::search_suffix(C.index_type(0)));
        cast::Expr last = cast::at(pos(T), c_int(1));
        auto lower_bound = [&](const cast::Expr& from, const cast::Expr& row) {
            return cast::call(search, {rows(T), from, last, cast::Cast::make(index, row)});
        };
        ctx.emit(cast::Decl::make(i64, start, cast::Ternary::make(bulk, lower_bound(cast::at(pos(T), c_int(0)), lo), c_int(0))));
        ctx.emit(cast::Decl::make(i64, end, cast::Ternary::make(bulk, lower_bound(vstart, hi), c_int(0))));
    }

    // Room for n more entries in C's coordinate and value buffers.
    void reserve(std::vector<cast::Stmt>& block, const cast::Expr& n) const {
        std::vector<const BufferBinding*> written{&C.buffer(crd_level, column_buffer(nest.layout)), &*C.values};
        if (!csr) written.push_back(&C.buffer(0, "crd0"));
        for (const BufferBinding* b : written)
            for (auto& r : ctx.reserve(*b, c_add(count, n), /*written_first=*/true)) block.push_back(std::move(r));
    }

    // `has_fill |= v == fill`: a stored value equal to the fill, which the lowered loops would
    // drop (an int OR, which the C compiler vectorizes; a bool one it does not).
    cast::Stmt note_fill(const std::string& has_fill, const cast::Expr& v) const {
        return cast::Assign::make(cast::var(has_fill), cast::AssignOp::BitOr,
                                  bin(BinaryOp::Eq, v, cast::lit(C.fill.cast(C.type))));
    }
};

// One operand whose rows C takes unchanged (a vstack's phase): its entries as one block, C's row
// positions T's shifted by the entries before them (CSR), or its row coordinates T's plus first
// (COO), its column coordinates and values T's copied whole.
void copy_one_block(const Copy& c, std::vector<cast::Stmt> fallback) {
    LowerCtx& ctx = c.ctx;
    const TensorBinding& C = c.C;
    const TensorBinding& T = *c.nest.operands[0].tensor;
    const cast::Expr& count = c.count;
    std::string start = ctx.fresh("block_start"), end = ctx.fresh("block_end"), bulk = ctx.fresh("block");
    std::string has_fill = ctx.fresh("block_fill");
    cast::Expr vstart = cast::var(start), vbulk = cast::var(bulk);
    ctx.emit(cast::Decl::make(cast::Type::of(ValueType::Bool), bulk, c.covered()));
    c.entries(T, vbulk, start, end);
    cast::Expr vn = ctx.local("block_n", c_sub(cast::var(end), vstart));
    // The last position must fit C's index type (else the lowered loops report the overflow).
    ctx.emit(cast::assign(vbulk, bin(BinaryOp::LogAnd, vbulk, le(vn, c_sub(c_int(c.index_max), count)))));

    std::vector<cast::Stmt> block;
    c.reserve(block, vn);
    // One pass copies the entries (past C's: the lowered loops overwrite them if need be) and
    // notes stored fills; a COO copy's row coordinates are T's moved down by the rows before the
    // window, in C's index type (one width added and stored).
    block.push_back(cast::Decl::make(cast::Type::of(ValueType::Int32), has_fill, c_int(0)));
    std::string shift = c.csr ? "" : ctx.fresh("block_shift");
    if (!c.csr) block.push_back(cast::Decl::make(c.index, shift, cast::Cast::make(c.index, c.nest.first)));
    block.push_back(range_loop(ctx, c_int(0), vn, [&](const cast::Expr& k) {
        cast::Expr v = cast::at(T.values->data_var(), c_add(vstart, k));
        std::vector<cast::Stmt> per_entry{
            cast::assign(cast::at(c.crd(C), c_add(count, k)), cast::at(c.crd(T), c_add(vstart, k))),
            cast::assign(cast::at(C.values->data_var(), c_add(count, k)), v), c.note_fill(has_fill, v)};
        if (!c.csr)
            per_entry.push_back(cast::assign(
                cast::at(c.rows(C), c_add(count, k)),
                cast::Cast::make(c.index, c_add(cast::at(c.rows(T), c_add(vstart, k)), cast::var(shift)))));
        return per_entry;
    }));
    std::vector<cast::Stmt> commit;
    if (c.csr) {
        // Row r of T ends at position pos[r + 1] of C's row first + r, shifted past what C holds.
        commit.push_back(range_loop(ctx, c.lo, c.hi, [&](const cast::Expr& r) {
            cast::Expr row_end = c_add(c_sub(cast::at(c.pos(T), c_add(r, 1)), vstart), count);
            return std::vector<cast::Stmt>{cast::assign(cast::at(c.pos(C), c_add(c_add(c.nest.first, r), 1)),
                                                        cast::Cast::make(c.index, row_end))};
        }));
    }
    commit.push_back(cast::Assign::make(count, cast::AssignOp::Add, vn));
    // The root fibre of a coo level ends where its entries do (the lowered nest closes it so).
    if (!c.csr) commit.push_back(cast::assign(cast::at(c.pos(C), c_int(1)), count));
    block.push_back(cast::If::make(cast::un(cast::UnaryOp::Not, cast::var(has_fill)), cast::Block::make(std::move(commit)),
                                   cast::assign(vbulk, cast::lit(Scalar::of(false)))));
    ctx.emit(cast::If::make(vbulk, cast::Block::make(std::move(block))));
    ctx.emit(cast::If::make(cast::un(cast::UnaryOp::Not, vbulk), cast::Block::make(std::move(fallback))));
}

// Several operands side by side (an hstack), or one whose columns move: row by row, each
// operand's entries of the row with its columns shifted, in one pass over the entries. CSR
// operands find a row's entries by their positions, COO operands by walking their row
// coordinates together (a merge on the row, so rows stored by no operand cost nothing); C's
// buffers are reserved once for exactly the entries copied.
void copy_rows(const Copy& c, std::vector<cast::Stmt> fallback) {
    LowerCtx& ctx = c.ctx;
    const TensorBinding& C = c.C;
    const cast::Expr& count = c.count;
    auto i64 = cast::Type::of(ValueType::Int64);
    const size_t operands = c.nest.operands.size();
    std::string bulk = ctx.fresh("block"), has_fill = ctx.fresh("block_fill");
    cast::Expr vbulk = cast::var(bulk);
    ctx.emit(cast::Decl::make(cast::Type::of(ValueType::Bool), bulk, c.covered()));
    std::vector<cast::Expr> start, end;
    cast::Expr n = c_int(0);
    for (const Operand& o : c.nest.operands) {
        std::string s = ctx.fresh("block_start"), e = ctx.fresh("block_end");
        c.entries(*o.tensor, vbulk, s, e);
        start.push_back(cast::var(s));
        end.push_back(cast::var(e));
        n = c_add(n, c_sub(end.back(), start.back()));
    }
    cast::Expr vn = ctx.local("block_n", n);
    ctx.emit(cast::assign(vbulk, bin(BinaryOp::LogAnd, vbulk, le(vn, c_sub(c_int(c.index_max), count)))));

    std::vector<cast::Stmt> block;
    c.reserve(block, vn);
    block.push_back(cast::Decl::make(cast::Type::of(ValueType::Int32), has_fill, c_int(0)));
    std::vector<cast::Expr> shift;
    for (const Operand& o : c.nest.operands) {
        std::string name = ctx.fresh("block_shift");
        block.push_back(cast::Decl::make(c.index, name, cast::Cast::make(c.index, o.shift)));
        shift.push_back(cast::var(name));
    }
    std::string q_name = ctx.fresh("q");
    cast::Expr q = cast::var(q_name);
    block.push_back(cast::Decl::make(i64, q_name, count));
    // Entry p of operand k goes to q: its column shifted, its value copied and tested.
    auto copy_entry = [&](size_t k, const cast::Expr& p, const cast::Expr& to) {
        const TensorBinding& T = *c.nest.operands[k].tensor;
        cast::Expr v = cast::at(T.values->data_var(), p);
        return std::vector<cast::Stmt>{
            cast::assign(cast::at(c.crd(C), to), cast::Cast::make(c.index, c_add(cast::at(c.crd(T), p), shift[k]))),
            cast::assign(cast::at(C.values->data_var(), to), v), c.note_fill(has_fill, v)};
    };
    if (c.csr) {
        // A row's entries of operand k are pos[r]..pos[r+1]: a counted loop each, so the C
        // compiler vectorizes the copy.
        block.push_back(range_loop(ctx, c.lo, c.hi, [&](const cast::Expr& r) {
            std::vector<cast::Stmt> row;
            for (size_t k = 0; k < operands; ++k) {
                const TensorBinding& T = *c.nest.operands[k].tensor;
                std::string b = ctx.fresh("row_start"), d = ctx.fresh("to");
                row.push_back(cast::Decl::make(i64, b, cast::at(c.pos(T), r)));
                row.push_back(cast::Decl::make(i64, d, c_sub(q, cast::var(b))));
                cast::Expr row_end = cast::at(c.pos(T), c_add(r, 1));
                row.push_back(range_loop(ctx, cast::var(b), row_end, [&](const cast::Expr& p) {
                    return copy_entry(k, p, c_add(p, cast::var(d)));
                }));
                row.push_back(cast::assign(q, c_add(row_end, cast::var(d))));
            }
            return row;
        }));
    } else {
        // The next row any operand stores, then each operand's run of entries in it.
        std::string row_name = ctx.fresh("row"), to_name = ctx.fresh("row_to"), q_end = ctx.fresh("q_end");
        cast::Expr row = cast::var(row_name);
        block.push_back(cast::Decl::make(i64, q_end, c_add(count, vn)));
        std::vector<cast::Stmt> step{cast::Decl::make(c.index, row_name, cast::lit(Scalar::of(c.index_max).cast(C.index_type(0))))};
        for (size_t k = 0; k < operands; ++k) {
            cast::Expr head = cast::at(c.rows(*c.nest.operands[k].tensor), start[k]);
            step.push_back(cast::If::make(bin(BinaryOp::LogAnd, bin(BinaryOp::Lt, start[k], end[k]), bin(BinaryOp::Lt, head, row)),
                                          cast::assign(row, head)));
        }
        step.push_back(cast::Decl::make(c.index, to_name, cast::Cast::make(c.index, c_add(row, c.nest.first))));
        for (size_t k = 0; k < operands; ++k) {
            const TensorBinding& T = *c.nest.operands[k].tensor;
            std::vector<cast::Stmt> entry = copy_entry(k, start[k], q);
            entry.push_back(cast::assign(cast::at(c.rows(C), q), cast::var(to_name)));
            entry.push_back(cast::Increment::make(start[k]));
            entry.push_back(cast::Increment::make(q));
            step.push_back(cast::While::make(
                bin(BinaryOp::LogAnd, bin(BinaryOp::Lt, start[k], end[k]), bin(BinaryOp::Eq, cast::at(c.rows(T), start[k]), row)),
                cast::Block::make(std::move(entry))));
        }
        block.push_back(cast::While::make(bin(BinaryOp::Lt, q, cast::var(q_end)), cast::Block::make(std::move(step))));
    }
    std::vector<cast::Stmt> commit;
    if (c.csr) {
        // Row first + r of C ends past the entries of rows lo..r of every operand.
        commit.push_back(cast::assign(q, count));
        commit.push_back(range_loop(ctx, c.lo, c.hi, [&](const cast::Expr& r) {
            cast::Expr len = c_int(0);
            for (const Operand& o : c.nest.operands)
                len = c_add(len, c_sub(cast::at(c.pos(*o.tensor), c_add(r, 1)), cast::at(c.pos(*o.tensor), r)));
            return std::vector<cast::Stmt>{
                cast::Assign::make(q, cast::AssignOp::Add, len),
                cast::assign(cast::at(c.pos(C), c_add(c_add(c.nest.first, r), 1)), cast::Cast::make(c.index, q))};
        }));
    }
    commit.push_back(cast::Assign::make(count, cast::AssignOp::Add, vn));
    if (!c.csr) commit.push_back(cast::assign(cast::at(c.pos(C), c_int(1)), count));
    block.push_back(cast::If::make(cast::un(cast::UnaryOp::Not, cast::var(has_fill)), cast::Block::make(std::move(commit)),
                                   cast::assign(vbulk, cast::lit(Scalar::of(false)))));
    ctx.emit(cast::If::make(vbulk, cast::Block::make(std::move(block))));
    ctx.emit(cast::If::make(cast::un(cast::UnaryOp::Not, vbulk), cast::Block::make(std::move(fallback))));
}

} // namespace

bool lower_block_copy(LowerCtx& ctx, const LStmt& s) {
    std::optional<Nest> nest = nest_of(s);
    if (!nest) return false;
    // The nest as lowered: what runs when a test fails.
    std::vector<cast::Stmt> fallback = ctx.capture([&] { lower_body(ctx, s); });
    Copy c(ctx, *nest);
    if (nest->operands.size() == 1 && nest->operands[0].plain)
        copy_one_block(c, std::move(fallback));
    else
        copy_rows(c, std::move(fallback));
    return true;
}

} // namespace siskin::compiler
