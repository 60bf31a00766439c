#include "codegen/c_walk.hpp"

#include <algorithm>
#include <array>
#include <string_view>
#include <vector>

#include "codegen/c_printer.hpp"

namespace siskin::cast {

void for_each_expr(const Expr& e, const std::function<void(const Expr&)>& f) {
    f(e);
    switch (e.kind()) {
    case ExprKind::Literal:
    case ExprKind::Var: return;
    case ExprKind::Unary: return for_each_expr(e.as<Unary>().operand, f);
    case ExprKind::Binary:
        for_each_expr(e.as<Binary>().lhs, f);
        return for_each_expr(e.as<Binary>().rhs, f);
    case ExprKind::Ternary: {
        const auto& t = e.as<Ternary>();
        for_each_expr(t.cond, f);
        for_each_expr(t.then_value, f);
        return for_each_expr(t.else_value, f);
    }
    case ExprKind::Call:
        for (const auto& a : e.as<Call>().args) for_each_expr(a, f);
        return;
    case ExprKind::Index:
        for_each_expr(e.as<Index>().base, f);
        return for_each_expr(e.as<Index>().index, f);
    case ExprKind::Field: return for_each_expr(e.as<Field>().base, f);
    case ExprKind::Cast: return for_each_expr(e.as<Cast>().operand, f);
    }
}

void for_each_node(const Stmt& s, const std::function<void(const Expr&)>& on_expr,
                   const std::function<void(const Stmt&)>& on_stmt) {
    if (on_stmt) on_stmt(s);
    auto ex = [&](const Expr& e) {
        if (on_expr) for_each_expr(e, on_expr);
    };
    auto st = [&](const Stmt& c) { for_each_node(c, on_expr, on_stmt); };
    switch (s.kind()) {
    case StmtKind::Decl:
        if (const auto& i = s.as<Decl>().init) ex(*i);
        return;
    case StmtKind::Assign:
        ex(s.as<Assign>().target);
        return ex(s.as<Assign>().value);
    case StmtKind::Increment: return ex(s.as<Increment>().target);
    case StmtKind::Eval: return ex(s.as<Eval>().expr);
    case StmtKind::If: {
        const auto& n = s.as<If>();
        ex(n.cond);
        st(n.then_body);
        if (n.else_body) st(*n.else_body);
        return;
    }
    case StmtKind::For: {
        const auto& n = s.as<For>();
        if (n.init) st(*n.init);
        if (n.cond) ex(*n.cond);
        if (n.step) st(*n.step);
        return st(n.body);
    }
    case StmtKind::While:
        ex(s.as<While>().cond);
        return st(s.as<While>().body);
    case StmtKind::Return:
        if (const auto& v = s.as<Return>().value) ex(*v);
        return;
    case StmtKind::Block:
        for (const auto& c : s.as<Block>().stmts) st(c);
        return;
    case StmtKind::Pragma: return st(s.as<Pragma>().body);
    case StmtKind::Break:
    case StmtKind::Continue:
    case StmtKind::Comment:
    case StmtKind::Goto:
    case StmtKind::Label: return;
    }
}

Expr rewrite_expr(const Expr& e, const std::function<std::optional<Expr>(const Expr&)>& f) {
    if (auto r = f(e)) return *r;
    auto re = [&](const Expr& c) { return rewrite_expr(c, f); };
    switch (e.kind()) {
    case ExprKind::Literal:
    case ExprKind::Var: return e;
    case ExprKind::Unary: return Unary::make(e.as<Unary>().op, re(e.as<Unary>().operand));
    case ExprKind::Binary: {
        const auto& b = e.as<Binary>();
        return Binary::make(b.op, re(b.lhs), re(b.rhs));
    }
    case ExprKind::Ternary: {
        const auto& t = e.as<Ternary>();
        return Ternary::make(re(t.cond), re(t.then_value), re(t.else_value));
    }
    case ExprKind::Call: {
        std::vector<Expr> args;
        for (const auto& a : e.as<Call>().args) args.push_back(re(a));
        return Call::make(e.as<Call>().function, std::move(args));
    }
    case ExprKind::Index: return Index::make(re(e.as<Index>().base), re(e.as<Index>().index));
    case ExprKind::Field: {
        const auto& n = e.as<Field>();
        return Field::make(re(n.base), n.field, n.arrow);
    }
    case ExprKind::Cast: return Cast::make(e.as<Cast>().type, re(e.as<Cast>().operand));
    }
    return e;
}

Stmt map_bodies(const Stmt& s, const std::function<Stmt(const Stmt&)>& f) {
    switch (s.kind()) {
    case StmtKind::If: {
        const auto& n = s.as<If>();
        std::optional<Stmt> otherwise;
        // An else-if's else is the next If of the chain, not a body: its bodies are mapped.
        if (n.else_body)
            otherwise = n.else_body->kind() == StmtKind::If ? map_bodies(*n.else_body, f) : f(*n.else_body);
        return If::make(n.cond, f(n.then_body), otherwise);
    }
    case StmtKind::For: {
        const auto& n = s.as<For>();
        return For::make(n.init, n.cond, n.step, f(n.body));
    }
    case StmtKind::While: return While::make(s.as<While>().cond, f(s.as<While>().body));
    case StmtKind::Pragma: return Pragma::make(s.as<Pragma>().text, f(s.as<Pragma>().body));
    default: return s;
    }
}

Expr substitute(const Expr& e, const std::string& name, const Expr& value) {
    return rewrite_expr(e, [&](const Expr& n) -> std::optional<Expr> {
        if (is_var(n, name)) return value;
        return std::nullopt;
    });
}

std::optional<CountedFor> counted_for(const For& f) {
    if (!f.cond || !f.step || f.cond->kind() != ExprKind::Binary) return std::nullopt;
    const auto& c = f.cond->as<Binary>();
    if (c.op != BinaryOp::Lt || c.lhs.kind() != ExprKind::Var) return std::nullopt;
    const std::string& v = c.lhs.as<Var>().name;
    const Stmt& step = *f.step;
    if (step.kind() != StmtKind::Increment || step.as<Increment>().decrement ||
        !is_var(step.as<Increment>().target, v))
        return std::nullopt;
    return CountedFor{v, c.rhs};
}

Stmt merge_adjacent(const Stmt& s, const std::function<std::optional<Stmt>(const Stmt&, const Stmt&)>& pair) {
    if (s.kind() != StmtKind::Block)
        return map_bodies(s, [&](const Stmt& body) { return merge_adjacent(body, pair); });
    std::vector<Stmt> in = s.as<Block>().stmts, out;
    for (size_t k = 0; k < in.size(); ++k) {
        if (k + 1 < in.size())
            if (auto merged = pair(in[k], in[k + 1])) {
                in[k + 1] = *merged;
                continue;
            }
        out.push_back(merge_adjacent(in[k], pair));
    }
    return Block::make(std::move(out));
}

std::optional<std::string> array_store(const Stmt& s, const std::map<std::string, Type>& arrays) {
    if (s.kind() != StmtKind::Assign || s.as<Assign>().op != AssignOp::Set) return std::nullopt;
    const Expr& target = s.as<Assign>().target;
    if (target.kind() != ExprKind::Index) return std::nullopt;
    const Expr& base = target.as<Index>().base;
    if (base.kind() != ExprKind::Var || !arrays.count(base.as<Var>().name)) return std::nullopt;
    return base.as<Var>().name;
}

Stmt rewrite_exprs(const Stmt& s, const std::function<std::optional<Expr>(const Expr&)>& f) {
    auto ex = [&](const Expr& e) { return rewrite_expr(e, f); };
    auto st = [&](const Stmt& c) { return rewrite_exprs(c, f); };
    switch (s.kind()) {
    case StmtKind::Decl: {
        const auto& n = s.as<Decl>();
        std::optional<Expr> init;
        if (n.init) init = ex(*n.init);
        return Decl::make(n.type, n.name, init);
    }
    case StmtKind::Assign: {
        const auto& n = s.as<Assign>();
        return Assign::make(ex(n.target), n.op, ex(n.value));
    }
    case StmtKind::Increment: {
        const auto& n = s.as<Increment>();
        return Increment::make(ex(n.target), n.decrement);
    }
    case StmtKind::Eval: return Eval::make(ex(s.as<Eval>().expr));
    case StmtKind::If: {
        const auto& n = s.as<If>();
        std::optional<Stmt> otherwise;
        if (n.else_body) otherwise = st(*n.else_body);
        return If::make(ex(n.cond), st(n.then_body), otherwise);
    }
    case StmtKind::For: {
        const auto& n = s.as<For>();
        std::optional<Stmt> init, step;
        std::optional<Expr> cond;
        if (n.init) init = st(*n.init);
        if (n.cond) cond = ex(*n.cond);
        if (n.step) step = st(*n.step);
        return For::make(init, cond, step, st(n.body));
    }
    case StmtKind::While: return While::make(ex(s.as<While>().cond), st(s.as<While>().body));
    case StmtKind::Return: {
        std::optional<Expr> v;
        if (s.as<Return>().value) v = ex(*s.as<Return>().value);
        return Return::make(v);
    }
    case StmtKind::Block: {
        std::vector<Stmt> stmts;
        for (const auto& c : s.as<Block>().stmts) stmts.push_back(st(c));
        return Block::make(std::move(stmts));
    }
    case StmtKind::Pragma: return Pragma::make(s.as<Pragma>().text, st(s.as<Pragma>().body));
    case StmtKind::Break:
    case StmtKind::Continue:
    case StmtKind::Comment:
    case StmtKind::Goto:
    case StmtKind::Label: return s;
    }
    return s;
}

bool same_expr(const Expr& a, const Expr& b) { return a.get() == b.get() || print(a) == print(b); }

bool mentions(const Expr& e, const std::string& name) {
    bool found = false;
    for_each_expr(e, [&](const Expr& n) {
        if (n.kind() == ExprKind::Var && n.as<Var>().name == name) found = true;
    });
    return found;
}

bool mentions(const Stmt& s, const std::string& name) {
    bool found = false;
    for_each_node(
        s,
        [&](const Expr& n) {
            if (n.kind() == ExprKind::Var && n.as<Var>().name == name) found = true;
        },
        [&](const Stmt& c) {
            if (c.kind() == StmtKind::Decl && c.as<Decl>().name == name) found = true;
        });
    return found;
}

std::optional<std::string> assigned_var(const Stmt& s) {
    const Expr* target = nullptr;
    if (s.kind() == StmtKind::Assign) target = &s.as<Assign>().target;
    else if (s.kind() == StmtKind::Increment) target = &s.as<Increment>().target;
    if (target && target->kind() == ExprKind::Var) return target->as<Var>().name;
    return std::nullopt;
}

bool is_arithmetic(const Expr& e) {
    bool ok = true;
    for_each_expr(e, [&](const Expr& n) {
        switch (n.kind()) {
        case ExprKind::Var:
        case ExprKind::Literal:
        case ExprKind::Unary:
        case ExprKind::Binary:
        case ExprKind::Cast: return;
        default: ok = false;
        }
    });
    return ok;
}

bool is_pure(const Expr& e) {
    static constexpr std::array<std::string_view, 5> kPure{
        "siskin_op_", "siskin_lower_bound_", "siskin_gallop_", "siskin_min_", "siskin_max_"};
    bool pure = true;
    for_each_expr(e, [&](const Expr& n) {
        if (n.kind() != ExprKind::Call) return;
        const std::string& f = n.as<Call>().function;
        bool known = false;
        for (auto prefix : kPure) known |= f.rfind(prefix, 0) == 0;
        pure &= known;
    });
    return pure;
}

std::map<std::string, Type> indexed_only(const Stmt& body, const std::map<std::string, Type>& arrays) {
    std::map<std::string, int> vars, uses;
    for_each_node(body, [&](const Expr& e) {
        if (e.kind() == ExprKind::Var) ++vars[e.as<Var>().name];
        if (e.kind() == ExprKind::Index && e.as<Index>().base.kind() == ExprKind::Var)
            ++uses[e.as<Index>().base.as<Var>().name];
    }, [&](const Stmt& s) {
        if (auto v = assigned_var(s)) ++uses[*v];
    });
    std::map<std::string, Type> safe;
    for (const auto& [name, type] : arrays)
        if (vars[name] == uses[name]) safe.emplace(name, type);
    return safe;
}

bool is_var(const Expr& e, const std::string& name) {
    return e.kind() == ExprKind::Var && e.as<Var>().name == name;
}

FreshNames::FreshNames(const Stmt& body) {
    for_each_node(
        body, [&](const Expr& e) { if (e.kind() == ExprKind::Var) used_.insert(e.as<Var>().name); },
        [&](const Stmt& s) { if (s.kind() == StmtKind::Decl) used_.insert(s.as<Decl>().name); });
}

std::string FreshNames::fresh(const std::string& base) {
    std::string name = base;
    for (int k = 1; used_.count(name); ++k) name = base + "_" + std::to_string(k);
    used_.insert(name);
    return name;
}

bool holds(const Stmt& s, std::initializer_list<StmtKind> kinds) {
    bool found = false;
    for_each_node(s, {}, [&](const Stmt& n) {
        found |= std::find(kinds.begin(), kinds.end(), n.kind()) != kinds.end();
    });
    return found;
}

namespace {

void scan_writes(const Stmt& s, int loops, Writes& w) {
    switch (s.kind()) {
    case StmtKind::Decl: w.vars.insert(s.as<Decl>().name); return;
    case StmtKind::Assign:
    case StmtKind::Increment: {
        const Expr& target = s.kind() == StmtKind::Assign ? s.as<Assign>().target
                                                          : s.as<Increment>().target;
        if (auto v = assigned_var(s)) w.vars.insert(*v);
        Expr base = target;
        while (base.kind() == ExprKind::Index) base = base.as<Index>().base;
        if (base.kind() == ExprKind::Var) w.arrays.insert(base.as<Var>().name);
        else if (target.kind() != ExprKind::Var) w.exits = true; // a store we cannot name
        return;
    }
    case StmtKind::Break: w.exits |= loops == 0; return;
    case StmtKind::Goto:
    case StmtKind::Return:
    case StmtKind::Label:
    case StmtKind::Pragma: w.exits = true; return;
    case StmtKind::If: {
        const auto& n = s.as<If>();
        scan_writes(n.then_body, loops, w);
        if (n.else_body) scan_writes(*n.else_body, loops, w);
        return;
    }
    case StmtKind::For: {
        const auto& n = s.as<For>();
        if (n.init) scan_writes(*n.init, loops, w);
        if (n.step) scan_writes(*n.step, loops + 1, w);
        scan_writes(n.body, loops + 1, w);
        return;
    }
    case StmtKind::While: scan_writes(s.as<While>().body, loops + 1, w); return;
    case StmtKind::Block:
        for (const auto& c : s.as<Block>().stmts) scan_writes(c, loops, w);
        return;
    case StmtKind::Eval:
        // A call statement may write anything through its arguments.
        w.exits |= !is_pure(s.as<Eval>().expr);
        return;
    case StmtKind::Continue:
    case StmtKind::Comment: return;
    }
}

} // namespace

Writes writes_of(const Stmt& body) {
    Writes w;
    scan_writes(body, 0, w);
    return w;
}

bool unchanged(const Expr& e, const Writes& w) {
    bool ok = is_pure(e);
    for_each_expr(e, [&](const Expr& n) {
        if (n.kind() == ExprKind::Var && w.vars.count(n.as<Var>().name)) ok = false;
        if (n.kind() == ExprKind::Index && n.as<Index>().base.kind() == ExprKind::Var &&
            w.arrays.count(n.as<Index>().base.as<Var>().name))
            ok = false;
    });
    return ok;
}

} // namespace siskin::cast
