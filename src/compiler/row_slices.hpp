#pragma once
// A marked loop (parallel_marks.hpp) lowered in runs of consecutive rows, one run per thread.
//
// Some loops over rows are not lowered as one counted loop: under a complemented sparse mask,
// `for i { if !m[i] { y[i] |= A[i,j] && x[j] } }` with m a sparselist, the loop walks m's
// positions, runs the rows of the gap before each position (the gap's start carried from one
// position to the next) and then the rows after the last position in a second loop. Neither
// loop can be cut into chunks. Lowered instead as
//
//   for (int64_t slice = 0; slice < slices; slice++) {
//       i_first = first row of run `slice`; i_end = first row of run `slice + 1`;
//       the loop over rows [i_first, i_end)
//   }
//
// each run walks its own part of m (the walk seeks its start, a gallop) and writes only its own
// rows, and the slice loop is one counted loop that the parallel_loops pass gives out in chunks.
// The runs are balanced by the entries of the fibres the rows walk (the mark's weight: A's
// positions), as the chunks of a loop over rows are (rows that stop early, an or.and row at its
// first true, weigh more than their entries: siskin_chunk_first_early).
#include "compiler/parallel_marks.hpp"

namespace siskin::compiler {

/// Whether the marked loop may run as runs of rows: it walks fibres by row (a weight), and its
/// iterations being runs rather than rows changes nothing the parallel_loops pass does with its
/// outputs (no CSR output, whose positions move row by row after the join, and no workspace).
bool fits_row_slices(const ParallelMark& mark);

/// Emits `loop` as `slices` runs of rows (above); returns its work for the team size
/// (row_loop_work over the loop's rows).
cast::Expr lower_in_row_slices(LowerCtx& ctx, const For& loop, const ParallelMark& mark, int slices);

} // namespace siskin::compiler
