#pragma once
// Outputs that start as an existing tensor (OutputSpec::start): the spec is completed from the
// start tensor (its shape, type and fill; its format unless one is given), after checking that
// the name is an output of the program and that nothing requested contradicts the tensor.
// resolve_program applies these rules for both evaluators, so they accept and refuse the same
// specs.
#include <map>
#include <string>

#include "siskin/ir/program.hpp"
#include "siskin/reference.hpp"
#include "siskin/tensor.hpp"

namespace siskin {

/// `specs` with every spec that has a start tensor completed from it. Throws Error when a start
/// is given for a tensor the program only reads or does not use, or when the spec (or a fill
/// declared in the program text, applied before) asks for another shape, type or fill.
std::map<std::string, OutputSpec> with_output_starts(const ir::Program& program,
                                                     std::map<std::string, OutputSpec> specs);

/// Whether the compiled kernel can update an output of this format in place (every level dense,
/// an element leaf); other formats are computed dense and converted.
bool updates_in_place(const Format& format);

} // namespace siskin
