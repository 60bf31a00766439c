#pragma once
// The fills a program declares in its text (`fill A = inf`, ir::FillDecl). An input's
// declaration is what the program expects of that input: a tensor with another fill is refused.
// An output's is the fill the program asks for, as OutputSpec::fill does (and checked the same
// way); an OutputSpec or signature that asks for another is refused. resolve_program (the front
// half of both evaluators, compile_for and infer_signatures) and compile() apply these rules.
#include <map>
#include <string>

#include "siskin/compiler.hpp"
#include "siskin/ir/program.hpp"
#include "siskin/reference.hpp"
#include "siskin/value.hpp"

namespace siskin {

/// Throws Error when a given input's fill (by name) differs from the program's declaration,
/// naming the tensor, both fills and the declaration's line.
void check_declared_input_fills(const ir::Program& program,
                                const std::map<std::string, Scalar>& input_fills);

/// `specs` with every declared output fill set as the output's requested fill. Throws Error when
/// a spec already asks for another fill.
std::map<std::string, OutputSpec> with_declared_fills(const ir::Program& program,
                                                      std::map<std::string, OutputSpec> specs);

/// A requested output fill as a value of the output's type. Throws Error when the type cannot
/// hold it (inf or 0.5 for an integer output), as a Tensor of that type would.
Scalar requested_fill_of_type(const std::string& output, const Scalar& fill, ValueType type);

/// For compile(): every signature of a tensor with a declared fill has that fill.
void check_declared_signature_fills(const ir::Program& program,
                                    const std::map<std::string, TensorSignature>& signatures);

} // namespace siskin
