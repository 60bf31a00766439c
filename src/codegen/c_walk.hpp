#pragma once
// Walking and rebuilding the C AST (c_ast.hpp), for the cleanup passes of c_optimize.hpp.
#include <functional>
#include <initializer_list>
#include <map>
#include <set>
#include <optional>
#include <string>

#include "codegen/c_ast.hpp"

namespace siskin::cast {

/// Calls f on e and every sub-expression of e, parents first.
void for_each_expr(const Expr& e, const std::function<void(const Expr&)>& f);
/// Calls on_stmt on s and every statement nested in it (parents first), and on_expr on every
/// expression they hold (targets included), with for_each_expr.
void for_each_node(const Stmt& s, const std::function<void(const Expr&)>& on_expr,
                   const std::function<void(const Stmt&)>& on_stmt = {});

/// e with every sub-expression for which f returns a value replaced by it (parents first: a
/// replaced node is not descended into).
Expr rewrite_expr(const Expr& e, const std::function<std::optional<Expr>(const Expr&)>& f);
/// s with rewrite_expr applied to every expression it holds, at every depth.
Stmt rewrite_exprs(const Stmt& s, const std::function<std::optional<Expr>(const Expr&)>& f);

/// s rebuilt with f applied to the bodies it holds: then and else of an If (each then and the last
/// else of an else-if chain), the body of a For, While or Pragma. Any other statement (a Block
/// included: passes treat blocks themselves) is s itself.
Stmt map_bodies(const Stmt& s, const std::function<Stmt(const Stmt&)>& f);

/// s with the adjacent statements of every block, at every depth, merged where pair(a, b)
/// gives one statement for the two; the merged statement then pairs with the one after it.
Stmt merge_adjacent(const Stmt& s, const std::function<std::optional<Stmt>(const Stmt&, const Stmt&)>& pair);

/// `X[e] = v` with X one of `arrays` (an output array of the kernel): X's name, else none.
std::optional<std::string> array_store(const Stmt& s, const std::map<std::string, Type>& arrays);

/// e with every occurrence of the variable `name` replaced by `value`.
Expr substitute(const Expr& e, const std::string& name, const Expr& value);

/// The counter and bound of `for (...; v < e; v++)`: the loop shape the passes that reason about
/// iterations (growth hoisting, prefetching, split accumulators, constant init) start from.
struct CountedFor {
    std::string var;
    Expr bound;
};
std::optional<CountedFor> counted_for(const For& f);

/// Structural equality (the printed C text).
bool same_expr(const Expr& a, const Expr& b);
/// Whether e is the variable `name` itself.
bool is_var(const Expr& e, const std::string& name);
/// Whether the variable `name` occurs in e.
bool mentions(const Expr& e, const std::string& name);
/// Whether the variable `name` occurs anywhere in s.
bool mentions(const Stmt& s, const std::string& name);
/// The variable an lvalue stores into when it is a plain variable (`x`, not `a[i]`), else none.
std::optional<std::string> assigned_var(const Stmt& s);

/// Only variables, constants and arithmetic (unary, binary, casts): no load that a store could
/// change, no call. An index or bound with this shape moves only when one of its variables does.
bool is_arithmetic(const Expr& e);

/// True when evaluating e has no effect but its value: no assignment, and calls only of the
/// pure prelude and operator helpers (siskin_op_*, searches, min/max). Loads count as pure.
bool is_pure(const Expr& e);

/// Whether s holds a statement of one of the kinds (itself included).
bool holds(const Stmt& s, std::initializer_list<StmtKind> kinds);

/// What a loop body writes and how it may leave the iteration early: the passes that move or
/// copy a load across iterations (prefetch_fibres, flat_fibre_walks) ask whether it can change.
struct Writes {
    std::set<std::string> vars;   // variables assigned, incremented or declared
    std::set<std::string> arrays; // arrays stored into (the base variable of a[...] = ...)
    bool exits = false;           // a break of this loop, a goto, a return, an unknown call or store
};
Writes writes_of(const Stmt& body);
/// Whether e is pure and reads nothing that w writes (arrays and variables both).
bool unchanged(const Expr& e, const Writes& w);

/// The arrays of `arrays` that body reaches only as `a[...]` (or by assigning the pointer, as
/// growing a buffer does): no copy of the pointer elsewhere can alias their elements.
std::map<std::string, Type> indexed_only(const Stmt& body, const std::map<std::string, Type>& arrays);

/// Names for new locals of a kernel body: `base` when the body does not use it yet, else
/// base_1, base_2, ... (each handed out once).
class FreshNames {
public:
    explicit FreshNames(const Stmt& body);
    std::string fresh(const std::string& base);

private:
    std::set<std::string> used_;
};

} // namespace siskin::cast
