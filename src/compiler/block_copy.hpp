#pragma once
// Block copies: a top-level nest that copies a CSR tensor unchanged into rows of a CSR output,
//
//   for i0 in lo:hi, i1 in 0:n { C[i0(f:f+m), i1] = T[i0, i1] }      (a vstack's phase)
//
// moves T's entries of rows lo..hi-1 as one block: C's row positions are T's shifted by the
// entries before them, its coordinates and values T's copied by one plain loop (which the C
// compiler vectorizes), as scipy's vstack does, instead of a loop per row with a test per entry.
// What the compiler cannot know is tested when the kernel runs: the rows and columns of T the
// loops cover, room for the positions in C's index type, and that no stored value of T equals
// the fill (the compiled copy would drop it); when any test fails, the nest runs as lowered.
#include "compiler/vocabulary.hpp"
#include "lowering/lower_ctx.hpp"
#include "lowering/lower_ir.hpp"

namespace siskin::compiler {

/// Emits the block copy of `s` with its lowered loops as the fallback and returns true when `s`
/// is such a nest; else emits nothing and returns false.
bool lower_block_copy(LowerCtx& ctx, const LStmt& s);

} // namespace siskin::compiler
