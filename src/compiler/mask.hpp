#pragma once
// Masks as structure: a comparison of the loop's index with a bound value (`if i <= j`, `j < i + 2`,
// `i == j`, `i != j`, at the loop of j with i bound) is a looplet of runs of false and true over
// the loop's extent, so the loop is split where the condition changes instead of testing it at
// every iteration: a triangle of a sparse matrix walks each fibre from (or up to) the diagonal
// only, and `i == j` is a one-index phase, where a level with random access locates one entry.
#include <optional>
#include <string>

#include "looplets/looplet.hpp"
#include "lowering/lower_ctx.hpp"
#include "compiler/vocabulary.hpp"

namespace siskin::compiler {

/// The looplet of the comparison `cmp` (a Call of lt, le, gt, ge, eq or ne) over loop `index`;
/// nothing unless one side minus the other is +-index plus a bound value.
std::optional<LoopletPtr> mask_looplet(LowerCtx& ctx, const LExpr& cmp, const std::string& index);

} // namespace siskin::compiler
