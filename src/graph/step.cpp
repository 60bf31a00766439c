#include "graph/step.hpp"

#include "siskin/ir/text.hpp"

namespace siskin::graph {

Step::Step(const char* text, std::map<std::string, OutputSpec> outputs, CompileOptions options)
    : program_(ir::parse_program(text)), outputs_(std::move(outputs)), options_(std::move(options)) {}

std::map<std::string, Tensor> Step::run(const std::map<std::string, const Tensor*>& inputs) {
    bool current = compiled_.has_value();
    for (const auto& [name, t] : inputs)
        current = current && TensorSignature::of(*t).matches(compiled_->kernel->signature(name));
    if (!current) compiled_ = compile_for(program_, inputs, outputs_, options_);
    return compiled_->run(inputs);
}

} // namespace siskin::graph
