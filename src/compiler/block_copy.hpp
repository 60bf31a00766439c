#pragma once
// Block copies: a top-level nest that copies a CSR tensor unchanged into rows of a CSR output,
// or a COO tensor into rows of a COO output,
//
//   for i0 in lo:hi, i1 in 0:n { C[i0(f:f+m), i1] = T[i0, i1] }      (a vstack's phase)
//
// moves T's entries of rows lo..hi-1 as one block, as scipy's vstack does, instead of a loop per
// row with a test per entry: C's row positions are T's shifted by the entries before them (CSR),
// or its row coordinates T's plus f (COO), its column coordinates and values T's copied whole.
// What the compiler cannot know is tested when the kernel runs: the rows and columns of T the
// loops cover, room for the positions in C's index type, and that no stored value of T equals
// the fill (the copy would keep what the lowered loops drop); when any test fails, the nest runs
// as lowered.
#include "compiler/vocabulary.hpp"
#include "lowering/lower_ctx.hpp"
#include "lowering/lower_ir.hpp"

namespace siskin::compiler {

/// Emits the block copy of `s` with its lowered loops as the fallback and returns true when `s`
/// is such a nest; else emits nothing and returns false.
bool lower_block_copy(LowerCtx& ctx, const LStmt& s);

} // namespace siskin::compiler
