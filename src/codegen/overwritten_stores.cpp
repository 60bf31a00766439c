// Overwritten stores (c_optimize.hpp): a value slot opens with the fill and the very next
// statement stores the value computed for it (`C_values[n] = 0.0; C_values[n] = w[j];` in a
// workspace's copy-out). The C compiler keeps the first store when it cannot prove that the
// second's value does not read that element through another pointer; an output's data pointer is
// the only way the kernel reaches its buffer, so it can be dropped here.
#include <vector>

#include "codegen/c_optimize.hpp"
#include "codegen/c_walk.hpp"

namespace siskin::cast {

namespace {

// X[e] = v with X one of `arrays`: X's name.
std::optional<std::string> array_store(const Stmt& s, const std::map<std::string, Type>& arrays) {
    if (s.kind() != StmtKind::Assign || s.as<Assign>().op != AssignOp::Set) return std::nullopt;
    const Expr& target = s.as<Assign>().target;
    if (target.kind() != ExprKind::Index) return std::nullopt;
    const Expr& base = target.as<Index>().base;
    if (base.kind() != ExprKind::Var || !arrays.count(base.as<Var>().name)) return std::nullopt;
    return base.as<Var>().name;
}

bool overwrites(const Stmt& first, const Stmt& second, const std::map<std::string, Type>& arrays) {
    auto x = array_store(first, arrays), y = array_store(second, arrays);
    if (!x || !y || *x != *y) return false;
    const auto& a = first.as<Assign>();
    const auto& b = second.as<Assign>();
    return same_expr(a.target, b.target) && !mentions(a.target.as<Index>().index, *x) &&
           is_pure(a.target) && is_pure(a.value) &&
           is_pure(b.value) && !mentions(b.value, *x);
}

Stmt drop(const Stmt& s, const std::map<std::string, Type>& arrays) {
    if (s.kind() != StmtKind::Block)
        return map_bodies(s, [&](const Stmt& body) { return drop(body, arrays); });
    const auto& stmts = s.as<Block>().stmts;
    std::vector<Stmt> out;
    for (size_t k = 0; k < stmts.size(); ++k) {
        if (k + 1 < stmts.size() && overwrites(stmts[k], stmts[k + 1], arrays)) continue;
        out.push_back(drop(stmts[k], arrays));
    }
    return Block::make(std::move(out));
}

} // namespace

Stmt remove_overwritten_stores(const Stmt& body, const std::map<std::string, Type>& arrays) {
    return drop(body, arrays);
}

} // namespace siskin::cast
