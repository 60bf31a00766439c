#pragma once
// Random access: a fibre whose next subscript is already known (a literal, or an index bound by
// an outer loop, as in a discordant read A[j,i] of a CSR matrix inside `for i { for j }`) is
// read at that coordinate through its level's locate, without a loop.
#include "lowering/lower_ir.hpp"

namespace siskin::simplify {

// The simplifier is written in the floor's vocabulary: lowering-tree nodes and LowerCtx.
using namespace lowering;

/// The leaf the level reaches at f's known subscripts; nullptr while they are not known.
/// Throws Error(Unsupported) for writes into a level that cannot be written out of order.
LExpr resolve_fiber(LowerCtx& ctx, const Fiber& f);

} // namespace siskin::simplify
