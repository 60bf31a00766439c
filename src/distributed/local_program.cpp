#include "distributed/local_program.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "siskin/ir/text.hpp"

namespace siskin::distributed {

namespace {

CompileOptions local_options() {
    CompileOptions o;
    o.threads = 1;
    return o;
}

// The compiled programs of this process, by program text and kind of input.
std::map<std::string, CompiledProgram>& cache() {
    static std::map<std::string, CompiledProgram> programs;
    return programs;
}

std::string key_of(const std::string& text, const std::map<std::string, const Tensor*>& inputs,
                   const std::map<std::string, OutputSpec>& outputs, std::string_view use) {
    std::string key = fmt::format("{}\n{}\n", use, text);
    for (const auto& [name, t] : inputs)
        key += fmt::format("{}:{}:{}\n", name, TensorSignature::of(*t, true).to_string(),
                           fmt::join(t->shape(), "x"));
    for (const auto& [name, spec] : outputs) {
        key += name + ":";
        if (spec.format) key += spec.format->to_string();
        if (spec.fill) key += "/" + spec.fill->to_string();
        if (spec.type) key += "/" + std::string(type_name(*spec.type));
        if (spec.start) key += fmt::format("/start {}", TensorSignature::of(*spec.start).to_string());
        key += "\n";
    }
    return key;
}

} // namespace

LocalProgram::LocalProgram(std::string text) : text_(std::move(text)), program_(ir::parse_program(text_)) {}

std::map<std::string, Tensor> LocalProgram::run(const std::map<std::string, const Tensor*>& inputs,
                                                const std::map<std::string, OutputSpec>& outputs) const {
    std::string key = key_of(text_, inputs, outputs, "run");
    auto it = cache().find(key);
    if (it == cache().end())
        it = cache().emplace(key, compile_for(program_, inputs, outputs, local_options())).first;
    return it->second.run(inputs);
}

void LocalProgram::update(const std::map<std::string, const Tensor*>& inputs, const std::string& name,
                          Tensor& output) const {
    std::map<std::string, OutputSpec> specs;
    specs[name].start = &output;
    std::string key = key_of(text_, inputs, specs, "update");
    auto it = cache().find(key);
    if (it == cache().end())
        it = cache().emplace(key, compile_for(program_, inputs, specs, local_options())).first;
    std::map<std::string, Tensor> outputs;
    outputs.emplace(name, std::move(output));
    try {
        it->second.kernel->run(inputs, outputs);
    } catch (...) {
        output = std::move(outputs.at(name));
        throw;
    }
    output = std::move(outputs.at(name));
}

} // namespace siskin::distributed
