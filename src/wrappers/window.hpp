#pragma once
// The window offsets of a sparse level (the convolution paper's index-reduction loop,
// ../shared/papers/notes/sparse-convolutions.md §2): for `I[x + i]` with i in [0, w), the loop
// of x needs to visit only the x whose window I[x : x + w] holds a stored entry. As a looplet
// transform of the level's fibre over coordinates [0, n), the result describes window starts
// a in [0, n): the fill where [a, a + width) holds only the fill, else the access itself, still
// unresolved (the inner loop then reads the window through a shifted slice window). A
// subscript's stride and offset are the slice window (slice.hpp) applied to this looplet.
//
// A sorted list's stepper keeps its state and stops: its chunk (fill, then the entry at
// stop - 1) becomes fill up to stop - width, then the access for the last `width` starts, so
// the loop moves from one non-empty window to the next without visiting the empty ones: the
// work is O(width x stored entries), independent of n. Runs of fill shrink by width - 1 before
// whatever follows them; a looplet the transform cannot see through (a gallop, a run of values)
// becomes "maybe non-empty" everywhere, which is correct and dense.
#include "codegen/c_ast.hpp"
#include "looplets/looplet.hpp"

namespace siskin::wrappers {

/// The looplet over window starts; `width` >= 1, `access` the unresolved access, `fill` the
/// literal of its tensor's fill.
looplets::LoopletPtr window_offsets(lowering::LowerCtx& ctx, const looplets::LoopletPtr& level,
                                    const cast::Expr& width, const lowering::LExpr& access,
                                    const lowering::LExpr& fill);

} // namespace siskin::wrappers
