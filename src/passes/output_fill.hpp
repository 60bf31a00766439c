#pragma once
// Infers the fill value of an output from the program: the value its elements take where every
// input holds its fill. For `=` assignments that is the right-hand side evaluated on the input
// fills (constant folding through the operators, user functions included), when some write
// covers the whole output; an output written only in part (under an `if` that depends on the
// data or an index, or through a window) keeps its initial value elsewhere, and that initial
// value is the fill, so it starts at zero and not at the written value; for an output that
// is only reduced into, the reduction operator's identity, so that `s[] max= A[i,j]` starts from
// -inf and not from 0.
//
// A fill the user asks for is checked against the same evaluation: a sparse output whose fill
// the program does not produce where the inputs are all fill would store every such element
// (the result is not sparse there), so check_requested_fill refuses it; a dense output takes any
// fill.
#include <map>
#include <optional>
#include <string>

#include "siskin/format.hpp"
#include "siskin/ir/program.hpp"
#include "siskin/value.hpp"

namespace siskin {

/// Falls back to the zero of `type` when the fill cannot be known before running (the value
/// depends on an index, or different assignments disagree) and when no `=` covers the output.
Scalar infer_output_fill(const ir::Program& program, const std::string& output, ValueType type,
                         const std::map<std::string, Scalar>& input_fills);

/// The value (of `type`) every element of `output` that the program writes takes where all
/// inputs hold their fills, when the program decides it: every `=` to the output that can run
/// there (an `if` whose condition is false on the fills cannot) gives the same constant, and the
/// output is never reduced into (a reduction's result depends on the extent, and its start is
/// the fill itself). nullopt otherwise.
std::optional<Scalar> produced_fill(const ir::Program& program, const std::string& output,
                                    ValueType type, const std::map<std::string, Scalar>& input_fills);

/// Throws Error when `requested` is not the produced fill of a non-dense output, naming the
/// output, the requested fill and the one the program produces. Does nothing for a dense format
/// (every element is stored anyway) or when the produced fill is unknown.
void check_requested_fill(const ir::Program& program, const std::string& output, ValueType type,
                          const Scalar& requested, const Format& format,
                          const std::map<std::string, Scalar>& input_fills);

} // namespace siskin
