#pragma once
// An array expression as one siskin program: element-wise calls and views become one
// expression over tensor accesses whose subscripts carry the views (slices, constants, affine
// sums); each reduction, contraction and arg-reduction below the root is one statement into a
// dense temporary that the statements after it read.
#include <map>
#include <memory>
#include <string>

#include "siskin/array.hpp"
#include "siskin/reference.hpp"

namespace siskin::array_detail {

struct ArrayProgram {
    ir::Program program;
    std::map<std::string, std::shared_ptr<const Tensor>> inputs;
    /// Every output: the temporaries (dense) and the result (format left unset).
    std::map<std::string, OutputSpec> outputs;
    std::string result;
};

ArrayProgram build_program(const Array& root);

} // namespace siskin::array_detail
