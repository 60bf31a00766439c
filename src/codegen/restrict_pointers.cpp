// restrict on output data pointers (c_optimize.hpp). The inputs are `const T *restrict` from the
// prologue on; an output's pointer can be too once it has stopped moving, which is the case for
// every output whose buffer is sized before the loops (dense levels, values of dense outputs).
#include "codegen/c_optimize.hpp"
#include "codegen/c_walk.hpp"

namespace siskin::cast {

namespace {

struct Scan {
    const std::set<std::string>& names;
    std::set<std::string> bad, accessed;
    std::map<std::string, int> vars, allowed;

    void expr(const Expr& e) {
        for_each_expr(e, [&](const Expr& n) {
            if (n.kind() == ExprKind::Var && names.count(n.as<Var>().name)) ++vars[n.as<Var>().name];
            if (n.kind() == ExprKind::Index && n.as<Index>().base.kind() == ExprKind::Var) {
                const std::string& b = n.as<Index>().base.as<Var>().name;
                ++allowed[b];
                accessed.insert(b);
            }
        });
    }

    void stmt(const Stmt& s, int loops) {
        switch (s.kind()) {
        case StmtKind::Decl: {
            const auto& d = s.as<Decl>();
            if (d.init) expr(*d.init);
            if (names.count(d.name) && loops > 0) bad.insert(d.name);
            return;
        }
        case StmtKind::Assign:
        case StmtKind::Increment: {
            const Expr& target = s.kind() == StmtKind::Assign ? s.as<Assign>().target
                                                              : s.as<Increment>().target;
            if (s.kind() == StmtKind::Assign) expr(s.as<Assign>().value);
            if (auto v = assigned_var(s); v && names.count(*v)) {
                // The pointer moves: fine only before its first access and outside loops.
                ++allowed[*v];
                if (loops > 0 || accessed.count(*v)) bad.insert(*v);
            }
            expr(target);
            return;
        }
        case StmtKind::If: {
            const auto& n = s.as<If>();
            expr(n.cond);
            stmt(n.then_body, loops);
            if (n.else_body) stmt(*n.else_body, loops);
            return;
        }
        case StmtKind::For: {
            const auto& n = s.as<For>();
            if (n.init) stmt(*n.init, loops);
            if (n.cond) expr(*n.cond);
            if (n.step) stmt(*n.step, loops + 1);
            return stmt(n.body, loops + 1);
        }
        case StmtKind::While:
            expr(s.as<While>().cond);
            return stmt(s.as<While>().body, loops + 1);
        case StmtKind::Block:
            for (const auto& c : s.as<Block>().stmts) stmt(c, loops);
            return;
        case StmtKind::Eval: return expr(s.as<Eval>().expr);
        case StmtKind::Return:
            if (s.as<Return>().value) expr(*s.as<Return>().value);
            return;
        default: return;
        }
    }
};

Stmt mark(const Stmt& s, const std::set<std::string>& ok) {
    switch (s.kind()) {
    case StmtKind::Decl: {
        const auto& d = s.as<Decl>();
        if (!ok.count(d.name) || d.type.is_restrict || d.type.pointers == 0) return s;
        return Decl::make(d.type.restricted(), d.name, d.init);
    }
    case StmtKind::Block: {
        std::vector<Stmt> out;
        for (const auto& c : s.as<Block>().stmts) out.push_back(mark(c, ok));
        return Block::make(std::move(out));
    }
    default: return s; // the pointers are declared at the top level of the kernel
    }
}

} // namespace

Stmt restrict_pointers(const Stmt& body, const std::set<std::string>& names) {
    Scan scan{names, {}, {}, {}, {}};
    scan.stmt(body, 0);
    std::set<std::string> ok;
    for (const auto& n : names)
        if (!scan.bad.count(n) && scan.vars[n] == scan.allowed[n]) ok.insert(n);
    return mark(body, ok);
}

} // namespace siskin::cast
