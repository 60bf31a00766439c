#pragma once
// Traversal helpers for passes over the program IR: a read-only walk and a bottom-up rebuild.
//
//   visit(p.body, {}, [&](const Expr& e) {
//       if (auto a = e->as<Access>()) names.insert(a->tensor);
//   });
//   Stmt s = mutate(p.body, {}, [](const Expr& e) -> Expr {
//       auto c = e->as<Call>();
//       if (!c || c->op != "neg") return e;
//       return Call::make("sub", {Literal::make(Scalar::of(0.0)), c->args[0]});
//   });
#include <functional>
#include <optional>

#include "siskin/ir/program.hpp"

namespace siskin::ir {

using ExprVisitor = std::function<void(const Expr&)>;
using StmtVisitor = std::function<void(const Stmt&)>;
using ExprMutator = std::function<Expr(const Expr&)>;
using StmtMutator = std::function<Stmt(const Stmt&)>;

/// Calls f on e and on every subexpression, parents before children, in text order.
void visit(const Expr& e, const ExprVisitor& f);
/// Calls on_stmt on s and every nested statement, and on_expr on every expression they hold
/// (loop bounds, assignment sides, conditions, let values) and its subexpressions; parents
/// first, in text order. Either callback may be empty; null children are skipped.
void visit(const Stmt& s, const StmtVisitor& on_stmt, const ExprVisitor& on_expr = {});

/// Rebuilds e bottom-up: the children first, then f on the node (rebuilt from the new children
/// when one changed, else the original). Unchanged subtrees keep their identity, so a mutator
/// that changes nothing returns e itself. Positions are kept.
Expr mutate(const Expr& e, const ExprMutator& f);
/// The same for statements: on_expr rewrites every expression, on_stmt every statement after
/// its children. An assignment's left side must stay an Access. Either callback may be empty.
Stmt mutate(const Stmt& s, const StmtMutator& on_stmt, const ExprMutator& on_expr = {});
/// Rebuilds s top-down: f on each statement first; where it returns a replacement, that is kept
/// and not descended into, elsewhere the children are rewritten the same way (a pass that
/// rewrites whole loop nests from their outermost loop).
Stmt rewrite_top_down(const Stmt& s, const std::function<std::optional<Stmt>(const Stmt&)>& f);

} // namespace siskin::ir
