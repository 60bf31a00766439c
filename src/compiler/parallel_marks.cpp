#include "compiler/parallel_marks.hpp"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "codegen/c_printer.hpp"
#include "codegen/c_walk.hpp"
#include "compiler/early_exit.hpp"
#include "lowering/index_wrapper.hpp"
#include "lowering/lower_ctx.hpp"
#include "siskin/operators.hpp"

namespace siskin::compiler {

namespace {

bool all_dense(const TensorBinding& t) {
    for (int l = 0; l < t.num_levels(); ++l)
        if (!t.properties(l).implicit) return false;
    return true;
}

// Whether e is the loop's index itself (no wrapper: a window or an offset would move it).
bool is_loop_index(const LExpr& e, const std::string& index) {
    const auto* i = e->as<Index>();
    return i && i->name == index && !i->wrapper;
}

// A fibre at the root of a tensor whose first level is dense and indexed by the loop.
bool row_of_loop(const Fiber& f, const std::string& index) {
    return f.level == 0 && f.sub == 0 && !f.subscripts.empty() &&
           is_loop_index(f.subscripts.front(), index) && f.tensor->num_levels() > 0 &&
           f.tensor->properties(0).implicit;
}

// The positions buffer of the level below a read's first level: pos[i]..pos[i+1] is the fibre
// that iteration i walks.
const BufferBinding* fibre_positions(const Fiber& f) {
    if (f.tensor->num_levels() < 2) return nullptr;
    for (const auto& b : f.tensor->levels[1])
        if (b.role == BufferRole::Positions) return &b;
    return nullptr;
}

// A reduction that may be split over threads: one associative and commutative operator with an
// identity (a float one only when reassociating is allowed), into a scalar output (one partial
// per thread) or a dense one (a copy per thread: ParallelMark::partials).
bool add_reduction(ParallelMark& mark, const Assign& a, bool reassociate) {
    const TensorBinding& t = *a.tensor;
    if (!a.op || !a.op->associative || !a.op->commutative) return false;
    if (is_float(t.type) && !reassociate) return false;
    auto& list = t.num_levels() == 0 ? mark.reductions : mark.partials;
    for (const auto& r : list)
        if (r.tensor == &t) return r.op == a.op;
    std::optional<Scalar> identity = a.op->reduction_identity(t.type);
    if (!identity) return false;
    list.push_back({&t, a.op, *identity});
    return true;
}

// A dense level over one that appends fibres, and nothing below (CSR).
bool appends_rows(const TensorBinding& t) {
    return t.num_levels() == 2 && t.properties(0).implicit && t.properties(1).appends_fibres;
}

// One level that appends fibres, indexed by the loop itself (a sparselist vector y[i]): iteration
// i appends element i or nothing, in i order.
bool appends_vector_of_loop(const TensorBinding& t, const Fiber* target, const std::string& index) {
    return t.num_levels() == 1 && t.properties(0).appends_fibres && target && target->level == 0 &&
           target->sub == 0 && target->subscripts.size() == 1 && is_loop_index(target->subscripts.front(), index);
}

void add_once(std::vector<const TensorBinding*>& list, const TensorBinding* t) {
    if (std::find(list.begin(), list.end(), t) == list.end()) list.push_back(t);
}

std::optional<ParallelMark> mark_of(const LStmt& s, bool reassociate) {
    const auto* loop = s->as<For>();
    if (!loop) return std::nullopt;
    ParallelMark mark{loop->index, nullptr, {}, {}, {}, {}};
    std::vector<const TensorBinding*> workspaces_read;
    std::vector<const TensorBinding*> rows_written; // dense outputs written at row i
    bool ok = true;
    visit_stmt(
        loop->body,
        [&](const LExpr& e) {
            const auto* f = e->as<Fiber>();
            if (!f || !f->tensor) return;
            if (f->tensor->output) {
                // Reads of an output could see another iteration's writes (a workspace's are
                // this iteration's own); writes are checked at their statement.
                if (f->tensor->workspace && !f->write) add_once(workspaces_read, f->tensor);
                else if (!f->write) ok = false;
                return;
            }
            if (!mark.weight && row_of_loop(*f, loop->index)) mark.weight = fibre_positions(*f);
        },
        [&](const LStmt& st) {
            const auto* a = st->as<Assign>();
            if (!a) return;
            const TensorBinding* t = a->tensor;
            const auto* target = a->lhs->as<Fiber>();
            bool row = target && row_of_loop(*target, loop->index);
            // A scalar output's one element is already an lvalue, not a fibre.
            if (!t || !t->output)
                ok = false;
            else if (t->workspace)
                add_once(mark.workspaces, t);
            else if ((row && appends_rows(*t)) || appends_vector_of_loop(*t, target, loop->index))
                add_once(mark.appended, t);
            else if (!t->values || !all_dense(*t))
                ok = false;
            else if (row)
                add_once(rows_written, t);
            else if (!add_reduction(mark, *a, reassociate))
                ok = false;
        });
    // A vector written both at row i and elsewhere: thread t's copy would miss the row's value.
    for (const auto& r : mark.partials)
        if (std::find(rows_written.begin(), rows_written.end(), r.tensor) != rows_written.end()) ok = false;
    // A workspace filled here but read elsewhere would need the rows of every thread.
    for (const TensorBinding* w : mark.workspaces)
        if (std::find(workspaces_read.begin(), workspaces_read.end(), w) == workspaces_read.end()) ok = false;
    if (!ok) return std::nullopt;
    visit_stmt(loop->body, {}, [&](const LStmt& st) {
        if (const auto* inner = st->as<For>(); inner && early_exit_of(*inner)) mark.stops_early = true;
    });
    return mark;
}

// The outputs each top-level statement writes.
std::set<const TensorBinding*> written_by(const LStmt& s) {
    std::set<const TensorBinding*> out;
    visit_stmt(
        s, [](const LExpr&) {},
        [&](const LStmt& st) {
            if (const auto* a = st->as<Assign>(); a && a->tensor) out.insert(a->tensor);
        });
    return out;
}

} // namespace

std::map<size_t, ParallelMark> mark_parallel_loops(const LStmt& body, bool reassociate) {
    std::map<size_t, ParallelMark> marks;
    const auto* top = body->as<Block>();
    size_t n = top ? top->stmts.size() : 1;
    auto statement = [&](size_t k) { return top ? top->stmts[k] : body; };
    // A thread's part of an appended output counts from 0: no earlier statement may have
    // appended to it, and no later one may append after the join.
    std::map<const TensorBinding*, int> writers;
    for (size_t k = 0; k < n; ++k)
        for (const TensorBinding* t : written_by(statement(k))) ++writers[t];
    for (size_t k = 0; k < n; ++k) {
        auto m = mark_of(statement(k), reassociate);
        if (m && std::all_of(m->appended.begin(), m->appended.end(),
                             [&](const TensorBinding* t) { return writers[t] == 1; }))
            marks.emplace(k, *m);
    }
    return marks;
}

namespace {

// Whether every use in s of an element `is_element` matches is an update `x = combine(x, e)` (or
// combine(e, x)) with e free of such elements; each such x becomes `replace(x)`.
std::optional<cast::Stmt> rewrite_updates(const cast::Stmt& s, const std::function<bool(const cast::Expr&)>& is_element,
                                          const std::string& combine,
                                          const std::function<cast::Expr(const cast::Expr&)>& replace) {
    bool ok = true;
    auto free_of = [&](const cast::Expr& e) {
        bool found = false;
        cast::for_each_expr(e, [&](const cast::Expr& n) { found |= is_element(n); });
        return !found;
    };
    std::function<cast::Stmt(const cast::Stmt&)> walk = [&](const cast::Stmt& st) -> cast::Stmt {
        if (st.kind() == cast::StmtKind::Assign && is_element(st.as<cast::Assign>().target)) {
            const auto& a = st.as<cast::Assign>();
            const cast::Expr& v = a.value;
            if (a.op != cast::AssignOp::Set || v.kind() != cast::ExprKind::Call ||
                v.as<cast::Call>().function != combine || v.as<cast::Call>().args.size() != 2 ||
                !free_of(a.target.kind() == cast::ExprKind::Index ? a.target.as<cast::Index>().index : cast::i64(0))) {
                ok = false;
                return st;
            }
            const auto& args = v.as<cast::Call>().args;
            int self = cast::same_expr(args[0], a.target) ? 0 : cast::same_expr(args[1], a.target) ? 1 : -1;
            if (self < 0 || !free_of(args[1 - self])) {
                ok = false;
                return st;
            }
            std::vector<cast::Expr> out = args;
            cast::Expr x = replace(a.target);
            out[static_cast<size_t>(self)] = x;
            return cast::assign(x, cast::call(combine, out));
        }
        if (st.kind() == cast::StmtKind::Block) {
            std::vector<cast::Stmt> stmts;
            for (const auto& c : st.as<cast::Block>().stmts) stmts.push_back(walk(c));
            return cast::Block::make(std::move(stmts));
        }
        cast::Stmt mapped = cast::map_bodies(st, walk);
        // What map_bodies left (conditions, bounds, plain statements) must not touch it.
        cast::for_each_node(
            mapped, [&](const cast::Expr& e) { ok &= !is_element(e); },
            [](const cast::Stmt&) {});
        return mapped;
    };
    cast::Stmt out = walk(s);
    if (!ok) return std::nullopt;
    return out;
}

// Whether every use of `element` in s is an update `element = combine(element, e)` (or
// combine(e, element)) with e free of it; rewrites them to use `local` instead.
std::optional<cast::Stmt> privatize(const cast::Stmt& s, const cast::Expr& element, const std::string& combine,
                                    const cast::Expr& local) {
    return rewrite_updates(
        s, [&](const cast::Expr& e) { return cast::same_expr(e, element); }, combine,
        [&](const cast::Expr&) { return local; });
}

// Whether the array `data` (a partial output's values) is only used in s as `data[k] =
// combine(data[k], e)` (or combine(e, data[k])), k and e free of it.
bool updates_only(const cast::Stmt& s, const std::string& data, const std::string& combine) {
    auto is_data = [&](const cast::Expr& e) {
        return e.kind() == cast::ExprKind::Var && e.as<cast::Var>().name == data;
    };
    auto is_element = [&](const cast::Expr& e) {
        if (is_data(e)) return true;
        return e.kind() == cast::ExprKind::Index && is_data(e.as<cast::Index>().base);
    };
    // Each update is checked, then renamed to a name no code has, so that what is left of the
    // array afterwards is a use of another kind.
    const cast::Expr checked = cast::var("siskin_checked_update");
    return rewrite_updates(s, is_element, combine, [&](const cast::Expr&) { return checked; }).has_value();
}

} // namespace

namespace {

// The work of rows [lo, hi) that each stop early: each row and at most one entry of it, or all
// of their entries where they hold fewer.
cast::Expr early_exit_work(const BufferBinding& weight, const cast::Expr& lo, const cast::Expr& hi) {
    std::string suffix = weight.type == ValueType::Int64 ? "i64" : "i32";
    cast::Expr rows = cast::bin(cast::BinaryOp::Sub, hi, lo);
    return cast::call("siskin_min_i64", {cast::call("siskin_loop_work_" + suffix, {weight.data_var(), lo, hi}),
                                         cast::bin(cast::BinaryOp::Mul, rows, cast::i64(2))});
}

cast::ParallelLoop::Part part_of(const BufferBinding& b) {
    return {b.raw, b.data, cast::Type::of(b.type), static_cast<int64_t>(type_size(b.type))};
}

// Whether the C statement s names the variable `name`.
bool mentions_var(const cast::Stmt& s, const std::string& name) {
    bool found = false;
    cast::for_each_node(
        s,
        [&](const cast::Expr& e) {
            found |= e.kind() == cast::ExprKind::Var && e.as<cast::Var>().name == name;
        },
        [&](const cast::Stmt& st) {
            found |= st.kind() == cast::StmtKind::Decl && st.as<cast::Decl>().name == name;
        });
    return found;
}

// What each thread has its own of for the appended outputs and workspaces of `mark`; false
// when a variable of theirs is not a plain local.
bool add_parts(LowerCtx& ctx, const ParallelMark& mark, const cast::Stmt& loop, int64_t position_limit,
               cast::ParallelLoop& out) {
    for (const TensorBinding* t : mark.appended) {
        // A CSR output's columns (level 1), or a vector's one level (its positions are written
        // after the loop only, from the count).
        const int level = t->num_levels() - 1;
        cast::Expr count = ctx.level_var(*t, level, "count");
        if (count.kind() != cast::ExprKind::Var) return false;
        cast::ParallelLoop::Append a;
        a.count = count.as<cast::Var>().name;
        const bool vector = level == 0; // no positions to move (cast::ParallelLoop::Append)
        for (const auto& b : t->levels[static_cast<size_t>(level)]) {
            if (b.role == BufferRole::Positions) {
                if (vector) {
                    if (mentions_var(loop, b.data) || mentions_var(loop, b.raw)) return false;
                    a.positions = "";
                } else {
                    a.positions = b.data;
                }
                a.position_type = cast::Type::of(b.type);
                a.limit = b.type == ValueType::Int32 ? position_limit : 0;
            } else {
                a.parts.push_back(part_of(b));
            }
        }
        if (t->values) a.parts.push_back(part_of(*t->values));
        if (a.positions.empty() && !vector) return false;
        out.appends.push_back(std::move(a));
    }
    for (const TensorBinding* t : mark.workspaces) {
        cast::ParallelLoop::Workspace w;
        auto add = [&](const BufferBinding& b) {
            if (mentions_var(loop, b.raw) || mentions_var(loop, b.data)) w.parts.push_back(part_of(b));
        };
        for (const auto& level : t->levels)
            for (const auto& b : level) add(b);
        if (t->values) add(*t->values);
        for (const cast::Expr& v : ctx.level_vars(*t)) {
            if (v.kind() != cast::ExprKind::Var) return false;
            if (mentions_var(loop, v.as<cast::Var>().name)) w.vars.push_back(v.as<cast::Var>().name);
        }
        out.workspaces.push_back(std::move(w));
    }
    return true;
}

} // namespace

cast::Expr row_loop_work(const BufferBinding* weight, const cast::Expr& lo, const cast::Expr& hi, bool stops_early) {
    if (!weight) return cast::bin(cast::BinaryOp::Sub, hi, lo);
    if (stops_early) return early_exit_work(*weight, lo, hi);
    std::string suffix = weight->type == ValueType::Int64 ? "i64" : "i32";
    return cast::call("siskin_loop_work_" + suffix, {weight->data_var(), lo, hi});
}

std::optional<cast::ParallelLoop> parallel_loop_of(LowerCtx& ctx, const ParallelMark& mark,
                                                   std::vector<cast::Stmt>& code, int64_t position_limit,
                                                   const std::optional<cast::Expr>& sliced_work) {
    // The one counted loop: a statement of `code`, or the one loop of an `if` there without an
    // else (a walk over a sparse level's positions, `if (p < p_end) { ... for (; p < p_end; p++) }`).
    std::optional<size_t> at;
    const cast::For* counted = nullptr;
    auto counted_in = [](const cast::Stmt& s) -> const cast::For* {
        if (s.kind() == cast::StmtKind::For && cast::counted_for(s.as<cast::For>())) return &s.as<cast::For>();
        if (s.kind() != cast::StmtKind::If || s.as<cast::If>().else_body) return nullptr;
        const cast::Stmt& then = s.as<cast::If>().then_body;
        if (then.kind() != cast::StmtKind::Block) return nullptr;
        const cast::For* found = nullptr;
        for (const auto& c : then.as<cast::Block>().stmts) {
            if (c.kind() == cast::StmtKind::For || c.kind() == cast::StmtKind::While) {
                if (found || c.kind() != cast::StmtKind::For || !cast::counted_for(c.as<cast::For>())) return nullptr;
                found = &c.as<cast::For>();
            }
        }
        return found;
    };
    for (size_t k = 0; k < code.size(); ++k)
        if (const cast::For* f = counted_in(code[k])) {
            if (at) return std::nullopt;
            at = k;
            counted = f;
        }
    if (!at) return std::nullopt;
    cast::ParallelLoop loop;
    loop.counter = cast::counted_for(*counted)->var;
    loop.work = sliced_work; // slices walk no fibre per iteration
    // A loop over a sparse level's positions (no declaration of its own) does not run over the
    // rows the weight counts: its chunks are balanced by iterations.
    if (mark.weight && !loop.work && counted->init) {
        loop.weight = mark.weight->data;
        loop.weight_64 = mark.weight->type == ValueType::Int64;
        // Rows that stop early (an or.and row at its first true): chunks weigh the rows more
        // than their entries (siskin_chunk_first_early), and the work, for the team size, is
        // each row and at most one entry of it.
        loop.stops_early = mark.stops_early;
        if (mark.stops_early)
            loop.work = early_exit_work(*mark.weight, *counted->init->as<cast::Decl>().init,
                                        cast::counted_for(*counted)->bound);
    } else if (mark.weight && !loop.work) {
        // Its work, for the team size, is still its iterations' rows: each iteration counts 1
        // plus the weight's mean entries a row (a mask's positions pick rows of A; counting the
        // positions alone kept a masked mxv of 40,000 entries below the threshold). The weight's
        // size (rows + 1) is read from its buffer: the dimension's local may be gone by now.
        cast::Expr size = mark.weight->size_var();
        cast::Expr pos = cast::var(mark.weight->data);
        cast::Expr entries = cast::bin(cast::BinaryOp::Sub, cast::at(pos, cast::bin(cast::BinaryOp::Sub, size, cast::i64(1))),
                                       cast::at(pos, cast::i64(0)));
        cast::Expr mean = cast::bin(cast::BinaryOp::Div, entries, size);
        // Rows that stop early: at most one entry each (as above).
        if (mark.stops_early) mean = cast::call("siskin_min_i64", {mean, cast::i64(1)});
        cast::Expr iterations = cast::bin(cast::BinaryOp::Sub, cast::counted_for(*counted)->bound,
                                          cast::var(loop.counter));
        loop.work = cast::bin(cast::BinaryOp::Mul, iterations, cast::bin(cast::BinaryOp::Add, mean, cast::i64(1)));
    }
    if (!add_parts(ctx, mark, code[*at], position_limit, loop)) return std::nullopt;
    for (const auto& r : mark.partials) {
        const BufferBinding& values = *r.tensor->values;
        cast::Expr element = cast::at(values.data_var(), cast::i64(0));
        cast::Expr combined = ctx.apply(*r.op, {r.tensor->type, r.tensor->type}, {element, element});
        if (combined.kind() != cast::ExprKind::Call) return std::nullopt;
        std::string combine = combined.as<cast::Call>().function;
        if (!updates_only(code[*at], values.data, combine)) return std::nullopt;
        cast::Expr elements = cast::i64(1);
        for (const auto& d : r.tensor->dims) elements = c_mul(elements, d);
        loop.partials.push_back({part_of(values), elements, cast::lit(r.identity), combine});
    }
    if (mark.reductions.empty()) return loop;

    // An early exit jumps past the loop, and would skip the fold after it.
    bool jumps = false;
    for (const auto& c : code)
        cast::for_each_node(c, [](const cast::Expr&) {}, [&](const cast::Stmt& s) {
            jumps |= s.kind() == cast::StmtKind::Goto || s.kind() == cast::StmtKind::Label;
        });
    if (jumps) return std::nullopt;

    cast::Stmt rewritten = code[*at];
    std::vector<cast::Stmt> before, after;
    for (const auto& r : mark.reductions) {
        const BufferBinding& values = *r.tensor->values;
        cast::Expr element = cast::at(values.data_var(), cast::i64(0));
        cast::Type type = cast::Type::of(r.tensor->type);
        cast::Expr combined = ctx.apply(*r.op, {r.tensor->type, r.tensor->type}, {element, element});
        std::string combine = combined.as<cast::Call>().function;
        std::string local = ctx.fresh(values.data + "_part");
        auto privatized = privatize(rewritten, element, combine, cast::var(local));
        if (!privatized) return std::nullopt;
        rewritten = *privatized;
        cast::Expr identity = cast::lit(r.identity);
        before.push_back(cast::Decl::make(type, local, identity));
        after.push_back(cast::assign(element, cast::call(combine, {element, cast::var(local)})));
        loop.reductions.push_back({local, type, identity, combine});
    }
    std::vector<cast::Stmt> out(code.begin(), code.begin() + static_cast<std::ptrdiff_t>(*at));
    out.insert(out.end(), before.begin(), before.end());
    out.push_back(rewritten);
    out.insert(out.end(), after.begin(), after.end());
    out.insert(out.end(), code.begin() + static_cast<std::ptrdiff_t>(*at) + 1, code.end());
    code = std::move(out);
    return loop;
}

std::string print_marks(const std::map<size_t, ParallelMark>& marks) {
    std::string out;
    for (const auto& [k, m] : marks) {
        out += fmt::format("statement {}: for {} in parallel, chunks balanced by {}", k, m.index,
                           m.weight ? m.weight->data : "iterations");
        for (const auto& r : m.reductions)
            out += fmt::format("; {} reduced by {} per thread", r.tensor->name, r.op->name);
        for (const auto& r : m.partials)
            out += fmt::format("; {} reduced by {} into a copy per thread, folded in order", r.tensor->name,
                               r.op->name);
        for (const auto* t : m.appended) out += fmt::format("; {} appended per thread, joined in order", t->name);
        for (const auto* t : m.workspaces) out += fmt::format("; {} copied per thread", t->name);
        out += "\n";
    }
    return out.empty() ? "no parallel loop\n" : out;
}

} // namespace siskin::compiler
