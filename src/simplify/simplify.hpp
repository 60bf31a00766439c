#pragma once
// The simplifier of the lowering tree. Its rules come from the operator properties of the
// registry, and they are where sparsity turns into skipped work: a looplet puts the fill value
// of a region in place of an access, and these rules fold what follows.
//
//   constant folding          f(literals...) -> literal            (through Operator::evaluate)
//   annihilator               x * 0 -> 0, min(x, -inf) -> -inf      (finite-only ones only when
//                                                                    x is known finite)
//   identity                  x + 0 -> x, max(x, -inf) -> x
//   select                    ifelse(false, a, b) -> b, ifelse(c, 7, 7) -> 7
//   write of the identity     y[..] += 0  -> nothing
//   overwrite with the fill   y[..] = fill -> nothing, for an `=` that is its tensor's only
//                             write and hits each element once
//   if true / if false, let of a constant, empty loops and blocks disappear.
// Loop collapse (collapse.hpp) is applied where the loop's extent is known.
#include "lowering/lower_ir.hpp"

namespace siskin::simplify {

// The simplifier is written in the floor's vocabulary: lowering-tree nodes and LowerCtx.
using namespace lowering;

/// Simplifies an expression (the rules above, bottom-up) and resolves fibres whose subscripts
/// became known by random access into their level.
LExpr simplify_expr(LowerCtx& ctx, const LExpr& e);
LStmt simplify_stmt(LowerCtx& ctx, const LStmt& s);

/// Whether e can be neither inf nor NaN (integers always).
bool known_finite(const LExpr& e);

} // namespace siskin::simplify
