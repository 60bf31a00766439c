#pragma once
// An array expression as one siskin program: element-wise calls and views become one
// expression over tensor accesses whose subscripts carry the views (slices, constants, affine
// sums); each reduction, contraction and arg-reduction below the root is one statement into a
// dense temporary that the statements after it read.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "siskin/array.hpp"
#include "siskin/reference.hpp"

namespace siskin::array_detail {

/// The program of `root`, the result's format left unset; the result's loops run over its
/// dimensions in `order` (empty: C order).
ArrayProgram build_program(const Array& root, const std::vector<int>& order = {});

} // namespace siskin::array_detail
