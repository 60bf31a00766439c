#pragma once
// Block copies: a top-level nest that copies CSR tensors unchanged into rows of a CSR output,
// or COO tensors into rows of a COO output,
//
//   for i0 in lo:hi, i1 in 0:n { C[i0(f:f+m), i1] = T[i0, i1] }      (a vstack's phase)
//
// moves T's entries of rows lo..hi-1 as one block, as scipy's vstack does, instead of a loop per
// row with a test per entry: C's row positions are T's shifted by the entries before them (CSR),
// or its row coordinates T's plus f (COO), its column coordinates and values T's copied whole.
// Operands side by side,
//
//   for i0 in lo:hi { for i1 in 0:n1 { C[i0, i1(0:n1)] = L[i0, i1] };
//                     for i2 in 0:n2 { C[i0, i2(n1:n1+n2)] = R[i0, i2] } }   (an hstack)
//
// are copied row by row in one pass over their entries, each row's entries of L, then R's with
// their columns shifted by n1 (CSR rows by their positions; COO rows by a merge on the row
// coordinate), into buffers reserved once for exactly the entries copied.
// What the compiler cannot know is tested when the kernel runs: the rows and columns of T the
// loops cover, that each operand's columns come after the one before's in C's, room for the
// positions in C's index type, and that no stored value of T equals the fill (the copy would keep
// what the lowered loops drop); when any test fails, the nest runs as lowered.
#include "compiler/vocabulary.hpp"
#include "lowering/lower_ctx.hpp"
#include "lowering/lower_ir.hpp"

namespace siskin::compiler {

/// Emits the block copy of `s` with its lowered loops as the fallback and returns true when `s`
/// is such a nest; else emits nothing and returns false.
bool lower_block_copy(LowerCtx& ctx, const LStmt& s);

} // namespace siskin::compiler
