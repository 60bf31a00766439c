// Dead locals (c_optimize.hpp): the lowerer keeps loop cursors and bounds in locals whether or
// not later code reads them; this pass drops the ones nothing reads.
#include <map>
#include <vector>

#include "codegen/c_optimize.hpp"
#include "codegen/c_walk.hpp"

namespace siskin::cast {

namespace {

struct Uses {
    std::set<std::string> scalars;     // declared non-pointer locals
    std::map<std::string, int> reads;  // occurrences that are not a plain store
    std::set<std::string> kept;        // stored by a statement we could not drop
};

void count(const Stmt& s, Uses& u);

void count_expr_node(const Expr& n, Uses& u) {
    if (n.kind() == ExprKind::Var) ++u.reads[n.as<Var>().name];
}

void count_expr(const Expr& e, Uses& u) {
    for_each_expr(e, [&](const Expr& n) { count_expr_node(n, u); });
}

// A statement of a block that only stores into a variable: its target is no read.
void count_store(const Stmt& s, Uses& u) {
    if (s.kind() == StmtKind::Assign) {
        const auto& a = s.as<Assign>();
        count_expr(a.value, u);
        if (!is_pure(a.value)) u.kept.insert(*assigned_var(s));
    }
}

void count(const Stmt& s, Uses& u) {
    switch (s.kind()) {
    case StmtKind::Decl: {
        const auto& d = s.as<Decl>();
        if (d.type.pointers == 0) u.scalars.insert(d.name);
        if (d.init) {
            count_expr(*d.init, u);
            if (!is_pure(*d.init)) u.kept.insert(d.name);
        }
        return;
    }
    case StmtKind::Assign:
    case StmtKind::Increment:
        if (assigned_var(s)) return count_store(s, u);
        break;
    case StmtKind::For: {
        // Stores in a loop header stay: count everything there as read.
        const auto& f = s.as<For>();
        auto all_read = [&](const Stmt& part) {
            if (part.kind() == StmtKind::Decl) ++u.reads[part.as<Decl>().name];
            for_each_node(part, [&](const Expr& e) { count_expr_node(e, u); });
        };
        if (f.init) all_read(*f.init);
        if (f.cond) count_expr(*f.cond, u);
        if (f.step) all_read(*f.step);
        return count(f.body, u);
    }
    case StmtKind::If: {
        const auto& n = s.as<If>();
        count_expr(n.cond, u);
        count(n.then_body, u);
        if (n.else_body) count(*n.else_body, u);
        return;
    }
    case StmtKind::While:
        count_expr(s.as<While>().cond, u);
        return count(s.as<While>().body, u);
    case StmtKind::Block:
        for (const auto& c : s.as<Block>().stmts) count(c, u);
        return;
    default: break;
    }
    for_each_node(s, [&](const Expr& e) { count_expr_node(e, u); });
}

bool is_empty_block(const Stmt& s) {
    return s.kind() == StmtKind::Block && s.as<Block>().stmts.empty();
}

Stmt drop(const Stmt& s, const std::set<std::string>& dead) {
    switch (s.kind()) {
    case StmtKind::Block: {
        std::vector<Stmt> out;
        for (const auto& c : s.as<Block>().stmts) {
            if (c.kind() == StmtKind::Decl && dead.count(c.as<Decl>().name)) continue;
            if (auto v = assigned_var(c); v && dead.count(*v)) continue;
            Stmt d = drop(c, dead);
            // An if whose body became empty, with nothing to evaluate, is nothing.
            if (d.kind() == StmtKind::If) {
                const auto& n = d.as<If>();
                if (!n.else_body && is_empty_block(n.then_body) && is_pure(n.cond)) continue;
            }
            out.push_back(d);
        }
        return Block::make(std::move(out));
    }
    default: return map_bodies(s, [&](const Stmt& c) { return drop(c, dead); });
    }
}

} // namespace

Stmt remove_dead_locals(const Stmt& body) {
    Stmt s = body;
    while (true) {
        Uses u;
        count(s, u);
        std::set<std::string> dead;
        for (const auto& name : u.scalars)
            if (!u.reads.count(name) && !u.kept.count(name)) dead.insert(name);
        if (dead.empty()) return s;
        s = drop(s, dead);
    }
}

} // namespace siskin::cast
