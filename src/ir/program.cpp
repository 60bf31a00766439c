#include "siskin/ir/program.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "siskin/error.hpp"
#include "siskin/functions.hpp"
#include "siskin/ir/visit.hpp"

namespace siskin::ir {

namespace {
std::vector<std::string> checked_protocols(const std::string& tensor, size_t n,
                                           std::vector<std::string> protos) {
    if (protos.empty()) return std::vector<std::string>(n);
    if (protos.size() != n)
        throw Error(fmt::format("access to {} has {} indices but {} protocols", tensor, n,
                                protos.size()));
    return protos;
}

void add_unique(std::vector<std::string>& names, const std::string& name) {
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
}
} // namespace

Access::Access(std::string t, std::vector<Expr> idx, std::vector<std::string> protos, Position p)
    : ExprNode(static_kind, p), tensor(std::move(t)), indices(std::move(idx)),
      protocols(checked_protocols(tensor, indices.size(), std::move(protos))) {}

std::shared_ptr<const Access> Access::make(std::string t, std::vector<Expr> idx,
                                           std::vector<std::string> protos, Position p) {
    return std::make_shared<Access>(std::move(t), std::move(idx), std::move(protos), p);
}

std::vector<std::string> Program::outputs() const {
    std::vector<std::string> out;
    visit(body, [&](const Stmt& s) {
        if (auto a = s->as<Assign>()) add_unique(out, a->lhs->tensor);
    });
    return out;
}

bool Program::has_control() const {
    bool found = false;
    visit(body, [&](const Stmt& s) {
        found = found || s->kind == StmtKind::While || s->kind == StmtKind::Swap;
    });
    return found;
}

std::vector<std::string> Program::inputs() const {
    std::vector<std::string> outs = outputs(), in;
    // Reads in text order: an assignment's left-hand side indices come before its right side.
    visit(body, {}, [&](const Expr& e) {
        if (auto a = e->as<Access>())
            if (std::find(outs.begin(), outs.end(), a->tensor) == outs.end())
                add_unique(in, a->tensor);
    });
    return in;
}

namespace {
bool equal_exprs(const std::vector<Expr>& a, const std::vector<Expr>& b) {
    if (a.size() != b.size()) return false;
    for (size_t k = 0; k < a.size(); ++k)
        if (!equal(a[k], b[k])) return false;
    return true;
}
} // namespace

bool equal(const Expr& a, const Expr& b) {
    if (a == b) return true;
    if (!a || !b || a->kind != b->kind) return false;
    switch (a->kind) {
    case ExprKind::Literal: return a->as<Literal>()->value.same(b->as<Literal>()->value);
    case ExprKind::Index:
        return a->as<Index>()->name == b->as<Index>()->name && a->as<Index>()->slice == b->as<Index>()->slice;
    case ExprKind::Variable: return a->as<Variable>()->name == b->as<Variable>()->name;
    case ExprKind::Access: {
        auto x = a->as<Access>(), y = b->as<Access>();
        return x->tensor == y->tensor && x->protocols == y->protocols &&
               equal_exprs(x->indices, y->indices);
    }
    case ExprKind::Call: {
        auto x = a->as<Call>(), y = b->as<Call>();
        return x->op == y->op && equal_exprs(x->args, y->args);
    }
    }
    return false;
}

bool equal(const Stmt& a, const Stmt& b) {
    if (a == b) return true;
    if (!a || !b || a->kind != b->kind) return false;
    switch (a->kind) {
    case StmtKind::For: {
        auto x = a->as<For>(), y = b->as<For>();
        return x->index == y->index && equal(x->lo, y->lo) && equal(x->hi, y->hi) &&
               equal(x->body, y->body);
    }
    case StmtKind::Assign: {
        auto x = a->as<Assign>(), y = b->as<Assign>();
        return x->op == y->op && equal(Expr(x->lhs), Expr(y->lhs)) && equal(x->rhs, y->rhs);
    }
    case StmtKind::If: {
        auto x = a->as<If>(), y = b->as<If>();
        return equal(x->cond, y->cond) && equal(x->then_body, y->then_body) &&
               equal(x->else_body, y->else_body);
    }
    case StmtKind::Let: {
        auto x = a->as<Let>(), y = b->as<Let>();
        return x->name == y->name && equal(x->value, y->value) && equal(x->body, y->body);
    }
    case StmtKind::Block: {
        auto x = a->as<Block>(), y = b->as<Block>();
        if (x->stmts.size() != y->stmts.size()) return false;
        for (size_t k = 0; k < x->stmts.size(); ++k)
            if (!equal(x->stmts[k], y->stmts[k])) return false;
        return true;
    }
    case StmtKind::While: {
        auto x = a->as<While>(), y = b->as<While>();
        return equal(x->cond, y->cond) && equal(x->body, y->body);
    }
    case StmtKind::Swap: {
        auto x = a->as<Swap>(), y = b->as<Swap>();
        return x->first == y->first && x->second == y->second;
    }
    }
    return false;
}

bool equal(const Program& a, const Program& b) {
    if (!equal(a.body, b.body) || a.functions.size() != b.functions.size() ||
        a.fills.size() != b.fills.size())
        return false;
    for (size_t k = 0; k < a.functions.size(); ++k)
        if (a.functions[k]->to_string() != b.functions[k]->to_string()) return false;
    for (size_t k = 0; k < a.fills.size(); ++k)
        if (a.fills[k].tensor != b.fills[k].tensor || !a.fills[k].value.same(b.fills[k].value))
            return false;
    return true;
}

bool FillDecl::matches(const Scalar& fill) const {
    Scalar want = value.cast(fill.type());
    // A float type holds any value approximately (0.1 as float32); other types only exactly.
    if (!is_float(fill.type()) && !want.same_value(value)) return false;
    return want.same(fill);
}

const FillDecl* Program::declared_fill(const std::string& tensor) const {
    for (const auto& f : fills)
        if (f.tensor == tensor) return &f;
    return nullptr;
}

} // namespace siskin::ir
