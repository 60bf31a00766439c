// Growth checks hoisted out of counted loops (c_optimize.hpp). A sparse output appends at most
// one entry per iteration of the loop that produces it (the copy-out of a workspace row, the
// walk of a fibre), and checks its buffers' capacity before every append. One reserve for the
// whole trip before the loop makes every check inside it false, so they go.
#include <vector>

#include "codegen/c_optimize.hpp"
#include "codegen/c_walk.hpp"

namespace siskin::cast {

namespace {

// `if (c + 1 > B->capacity) { if (siskin_buffer_grow(B, c + 1, size) != SISKIN_OK) return
// SISKIN_ERR_ALLOC; P = (T *)B->data; }`, as LowerCtx::reserve writes it for a need of c + 1.
struct GrowthCheck {
    std::string counter; // c
    std::string buffer;  // B
    Expr size;           // element size
    Stmt refresh;        // P = (T *)B->data;
};

bool is_plus_one(const Expr& e, std::string& counter) {
    if (e.kind() != ExprKind::Binary) return false;
    const auto& b = e.as<Binary>();
    if (b.op != BinaryOp::Add || b.lhs.kind() != ExprKind::Var || b.rhs.kind() != ExprKind::Literal)
        return false;
    const Scalar& one = b.rhs.as<Literal>().value;
    if (!is_signed_integer(one.type()) || one.as_int() != 1) return false;
    counter = b.lhs.as<Var>().name;
    return true;
}

std::optional<GrowthCheck> growth_check(const Stmt& s) {
    if (s.kind() != StmtKind::If || s.as<If>().else_body) return std::nullopt;
    const auto& n = s.as<If>();
    struct {
        std::string counter, buffer;
    } g;
    if (n.cond.kind() != ExprKind::Binary || n.cond.as<Binary>().op != BinaryOp::Gt) return std::nullopt;
    const auto& cond = n.cond.as<Binary>();
    if (!is_plus_one(cond.lhs, g.counter) || cond.rhs.kind() != ExprKind::Field) return std::nullopt;
    const auto& cap = cond.rhs.as<Field>();
    if (cap.field != "capacity" || cap.base.kind() != ExprKind::Var) return std::nullopt;
    g.buffer = cap.base.as<Var>().name;
    const auto& body = n.then_body.as<Block>().stmts;
    if (body.size() != 2 || body[0].kind() != StmtKind::If || body[1].kind() != StmtKind::Assign)
        return std::nullopt;
    const auto& fail = body[0].as<If>();
    if (fail.else_body || fail.cond.kind() != ExprKind::Binary) return std::nullopt;
    const auto& ne = fail.cond.as<Binary>();
    if (ne.op != BinaryOp::Ne || ne.lhs.kind() != ExprKind::Call || !is_var(ne.rhs, "SISKIN_OK"))
        return std::nullopt;
    const auto& grow = ne.lhs.as<Call>();
    if (grow.function != "siskin_buffer_grow" || grow.args.size() != 3 ||
        !is_var(grow.args[0], g.buffer) || !same_expr(grow.args[1], cond.lhs))
        return std::nullopt;
    const auto& ret = fail.then_body.as<Block>().stmts;
    if (ret.size() != 1 || ret[0].kind() != StmtKind::Return || !ret[0].as<Return>().value ||
        !is_var(*ret[0].as<Return>().value, "SISKIN_ERR_ALLOC"))
        return std::nullopt;
    const auto& refresh = body[1].as<Assign>();
    if (refresh.op != AssignOp::Set || refresh.target.kind() != ExprKind::Var) return std::nullopt;
    bool reads_data = false;
    for_each_expr(refresh.value, [&](const Expr& e) {
        if (e.kind() == ExprKind::Field && e.as<Field>().field == "data" &&
            is_var(e.as<Field>().base, g.buffer))
            reads_data = true;
    });
    if (!reads_data) return std::nullopt;
    return GrowthCheck{g.counter, g.buffer, grow.args[2], body[1]};
}

// What a loop body does, in pre-order (the order its statements run in within one iteration,
// when it holds no loop and no label).
struct BodyScan {
    std::set<std::string> assigned;              // variables assigned or declared anywhere
    std::map<std::string, int> increments;       // c++ outside nested loops
    std::map<std::string, int> other_writes;     // every other write of a variable
    std::vector<std::pair<const StmtNode*, GrowthCheck>> checks; // outside nested loops
    std::set<std::string> incremented_before;    // counters whose c++ came before this point
    std::set<const StmtNode*> late;              // checks that follow their counter's c++
    bool has_label = false;

    void stmt(const Stmt& s, int loops) {
        switch (s.kind()) {
        case StmtKind::Decl:
            assigned.insert(s.as<Decl>().name);
            ++other_writes[s.as<Decl>().name];
            return;
        case StmtKind::Assign:
            if (auto v = assigned_var(s)) {
                assigned.insert(*v);
                ++other_writes[*v];
            }
            return;
        case StmtKind::Increment:
            if (auto v = assigned_var(s)) {
                assigned.insert(*v);
                if (loops == 0 && !s.as<Increment>().decrement) {
                    ++increments[*v];
                    incremented_before.insert(*v);
                } else {
                    ++other_writes[*v];
                }
            }
            return;
        case StmtKind::If: {
            if (loops == 0)
                if (auto g = growth_check(s)) {
                    if (incremented_before.count(g->counter)) late.insert(s.get());
                    checks.emplace_back(s.get(), *g);
                    // Its refresh assigns the pointer: record it like any write.
                    if (auto v = assigned_var(g->refresh)) {
                        assigned.insert(*v);
                        ++other_writes[*v];
                    }
                    return;
                }
            const auto& n = s.as<If>();
            stmt(n.then_body, loops);
            if (n.else_body) stmt(*n.else_body, loops);
            return;
        }
        case StmtKind::For: {
            const auto& f = s.as<For>();
            if (f.init) stmt(*f.init, loops + 1);
            if (f.step) stmt(*f.step, loops + 1);
            return stmt(f.body, loops + 1);
        }
        case StmtKind::While: return stmt(s.as<While>().body, loops + 1);
        case StmtKind::Block:
            for (const auto& c : s.as<Block>().stmts) stmt(c, loops);
            return;
        case StmtKind::Label: has_label = true; return;
        default: return;
        }
    }
};

Stmt without(const Stmt& s, const std::set<const StmtNode*>& drop) {
    switch (s.kind()) {
    case StmtKind::Block: {
        std::vector<Stmt> out;
        for (const auto& c : s.as<Block>().stmts)
            if (!drop.count(c.get())) out.push_back(without(c, drop));
        return Block::make(std::move(out));
    }
    case StmtKind::If: return map_bodies(s, [&](const Stmt& b) { return without(b, drop); });
    default: return s; // nested loops keep their checks
    }
}

// `for (init; v < e; v++)`, or `for (init; v < e && more; v++)` (a walk of a fibre that a
// window or a shorter extent may stop early): either runs at most e - start times, which is all
// a reserve before the loop needs (capacity past what is appended is never used).
std::optional<CountedFor> bounded_for(const For& f) {
    if (auto shape = counted_for(f)) return shape;
    if (!f.cond || f.cond->kind() != ExprKind::Binary || f.cond->as<Binary>().op != BinaryOp::LogAnd)
        return std::nullopt;
    return counted_for(For(f.init, f.cond->as<Binary>().lhs, f.step, f.body));
}

// A bounded loop (above): the checks of its body hoisted before it, or nothing.
std::vector<Stmt> hoist(const Stmt& loop) {
    const auto& f = loop.as<For>();
    auto shape = bounded_for(f);
    if (!shape || !is_arithmetic(shape->bound)) return {};
    const std::string& v = shape->var;
    Expr start = var(v);
    if (f.init) {
        if (f.init->kind() == StmtKind::Decl && f.init->as<Decl>().name == v && f.init->as<Decl>().init)
            start = *f.init->as<Decl>().init;
        else if (f.init->kind() == StmtKind::Assign && is_var(f.init->as<Assign>().target, v) &&
                 f.init->as<Assign>().op == AssignOp::Set)
            start = f.init->as<Assign>().value;
        else
            return {};
        if (!is_arithmetic(start)) return {};
    }
    BodyScan scan;
    scan.stmt(f.body, 0);
    if (scan.has_label || scan.checks.empty() || scan.assigned.count(v)) return {};
    for (const auto& name : scan.assigned)
        if (mentions(shape->bound, name) || mentions(start, name)) return {};

    // Iteration j (from 0) runs a check before its own c++, so c <= c0 + j there and the need
    // c + 1 is at most c0 + trip.
    Expr trip = bin(BinaryOp::Sub, shape->bound, start);
    std::set<const StmtNode*> drop;
    std::vector<Stmt> before;
    std::set<std::pair<std::string, std::string>> hoisted;
    for (const auto& [node, g] : scan.checks) {
        if (scan.late.count(node) || scan.increments[g.counter] != 1 ||
            scan.other_writes[g.counter] != 0 || g.counter == v)
            continue;
        drop.insert(node);
        if (!hoisted.insert({g.buffer, g.counter}).second) continue;
        Expr need = bin(BinaryOp::Add, var(g.counter), trip);
        Expr cap = Field::make(var(g.buffer), "capacity");
        Stmt fail = If::make(bin(BinaryOp::Ne, call("siskin_buffer_grow", {var(g.buffer), need, g.size}),
                                 var("SISKIN_OK")),
                             Return::make(var("SISKIN_ERR_ALLOC")));
        before.push_back(If::make(bin(BinaryOp::Gt, need, cap), Block::make({fail, g.refresh})));
    }
    if (drop.empty()) return {};
    before.push_back(For::make(f.init, f.cond, f.step, without(f.body, drop)));
    return before;
}

Stmt rewrite(const Stmt& s) {
    switch (s.kind()) {
    case StmtKind::Block: {
        std::vector<Stmt> out;
        for (const auto& c : s.as<Block>().stmts) {
            Stmt r = rewrite(c);
            if (r.kind() == StmtKind::For)
                if (auto h = hoist(r); !h.empty()) {
                    out.insert(out.end(), h.begin(), h.end());
                    continue;
                }
            out.push_back(r);
        }
        return Block::make(std::move(out));
    }
    default: return map_bodies(s, rewrite);
    }
}

} // namespace

Stmt hoist_growth_checks(const Stmt& body) { return rewrite(body); }

} // namespace siskin::cast
