#pragma once
// Infers the fill value of an output from the program: the value its elements take where every
// input holds its fill. For `=` assignments that is the right-hand side evaluated on the input
// fills (constant folding through the operators); for an output that is only reduced into, the
// reduction operator's identity, so that `s[] max= A[i,j]` starts from -inf and not from 0.
#include <map>
#include <string>

#include "siskin/ir/program.hpp"
#include "siskin/value.hpp"

namespace siskin {

/// Falls back to the zero of `type` when the fill cannot be known before running (the value
/// depends on an index, or different assignments disagree).
Scalar infer_output_fill(const ir::Program& program, const std::string& output, ValueType type,
                         const std::map<std::string, Scalar>& input_fills);

} // namespace siskin
