// parallelize_loops (c_optimize.hpp): a loop the compiler proved parallel becomes an OpenMP
// region in which each thread runs one chunk of consecutive iterations, chunks balanced by the
// entries of the fibres they walk (runtime/siskin_parallel.h). The compiler decides which loops
// may run so (disjoint writes); this pass checks on the C what a region cannot hold and builds it.
#include <algorithm>
#include <functional>
#include <map>

#include <fmt/format.h>

#include "codegen/c_optimize.hpp"
#include "codegen/c_printer.hpp"
#include "codegen/c_walk.hpp"

namespace siskin::cast {

namespace {

// What a loop body does that decides whether it can be a region's chunk.
struct BodyScan {
    std::set<std::string> locals; // declared in the body
    std::set<std::string> labels; // defined in the body
    std::set<std::string> assigned_vars;
    std::set<std::string> goto_targets;
    std::set<std::string> private_buffers; // per-thread buffers (ParallelLoop::Part): may grow
    std::set<std::string> grown;           // buffers the body grows
    bool unsafe = false; // a store or call a chunk may not make, a break out of the loop
};

void scan(const Stmt& s, int loops, BodyScan& w) {
    auto check_expr = [&](const Expr& e) {
        for_each_expr(e, [&](const Expr& n) {
            // Growing a buffer moves its data and its fields, which every thread reads, unless
            // each thread has its own.
            if (n.kind() != ExprKind::Call || n.as<Call>().function.rfind("siskin_buffer_", 0) != 0) return;
            const auto& args = n.as<Call>().args;
            if (!args.empty() && args[0].kind() == ExprKind::Var &&
                w.private_buffers.count(args[0].as<Var>().name))
                w.grown.insert(args[0].as<Var>().name);
            else
                w.unsafe = true;
        });
    };
    switch (s.kind()) {
    case StmtKind::Decl:
        w.locals.insert(s.as<Decl>().name);
        if (s.as<Decl>().init) check_expr(*s.as<Decl>().init);
        return;
    case StmtKind::Assign:
    case StmtKind::Increment: {
        const Expr& target =
            s.kind() == StmtKind::Assign ? s.as<Assign>().target : s.as<Increment>().target;
        if (s.kind() == StmtKind::Assign) check_expr(s.as<Assign>().value);
        check_expr(target);
        if (auto v = assigned_var(s)) {
            w.assigned_vars.insert(*v);
            return;
        }
        Expr base = target;
        while (base.kind() == ExprKind::Index) base = base.as<Index>().base;
        // An element of an array (the compiler proved the stores disjoint); a field or a store
        // through a pointer is shared state.
        if (base.kind() != ExprKind::Var || target.kind() != ExprKind::Index) w.unsafe = true;
        return;
    }
    case StmtKind::Eval: check_expr(s.as<Eval>().expr); return;
    case StmtKind::If: {
        const auto& n = s.as<If>();
        check_expr(n.cond);
        scan(n.then_body, loops, w);
        if (n.else_body) scan(*n.else_body, loops, w);
        return;
    }
    case StmtKind::For: {
        const auto& n = s.as<For>();
        if (n.init) scan(*n.init, loops + 1, w);
        if (n.cond) check_expr(*n.cond);
        if (n.step) scan(*n.step, loops + 1, w);
        scan(n.body, loops + 1, w);
        return;
    }
    case StmtKind::While:
        check_expr(s.as<While>().cond);
        scan(s.as<While>().body, loops + 1, w);
        return;
    case StmtKind::Block:
        for (const auto& c : s.as<Block>().stmts) scan(c, loops, w);
        return;
    case StmtKind::Break: w.unsafe |= loops == 0; return;
    case StmtKind::Return:
        if (s.as<Return>().value) check_expr(*s.as<Return>().value);
        return;
    case StmtKind::Goto: w.goto_targets.insert(s.as<Goto>().label); return;
    case StmtKind::Label: w.labels.insert(s.as<Label>().name); return;
    case StmtKind::Pragma: w.unsafe = true; return; // no nested regions
    case StmtKind::Continue:
    case StmtKind::Comment: return;
    }
}

// The most statements a body with loops may have for its loop to be emitted twice (serial and
// in a region): CSR SpMV's has 30, a (min, +) masked vector product's 37, a Gustavson SpGEMM's 64
// and a CSR add's 134.
constexpr int kCopiedStatements = 48;

// Chunks per thread of a loop whose chunks are handed out dynamically (siskin_chunk_count).
constexpr int kChunksPerThread = 8;

int statements(const Stmt& s) {
    int n = 0;
    for_each_node(s, [](const Expr&) {}, [&](const Stmt&) { ++n; });
    return n;
}

// s with every goto to a label in `renamed`, and that label, under its new name: the loop's
// second copy in one function (a function's labels are its own).
Stmt rename_labels(const Stmt& s, const std::map<std::string, std::string>& renamed) {
    auto re = [&](const Stmt& c) { return rename_labels(c, renamed); };
    switch (s.kind()) {
    case StmtKind::Label: {
        auto it = renamed.find(s.as<Label>().name);
        return it == renamed.end() ? s : Label::make(it->second);
    }
    case StmtKind::Goto: {
        auto it = renamed.find(s.as<Goto>().label);
        return it == renamed.end() ? s : Goto::make(it->second);
    }
    case StmtKind::Block: {
        std::vector<Stmt> out;
        for (const auto& c : s.as<Block>().stmts) out.push_back(re(c));
        return Block::make(std::move(out));
    }
    default: return map_bodies(s, re);
    }
}

// The one level of a 1-D sparse output (a sparselist vector indexed by the loop), which names no
// positions: it holds at most one entry per iteration, its code grew the output's buffers for
// every iteration before the loop (so thread t > 0 grows its own parts to its chunk's iterations
// before its chunk), and the join moves no positions (the count after the loop is the whole).
bool vector_append(const ParallelLoop::Append& a) { return a.positions.empty(); }

bool chunk_safe(const For& f, const ParallelLoop& mark, const std::string& reduction_var) {
    BodyScan w;
    std::set<std::string> per_thread; // variables each thread has its own of
    for (const auto& r : mark.reductions) per_thread.insert(r.var);
    auto add_parts = [&](const std::vector<ParallelLoop::Part>& parts) {
        for (const auto& p : parts) {
            w.private_buffers.insert(p.buffer);
            per_thread.insert(p.data);
        }
    };
    for (const auto& a : mark.appends) {
        add_parts(a.parts);
        per_thread.insert(a.count);
    }
    for (const auto& ws : mark.workspaces) {
        add_parts(ws.parts);
        per_thread.insert(ws.vars.begin(), ws.vars.end());
    }
    // A partial output's copy is made before the chunk: growing it in the body stays unsafe.
    for (const auto& p : mark.partials) per_thread.insert(p.part.data);
    scan(f.body, 0, w);
    if (w.unsafe) return false;
    // A thread's own append buffers start empty: the body must grow them itself (a growth
    // hoisted before the loop would have been made for the output's buffers only).
    // A vector's parts are grown to the chunk's iterations before the chunk instead.
    for (const auto& a : mark.appends)
        for (const auto& p : a.parts)
            if (!vector_append(a) && !w.grown.count(p.buffer)) return false;
    for (const auto& v : w.assigned_vars)
        if (!w.locals.count(v) && v != reduction_var && !per_thread.count(v)) return false;
    return std::all_of(w.goto_targets.begin(), w.goto_targets.end(),
                       [&](const std::string& l) { return w.labels.count(l) > 0; });
}

// `return e` -> record e for this chunk and jump to the chunk's end.
Stmt redirect_returns(const Stmt& s, const Expr& record_args_prefix_status,
                      const Expr& failed_chunk, const Expr& thread, const std::string& end,
                      bool& any) {
    if (s.kind() == StmtKind::Return) {
        any = true;
        Expr value = s.as<Return>().value ? *s.as<Return>().value : var("SISKIN_ERR_ALLOC");
        return Block::make({Eval::make(call("siskin_chunk_failed",
                                            {un(UnaryOp::AddressOf, record_args_prefix_status),
                                             un(UnaryOp::AddressOf, failed_chunk), thread, value})),
                            Goto::make(end)});
    }
    auto again = [&](const Stmt& c) {
        return redirect_returns(c, record_args_prefix_status, failed_chunk, thread, end, any);
    };
    if (s.kind() == StmtKind::Block) {
        std::vector<Stmt> stmts;
        for (const auto& c : s.as<Block>().stmts) stmts.push_back(again(c));
        return Block::make(std::move(stmts));
    }
    return map_bodies(s, again);
}

class Parallelizer {
public:
    Parallelizer(const Stmt& body, const std::vector<ParallelLoop>& loops, int threads,
                 int64_t min_work, Expr thread_cap, std::string reduction_var)
        : names_(body), loops_(loops), threads_(threads), min_work_(min_work),
          thread_cap_(std::move(thread_cap)), reduction_var_(std::move(reduction_var)) {
        // The kernel's declarations (its prologue), whose types a thread's own buffers keep
        // (`restrict` included).
        if (body.kind() == StmtKind::Block)
            for (const auto& s : body.as<Block>().stmts)
                if (s.kind() == StmtKind::Decl) declared_.emplace(s.as<Decl>().name, s.as<Decl>().type);
    }

    int made = 0;
    int kept_slots_ = 0; // the kernel's kept append buffers (SISKIN_KEPT_PARTS)

    // Statements outside every loop: blocks and the bodies of ifs are searched, loops are not.
    Stmt visit(const Stmt& s) {
        switch (s.kind()) {
        case StmtKind::Block: {
            std::vector<Stmt> stmts;
            for (const auto& c : s.as<Block>().stmts) stmts.push_back(visit(c));
            return Block::make(std::move(stmts));
        }
        case StmtKind::If: return map_bodies(s, [&](const Stmt& b) { return visit(b); });
        case StmtKind::For:
            if (auto region = parallel(s.as<For>(), s)) {
                ++made;
                return *region;
            }
            return s;
        default: return s;
        }
    }

private:
    // A loop that declares its int64_t counter, or one that continues a counter of the kernel's
    // (`for (; p < p_end; p++)`, the walk over a sparse level's positions from where p stands).
    const ParallelLoop* mark_of(const For& f) const {
        auto counted = counted_for(f);
        if (!counted) return nullptr;
        if (!f.init) {
            auto declared = declared_.find(counted->var);
            if (declared == declared_.end() || declared->second != Type::of(ValueType::Int64)) return nullptr;
        } else {
            if (f.init->kind() != StmtKind::Decl) return nullptr;
            const auto& d = f.init->as<Decl>();
            if (d.name != counted->var || !d.init || d.type != Type::of(ValueType::Int64)) return nullptr;
        }
        for (const auto& l : loops_)
            if (l.counter == counted->var) return &l;
        return nullptr;
    }

    // The region for loop `f` (the statement `loop`); a loop with no loop inside runs as it was,
    // without starting a team, when it gets one thread (GOMP_parallel with one thread still
    // costs 0.3 to 2.4 us, docs/compiler.md).
    std::optional<Stmt> parallel(const For& f, const Stmt& loop) {
        const ParallelLoop* mark = mark_of(f);
        if (!mark || !chunk_safe(f, *mark, reduction_var_)) return std::nullopt;
        // A loop over positions (its counter the kernel's) visits rows by their positions, not
        // by number: a CSR output's positions, moved by the row after the join, are not its to
        // move. Only a loop that appends to a vector (no positions) runs so; the others over
        // positions (dcsr's stored rows) stay serial, as before.
        if (!f.init && (mark->appends.empty() || !std::all_of(mark->appends.begin(), mark->appends.end(), vector_append)))
            return std::nullopt;
        const std::string& v = mark->counter;
        const Expr lo = f.init ? *f.init->as<Decl>().init : var(v), hi = counted_for(f)->bound;
        if (!is_pure(lo) || !is_pure(hi)) return std::nullopt;

        std::string lo_name = names_.fresh(v + "_lo"), hi_name = names_.fresh(v + "_hi");
        Names n{names_.fresh("siskin_status"), names_.fresh("siskin_failed_chunk"),
                names_.fresh("siskin_thread"), names_.fresh("siskin_team"),
                names_.fresh(v + "_from"), names_.fresh(v + "_to")};
        std::string end = names_.fresh("siskin_chunk_end");

        const std::string suffix = mark->weight.empty() || mark->weight_64 ? "i64" : "i32";
        Expr weight = mark->weight.empty()
                          ? Cast::make(i64_type().as_const().pointer(), i64(0))
                          : var(mark->weight);
        auto chunk_start = [&](Expr t, Expr count) {
            const bool early = mark->stops_early && !mark->weight.empty();
            return call(std::string(early ? "siskin_chunk_first_early_" : "siskin_chunk_first_") + suffix,
                        {weight, var(lo_name), var(hi_name), std::move(t), std::move(count)});
        };

        const bool has_parts = !mark->appends.empty() || !mark->workspaces.empty() || !mark->partials.empty();
        // Dynamic chunks (siskin_next_chunk): a loop that writes only its own rows of dense
        // outputs and scalar partials runs kChunksPerThread chunks per thread, each thread
        // taking the next chunk when it is done, so that a thread the system delays, or a chunk
        // slower than its weight says, does not hold up the others. A chunk's rows and its
        // partials depend on the chunk count only, never on which thread ran it. Per-thread
        // parts (appends, workspaces, column copies) keep one chunk per thread, whose parts are
        // joined in thread order; slices (a loop whose work is given) are equal runs already.
        const bool dynamic = !has_parts && !mark->work;
        std::string chunk_index = names_.fresh("siskin_chunk_index"), chunks = names_.fresh("siskin_chunks");
        std::string next_chunk = names_.fresh("siskin_chunks_taken");
        const Expr chunk_id = dynamic ? var(chunk_index) : var(n.thread);

        bool returns = false;
        Stmt chunk_body = redirect_returns(f.body, var(n.status), var(n.failed), chunk_id, end, returns);
        const bool needs_status = returns || has_parts;

        std::vector<Stmt> before; // before the region
        std::vector<Stmt> sizes;  // before the team size, which they decide
        std::vector<Stmt> region{
            Decl::make(int_type().as_const(), n.thread, call("omp_get_thread_num", {})),
            Decl::make(int_type().as_const(), n.team, call("omp_get_num_threads", {})),
        };
        if (dynamic) {
            before.push_back(Decl::make(i64_type(), next_chunk, i64(0)));
            region.push_back(Decl::make(int_type().as_const(), chunks,
                                        call("siskin_chunk_count", {var(n.team), int_lit(kChunksPerThread)})));
        } else {
            region.push_back(Decl::make(i64_type().as_const(), n.from, chunk_start(var(n.thread), var(n.team))));
            region.push_back(Decl::make(i64_type().as_const(), n.to,
                                        chunk_start(bin(BinaryOp::Add, var(n.thread), int_lit(1)), var(n.team))));
        }
        region.push_back(
            If::make(bin(BinaryOp::Eq, var(n.thread), int_lit(0)), Eval::make(call("siskin_note_team", {var(n.team)}))));
        // The statements of the scope in which the per-thread names stand for this thread's own.
        std::vector<Stmt> inner, inner_end, after_inner, release, after;

        // Reductions: each thread's own partial (the same name, declared in the region, so the
        // body updates it), kept per chunk in an array, folded after the region in chunk order.
        std::string team_used = names_.fresh("siskin_team_used");
        std::vector<Stmt> fold;
        std::vector<Stmt> chunk_open, chunk_close; // a dynamic chunk's partials: started, kept
        for (const auto& r : mark->reductions) {
            std::string array = names_.fresh(r.var + "_partials");
            before.push_back(slot_array(r.type, array, dynamic ? kChunksPerThread : 1));
            if (dynamic) {
                chunk_open.push_back(assign(var(r.var), r.identity));
                chunk_close.push_back(assign(at(var(array), var(chunk_index)), var(r.var)));
            } else {
                after_inner.push_back(assign(at(var(array), var(n.thread)), var(r.var)));
            }
            std::string t = names_.fresh("siskin_chunk");
            fold.push_back(For::make(Decl::make(int_type(), t, int_lit(0)),
                                     bin(BinaryOp::Lt, var(t), var(team_used)), Increment::make(var(t)),
                                     assign(var(r.var), call(r.combine, {var(r.var), at(var(array), var(t))}))));
        }
        if (!mark->reductions.empty()) {
            before.insert(before.begin(), Decl::make(int_type(), team_used, int_lit(1)));
            region.push_back(If::make(bin(BinaryOp::Eq, var(n.thread), int_lit(0)),
                                      assign(var(team_used), var(dynamic ? chunks : n.team))));
        }
        for (const auto& r : mark->reductions) region.push_back(Decl::make(r.type, r.var, r.identity));

        // A call claims the kernel's kept buffers (siskin_parts_claim) for its threads: the
        // parts of appends, column copies and workspaces.
        std::string claimed = names_.fresh("siskin_claimed");
        const bool claims = has_parts;
        if (claims) before.push_back(Decl::make(int_type().as_const(), claimed, call("siskin_parts_claim", {})));

        // Workspaces: thread t > 0 copies them as they are before the loop, into buffers kept
        // from one call to the next (fresh ones cost a page fault a page, 7-13 us each on the
        // 2-core VM of bench/results/threads: 168 a call of SpGEMM on uniform 20000^2, 2 ms
        // while the first thread waited at the barrier below); the first thread starts on the
        // kernel's own once every copy is made.
        std::string ready = names_.fresh("siskin_ready");
        const bool has_ready = !mark->workspaces.empty() || !mark->partials.empty() ||
                               std::any_of(mark->appends.begin(), mark->appends.end(),
                                           vector_append);
        if (has_ready) region.push_back(Decl::make(int_type(), ready, var("SISKIN_OK")));
        if (!mark->workspaces.empty()) {
            for (const auto& ws : mark->workspaces) {
                for (const auto& p : ws.parts) {
                    PartNames pn = declare_part(p, n, region, inner, release, after, claimed);
                    Expr copy = call("siskin_part_copy", {un(UnaryOp::AddressOf, var(pn.own)), var(pn.shared),
                                                          i64(p.element_size)});
                    region.push_back(If::make(bin(BinaryOp::LogAnd, bin(BinaryOp::Gt, var(n.thread), int_lit(0)),
                                                  bin(BinaryOp::Eq, var(ready), var("SISKIN_OK"))),
                                              assign(var(ready), copy)));
                }
                for (const auto& w : ws.vars) {
                    std::string start = names_.fresh(w + "_start");
                    region.push_back(Decl::make(i64_type().as_const(), start, var(w)));
                    inner.push_back(Decl::make(i64_type(), w, var(start)));
                }
            }
            region.push_back(Eval::make(call("siskin_team_barrier", {})));
        }

        // Appends: thread t > 0 counts from 0 into buffers of its own; the parts are joined
        // after the chunks (join_append).
        // Partial outputs: thread t > 0 reduces into a copy of its own from the identity (kept
        // from one call to the next as an append's parts are); the copies are folded after the
        // chunks (fold_partial).
        std::optional<Expr> partial_elements; // all partial outputs' elements, for the team size
        for (const auto& p : mark->partials) {
            std::string elements = names_.fresh(p.part.data + "_elements");
            sizes.push_back(Decl::make(i64_type().as_const(), elements, p.elements));
            partial_elements = partial_elements ? bin(BinaryOp::Add, *partial_elements, var(elements)) : var(elements);
            PartNames pn = declare_part(p.part, n, region, inner, release, after, claimed);
            std::string owns = names_.fresh(p.part.buffer + "_owns");
            before.push_back(slot_array(Type::named("siskin_buffer").pointer(), owns));
            Expr others = bin(BinaryOp::LogAnd, bin(BinaryOp::Gt, var(n.thread), int_lit(0)),
                              bin(BinaryOp::Eq, var(ready), var("SISKIN_OK")));
            region.push_back(If::make(others, assign(var(ready), call("siskin_buffer_grow",
                                                                      {un(UnaryOp::AddressOf, var(pn.own)), var(elements),
                                                                       i64(p.part.element_size)}))));
            std::string k = names_.fresh("k");
            inner.push_back(If::make(others, For::make(Decl::make(i64_type(), k, i64(0)),
                                                       bin(BinaryOp::Lt, var(k), var(elements)), Increment::make(var(k)),
                                                       assign(at(var(p.part.data), var(k)), p.identity))));
            fold_partial(p, pn, owns, elements, n, after_inner);
        }
        for (const auto& a : mark->appends) {
            std::string counts = names_.fresh(a.count + "_counts"), total = names_.fresh(a.count + "_total");
            std::string start = names_.fresh(a.count + "_start"), mine = names_.fresh(a.count + "_mine");
            before.push_back(slot_array(i64_type(), counts));
            before.push_back(Decl::make(i64_type(), total, i64(0)));
            region.push_back(Decl::make(i64_type().as_const(), start, var(a.count)));
            region.push_back(Decl::make(i64_type(), mine, i64(0)));
            std::vector<PartNames> parts;
            std::vector<std::string> owns; // per part: every thread's own buffer, for the join
            for (const auto& p : a.parts) {
                parts.push_back(declare_part(p, n, region, inner, release, after, claimed));
                owns.push_back(names_.fresh(p.buffer + "_owns"));
                before.push_back(slot_array(Type::named("siskin_buffer").pointer(), owns.back()));
                // A vector's code grew the output's buffers for every iteration before the loop
                // (thread 0's): thread t > 0 makes room in its own for its chunk's iterations.
                if (vector_append(a))
                    region.push_back(If::make(
                        bin(BinaryOp::LogAnd, bin(BinaryOp::Gt, var(n.thread), int_lit(0)),
                            bin(BinaryOp::Eq, var(ready), var("SISKIN_OK"))),
                        assign(var(ready), call("siskin_buffer_grow",
                                                {un(UnaryOp::AddressOf, var(parts.back().own)),
                                                 bin(BinaryOp::Sub, var(n.to), var(n.from)), i64(p.element_size)}))));
            }
            inner.push_back(Decl::make(i64_type(), a.count,
                                       Ternary::make(bin(BinaryOp::Eq, var(n.thread), int_lit(0)), var(start), i64(0))));
            inner_end.push_back(assign(var(mine), var(a.count)));
            join_append(a, parts, owns, n, counts, total, mine, after_inner);
            after.push_back(assign(var(a.count), var(total)));
        }

        Stmt chunk = For::make(Decl::make(i64_type(), v, var(n.from)), bin(BinaryOp::Lt, var(v), var(n.to)),
                               Increment::make(var(v)), chunk_body);
        if (dynamic) {
            // for (c = next(); c < chunks; c = next()) { rows of chunk c; its partials kept }
            std::vector<Stmt> one{
                Decl::make(i64_type().as_const(), n.from, chunk_start(var(chunk_index), var(chunks))),
                Decl::make(i64_type().as_const(), n.to,
                           chunk_start(bin(BinaryOp::Add, var(chunk_index), int_lit(1)), var(chunks))),
            };
            for (auto& s : chunk_open) one.push_back(std::move(s));
            one.push_back(chunk);
            if (returns) one.push_back(Label::make(end));
            for (auto& s : chunk_close) one.push_back(std::move(s));
            Expr take = call("siskin_next_chunk", {un(UnaryOp::AddressOf, var(next_chunk))});
            chunk = For::make(Decl::make(i64_type(), chunk_index, take), bin(BinaryOp::Lt, var(chunk_index), var(chunks)),
                              assign(var(chunk_index), take), Block::make(std::move(one)));
            returns = false; // the label is in the chunk
        }
        if (has_ready)
            chunk = If::make(bin(BinaryOp::Ne, var(ready), var("SISKIN_OK")),
                             Eval::make(call("siskin_chunk_failed",
                                             {un(UnaryOp::AddressOf, var(n.status)),
                                              un(UnaryOp::AddressOf, var(n.failed)), var(n.thread), var(ready)})),
                             chunk);
        inner.push_back(chunk);
        if (returns) inner.push_back(Label::make(end));
        for (auto& s : inner_end) inner.push_back(std::move(s));
        if (has_parts) region.push_back(Block::make(std::move(inner)));
        else for (auto& s : inner) region.push_back(std::move(s));
        for (auto& s : after_inner) region.push_back(std::move(s));
        for (auto& s : release) region.push_back(std::move(s));

        Expr work = mark->work ? *mark->work : call("siskin_loop_work_" + suffix, {weight, var(lo_name), var(hi_name)});
        // An iteration of a loop with no loop inside (a few loads and a store on dense vectors)
        // is a fraction of a unit of work (siskin_flat_loop_work); a loop whose work is given
        // (slices of a storage-order walk) counts in units already.
        if (!mark->work && !holds(f.body, {StmtKind::For, StmtKind::While}))
            work = call("siskin_flat_loop_work", {work});
        Expr team = partial_elements ? call("siskin_team_size_partials",
                                            {work, *partial_elements, i64(min_work_), int_lit(threads_), thread_cap_})
                                     : call("siskin_team_size", {work, i64(min_work_), int_lit(threads_), thread_cap_});
        std::string team_name = names_.fresh("siskin_team_wanted");
        std::string clauses = fmt::format("omp parallel num_threads({})", team_name);
        if (!reduction_var_.empty()) clauses += fmt::format(" reduction(+:{})", reduction_var_);

        std::vector<Stmt> out;
        for (auto& b : before) out.push_back(std::move(b));
        if (needs_status) {
            out.push_back(Decl::make(int_type(), n.status, var("SISKIN_OK")));
            out.push_back(Decl::make(int_type(), n.failed, int_lit(INT32_MAX)));
        }
        out.push_back(Pragma::make(clauses, Block::make(std::move(region))));
        if (claims) out.push_back(Eval::make(call("siskin_parts_unclaim", {var(claimed)})));
        if (needs_status)
            out.push_back(If::make(bin(BinaryOp::Ne, var(n.status), var("SISKIN_OK")),
                                   Return::make(var(n.status))));
        for (auto& s : after) out.push_back(std::move(s));
        for (auto& s : fold) out.push_back(std::move(s));
        // A counter of the kernel's leaves the loop at its bound, as the serial loop leaves it.
        if (!f.init) out.push_back(If::make(bin(BinaryOp::Lt, var(v), var(hi_name)), assign(var(v), var(hi_name))));
        std::vector<Stmt> head{Decl::make(i64_type().as_const(), lo_name, lo), Decl::make(i64_type().as_const(), hi_name, hi)};
        for (auto& s : sizes) head.push_back(std::move(s));
        head.push_back(Decl::make(int_type().as_const(), team_name, team));
        // A small body is there twice, so that one thread runs the loop as emitted: a region of
        // one around a masked vector product on bcsstk13 (5 us) doubled its time. A large body
        // with loops is not: a second copy made SpGEMM's C take 45% longer to compile (10.8 ->
        // 15.3 s, load average 12), for 0.3-2.4 us a call; it runs the region with any team,
        // one thread included.
        if (!mark->copied && holds(f.body, {StmtKind::For, StmtKind::While}) &&
            statements(f.body) > kCopiedStatements) {
            for (auto& s : out) head.push_back(std::move(s));
            return Block::make(std::move(head));
        }
        std::map<std::string, std::string> renamed;
        for_each_node(f.body, [](const Expr&) {}, [&](const Stmt& c) {
            if (c.kind() == StmtKind::Label) renamed.emplace(c.as<Label>().name, names_.fresh(c.as<Label>().name + "_serial"));
        });
        head.push_back(If::make(bin(BinaryOp::Gt, var(team_name), int_lit(1)), Block::make(std::move(out)),
                                rename_labels(loop, renamed)));
        return Block::make(std::move(head));
    }

    // The names of one region.
    struct Names {
        std::string status, failed, thread, team, from, to;
    };
    struct PartNames {
        const ParallelLoop::Part* part;
        std::string shared; // the kernel's buffer, under a name the inner scope does not hide
        std::string own;    // this thread's (used by thread t > 0)
    };

    static Type i64_type() { return Type::of(ValueType::Int64); }
    static Type int_type() { return Type::named("int"); }
    static Expr int_lit(int32_t k) { return lit(Scalar::of(k)); }

    // `per_thread` slots per thread the region may have, on the stack (no value type is wider
    // than 8 bytes).
    Stmt slot_array(const Type& element, const std::string& name, int per_thread = 1) const {
        Type pointer = element.pointer();
        return Decl::make(pointer, name,
                          Cast::make(pointer, call("__builtin_alloca", {i64(int64_t{threads_} * per_thread * 8)})));
    }

    // A buffer that each thread but the first has its own of: in the inner scope its names stand
    // for this thread's buffer; after the region the kernel's data pointer is read again (the
    // first thread may have grown it).
    // `claimed` (the parts of appends, column copies and workspaces): thread t > 0 starts from
    // the buffer it kept in the kernel's last call and keeps it for the next (siskin_part_start,
    // siskin_part_end); empty: made and freed in each call.
    PartNames declare_part(const ParallelLoop::Part& p, const Names& n, std::vector<Stmt>& region,
                           std::vector<Stmt>& inner, std::vector<Stmt>& release, std::vector<Stmt>& after,
                           const std::string& claimed = "") {
        PartNames pn{&p, names_.fresh(p.buffer + "_shared"), names_.fresh(p.buffer + "_own")};
        Type buffer = Type::named("siskin_buffer");
        region.push_back(Decl::make(buffer.pointer(), pn.shared, var(p.buffer)));
        const int slot = kept_slots_;
        if (!claimed.empty()) kept_slots_ += threads_ - 1; // one slot for each thread but the first
        region.push_back(Decl::make(buffer, pn.own,
                                    claimed.empty() ? call("siskin_part_empty", {})
                                                    : call("siskin_part_start", {var(claimed), int_lit(slot), var(n.thread),
                                                                                 i64(p.element_size)})));
        inner.push_back(Decl::make(buffer.pointer(), p.buffer,
                                   Ternary::make(bin(BinaryOp::Eq, var(n.thread), int_lit(0)), var(pn.shared),
                                                 un(UnaryOp::AddressOf, var(pn.own)))));
        Expr data = Cast::make(p.element.pointer(), Field::make(var(p.buffer), "data"));
        auto declared = declared_.find(p.data);
        inner.push_back(Decl::make(declared != declared_.end() ? declared->second : p.element.pointer(), p.data, data));
        release.push_back(Eval::make(
            claimed.empty()
                ? call("siskin_part_free", {un(UnaryOp::AddressOf, var(pn.own)), i64(p.element_size)})
                : call("siskin_part_end", {un(UnaryOp::AddressOf, var(pn.own)), var(claimed), int_lit(slot),
                                           var(n.thread), i64(p.element_size)})));
        after.push_back(assign(var(p.data), data));
        return pn;
    }

    // After the chunks: every thread's copy of a partial output folded into the output in chunk
    // order, each thread folding a share of the elements (siskin_share_first), once every thread
    // published its copy; a last barrier keeps the copies alive until every fold is done.
    void fold_partial(const ParallelLoop::Partial& p, const PartNames& pn, const std::string& owns,
                      const std::string& elements, const Names& n, std::vector<Stmt>& out) {
        out.push_back(assign(at(var(owns), var(n.thread)), un(UnaryOp::AddressOf, var(pn.own))));
        out.push_back(Eval::make(call("siskin_team_barrier", {})));
        auto share = [&](const Expr& t) { return call("siskin_share_first", {var(elements), t, var(n.team)}); };
        std::string from = names_.fresh("k_from"), to = names_.fresh("k_to");
        std::string into = names_.fresh(p.part.data + "_into"), part = names_.fresh(p.part.data + "_other");
        std::string t = names_.fresh("siskin_chunk"), k = names_.fresh("k");
        Type pointer = p.part.element.pointer().restricted();
        Type other = p.part.element.as_const().pointer().restricted();
        Stmt fold_one = For::make(Decl::make(i64_type(), k, var(from)), bin(BinaryOp::Lt, var(k), var(to)),
                                  Increment::make(var(k)),
                                  assign(at(var(into), var(k)),
                                         call(p.combine, {at(var(into), var(k)), at(var(part), var(k))})));
        Stmt each = For::make(Decl::make(int_type(), t, int_lit(1)), bin(BinaryOp::Lt, var(t), var(n.team)),
                              Increment::make(var(t)),
                              Block::make({Decl::make(other, part,
                                                      Cast::make(p.part.element.as_const().pointer(),
                                                                 Field::make(at(var(owns), var(t)), "data"))),
                                           fold_one}));
        out.push_back(If::make(bin(BinaryOp::Eq, var(n.status), var("SISKIN_OK")),
                               Block::make({Decl::make(i64_type().as_const(), from, share(var(n.thread))),
                                            Decl::make(i64_type().as_const(), to,
                                                       share(bin(BinaryOp::Add, var(n.thread), int_lit(1)))),
                                            Decl::make(pointer, into,
                                                       Cast::make(p.part.element.pointer(),
                                                                  Field::make(var(pn.shared), "data"))),
                                            each})));
        out.push_back(Eval::make(call("siskin_team_barrier", {})));
    }

    // After the chunks: the parts of an append, in chunk order, into the kernel's buffers. Every
    // thread publishes its count and its own buffers; the first grows the kernel's buffers to the
    // total (its own part is in them already); then every thread copies an equal share of the
    // other threads' parts into place (siskin_part_join_share: the copying is spread over the
    // team as the chunks are, instead of each thread copying its own part), and each thread but
    // the first moves its rows' positions by the entries before its part. A last barrier: a
    // thread's own buffers are read by the others until then.
    void join_append(const ParallelLoop::Append& a, const std::vector<PartNames>& parts,
                     const std::vector<std::string>& owns, const Names& n, const std::string& counts,
                     const std::string& total, const std::string& mine, std::vector<Stmt>& out) {
        auto for_threads = [&](const Expr& bound, const std::function<Stmt(const Expr&)>& body) {
            std::string t = names_.fresh("siskin_chunk");
            return For::make(Decl::make(int_type(), t, int_lit(0)), bin(BinaryOp::Lt, var(t), bound),
                             Increment::make(var(t)), body(var(t)));
        };
        Expr ok = bin(BinaryOp::Eq, var(n.status), var("SISKIN_OK"));
        out.push_back(assign(at(var(counts), var(n.thread)), var(mine)));
        for (size_t k = 0; k < parts.size(); ++k)
            out.push_back(assign(at(var(owns[k]), var(n.thread)), un(UnaryOp::AddressOf, var(parts[k].own))));
        out.push_back(Eval::make(call("siskin_team_barrier", {})));

        std::string sum = names_.fresh("siskin_sum");
        std::vector<Stmt> first{
            Decl::make(i64_type(), sum, i64(0)),
            for_threads(var(n.team), [&](const Expr& t) {
                return assign(var(sum), bin(BinaryOp::Add, var(sum), at(var(counts), t)));
            }),
            assign(var(total), var(sum)),
        };
        if (a.limit > 0)
            first.push_back(If::make(bin(BinaryOp::LogAnd, ok, bin(BinaryOp::Gt, var(sum), i64(a.limit))),
                                     assign(var(n.status), var("SISKIN_ERR_INDEX_OVERFLOW"))));
        for (const auto& p : parts) {
            Expr grow = call("siskin_buffer_grow", {var(p.shared), var(sum), i64(p.part->element_size)});
            first.push_back(If::make(bin(BinaryOp::LogAnd, ok, bin(BinaryOp::Ne, grow, var("SISKIN_OK"))),
                                     assign(var(n.status), var("SISKIN_ERR_ALLOC"))));
        }
        out.push_back(If::make(bin(BinaryOp::Eq, var(n.thread), int_lit(0)), Block::make(std::move(first))));
        out.push_back(Eval::make(call("siskin_team_barrier", {})));

        std::string offset = names_.fresh("siskin_offset");
        std::vector<Stmt> place{
            Decl::make(i64_type(), offset, i64(0)),
            for_threads(var(n.thread), [&](const Expr& t) {
                return assign(var(offset), bin(BinaryOp::Add, var(offset), at(var(counts), t)));
            }),
        };
        std::vector<Stmt> share;
        for (size_t k = 0; k < parts.size(); ++k)
            share.push_back(Eval::make(call("siskin_part_join_share",
                                            {var(parts[k].shared), var(owns[k]), var(counts), var(n.team),
                                             var(n.thread), i64(parts[k].part->element_size)})));
        out.push_back(If::make(ok, Block::make(std::move(share))));
        // A vector has no positions per iteration (its count after the loop is the whole).
        if (!vector_append(a)) {
            std::string k = names_.fresh("k");
            Expr slot = at(var(a.positions), bin(BinaryOp::Add, var(k), i64(1)));
            place.push_back(For::make(Decl::make(i64_type(), k, var(n.from)), bin(BinaryOp::Lt, var(k), var(n.to)),
                                      Increment::make(var(k)),
                                      assign(slot, Cast::make(a.position_type, bin(BinaryOp::Add, slot, var(offset))))));
            out.push_back(If::make(bin(BinaryOp::LogAnd, bin(BinaryOp::Gt, var(n.thread), int_lit(0)), ok),
                                   Block::make(std::move(place))));
        }
        out.push_back(Eval::make(call("siskin_team_barrier", {})));
    }

    FreshNames names_;
    std::map<std::string, Type> declared_;
    const std::vector<ParallelLoop>& loops_;
    int threads_;
    int64_t min_work_;
    Expr thread_cap_;
    std::string reduction_var_;
};

} // namespace

Stmt parallelize_loops(const Stmt& body, const std::vector<ParallelLoop>& loops, int threads,
                       int64_t min_work, const Expr& thread_cap, const std::string& reduction_var,
                       int& made, int& kept_parts) {
    made = kept_parts = 0;
    if (loops.empty() || threads <= 1) return body;
    Parallelizer p(body, loops, threads, min_work, thread_cap, reduction_var);
    Stmt out = p.visit(body);
    made = p.made;
    kept_parts = p.kept_slots_;
    return out;
}

} // namespace siskin::cast
