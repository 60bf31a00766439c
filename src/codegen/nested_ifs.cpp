// Nested ifs on one condition (c_optimize.hpp): a Sequence phase guards its body with the
// phase's condition, and a collapsed Run inside guards itself with the same one.
#include <vector>

#include "codegen/c_optimize.hpp"
#include "codegen/c_walk.hpp"

namespace siskin::cast {

namespace {

Stmt merge(const Stmt& s);

Stmt merge_body(const Stmt& body) {
    std::vector<Stmt> out;
    for (const auto& c : body.as<Block>().stmts) out.push_back(merge(c));
    return Block::make(std::move(out));
}

Stmt merge(const Stmt& s) {
    switch (s.kind()) {
    case StmtKind::Block: return merge_body(s);
    case StmtKind::If: {
        const auto& n = s.as<If>();
        Stmt then_body = merge_body(n.then_body);
        if (n.else_body) return If::make(n.cond, then_body, merge(*n.else_body));
        const auto& stmts = then_body.as<Block>().stmts;
        if (stmts.size() == 1 && stmts.front().kind() == StmtKind::If) {
            const auto& inner = stmts.front().as<If>();
            if (!inner.else_body && is_pure(n.cond) && same_expr(inner.cond, n.cond))
                return If::make(n.cond, inner.then_body);
        }
        return If::make(n.cond, then_body);
    }
    default: return map_bodies(s, merge_body);
    }
}

} // namespace

Stmt merge_nested_ifs(const Stmt& body) { return merge(body); }

} // namespace siskin::cast
