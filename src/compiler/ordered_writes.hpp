#pragma once
// Ordered window writes: an output with levels appended in coordinate order (sparselist, coo,
// ...) may be written by several assignments, or through windows `C[i(lo:hi), j]`, when they
// reach its coordinates in increasing order anyway, the way the phases of a concatenation do:
//
//   for i0 in 0:2, i1 in 0:3 { C[i0(0:2), i1] = A[i0, i1] }      vstack: rows 0..1, then 2..4
//   for i2 in 0:3, i3 in 0:3 { C[i2(2:5), i3] = B[i2, i3] }
//
//   for i0 in 0:4 { for i1 in 0:2 { C[i0, i1(0:2)] = A[i0, i1] }  hstack: in each row, columns
//                   for i2 in 0:3 { C[i0, i2(2:5)] = B[i0, i2] } }          0..1, then 2..4
//
// The rule, on the write sites in program order: every subscript is a plain index or a window
// with constant bounds and step 1; two consecutive sites agree on the modes (in the output's
// storage order) before the first where they differ, by the same indices of loops around both;
// there both are windows of different indices whose loops run one after the other (neither
// inside the other's), and the earlier window ends where or before the later one starts. Each
// site's own loops are checked by the lowerer as for any write (one fibre per loop).
#include <string>

#include "siskin/format.hpp"
#include "siskin/ir/program.hpp"

namespace siskin::compiler {

/// Whether `output` (stored in `format`) is written through windows or several subscript lists
/// in the order above; false when it is written through one plain subscript list (nothing to
/// order) or in any other way.
bool writes_in_window_order(const ir::Program& program, const std::string& output, const Format& format);

/// Collapsed writes: `c[i*n + j] = A[i, j]` (a reshape that merges dimensions) reaches c's
/// coordinates in increasing order when the loops run i outside j with j in 0:n. The rule: one
/// write site; every subscript a plain index or an affine compound subscript (ir/affine.hpp),
/// at least one compound; the indices of the subscripts, taken in the output's storage order and
/// each compound's terms outer loop first, are the loops around the site, outermost first, each
/// once; every loop a compound mentions below its outermost term has a constant range; and each
/// coefficient is positive and larger than the most the terms of inner loops can add
/// (c_k > sum over l > k of c_l * (hi_l - 1 - lo_l)). Then every element is written at most
/// once and in coordinate order, so append-only levels take the writes.
bool writes_collapsed_in_order(const ir::Program& program, const std::string& output, const Format& format);

} // namespace siskin::compiler
