#include "lowering/lower_ir.hpp"

#include <atomic>

#include "lowering/index_wrapper.hpp"
#include "lowering/prove.hpp"
#include "siskin/error.hpp"
#include "siskin/operators.hpp"

namespace siskin::lowering {

LExpr Call::make(const Operator& op, std::vector<LExpr> args) {
    std::vector<ValueType> types;
    for (const auto& a : args) types.push_back(a->type);
    ValueType t = op.result_type(types);
    return std::make_shared<Call>(&op, std::move(args), t);
}

uint64_t Fiber::next_id() {
    static std::atomic<uint64_t> counter{0};
    return ++counter;
}

LExpr Fiber::with_subscripts(std::vector<LExpr> subs, std::vector<LExpr> pd) const {
    return std::make_shared<Fiber>(tensor, type, level, sub, pos, std::move(subs), protocols, write, dirty,
                                   depth, id, std::move(pd), resume);
}

LExpr Fiber::resumed_at(cast::Expr from) const {
    return std::make_shared<Fiber>(tensor, type, level, sub, pos, subscripts, protocols, write, dirty, depth,
                                   id, pads, std::move(from));
}

LStmt make_block(std::vector<LStmt> stmts) {
    std::vector<LStmt> flat;
    for (auto& s : stmts) {
        if (!s) continue;
        if (const auto* b = s->as<Block>()) {
            for (const auto& c : b->stmts) flat.push_back(c);
        } else {
            flat.push_back(std::move(s));
        }
    }
    if (flat.size() == 1) return flat.front();
    return std::make_shared<Block>(std::move(flat));
}

LStmt nothing() {
    static const LStmt empty = std::make_shared<Block>(std::vector<LStmt>{});
    return empty;
}

bool is_nothing(const LStmt& s) {
    const auto* b = s->as<Block>();
    return b && b->stmts.empty();
}

LExpr map_expr(const LExpr& e, const ExprMap& f) {
    LExpr rebuilt = e;
    switch (e->kind) {
    case NodeKind::Call: {
        const auto& c = *e->as<Call>();
        std::vector<LExpr> args;
        bool changed = false;
        for (const auto& a : c.args) {
            args.push_back(map_expr(a, f));
            changed |= args.back() != a;
        }
        if (changed) rebuilt = Call::make(*c.op, std::move(args));
        break;
    }
    case NodeKind::Fiber: {
        const auto& fb = *e->as<Fiber>();
        std::vector<LExpr> subs;
        bool changed = false;
        for (const auto& s : fb.subscripts) {
            subs.push_back(map_expr(s, f));
            changed |= subs.back() != s;
        }
        if (changed)
            rebuilt = fb.with_subscripts(std::move(subs), fb.pads);
        break;
    }
    case NodeKind::Hoist: {
        const auto& h = *e->as<Hoist>();
        LExpr inner = map_expr(h.inner, f);
        if (inner != h.inner) rebuilt = h.with(inner);
        break;
    }
    case NodeKind::Select: {
        const auto& s = *e->as<Select>();
        std::vector<Select::Case> cases;
        bool changed = false;
        for (const auto& c : s.cases) {
            cases.push_back({c.cond, map_expr(c.value, f)});
            changed |= cases.back().value != c.value;
        }
        if (changed) rebuilt = std::make_shared<Select>(std::move(cases), s.type, s.first_total);
        break;
    }
    default: break;
    }
    return f(rebuilt);
}

LStmt map_stmt(const LStmt& s, const ExprMap& on_expr, const StmtMap& on_stmt) {
    return map_stmt_shallow(s, [&](const LExpr& e) { return map_expr(e, on_expr); }, on_stmt);
}

LStmt map_stmt_shallow(const LStmt& s, const ExprMap& on_expr, const StmtMap& on_stmt) {
    auto ex = [&](const LExpr& e) { return e ? on_expr(e) : e; };
    auto st = [&](const LStmt& c) { return c ? map_stmt_shallow(c, on_expr, on_stmt) : c; };
    LStmt rebuilt = s;
    switch (s->kind) {
    case StmtKind::For: {
        const auto& n = *s->as<For>();
        auto lo = ex(n.lo), hi = ex(n.hi);
        auto body = st(n.body);
        if (lo != n.lo || hi != n.hi || body != n.body)
            rebuilt = std::make_shared<For>(n.index, lo, hi, body);
        break;
    }
    case StmtKind::Assign: {
        const auto& n = *s->as<Assign>();
        auto lhs = ex(n.lhs), rhs = ex(n.rhs);
        if (lhs != n.lhs || rhs != n.rhs)
            rebuilt = std::make_shared<Assign>(n.tensor, lhs, n.op, rhs, n.single_write);
        break;
    }
    case StmtKind::If: {
        const auto& n = *s->as<If>();
        auto c = ex(n.cond);
        auto t = st(n.then_body), e = st(n.else_body);
        if (c != n.cond || t != n.then_body || e != n.else_body)
            rebuilt = std::make_shared<If>(c, t, e);
        break;
    }
    case StmtKind::Let: {
        const auto& n = *s->as<Let>();
        auto v = ex(n.value);
        auto b = st(n.body);
        if (v != n.value || b != n.body) rebuilt = std::make_shared<Let>(n.name, v, b);
        break;
    }
    case StmtKind::Block: {
        const auto& n = *s->as<Block>();
        std::vector<LStmt> stmts;
        bool changed = false;
        for (const auto& c : n.stmts) {
            stmts.push_back(st(c));
            changed |= stmts.back() != c;
        }
        if (changed) rebuilt = std::make_shared<Block>(std::move(stmts));
        break;
    }
    }
    return on_stmt ? on_stmt(rebuilt) : rebuilt;
}

void visit_expr(const LExpr& e, const std::function<void(const LExpr&)>& f) {
    f(e);
    switch (e->kind) {
    case NodeKind::Call:
        for (const auto& a : e->as<Call>()->args) visit_expr(a, f);
        break;
    case NodeKind::Fiber:
        for (const auto& a : e->as<Fiber>()->subscripts) visit_expr(a, f);
        break;
    case NodeKind::Hoist: visit_expr(e->as<Hoist>()->inner, f); break;
    case NodeKind::Select:
        for (const auto& c : e->as<Select>()->cases) visit_expr(c.value, f);
        break;
    default: break;
    }
}

void visit_stmt(const LStmt& s, const std::function<void(const LExpr&)>& on_expr,
                const std::function<void(const LStmt&)>& on_stmt) {
    if (!s) return;
    if (on_stmt) on_stmt(s);
    auto ex = [&](const LExpr& e) {
        if (e && on_expr) visit_expr(e, on_expr);
    };
    switch (s->kind) {
    case StmtKind::For: {
        const auto& n = *s->as<For>();
        ex(n.lo);
        ex(n.hi);
        visit_stmt(n.body, on_expr, on_stmt);
        break;
    }
    case StmtKind::Assign:
        ex(s->as<Assign>()->lhs);
        ex(s->as<Assign>()->rhs);
        break;
    case StmtKind::If:
        ex(s->as<If>()->cond);
        visit_stmt(s->as<If>()->then_body, on_expr, on_stmt);
        visit_stmt(s->as<If>()->else_body, on_expr, on_stmt);
        break;
    case StmtKind::Let:
        ex(s->as<Let>()->value);
        visit_stmt(s->as<Let>()->body, on_expr, on_stmt);
        break;
    case StmtKind::Block:
        for (const auto& c : s->as<Block>()->stmts) visit_stmt(c, on_expr, on_stmt);
        break;
    }
}

bool mentions_index(const LExpr& e, const std::string& name) {
    bool found = false;
    visit_expr(e, [&](const LExpr& n) {
        if (const auto* i = n->as<Index>(); i && i->name == name) found = true;
        if (const auto* u = n->as<Unfurled>(); u && u->index == name) found = true;
    });
    return found;
}

bool mentions_index(const LStmt& s, const std::string& name) {
    bool found = false;
    visit_stmt(s, [&](const LExpr& n) {
        if (const auto* i = n->as<Index>(); i && i->name == name) found = true;
        if (const auto* u = n->as<Unfurled>(); u && u->index == name) found = true;
    });
    return found;
}

bool is_closed(const LExpr& e) {
    bool closed = true;
    visit_expr(e, [&](const LExpr& n) {
        switch (n->kind) {
        case NodeKind::Literal:
        case NodeKind::CValue:
        case NodeKind::Call: break;
        default: closed = false;
        }
    });
    return closed;
}

LStmt substitute_index(const LStmt& s, const std::string& name, const LExpr& value) {
    return map_stmt(s, [&](const LExpr& e) -> LExpr {
        const auto* i = e->as<Index>();
        if (!i || i->name != name) return e;
        if (!i->wrapper) return value;
        // A wrapped subscript located directly (a dense level reached against its order).
        const auto* v = value->as<CValue>();
        SISKIN_ASSERT(v, "a wrapped index was bound to something other than a C value");
        return CValue::make(i->wrapper->coordinate(v->expr), ValueType::Int64);
    });
}

namespace {
// Pre-order: a node the lookup replaces is not descended into, so identity is looked up on the
// original nodes.
LExpr replace_in(const LExpr& e, const std::function<LExpr(const Node*)>& lookup) {
    if (LExpr r = lookup(e.get())) return r;
    switch (e->kind) {
    case NodeKind::Call: {
        const auto& c = *e->as<Call>();
        std::vector<LExpr> args;
        bool changed = false;
        for (const auto& a : c.args) {
            args.push_back(replace_in(a, lookup));
            changed |= args.back() != a;
        }
        return changed ? Call::make(*c.op, std::move(args)) : e;
    }
    case NodeKind::Fiber: {
        const auto& fb = *e->as<Fiber>();
        std::vector<LExpr> subs;
        bool changed = false;
        for (const auto& s : fb.subscripts) {
            subs.push_back(replace_in(s, lookup));
            changed |= subs.back() != s;
        }
        if (!changed) return e;
        return fb.with_subscripts(std::move(subs), fb.pads);
    }
    case NodeKind::Hoist: {
        const auto& h = *e->as<Hoist>();
        LExpr inner = replace_in(h.inner, lookup);
        return inner != h.inner ? h.with(inner) : e;
    }
    case NodeKind::Select: {
        const auto& s = *e->as<Select>();
        std::vector<Select::Case> cases;
        bool changed = false;
        for (const auto& c : s.cases) {
            cases.push_back({c.cond, replace_in(c.value, lookup)});
            changed |= cases.back().value != c.value;
        }
        return changed ? std::make_shared<Select>(std::move(cases), s.type, s.first_total) : e;
    }
    default: return e;
    }
}
} // namespace

LStmt replace_nodes(const LStmt& s, const std::function<LExpr(const Node*)>& lookup) {
    // map_stmt hands each whole expression to the callback once (children first would rebuild
    // them), so the pre-order walk runs on the untouched expression.
    return map_stmt_shallow(s, [&](const LExpr& e) { return replace_in(e, lookup); });
}

} // namespace siskin::lowering
