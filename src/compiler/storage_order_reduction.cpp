#include "compiler/storage_order_reduction.hpp"

#include <cstdint>
#include <set>
#include <vector>

#include <fmt/format.h>

#include "compiler/early_exit.hpp"
#include "compiler/lower.hpp"
#include "lowering/lower_ctx.hpp"
#include "lowering/range_loop.hpp"
#include "lowering/tensor_binding.hpp"
#include "levels/level_codegen.hpp"
#include "levels/level_format.hpp"
#include "simplify/simplify.hpp"
#include "siskin/error.hpp"
#include "siskin/operators.hpp"
#include "compiler/vocabulary.hpp"

namespace siskin::compiler {

namespace {

// Independent accumulators over a whole tensor; a fibre below the root (a row of `y[i] min=
// A[i,j]`) is usually too short for them to pay.
constexpr int kStreams = 8;
// Steps of the streams between two early-exit tests: the test costs more than the step, so it
// runs once per 8 * 256 elements, and an exit comes at most that many elements late.
constexpr int64_t kExitStride = 256;

struct Nest {
    std::vector<const For*> loops;
    const Assign* assign = nullptr;
    const Fiber* read = nullptr;
};

// The loops of a perfect nest around one reduction, or nullopt.
std::optional<Nest> nest_of(const For& outer) {
    Nest n;
    const For* loop = &outer;
    for (;;) {
        n.loops.push_back(loop);
        const SNode* body = loop->body.get();
        while (const auto* b = body->as<Block>()) {
            if (b->stmts.size() != 1) return std::nullopt;
            body = b->stmts.front().get();
        }
        if (const auto* inner = body->as<For>()) {
            loop = inner;
            continue;
        }
        n.assign = body->as<Assign>();
        if (!n.assign || !n.assign->op) return std::nullopt;
        return n;
    }
}

// The one tensor read on the right side, when everything else there is a constant.
const Fiber* single_read(const Assign& a) {
    const Fiber* read = nullptr;
    bool ok = true;
    visit_expr(a.rhs, [&](const LExpr& e) {
        switch (e->kind) {
        case NodeKind::Literal:
        case NodeKind::Call: return;
        case NodeKind::CValue:
            if (e->as<CValue>()->source == a.tensor) ok = false;
            return;
        case NodeKind::Index: return; // only as the read's subscripts: checked by covers_whole
        case NodeKind::Fiber:
            if (read || e->as<Fiber>()->write) ok = false;
            read = e->as<Fiber>();
            return;
        default: ok = false; return;
        }
    });
    if (!ok || !read || read->tensor == a.tensor) return nullptr;
    return read;
}

// Whether the read covers all of its fibre: each remaining mode indexed by one loop of the nest
// over its whole dimension, no protocol written, every level from there on one whose positions
// form a contiguous range (stored_range, asked with placeholder parents), and no other index on
// the right side.
bool covers_whole(const Nest& n, const Fiber& f) {
    const TensorBinding& t = *f.tensor;
    if (f.sub != 0 || f.pos.size() != 1) return false;
    // A protocol written in the program (`x[walk(i)]`) asks for that traversal of the levels.
    for (const auto& protocol : f.protocols)
        if (!protocol.empty()) return false;
    if (f.subscripts.size() != n.loops.size()) return false;
    int uses = 0;
    visit_expr(n.assign->rhs, [&](const LExpr& e) {
        if (e->as<Index>()) ++uses;
    });
    if (uses != static_cast<int>(f.subscripts.size())) return false;
    std::set<std::string> seen;
    size_t k = 0;
    for (int l = f.level; l < t.num_levels(); ++l) {
        const auto& spec = t.format.levels()[static_cast<size_t>(l)];
        for (size_t m = 0; m < spec.modes.size(); ++m, ++k) {
            if (k >= f.subscripts.size()) return false;
            const auto* idx = f.subscripts[k]->as<Index>();
            if (!idx || idx->wrapper || !seen.insert(idx->name).second) return false;
            const For* loop = nullptr;
            for (const For* candidate : n.loops)
                if (candidate->index == idx->name) loop = candidate;
            if (!loop) return false;
            const auto* lo = loop->lo->as<Literal>();
            const auto* hi = loop->hi->as<CValue>();
            if (!lo || !lo->value.same(Scalar::of(int64_t{0})) || !hi ||
                expr_key(hi->expr) != expr_key(t.level_dim(l, static_cast<int>(m))))
                return false;
        }
        if (!t.level(l).stored_range(t, l, c_int(0), c_int(1))) return false;
    }
    return k == f.subscripts.size();
}

// Whether op may meet the values in any order and the fill any number of times, with an
// accumulator of the right side's type.
bool reorderable(const Assign& a) {
    const Operator& op = *a.op;
    ValueType t = a.rhs->type;
    if (!op.commutative || !op.associative || !op.idempotent || a.lhs->type != t) return false;
    if (!op.reduction_identity(t)) return false;
    std::vector<ValueType> types{t, t};
    return op.result_type(types) == t;
}

cast::Expr as_double(const cast::Expr& e) { return cast::Cast::make(cast::Type::of(ValueType::Float64), e); }

} // namespace

bool lower_storage_order_reduction(LowerCtx& ctx, const For& loop, int slices,
                                   std::optional<cast::Expr>* sliced_work) {
    auto nest = nest_of(loop);
    if (!nest || !reorderable(*nest->assign)) return false;
    for (const For* l : nest->loops)
        if (mentions_index(nest->assign->lhs, l->index)) return false; // x moves with the nest
    const Fiber* read = single_read(*nest->assign);
    if (!read || !covers_whole(*nest, *read)) return false;
    const Assign& a = *nest->assign;
    const TensorBinding& t = *read->tensor;
    const Operator& op = *a.op;
    const ValueType type = a.rhs->type;

    // The leaf positions below the root, level by level; a level with fewer positions than its
    // parents times its extent leaves some element at the fill, but only when there are
    // elements: with an extent of 0 anywhere below (a 3 x 0 dcsr stores no row, and its rows
    // hold nothing), the fill is met nowhere, and the reduction gives its identity.
    cast::Expr lo = read->pos.front(), hi = c_add(lo, 1);
    std::optional<cast::Expr> missing;
    std::optional<cast::Expr> some_element;
    for (int l = read->level; l < t.num_levels(); ++l) {
        const auto& spec = t.format.levels()[static_cast<size_t>(l)];
        for (size_t m = 0; m < spec.modes.size(); ++m) {
            cast::Expr nonzero = cast::bin(cast::BinaryOp::Gt, t.level_dim(l, static_cast<int>(m)), c_int(0));
            some_element = some_element ? cast::bin(cast::BinaryOp::LogAnd, *some_element, nonzero) : nonzero;
        }
        auto range = t.level(l).stored_range(t, l, lo, hi);
        cast::Expr next_lo = ctx.local(t.name + "_first", range->first);
        cast::Expr next_hi = ctx.local(t.name + "_end", range->second);
        if (!t.properties(l).full) {
            // In double: a product of extents may exceed int64, and one that rounds can only
            // be larger than any count of stored positions.
            cast::Expr full = as_double(c_sub(hi, lo));
            for (size_t m = 0; m < spec.modes.size(); ++m)
                full = cast::bin(cast::BinaryOp::Mul, full, as_double(t.level_dim(l, static_cast<int>(m))));
            cast::Expr short_of = cast::bin(cast::BinaryOp::Ne, as_double(c_sub(next_hi, next_lo)), full);
            missing = missing ? cast::bin(cast::BinaryOp::LogOr, *missing, short_of) : short_of;
        }
        lo = next_lo;
        hi = next_hi;
    }
    if (missing && some_element) missing = cast::bin(cast::BinaryOp::LogAnd, *some_element, *missing);

    auto with_read = [&](const LExpr& value) {
        return map_expr(a.rhs, [&](const LExpr& e) { return e.get() == read ? value : e; });
    };
    auto reduce_into_output = [&](const LExpr& rhs) {
        lower_body(ctx, std::make_shared<Assign>(a.tensor, a.lhs, a.op, rhs, a.single_write));
    };
    const LeafCodegen& leaf = t.leaf();

    // The value itself under a float min or max: the prelude's vector loop, no exit test.
    const bool vector_lanes = a.rhs.get() == read && read->level == 0 && (op.name == "min" || op.name == "max") &&
                              is_float(type) && t.values;
    // A walk in slices that may stop early: the variable holding the first slice that reached
    // the exit, shared by the slices (runtime/siskin_reduce.h, siskin_stop_note), and this slice.
    struct SharedExit {
        cast::Expr first, slice;
    };
    // Reduces the stored positions [lo, hi) into the output.
    auto reduce_range = [&](const cast::Expr& lo, const cast::Expr& hi, const std::optional<SharedExit>& shared) {
        if (vector_lanes) {
            const BufferBinding* values = &*t.values;
            cast::Expr all = cast::call(fmt::format("siskin_reduce_{}_{}", op.name, type == ValueType::Float32 ? "f32" : "f64"),
                                        {cast::bin(cast::BinaryOp::Add, values->data_var(), lo), c_sub(hi, lo),
                                         cast::lit(*op.reduction_identity(type))});
            reduce_into_output(CValue::make(all, type)); // the identity (inf) when A stores nothing
        } else {
            auto value_at = [&](const cast::Expr& p) {
                LExpr v = simplify_expr(ctx, with_read(leaf.read(ctx, t, p)));
                SISKIN_ASSERT(is_closed(v), "a storage-order reduction of " + t.name + " left an open value");
                return v;
            };
            std::vector<cast::Expr> acc;
            const int streams = read->level == 0 ? kStreams : 1;
            for (int k = 0; k < streams; ++k)
                acc.push_back(ctx.local("acc", cast::lit(*op.reduction_identity(type)), type));
            auto update = [&](const cast::Expr& into, const cast::Expr& p) {
                return cast::assign(into, ctx.apply(op, {type, type}, {into, c_value(ctx, value_at(p))}));
            };
            auto exit = early_exit_of(loop);
            auto exit_test = [&] {
                std::optional<cast::Expr> done;
                // choose keeps the first stream's value when it holds one: stopping on a later
                // stream's would give another answer than the loops in order.
                for (int k = 0; k < (keeps_first(op) ? 1 : streams); ++k) {
                    cast::Expr hit = exit_reached(op, *exit, acc[k]);
                    done = done ? cast::bin(cast::BinaryOp::BitOr, *done, hit) : hit;
                }
                if (!shared) return cast::If::make(*done, cast::Break::make());
                cast::Expr first = cast::un(cast::UnaryOp::AddressOf, shared->first);
                return cast::If::make(*done, cast::Block::make({cast::Eval::make(cast::call("siskin_stop_note", {first, shared->slice})),
                                                                cast::Break::make()}));
            };
            // A slice after the first that reached the exit stops (siskin_stop_before).
            auto stop_test = [&] {
                cast::Expr first = cast::un(cast::UnaryOp::AddressOf, shared->first);
                return cast::If::make(cast::call("siskin_stop_before", {first, shared->slice}), cast::Break::make());
            };
            if (streams == 1) {
                // One fibre of a larger nest: a plain loop that may stop at every element.
                ctx.emit(range_loop(ctx, lo, hi, [&](const cast::Expr& p) {
                    std::vector<cast::Stmt> body{update(acc[0], p)};
                    if (exit) body.push_back(exit_test());
                    return body;
                }, "p"));
            } else {
                cast::Expr count = ctx.local(t.name + "_stream",
                                             cast::bin(cast::BinaryOp::Div, c_sub(hi, lo), c_int(streams)));
                std::vector<cast::Expr> start{lo};
                for (int k = 1; k < streams; ++k)
                    start.push_back(ctx.local(t.name + "_start", c_add(start.back(), count)));
                auto steps = [&](const cast::Expr& p) {
                    std::vector<cast::Stmt> out;
                    for (int k = 0; k < streams; ++k) out.push_back(update(acc[k], c_add(start[k], p)));
                    return out;
                };
                if (exit) {
                    std::string chunk_name = ctx.fresh("chunk");
                    cast::Expr chunk = cast::var(chunk_name);
                    cast::Expr chunk_end = cast::call("siskin_min_i64", {c_add(chunk, kExitStride), count});
                    std::vector<cast::Stmt> stride;
                    if (shared) stride.push_back(stop_test());
                    stride.push_back(range_loop(ctx, chunk, chunk_end, steps, "p"));
                    stride.push_back(exit_test());
                    ctx.emit(cast::For::make(
                        cast::Decl::make(cast::Type::of(ValueType::Int64), chunk_name, c_int(0)),
                        cast::bin(cast::BinaryOp::Lt, chunk, count),
                        cast::Assign::make(chunk, cast::AssignOp::Add, c_int(kExitStride)),
                        cast::Block::make(std::move(stride))));
                } else {
                    ctx.emit(range_loop(ctx, c_int(0), count, steps, "p"));
                }
                ctx.emit(range_loop(ctx, c_add(start.back(), count), hi, [&](const cast::Expr& p) {
                    return std::vector<cast::Stmt>{update(acc[0], p)};
                }, "p"));
            }
            // Pairwise, so the combination is as short a chain as the streams allow.
            std::vector<cast::Expr> level = acc;
            while (level.size() > 1) {
                std::vector<cast::Expr> next;
                for (size_t k = 0; k + 1 < level.size(); k += 2)
                    next.push_back(ctx.apply(op, {type, type}, {level[k], level[k + 1]}));
                if (level.size() % 2) next.push_back(level.back());
                level = next;
            }
            reduce_into_output(CValue::make(level.front(), type)); // may be the identity (inf)
        }
    };
    if (leaf.read(ctx, t, lo)->as<Literal>()) {
        // A pattern: every stored element has the same value.
        LStmt once = std::make_shared<Assign>(a.tensor, a.lhs, a.op, with_read(leaf.read(ctx, t, lo)),
                                              a.single_write);
        lower_body(ctx, std::make_shared<If>(CValue::make(cast::bin(cast::BinaryOp::Lt, lo, hi), ValueType::Bool),
                                             once, nullptr));
    } else if (slices > 1 && read->level == 0 && sliced_work) {
        // A walk that may stop early shares its exit: a slice that stops alone would leave the
        // others running to their ends (an exit at the 10th of a million elements took 63,004
        // steps of the streams on 2 threads instead of 257); the slices after the first that
        // stops stop at their next exit test. Reorderable operators (idempotent, commutative,
        // associative) give the walk in order's result from any slicing.
        std::optional<cast::Expr> exit_slice;
        if (!vector_lanes && early_exit_of(loop)) exit_slice = ctx.local(t.name + "_exit_slice", c_int(INT64_MAX));
        cast::Expr stored = ctx.local(t.name + "_stored", c_sub(hi, lo));
        cast::Expr per = ctx.local(t.name + "_per_slice", cast::bin(cast::BinaryOp::Div, stored, c_int(slices)));
        cast::Expr rest = ctx.local(t.name + "_rest", cast::bin(cast::BinaryOp::Mod, stored, c_int(slices)));
        std::string name = ctx.fresh("slice");
        cast::Expr slice = cast::var(name);
        // Slice k starts k * per + min(k, rest) positions in: the first `rest` slices take one more.
        auto start = [&](const cast::Expr& k) {
            return c_add(lo, c_add(cast::bin(cast::BinaryOp::Mul, k, per), cast::call("siskin_min_i64", {k, rest})));
        };
        std::vector<cast::Stmt> each = ctx.capture([&] {
            cast::Expr from = ctx.local(t.name + "_slice_first", start(slice));
            cast::Expr to = ctx.local(t.name + "_slice_end", start(c_add(slice, 1)));
            reduce_range(from, to, exit_slice ? std::optional<SharedExit>(SharedExit{*exit_slice, slice}) : std::nullopt);
        });
        ctx.emit(cast::For::make(cast::Decl::make(cast::Type::of(ValueType::Int64), name, c_int(0)),
                                 cast::bin(cast::BinaryOp::Lt, slice, c_int(slices)), cast::Increment::make(slice),
                                 cast::Block::make(std::move(each))));
        *sliced_work = stored;
    } else {
        reduce_range(lo, hi, std::nullopt);
    }
    if (missing)
        lower_body(ctx, std::make_shared<If>(CValue::make(*missing, ValueType::Bool),
                                             std::make_shared<Assign>(a.tensor, a.lhs, a.op,
                                                                      with_read(levels::fill_leaf(*read)),
                                                                      a.single_write),
                                             nullptr));
    return true;
}

} // namespace siskin::compiler
