// Fusing a dense output's initialisation into the loop that writes it (c_optimize.hpp). SpMV on
// a dense y is `y[k] = 0` for every k, then per row `if (p < p_end) { acc = y[i]; ...; y[i] =
// acc; }`: two passes over y and a load the hand-written loop does not have. Iteration i of the
// row loop is the first to touch y[i], so it can start from the constant in a register and store
// once at its end; those stores cover every element the first loop set, which then goes.
//
// A row-major 2-D output (SpMM's C) is set over n*m elements and iteration i of the row loop
// reaches only its own row, X[i*m + j] with j counting 0..m inside it: the row is set at the start
// of its iteration instead, so it is written while it is in cache rather than in a pass of its own.
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
    auto loop = counted_for(f);
    if (!loop || !f.init || f.init->kind() != StmtKind::Decl) return std::nullopt;
    const auto& d = f.init->as<Decl>();
    if (d.name != loop->var || !d.init || !is_zero(*d.init) || !is_pure(loop->bound) ||
        mentions(loop->bound, d.name))
        return std::nullopt;
    return CountedLoop{d.name, loop->bound, f.body};
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
        if (!init || !rows) return std::nullopt;
        auto set = constant_init(*init);
        if (!set) return std::nullopt;
        // Named copies, not a structured binding: clang before 16 cannot capture one in a lambda.
        const auto& array = set->first;
        const auto& value = set->second;
        auto type = arrays_.find(array);
        if (type == arrays_.end()) return std::nullopt;
        if (!same_expr(init->bound, rows->bound)) return fuse_rows(*init, *rows, second, array, value);

        // The row loop reaches the array only at [i], and changes neither i, the bound, the
        // array pointer nor what the constant reads.
        int vars = 0, elements = 0;
        for_each_node(rows->body, [&](const Expr& e) {
            if (is_var(e, array)) ++vars;
            if (e.kind() == ExprKind::Index && is_var(e.as<Index>().base, array) &&
                is_var(e.as<Index>().index, rows->var))
                ++elements;
        });
        if (vars != elements || leaves_loop(rows->body, false) || changes(*rows, array, {rows->bound, value}))
            return std::nullopt;

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

    // Whether the row loop's body changes the row index, the array pointer, or a variable that
    // `exprs` read.
    static bool changes(const CountedLoop& rows, const std::string& array, const std::vector<Expr>& exprs) {
        bool changed = false;
        for_each_node(rows.body, {}, [&](const Stmt& s) {
            std::optional<std::string> v = assigned_var(s);
            if (s.kind() == StmtKind::Decl) v = s.as<Decl>().name;
            if (!v) return;
            if (*v == rows.var || *v == array) changed = true;
            for (const auto& e : exprs) changed = changed || mentions(e, *v);
        });
        return changed;
    }

    // Every use of `array` in s is an element X[i*m + j], j the counter of a loop `for (j = 0;
    // j < m; j++)` around it inside s that nothing else in that loop assigns; `counters` are the
    // ones around s.
    static bool row_elements_only(const Stmt& s, const std::string& array, const std::string& i,
                                  const Expr& m, std::vector<std::string>& counters) {
        if (auto inner = counted(s); inner && same_expr(inner->bound, m)) {
            bool moved = false;
            for_each_node(inner->body, {}, [&](const Stmt& c) {
                std::optional<std::string> v = assigned_var(c);
                if (c.kind() == StmtKind::Decl) v = c.as<Decl>().name;
                if (c.kind() == StmtKind::Increment && c.as<Increment>().target.kind() == ExprKind::Var)
                    v = c.as<Increment>().target.as<Var>().name;
                moved = moved || (v && *v == inner->var);
            });
            if (moved) return false;
            counters.push_back(inner->var);
            bool ok = row_elements_only(inner->body, array, i, m, counters);
            counters.pop_back();
            return ok;
        }
        auto row_element = [&](const Expr& e) {
            if (e.kind() != ExprKind::Index || !is_var(e.as<Index>().base, array)) return false;
            const Expr& index = e.as<Index>().index;
            if (index.kind() != ExprKind::Binary || index.as<Binary>().op != BinaryOp::Add) return false;
            const auto& sum = index.as<Binary>();
            if (sum.lhs.kind() != ExprKind::Binary || sum.lhs.as<Binary>().op != BinaryOp::Mul) return false;
            const auto& row = sum.lhs.as<Binary>();
            if (!is_var(row.lhs, i) || !same_expr(row.rhs, m)) return false;
            for (const auto& j : counters)
                if (is_var(sum.rhs, j)) return true;
            return false;
        };
        switch (s.kind()) {
        case StmtKind::Block:
            for (const auto& c : s.as<Block>().stmts)
                if (!row_elements_only(c, array, i, m, counters)) return false;
            return true;
        case StmtKind::If: {
            const auto& n = s.as<If>();
            if (mentions(n.cond, array)) return false;
            return row_elements_only(n.then_body, array, i, m, counters) &&
                   (!n.else_body || row_elements_only(*n.else_body, array, i, m, counters));
        }
        case StmtKind::For: {
            // Another loop: its header must not touch the array; its body is checked as is.
            const auto& f = s.as<For>();
            if ((f.init && mentions(*f.init, array)) || (f.cond && mentions(*f.cond, array)) ||
                (f.step && mentions(*f.step, array)))
                return false;
            return row_elements_only(f.body, array, i, m, counters);
        }
        case StmtKind::While:
            if (mentions(s.as<While>().cond, array)) return false;
            return row_elements_only(s.as<While>().body, array, i, m, counters);
        default: {
            // A plain statement: every occurrence of the array is a row element.
            int vars = 0, elements = 0;
            for_each_node(s, [&](const Expr& e) {
                if (is_var(e, array)) ++vars;
                if (row_element(e)) ++elements;
            });
            return vars == elements;
        }
        }
    }

    // `for (k = 0; k < n*m; k++) X[k] = c; for (i = 0; i < n; i++) B` where B reaches X only at
    // X[i*m + j] (j counting 0..m in B): B starts by setting its row.
    std::optional<Stmt> fuse_rows(const CountedLoop& init, const CountedLoop& rows, const Stmt& second,
                                  const std::string& array, const Expr& value) {
        if (init.bound.kind() != ExprKind::Binary || init.bound.as<Binary>().op != BinaryOp::Mul) return std::nullopt;
        const auto& nm = init.bound.as<Binary>();
        if (!same_expr(nm.lhs, rows.bound)) return std::nullopt;
        const Expr& m = nm.rhs;
        std::vector<std::string> counters;
        if (!row_elements_only(rows.body, array, rows.var, m, counters)) return std::nullopt;
        if (leaves_loop(rows.body, false) || changes(rows, array, {rows.bound, m, value})) return std::nullopt;

        std::string k = names_.fresh("k");
        Expr row_start = bin(BinaryOp::Mul, var(rows.var), m);
        Stmt set_row = For::make(Decl::make(Type::of(ValueType::Int64), k, i64(0)), bin(BinaryOp::Lt, var(k), m),
                                 Increment::make(var(k)),
                                 Block::make({assign(at(var(array), bin(BinaryOp::Add, row_start, var(k))), value)}));
        std::vector<Stmt> stmts{set_row};
        Stmt body = walk(rows.body);
        for (const auto& c : body.as<Block>().stmts) stmts.push_back(c);
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
