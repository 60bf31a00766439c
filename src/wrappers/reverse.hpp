#pragma once
// Backward reads (flip, negative slice steps): a subscript `first - step * i` (step >= 1) reads
// coordinate first - step * i at index i of its loop, without copies. The level's fibre is
// walked from its end, over the reversed coordinates r = dim-1-c, and seen there through the
// forward slice window (slice.hpp) from dim-1-first with the same step:
//   a level with a backward walk (LevelCodegen::unfurl_reversed: a sorted list walks its
//   entries down) keeps the work bounded by the stored entries;
//   any other level with the follow protocol locates coordinate dim-1-r at each index r (a
//   Lookup): the dense level's own read, one search per index for the others.
// A level with neither (coo) is an Error (Unsupported) naming the access.
#include <cstdint>
#include <string>

#include "codegen/c_ast.hpp"
#include "lowering/index_wrapper.hpp"
#include "lowering/level_face.hpp"

namespace siskin::wrappers {

/// The looplet of fibre `f` of `level` over reversed coordinates [0, dim): index r reads
/// coordinate dim-1-r. `what` names the access in the Error when the level cannot be read so.
lowering::LoopletPtr reversed_fibre(lowering::LowerCtx& ctx, const lowering::LevelCodegen& level,
                                    const lowering::Fiber& f, const cast::Expr& dim,
                                    const std::string& what);

/// The wrapper whose index i reads coordinate first - step * i (step >= 1); its unfurl takes
/// the looplet of reversed_fibre.
lowering::IndexWrapperPtr reversed_window(cast::Expr first, int64_t step);

} // namespace siskin::wrappers
