#include "passes/declared_fills.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "siskin/error.hpp"

namespace siskin {

namespace {
bool is_output(const ir::Program& program, const std::string& name) {
    auto outs = program.outputs();
    return std::find(outs.begin(), outs.end(), name) != outs.end();
}
} // namespace

void check_declared_input_fills(const ir::Program& program,
                                const std::map<std::string, Scalar>& input_fills) {
    for (const auto& decl : program.fills) {
        auto it = input_fills.find(decl.tensor);
        if (it == input_fills.end() || decl.matches(it->second)) continue;
        throw Error(fmt::format("input {} has fill {} ({}), but the program declares {}",
                                decl.tensor, it->second.to_string(), type_name(it->second.type()),
                                decl.describe()));
    }
}

std::map<std::string, OutputSpec> with_declared_fills(const ir::Program& program,
                                                      std::map<std::string, OutputSpec> specs) {
    for (const auto& decl : program.fills) {
        if (!is_output(program, decl.tensor)) continue;
        OutputSpec& spec = specs[decl.tensor];
        // A fill of the spec's own type may round the declared one (0.1 as a float32).
        if (spec.fill && !decl.matches(*spec.fill) && !spec.fill->same_value(decl.value))
            throw Error(fmt::format("fill {} was requested for output {}, but the program "
                                    "declares {}",
                                    spec.fill->to_string(), decl.tensor, decl.describe()));
        if (!spec.fill) spec.fill = decl.value;
    }
    return specs;
}

Scalar requested_fill_of_type(const std::string& output, const Scalar& fill, ValueType type) {
    Scalar f = fill.cast(type);
    if (!is_float(type) && !f.same_value(fill))
        throw Error(fmt::format("output {} cannot have fill {}: it is not a value of the "
                                "output's type {}",
                                output, fill.to_string(), type_name(type)));
    return f;
}

void check_declared_signature_fills(const ir::Program& program,
                                    const std::map<std::string, TensorSignature>& signatures) {
    for (const auto& decl : program.fills) {
        auto it = signatures.find(decl.tensor);
        if (it == signatures.end() || decl.matches(it->second.fill)) continue;
        throw Error(fmt::format("the signature of {} has fill {} ({}), but the program declares "
                                "{}",
                                decl.tensor, it->second.fill.to_string(),
                                type_name(it->second.fill.type()), decl.describe()));
    }
}

} // namespace siskin
