#pragma once
// One step of a graph algorithm: a program compiled for the signatures of its inputs, run
// again and again on new inputs, and compiled again only when a signature changes (an output
// fed back as an input may have chosen another index width than the first input).
#include <map>
#include <optional>
#include <string>

#include "siskin/compiler.hpp"

namespace siskin::graph {

class Step {
public:
    Step(const char* text, std::map<std::string, OutputSpec> outputs, CompileOptions options);
    /// The outputs of the program on `inputs`. Inputs whose values the compiled kernel may
    /// assume finite (see TensorSignature::finite) must stay finite from run to run.
    std::map<std::string, Tensor> run(const std::map<std::string, const Tensor*>& inputs);

private:
    ir::Program program_;
    std::map<std::string, OutputSpec> outputs_;
    CompileOptions options_;
    std::optional<CompiledProgram> compiled_;
};

} // namespace siskin::graph
