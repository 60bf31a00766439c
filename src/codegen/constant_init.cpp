// Fusing a dense output's initialisation into the loop that writes it (c_optimize.hpp). SpMV on
// a dense y is `y[k] = 0` for every k, then per row `if (p < p_end) { acc = y[i]; ...; y[i] =
// acc; }`: two passes over y and a load the hand-written loop does not have. Iteration i of the
// row loop is the first to touch y[i], so it can start from the constant in a register and store
// once at its end; those stores cover every element the first loop set, which then goes.
#include <vector>

#include "codegen/c_optimize.hpp"
#include "codegen/c_walk.hpp"

namespace siskin::cast {

namespace {

bool is_zero(const Expr& e) {
    return e.kind() == ExprKind::Literal && e.as<Literal>().value.same(Scalar::of(int64_t{0}));
}

// `for (T v = 0; v < n; v++) body` with n pure: v and n, else none.
struct CountedLoop {
    std::string var;
    Expr bound;
    Stmt body;
};

std::optional<CountedLoop> counted(const Stmt& s) {
    if (s.kind() != StmtKind::For) return std::nullopt;
    const auto& f = s.as<For>();
    if (!f.init || f.init->kind() != StmtKind::Decl || !f.cond || !f.step) return std::nullopt;
    const auto& d = f.init->as<Decl>();
    if (!d.init || !is_zero(*d.init)) return std::nullopt;
    if (f.cond->kind() != ExprKind::Binary) return std::nullopt;
    const auto& c = f.cond->as<Binary>();
    if (c.op != BinaryOp::Lt || !is_var(c.lhs, d.name) || !is_pure(c.rhs) || mentions(c.rhs, d.name))
        return std::nullopt;
    if (f.step->kind() != StmtKind::Increment || f.step->as<Increment>().decrement ||
        !is_var(f.step->as<Increment>().target, d.name))
        return std::nullopt;
    return CountedLoop{d.name, c.rhs, f.body};
}

// `for (k = 0; k < n; k++) { X[k] = c; }` with c pure and free of k and X: X and c.
std::optional<std::pair<std::string, Expr>> constant_init(const CountedLoop& loop) {
    const auto& stmts = loop.body.as<Block>().stmts;
    if (stmts.size() != 1 || stmts.front().kind() != StmtKind::Assign) return std::nullopt;
    const auto& a = stmts.front().as<Assign>();
    if (a.op != AssignOp::Set || a.target.kind() != ExprKind::Index) return std::nullopt;
    const auto& t = a.target.as<Index>();
    if (t.base.kind() != ExprKind::Var || !is_var(t.index, loop.var)) return std::nullopt;
    const std::string& array = t.base.as<Var>().name;
    if (!is_pure(a.value) || mentions(a.value, loop.var) || mentions(a.value, array)) return std::nullopt;
    return std::pair{array, a.value};
}

// Whether s can leave the loop it sits in other than by finishing its body: a break or
// continue outside any inner loop, or a return or goto anywhere.
bool leaves_loop(const Stmt& s, bool in_inner_loop) {
    switch (s.kind()) {
    case StmtKind::Break:
    case StmtKind::Continue: return !in_inner_loop;
    case StmtKind::Return:
    case StmtKind::Goto: return true;
    case StmtKind::Block:
        for (const auto& c : s.as<Block>().stmts)
            if (leaves_loop(c, in_inner_loop)) return true;
        return false;
    case StmtKind::If: {
        const auto& n = s.as<If>();
        return leaves_loop(n.then_body, in_inner_loop) ||
               (n.else_body && leaves_loop(*n.else_body, in_inner_loop));
    }
    case StmtKind::For: return leaves_loop(s.as<For>().body, true);
    case StmtKind::While: return leaves_loop(s.as<While>().body, true);
    default: return false;
    }
}

class Fuser {
public:
    Fuser(const Stmt& body, const std::map<std::string, Type>& arrays) : arrays_(arrays), names_(body) {}

    Stmt walk(const Stmt& s) {
        switch (s.kind()) {
        case StmtKind::Block: {
            std::vector<Stmt> out;
            const auto& stmts = s.as<Block>().stmts;
            for (size_t k = 0; k < stmts.size(); ++k) {
                if (k + 1 < stmts.size())
                    if (auto fused = fuse(stmts[k], stmts[k + 1])) {
                        out.push_back(*fused);
                        ++k;
                        continue;
                    }
                out.push_back(walk(stmts[k]));
            }
            return Block::make(std::move(out));
        }
        default: return map_bodies(s, [this](const Stmt& c) { return walk(c); });
        }
    }

private:
    std::optional<Stmt> fuse(const Stmt& first, const Stmt& second) {
        auto init = counted(first);
        auto rows = counted(second);
        if (!init || !rows || !same_expr(init->bound, rows->bound)) return std::nullopt;
        auto set = constant_init(*init);
        if (!set) return std::nullopt;
        const auto& [array, value] = *set;
        auto type = arrays_.find(array);
        if (type == arrays_.end()) return std::nullopt;

        // The row loop reaches the array only at [i], and changes neither i, the bound, the
        // array pointer nor what the constant reads.
        int vars = 0, elements = 0;
        for_each_node(rows->body, [&](const Expr& e) {
            if (is_var(e, array)) ++vars;
            if (e.kind() == ExprKind::Index && is_var(e.as<Index>().base, array) &&
                is_var(e.as<Index>().index, rows->var))
                ++elements;
        });
        if (vars != elements || leaves_loop(rows->body, false)) return std::nullopt;
        bool changes = false;
        for_each_node(rows->body, {}, [&](const Stmt& s) {
            std::optional<std::string> v = assigned_var(s);
            if (s.kind() == StmtKind::Decl) v = s.as<Decl>().name;
            if (v && (*v == rows->var || *v == array || mentions(rows->bound, *v) || mentions(value, *v)))
                changes = true;
        });
        if (changes) return std::nullopt;

        std::string local = names_.fresh(array + "_row");
        Expr element = at(var(array), var(rows->var));
        Stmt body = rewrite_exprs(walk(rows->body), [&](const Expr& e) -> std::optional<Expr> {
            if (same_expr(e, element)) return var(local);
            return std::nullopt;
        });
        std::vector<Stmt> stmts{Decl::make(type->second, local, value)};
        for (const auto& c : body.as<Block>().stmts) stmts.push_back(c);
        stmts.push_back(assign(element, var(local)));
        const auto& f = second.as<For>();
        return For::make(f.init, f.cond, f.step, Block::make(std::move(stmts)));
    }

    const std::map<std::string, Type>& arrays_;
    FreshNames names_;
};

} // namespace

Stmt fuse_constant_init(const Stmt& body, const std::map<std::string, Type>& arrays) {
    std::map<std::string, Type> safe = indexed_only(body, arrays);
    if (safe.empty()) return body;
    Fuser f(body, safe);
    return f.walk(body);
}

} // namespace siskin::cast
