// evaluate_compiled: the reference evaluator's contract, run through the compiler; compile_for
// is its compile half.
#include <limits>

#include <fmt/format.h>

#include "compiler/finite.hpp"
#include "compiler/kernel_impl.hpp"
#include "levels/level_format.hpp"
#include "passes/declared_fills.hpp"
#include "passes/output_fill.hpp"
#include "passes/output_start.hpp"
#include "siskin/error.hpp"
#include "siskin/ir/verify.hpp"
#include "siskin/ir/visit.hpp"

namespace siskin {

namespace {

// 32-bit indices when every coordinate fits. The number of entries, and so the positions, are
// not known before the kernel runs: one that outgrows 32 bits stops with IndexOverflow, and
// CompiledProgram::run builds the output again with 64-bit indices (CompiledProgram::widen).
int output_index_bits(const std::vector<int64_t>& shape) {
    constexpr int64_t kMax = std::numeric_limits<int32_t>::max();
    for (int64_t n : shape)
        if (n > kMax) return 64;
    return 32;
}

// Whether some assignment writes `output` through a sliced subscript (`y[i(1:7:2)] = ...`).
bool written_through_slice(const ir::Program& program, const std::string& output) {
    bool found = false;
    ir::visit(program.body, [&](const ir::Stmt& s) {
        const auto* a = s->as<ir::Assign>();
        if (!a || a->lhs->tensor != output) return;
        for (const auto& index : a->lhs->indices)
            if (const auto* i = index->as<ir::Index>(); i && i->slice) found = true;
    });
    return found;
}


} // namespace

CompiledProgram compile_for(const ir::Program& program,
                            const std::map<std::string, const Tensor*>& inputs,
                            const std::map<std::string, OutputSpec>& given_specs,
                            const CompileOptions& options) {
    const std::map<std::string, OutputSpec> specs =
        with_output_starts(program, with_declared_fills(program, given_specs));
    std::map<std::string, ir::TensorInfo> infos;
    for (const auto& [name, tensor] : inputs) infos[name] = {tensor->shape(), tensor->type()};
    for (const auto& [name, spec] : specs)
        if (spec.shape && spec.type) infos[name] = {*spec.shape, *spec.type};
    ir::VerifiedProgram verified = ir::verify(program, infos);

    std::map<std::string, TensorSignature> signatures;
    std::map<std::string, Scalar> input_fills;
    std::set<std::string> scan = compiler::finiteness_matters(program, inputs);
    for (const auto& name : program.inputs()) {
        auto it = inputs.find(name);
        if (it == inputs.end() || !it->second)
            throw Error(fmt::format("the program reads {}, but no such input was given", name));
        signatures[name] = TensorSignature::of(*it->second, scan.count(name) > 0);
        input_fills[name] = it->second->fill();
    }
    check_declared_input_fills(program, input_fills);
    std::map<std::string, std::vector<int64_t>> shapes;
    std::map<std::string, Tensor> starts;
    std::map<std::string, Format> convert_after;
    std::map<std::string, Format> unsized; // outputs given 32-bit indices they did not ask for
    for (const auto& name : program.outputs()) {
        if (inputs.count(name))
            throw Error(fmt::format("{} is both an input and an output of the program", name));
        const OutputSpec* spec = specs.count(name) ? &specs.at(name) : nullptr;
        TensorSignature s;
        s.type = spec && spec->type ? *spec->type : verified.output_types.at(name);
        std::vector<int64_t> shape = spec && spec->shape ? *spec->shape : verified.output_shapes.at(name);
        s.ndims = static_cast<int>(shape.size());
        Format format = spec && spec->format ? *spec->format : Format::dense(s.ndims);
        if (spec && spec->start) {
            // The kernel updates a dense copy of the start in place; a format it cannot update
            // in place is computed dense and converted after the run. Any fill works then.
            s.fill = spec->start->fill();
            s.keep_contents = true;
            Format written = updates_in_place(format) ? format : Format::dense(s.ndims);
            s.format = written.with_index_bits(output_index_bits(shape));
            if (!updates_in_place(format))
                convert_after.emplace(name, format.with_index_bits(output_index_bits(shape)));
            starts.emplace(name, spec->start->convert(s.format));
            signatures[name] = s;
            shapes[name] = shape;
            continue;
        }
        if (spec && spec->fill) {
            s.fill = requested_fill_of_type(name, *spec->fill, s.type);
            check_requested_fill(program, name, s.type, s.fill, format, input_fills);
        } else {
            s.fill = infer_output_fill(program, name, s.type, input_fills).cast(s.type);
        }
        s.format = format.with_index_bits(output_index_bits(shape));
        if (!levels::all_levels_implicit(format) && written_through_slice(program, name)) {
            // Kernels write windows of dense outputs only: this one is computed dense (all
            // fill outside the window) and converted, which drops the fill as the reference does.
            convert_after.emplace(name, s.format);
            s.format = Format::dense(s.ndims).with_index_bits(output_index_bits(shape));
        } else if (!(s.format == format)) {
            unsized.emplace(name, format);
        }
        signatures[name] = s;
        shapes[name] = shape;
    }
    CompiledProgram out{compile(program, signatures, options), std::move(shapes), std::move(starts),
                        std::move(convert_after), {}};
    std::map<std::string, TensorSignature> wide = signatures;
    bool narrowed = false;
    for (const auto& [name, format] : unsized) {
        wide[name].format = format.with_index_bits(64);
        narrowed = narrowed || !(wide[name].format == signatures[name].format);
    }
    if (narrowed)
        out.widen = [program, wide, options] { return compile(program, wide, options); };
    return out;
}

std::map<std::string, TensorSignature> infer_signatures(
    const ir::Program& program, const std::map<std::string, TensorSignature>& inputs,
    const std::map<std::string, OutputSpec>& given_specs, int index_bits) {
    const std::map<std::string, OutputSpec> specs =
        with_output_starts(program, with_declared_fills(program, given_specs));
    // Kernels do not depend on shapes, so the verifier sees every dimension the same size,
    // large enough for any literal subscript or loop range, only to infer the output types.
    constexpr int64_t kAnySize = int64_t{1} << 40;
    std::map<std::string, ir::TensorInfo> infos;
    std::map<std::string, Scalar> input_fills;
    std::map<std::string, TensorSignature> signatures;
    for (const auto& name : program.inputs()) {
        auto it = inputs.find(name);
        if (it == inputs.end())
            throw Error(fmt::format("the program reads {}, but no signature was given for it", name));
        TensorSignature s = it->second;
        s.format = s.format.with_index_bits(index_bits);
        if (s.format.ndims() != s.ndims)
            throw Error(fmt::format("{} is used with {} subscripts, but its format {} has {} "
                                    "dimensions",
                                    name, s.ndims, s.format.to_string(), s.format.ndims()));
        infos[name] = {std::vector<int64_t>(static_cast<size_t>(s.ndims), kAnySize), s.type};
        input_fills[name] = s.fill.cast(s.type);
        s.fill = input_fills[name];
        signatures[name] = s;
    }
    check_declared_input_fills(program, input_fills);
    ir::VerifiedProgram verified = ir::verify(program, infos);
    for (const auto& name : program.outputs()) {
        if (inputs.count(name))
            throw Error(fmt::format("{} is both an input and an output of the program", name));
        const OutputSpec* spec = specs.count(name) ? &specs.at(name) : nullptr;
        TensorSignature s;
        s.type = spec && spec->type ? *spec->type : verified.output_types.at(name);
        s.ndims = static_cast<int>(verified.output_shapes.at(name).size());
        s.fill = spec && spec->fill ? requested_fill_of_type(name, *spec->fill, s.type)
                                    : infer_output_fill(program, name, s.type, input_fills).cast(s.type);
        s.format = (spec && spec->format ? *spec->format : Format::dense(s.ndims)).with_index_bits(index_bits);
        if (s.format.ndims() != s.ndims)
            throw Error(fmt::format("{} is written with {} subscripts, but its format {} has {} "
                                    "dimensions",
                                    name, s.ndims, s.format.to_string(), s.format.ndims()));
        if (spec && spec->start) {
            // Only a kernel that updates the output in place starts from a tensor by itself.
            if (!updates_in_place(s.format))
                throw Error(fmt::format("output {} starts as an existing tensor, which a kernel "
                                        "does in place for a dense output only (evaluate_compiled "
                                        "computes a {} output dense and converts it)",
                                        name, s.format.to_string()),
                            Error::Kind::Unsupported);
            s.keep_contents = true;
        } else if (spec && spec->fill) {
            check_requested_fill(program, name, s.type, s.fill, s.format, input_fills);
        }
        signatures[name] = s;
    }
    return signatures;
}

std::map<std::string, Tensor> CompiledProgram::run(
    const std::map<std::string, const Tensor*>& inputs) const {
    auto outputs = kernel->impl().unbuilt_outputs(output_shapes);
    for (const auto& [name, start] : starts) outputs.at(name) = start; // a copy to update
    try {
        kernel->impl().run(inputs, outputs, false);
    } catch (const IndexOverflow&) {
        if (!widen) throw;
        std::shared_ptr<const Kernel> wide = widen();
        outputs = wide->impl().unbuilt_outputs(output_shapes);
        for (const auto& [name, start] : starts) outputs.at(name) = start;
        wide->impl().run(inputs, outputs, false);
    }
    for (const auto& [name, format] : convert_after) outputs.at(name) = outputs.at(name).convert(format);
    return outputs;
}

std::map<std::string, Tensor> evaluate_compiled(const ir::Program& program,
                                                const std::map<std::string, const Tensor*>& inputs,
                                                const std::map<std::string, OutputSpec>& specs,
                                                const CompileOptions& options) {
    return compile_for(program, inputs, specs, options).run(inputs);
}

} // namespace siskin
