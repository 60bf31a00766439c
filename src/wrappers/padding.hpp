#pragma once
// The padded window (Finch §1.5's permissive access with coalesce): a subscript
// `coalesce(A[~(2*i + c)], v)` reads coordinate first + step * i where it lies inside the level's
// [0, dim) and the pad v outside. As a looplet over the loop's extent it is three phases: a run of
// v up to the first index inside, the level seen through the slice window (slice.hpp) over the
// indices inside, a run of v after: the interior needs no bounds test. A located read is the
// level's read where the coordinate is inside, v elsewhere (simplify/resolve).
#include <cstdint>

#include "codegen/c_ast.hpp"
#include "lowering/index_wrapper.hpp"

namespace siskin::wrappers {

/// The wrapper whose index i reads coordinate first + step * i (step >= 1), or `pad` outside.
lowering::IndexWrapperPtr padded_window(cast::Expr first, int64_t step, lowering::LExpr pad);

} // namespace siskin::wrappers
