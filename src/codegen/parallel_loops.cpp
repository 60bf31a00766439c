// parallelize_loops (c_optimize.hpp): a loop the compiler proved parallel becomes an OpenMP
// region in which each thread runs one chunk of consecutive iterations, chunks balanced by the
// entries of the fibres they walk (runtime/siskin_parallel.h). The compiler decides which loops
// may run so (disjoint writes); this pass checks on the C what a region cannot hold and builds it.
#include <algorithm>

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
    bool unsafe = false; // a store or call a chunk may not make, a break out of the loop
};

void scan(const Stmt& s, int loops, BodyScan& w) {
    auto check_expr = [&](const Expr& e) {
        for_each_expr(e, [&](const Expr& n) {
            // Growing a buffer moves its data and its fields, which every thread reads.
            if (n.kind() == ExprKind::Call && n.as<Call>().function.rfind("siskin_buffer_", 0) == 0)
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

bool chunk_safe(const For& f, const ParallelLoop& mark, const std::string& reduction_var) {
    BodyScan w;
    scan(f.body, 0, w);
    if (w.unsafe) return false;
    auto reduced = [&](const std::string& v) {
        return v == reduction_var ||
               std::any_of(mark.reductions.begin(), mark.reductions.end(),
                           [&](const ParallelLoop::Reduction& r) { return r.var == v; });
    };
    for (const auto& v : w.assigned_vars)
        if (!w.locals.count(v) && !reduced(v)) return false;
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
                 int64_t min_work, std::string reduction_var)
        : names_(body), loops_(loops), threads_(threads), min_work_(min_work),
          reduction_var_(std::move(reduction_var)) {}

    int made = 0;

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
            if (auto region = parallel(s.as<For>())) {
                ++made;
                return *region;
            }
            return s;
        default: return s;
        }
    }

private:
    const ParallelLoop* mark_of(const For& f) const {
        auto counted = counted_for(f);
        if (!counted || !f.init || f.init->kind() != StmtKind::Decl) return nullptr;
        const auto& d = f.init->as<Decl>();
        if (d.name != counted->var || !d.init || d.type != Type::of(ValueType::Int64)) return nullptr;
        for (const auto& l : loops_)
            if (l.counter == counted->var) return &l;
        return nullptr;
    }

    std::optional<Stmt> parallel(const For& f) {
        const ParallelLoop* mark = mark_of(f);
        if (!mark || !chunk_safe(f, *mark, reduction_var_)) return std::nullopt;
        const std::string& v = mark->counter;
        const Expr lo = *f.init->as<Decl>().init, hi = counted_for(f)->bound;
        if (!is_pure(lo) || !is_pure(hi)) return std::nullopt;

        const Type i64_type = Type::of(ValueType::Int64);
        const Type int_type = Type::named("int");
        std::string lo_name = names_.fresh(v + "_lo"), hi_name = names_.fresh(v + "_hi");
        std::string status = names_.fresh("siskin_status"), failed = names_.fresh("siskin_failed_chunk");
        std::string thread = names_.fresh("siskin_thread"), team = names_.fresh("siskin_team");
        std::string from = names_.fresh(v + "_from"), to = names_.fresh(v + "_to");
        std::string end = names_.fresh("siskin_chunk_end");

        const std::string suffix = mark->weight.empty() || mark->weight_64 ? "i64" : "i32";
        Expr weight = mark->weight.empty()
                          ? Cast::make(i64_type.as_const().pointer(), i64(0))
                          : var(mark->weight);
        auto chunk_start = [&](Expr t) {
            return call("siskin_chunk_first_" + suffix,
                        {weight, var(lo_name), var(hi_name), std::move(t), var(team)});
        };

        bool returns = false;
        Stmt chunk_body = redirect_returns(f.body, var(status), var(failed), var(thread), end, returns);
        // Reductions: each thread's own partial (the same name, declared in the region, so the
        // body updates it), kept per chunk in an array, folded after the region in chunk order.
        std::string team_used = names_.fresh("siskin_team_used");
        std::vector<std::string> partials;
        std::vector<Stmt> before, keep, fold;
        for (const auto& r : mark->reductions) {
            std::string array = names_.fresh(r.var + "_partials");
            partials.push_back(array);
            Type pointer = r.type.pointer();
            // One slot per thread the region may have, on the stack (no value type is wider than
            // 8 bytes).
            before.push_back(Decl::make(
                pointer, array, Cast::make(pointer, call("__builtin_alloca", {i64(int64_t{threads_} * 8)}))));
            keep.push_back(assign(at(var(array), var(thread)), var(r.var)));
            std::string t = names_.fresh("siskin_chunk");
            fold.push_back(For::make(Decl::make(int_type, t, lit(Scalar::of(int32_t{0}))),
                                     bin(BinaryOp::Lt, var(t), var(team_used)), Increment::make(var(t)),
                                     assign(var(r.var), call(r.combine, {var(r.var), at(var(array), var(t))}))));
        }
        std::vector<Stmt> region{
            Decl::make(int_type.as_const(), thread, call("omp_get_thread_num", {})),
            Decl::make(int_type.as_const(), team, call("omp_get_num_threads", {})),
            Decl::make(i64_type.as_const(), from, chunk_start(var(thread))),
            Decl::make(i64_type.as_const(), to,
                       chunk_start(bin(BinaryOp::Add, var(thread), lit(Scalar::of(int32_t{1}))))),
        };
        if (!mark->reductions.empty())
            region.push_back(If::make(bin(BinaryOp::Eq, var(thread), lit(Scalar::of(int32_t{0}))),
                                      assign(var(team_used), var(team))));
        for (const auto& r : mark->reductions) region.push_back(Decl::make(r.type, r.var, r.identity));
        region.push_back(For::make(Decl::make(i64_type, v, var(from)), bin(BinaryOp::Lt, var(v), var(to)),
                                   Increment::make(var(v)), chunk_body));
        if (returns) region.push_back(Label::make(end));
        for (auto& k : keep) region.push_back(std::move(k));

        Expr work = call("siskin_loop_work_" + suffix, {weight, var(lo_name), var(hi_name)});
        std::string clauses = fmt::format(
            "omp parallel num_threads({})",
            print(call("siskin_team_size", {work, i64(min_work_), lit(Scalar::of(int32_t{threads_}))})));
        if (!reduction_var_.empty()) clauses += fmt::format(" reduction(+:{})", reduction_var_);

        std::vector<Stmt> out{Decl::make(i64_type.as_const(), lo_name, lo),
                              Decl::make(i64_type.as_const(), hi_name, hi)};
        if (!mark->reductions.empty()) out.push_back(Decl::make(int_type, team_used, lit(Scalar::of(int32_t{1}))));
        for (auto& b : before) out.push_back(std::move(b));
        if (returns) {
            out.push_back(Decl::make(int_type, status, var("SISKIN_OK")));
            out.push_back(Decl::make(int_type, failed, lit(Scalar::of(int32_t{INT32_MAX}))));
        }
        out.push_back(Pragma::make(clauses, Block::make(std::move(region))));
        if (returns)
            out.push_back(If::make(bin(BinaryOp::Ne, var(status), var("SISKIN_OK")),
                                   Return::make(var(status))));
        for (auto& s : fold) out.push_back(std::move(s));
        return Block::make(std::move(out));
    }

    FreshNames names_;
    const std::vector<ParallelLoop>& loops_;
    int threads_;
    int64_t min_work_;
    std::string reduction_var_;
};

} // namespace

Stmt parallelize_loops(const Stmt& body, const std::vector<ParallelLoop>& loops, int threads,
                       int64_t min_work, const std::string& reduction_var, int& made) {
    made = 0;
    if (loops.empty() || threads <= 1) return body;
    Parallelizer p(body, loops, threads, min_work, reduction_var);
    Stmt out = p.visit(body);
    made = p.made;
    return out;
}

} // namespace siskin::cast
