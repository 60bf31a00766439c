#pragma once
// The slice window, the first index wrapper (lowering/index_wrapper.hpp): a sliced subscript
// `i(lo:hi:st)` reads coordinate first + st*i at index i of its loop, without copies.
//
// A level unfurls the looplet of its fibre over coordinates 0..n-1; the window turns it into the
// looplet over the loop's indices, for every level at once:
//   st == 1  a Shift by -first, truncated to the loop's extent: a dense level locates first + i;
//            a sorted list seeks (gallops) to first and stops at the loop's end.
//   st > 1   also a stride filter and a projection: a chunk that ends at stored coordinate c
//            ends at index ceil((c + 1 - first) / st); its spike (the stored entry) is kept when
//            (c - first) % st == 0 and is fill otherwise. Work stays bounded by the stored
//            entries inside the window plus the seek. Inside a sought stepper c >= first is
//            known, so the filter is the divisibility test alone; a power-of-two step tests
//            the low bits and shifts instead of dividing.
// slice_first / slice_length are the window's bounds as C expressions of the dimension (the
// host checked that the slice lies inside it).
#include <cstdint>

#include "codegen/c_ast.hpp"
#include "lowering/index_wrapper.hpp"
#include "siskin/ir/program.hpp"

namespace siskin::wrappers {

/// The window's first coordinate: lo, n + lo for a negative lo, 0 when absent.
cast::Expr slice_first(const ir::Slice& s, const cast::Expr& dim);
/// Its number of elements: max(0, ceil((hi - first) / st)).
cast::Expr slice_length(const ir::Slice& s, const cast::Expr& dim);

/// The wrapper whose index i reads coordinate first + step * i (step >= 1).
lowering::IndexWrapperPtr slice_window(cast::Expr first, int64_t step);

} // namespace siskin::wrappers
