#pragma once
// A vstack of plain CSR tensors into a CSR result needs no loop over entries: the result's
// coordinates and values are the operands' arrays one after another, and its row positions
// theirs shifted by the entries before them. compute() takes this path (memcpy-like, as
// scipy's vstack) before compiling a program.
#include <optional>

#include "siskin/array.hpp"

namespace siskin::array_detail {

/// The result when `root` is a concatenation along axis 0 of CSR tensors (one index width,
/// the result's type and fill) asked for in CSR (`format`); else none.
std::optional<Tensor> bulk_vstack(const Array& root, const Format& format);

} // namespace siskin::array_detail
