#include "passes/resolve_program.hpp"

#include <limits>
#include <set>

#include <fmt/format.h>

#include "passes/declared_fills.hpp"
#include "passes/lifecycle.hpp"
#include "passes/output_fill.hpp"
#include "passes/output_start.hpp"
#include "siskin/error.hpp"
#include "siskin/ir/visit.hpp"

namespace siskin {

namespace {

// Signatures alone say nothing of shapes, so the verifier sees every dimension the same size,
// large enough for any literal subscript or loop range, only to infer the output types.
constexpr int64_t kAnySize = int64_t{1} << 40;

// 32-bit indices when every coordinate fits. The number of entries, and so the positions, are
// not known before the kernel runs: one that outgrows 32 bits stops with IndexOverflow, and
// CompiledProgram::run builds the output again with 64-bit indices (CompiledProgram::widen).
int output_index_bits(const std::vector<int64_t>& shape) {
    constexpr int64_t kMax = std::numeric_limits<int32_t>::max();
    for (int64_t n : shape)
        if (n > kMax) return 64;
    return 32;
}

// What the verifier is told: every given input, and with tensors the outputs whose specs fix
// their shape and type (a start's, for one).
std::map<std::string, ir::TensorInfo> tensor_infos(const ProgramInputs& inputs,
                                                   const std::map<std::string, OutputSpec>& specs) {
    std::map<std::string, ir::TensorInfo> infos;
    for (const auto& [name, s] : inputs.signatures)
        infos[name] = {inputs.shapes ? inputs.shapes->at(name)
                                     : std::vector<int64_t>(static_cast<size_t>(s.ndims), kAnySize),
                       s.type};
    if (inputs.shapes)
        for (const auto& [name, spec] : specs)
            if (spec.shape) infos[name] = {*spec.shape, spec.type};
    return infos;
}

ResolvedOutput resolve_output(const ir::Program& program, const std::string& name,
                              const OutputSpec* spec, const ir::VerifiedProgram& verified,
                              const ProgramInputs& inputs,
                              const std::map<std::string, Scalar>& input_fills) {
    ResolvedOutput out;
    TensorSignature& s = out.signature;
    s.type = spec && spec->type ? *spec->type : verified.output_types.at(name);
    out.shape = spec && spec->shape && inputs.shapes ? *spec->shape
                                                     : verified.output_shapes.at(name);
    s.ndims = static_cast<int>(out.shape.size());
    out.format = spec && spec->format ? *spec->format : Format::dense(s.ndims);
    out.index_bits = inputs.shapes ? output_index_bits(out.shape) : inputs.index_bits;
    out.start = spec ? spec->start : nullptr;
    if (out.start) s.fill = out.start->fill(); // any fill: the result holds the start's values too
    else if (spec && spec->fill) s.fill = requested_fill_of_type(name, *spec->fill, s.type);
    else s.fill = infer_output_fill(program, name, s.type, input_fills).cast(s.type);
    if (out.format.ndims() != s.ndims)
        throw Error(fmt::format("{} is written with {} subscripts, but its format {} has {} "
                                "dimensions",
                                name, s.ndims, out.format.to_string(), out.format.ndims()));
    if (!out.start && spec && spec->fill)
        check_requested_fill(program, name, s.type, s.fill, out.format, input_fills);
    s.format = out.format.with_index_bits(out.index_bits);
    s.keep_contents = out.start != nullptr;
    return out;
}

} // namespace

ProgramInputs ProgramInputs::of(const std::map<std::string, const Tensor*>& tensors) {
    ProgramInputs inputs;
    inputs.shapes.emplace();
    for (const auto& [name, tensor] : tensors) {
        inputs.signatures[name] = TensorSignature::of(*tensor);
        (*inputs.shapes)[name] = tensor->shape();
    }
    return inputs;
}

ProgramInputs ProgramInputs::any_shape(std::map<std::string, TensorSignature> signatures,
                                       int index_bits) {
    for (auto& [name, s] : signatures) {
        s.format = s.format.with_index_bits(index_bits);
        s.fill = s.fill.cast(s.type);
    }
    return {std::move(signatures), std::nullopt, index_bits};
}

std::map<std::string, TensorSignature> ResolvedProgram::signatures() const {
    std::map<std::string, TensorSignature> all = inputs;
    for (const auto& [name, out] : outputs) all.emplace(name, out.signature);
    return all;
}

namespace {

// swap(F, G) exchanges whole tensors, so both must be stored alike (the verifier checked shapes).
void check_swaps(const ir::Program& program, const ResolvedProgram& r) {
    ir::visit(program.body, [&](const ir::Stmt& s) {
        const auto* x = s->as<ir::Swap>();
        if (!x) return;
        const TensorSignature& a = r.outputs.at(x->first).signature;
        const TensorSignature& b = r.outputs.at(x->second).signature;
        auto describe = [](const TensorSignature& t) {
            return fmt::format("{} with fill {} in {}", type_name(t.type), t.fill.to_string(),
                               t.format.to_string());
        };
        if (a.type != b.type || !a.fill.same(b.fill) || !(a.format == b.format))
            throw Error(fmt::format("swap({}, {}) needs tensors of one type, fill and format, but {} "
                                    "is {} and {} is {} (give both the same with fill "
                                    "declarations, --fill, --type or their output formats)",
                                    x->first, x->second, x->first, describe(a), x->second,
                                    describe(b)),
                        Error::Kind::User,
                        SourceLocation{"<program>", x->pos.line, x->pos.column});
    });
}

} // namespace

ResolvedProgram resolve_program(const ir::Program& program, const ProgramInputs& inputs,
                                const std::map<std::string, OutputSpec>& given_specs) {
    const std::map<std::string, OutputSpec> specs =
        with_output_starts(program, with_declared_fills(program, given_specs));
    ResolvedProgram r;
    r.verified = ir::verify(program, tensor_infos(inputs, specs));
    std::set<std::string> started;
    for (const auto& [name, spec] : specs)
        if (spec.start) started.insert(name);
    plan_lifecycle(program, started); // a statement that reads and updates one tensor is an error

    std::map<std::string, Scalar> input_fills;
    for (const auto& name : program.inputs()) {
        const TensorSignature& s = inputs.signatures.at(name); // the verifier found every input
        if (s.format.ndims() != s.ndims)
            throw Error(fmt::format("{} is used with {} subscripts, but its format {} has {} "
                                    "dimensions",
                                    name, s.ndims, s.format.to_string(), s.format.ndims()));
        r.inputs[name] = s;
        input_fills[name] = s.fill;
    }
    check_declared_input_fills(program, input_fills);

    for (const auto& name : program.outputs()) {
        if (inputs.signatures.count(name))
            throw Error(fmt::format("{} is both an input and an output of the program", name));
        auto spec = specs.find(name);
        const OutputSpec* given = spec == specs.end() ? nullptr : &spec->second;
        r.outputs.emplace(name,
                          resolve_output(program, name, given, r.verified, inputs, input_fills));
    }
    check_swaps(program, r);
    return r;
}

} // namespace siskin
