#pragma once
// The ranges of the loops that compound subscripts size (ir/affine.hpp): in the kernel, the valid
// range of each such index, computed from the dimensions at run time by the formula the verifier
// uses on the host, and intersected with the extent of a tensor the index reaches directly (an
// output whose shape the host derived from the same range, or one the user gave, which the
// verifier checked to lie inside).
#include <map>
#include <set>
#include <string>

#include "compiler/bind.hpp"
#include "ir/affine.hpp"

namespace siskin::compiler {

/// The affine arithmetic on C int64 expressions, folding constants; min and max through the
/// prover.
ir::AffineOps<cast::Expr> affine_c_ops(const Prover& prover);

/// Fills kt.index_start / kt.index_extent for every loop over an index that a compound subscript
/// of an input mentions and no given range fixes; `ranged` are the loops with given ranges,
/// `starts` their first values.
void bind_affine_extents(LowerCtx& ctx, const ir::Program& program, KernelTensors& kt,
                         const std::map<std::string, int64_t>& starts,
                         const std::map<std::string, int64_t>& ends);

} // namespace siskin::compiler
