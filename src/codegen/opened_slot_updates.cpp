// Opened-slot updates (c_optimize.hpp): a workspace's first touch opens the slot with the fill,
// and the next statement folds the new term into it:
//   if (!tbl[c]) { tbl[c] = true; srt[n++] = c; w[c] = 0.0; }  w[c] = op(w[c], x);
// On a first touch that is a store, a load of what was just stored and a second store; the C
// compiler keeps them all (the load goes through another statement's store). Moving the update
// into both branches, with the fill in place of the element on the first touch,
//   if (!tbl[c]) { ...; w[c] = op(0.0, x); } else { w[c] = op(w[c], x); }
// stores the slot once per touch, and computes exactly what the two stores did.
#include <vector>

#include "codegen/c_optimize.hpp"
#include "codegen/c_walk.hpp"

namespace siskin::cast {

namespace {

// X[e] = v with X one of `arrays`, e not reading X, and both sides pure: X's name.
std::optional<std::string> plain_store(const Stmt& s, const std::map<std::string, Type>& arrays) {
    auto x = array_store(s, arrays);
    if (!x) return std::nullopt;
    const auto& a = s.as<Assign>();
    if (mentions(a.target.as<Index>().index, *x) || !is_pure(a.target) || !is_pure(a.value))
        return std::nullopt;
    return x;
}

// The If and the update folded into it, or none when they do not have the shape above: an If
// without else whose body ends by storing a pure value into X[e], then X[e] = g with every read
// of X in g that same element (another element could be the one just stored, at run time).
std::optional<Stmt> fold(const Stmt& open, const Stmt& update, const std::map<std::string, Type>& arrays) {
    if (open.kind() != StmtKind::If || open.as<If>().else_body) return std::nullopt;
    const auto& branch = open.as<If>();
    const auto& body = branch.then_body.as<Block>().stmts;
    if (body.empty()) return std::nullopt;
    auto x = plain_store(body.back(), arrays), y = plain_store(update, arrays);
    if (!x || !y || *x != *y) return std::nullopt;
    const auto& fill = body.back().as<Assign>();
    const auto& next = update.as<Assign>();
    if (!same_expr(fill.target, next.target)) return std::nullopt;
    Expr first = rewrite_expr(next.value, [&](const Expr& e) -> std::optional<Expr> {
        if (same_expr(e, fill.target)) return fill.value;
        return std::nullopt;
    });
    if (mentions(first, *x)) return std::nullopt;
    std::vector<Stmt> then(body.begin(), body.end() - 1);
    then.push_back(Assign::make(fill.target, AssignOp::Set, first));
    return If::make(branch.cond, Block::make(std::move(then)), Block::make({update}));
}

} // namespace

Stmt fold_opened_slot_updates(const Stmt& body, const std::map<std::string, Type>& arrays) {
    return merge_adjacent(body, [&](const Stmt& open, const Stmt& update) { return fold(open, update, arrays); });
}

} // namespace siskin::cast
