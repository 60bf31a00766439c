#pragma once
// Reductions of a whole tensor (or of one fibre: a row of `y[i] min= A[i,j]`) in storage order.
// `s[] min= A[i,j]` (or max, and, or, any idempotent, commutative, associative operator with an
// identity) does not depend on the order in which it meets A's elements, nor on how often it
// meets the fill: it is the reduction of f(v) over A's stored values v, combined once with
// f(fill) when some element is not stored. So instead of walking A's levels (a row loop, a gap
// test per stored entry), the kernel walks its values array from end to end. Over a whole tensor
// it runs eight independent streams (eight accumulators, so the chain of dependent operations
// does not bound the speed) and tests for an early exit (early_exit.hpp) once every 256 steps of
// the streams rather than at every element; over a fibre below the root, one plain loop that may
// stop at every element. A float min or max of the values themselves calls the prelude's vector
// loop (runtime/siskin_reduce.h) instead: branch-free compare-and-select in SIMD lanes, with no
// exit test.
//
// It applies to a loop nest whose only statement is `x op= f(A[..])` with x one element (no
// index of the nest in it), A read once with every remaining mode indexed by a loop of the nest
// over its whole dimension and no protocol written for it (`A[i, walk(j)]` keeps the nest),
// nothing else read but constants, and A's levels all dense, sparselist or coo (each position
// one stored coordinate, so the values array holds each element once).
#include <optional>

#include "lowering/lower_ir.hpp"
#include "compiler/vocabulary.hpp"

namespace siskin::compiler {


/// Lowers `loop` as a storage-order reduction and returns true, or returns false (nothing
/// emitted) when the nest is not one. With `slices` above 1 (a top-level statement that may run
/// on threads, compiler/parallel_marks.hpp), a reduction of a whole tensor cuts its positions
/// into that many equal slices: one counted loop over them, each slice reducing its own range
/// (and stopping early on its own) into the output, which the parallel_loops pass gives out in
/// chunks; `sliced_work` then receives the number of positions, the loop's work.
bool lower_storage_order_reduction(LowerCtx& ctx, const For& loop, int slices = 0,
                                   std::optional<cast::Expr>* sliced_work = nullptr);

} // namespace siskin::compiler
