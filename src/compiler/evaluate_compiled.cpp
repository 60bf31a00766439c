// evaluate_compiled: the reference evaluator's contract, run through the compiler; compile_for
// is its compile half.
#include <fmt/format.h>

#include "compiler/finite.hpp"
#include "compiler/ordered_writes.hpp"
#include "compiler/kernel_impl.hpp"
#include "compiler/program_driver.hpp"
#include "levels/level_format.hpp"
#include "passes/output_start.hpp"
#include "passes/resolve_program.hpp"
#include "tensor/transpose.hpp"
#include "siskin/error.hpp"
#include "siskin/ir/visit.hpp"

namespace siskin {

namespace compiler {

bool written_through_slice(const ir::Stmt& body, const std::string& output) {
    bool found = false;
    ir::visit(body, [&](const ir::Stmt& s) {
        const auto* a = s->as<ir::Assign>();
        if (!a || a->lhs->tensor != output) return;
        for (const auto& index : a->lhs->indices)
            if (const auto* i = index->as<ir::Index>(); i && i->slice) found = true;
    });
    return found;
}

} // namespace compiler

CompiledProgram compile_for(const ir::Program& program,
                            const std::map<std::string, const Tensor*>& inputs,
                            const std::map<std::string, OutputSpec>& specs,
                            const CompileOptions& options) {
    if (program.has_control()) return compiler::compile_driven(program, inputs, specs, options);
    ResolvedProgram resolved = resolve_program(program, ProgramInputs::of(inputs), specs);
    // Kernels are specialised to finite inputs; only inputs whose finiteness can matter are
    // scanned for it.
    std::set<std::string> finite_inputs;
    for (const auto& name : compiler::finiteness_matters(program, inputs))
        if (auto it = resolved.inputs.find(name); it != resolved.inputs.end())
            if ((it->second.finite = finite_values(*inputs.at(name)))) finite_inputs.insert(name);

    std::map<std::string, std::vector<int64_t>> shapes;
    std::map<std::string, Tensor> starts;
    std::map<std::string, Format> convert_after;
    std::map<std::string, Format> unsized; // outputs given 32-bit indices they did not ask for
    for (auto& [name, out] : resolved.outputs) {
        TensorSignature& s = out.signature;
        shapes[name] = out.shape;
        // The kernel updates a dense copy of a start in place, and writes windows of dense
        // outputs only: a start's format it cannot update in place, and a sparse output written
        // through a slice (all fill outside the window), are computed dense and converted, which
        // drops the fill as the reference does. Any fill works then. Windows written in
        // coordinate order (a concatenation's phases) are appended directly.
        if (out.start ? !updates_in_place(out.format)
                      : !levels::all_levels_implicit(out.format) &&
                            compiler::written_through_slice(program.body, name) &&
                            !compiler::writes_in_window_order(program, name, out.format)) {
            convert_after.emplace(name, s.format);
            s.format = Format::dense(s.ndims).with_index_bits(out.index_bits);
        } else if (!out.start && !(s.format == out.format)) {
            unsized.emplace(name, out.format);
        }
        if (out.start) starts.emplace(name, out.start->convert(s.format));
    }
    const std::map<std::string, TensorSignature> signatures = resolved.signatures();
    CompiledProgram compiled{compile(program, signatures, options), std::move(shapes),
                             std::move(starts), std::move(convert_after), {}, {},
                             std::move(finite_inputs)};
    std::map<std::string, TensorSignature> wide = signatures;
    bool narrowed = false;
    for (const auto& [name, format] : unsized) {
        wide[name].format = format.with_index_bits(64);
        narrowed = narrowed || !(wide[name].format == signatures.at(name).format);
    }
    if (narrowed)
        compiled.widen = [program, wide, options] { return compile(program, wide, options); };
    return compiled;
}

std::map<std::string, TensorSignature> infer_signatures(
    const ir::Program& program, const std::map<std::string, TensorSignature>& inputs,
    const std::map<std::string, OutputSpec>& specs, int index_bits) {
    ResolvedProgram resolved =
        resolve_program(program, ProgramInputs::any_shape(inputs, index_bits), specs);
    for (const auto& [name, out] : resolved.outputs)
        // Only a kernel that updates the output in place starts from a tensor by itself.
        if (out.start && !updates_in_place(out.signature.format))
            throw Error(fmt::format("output {} starts as an existing tensor, which a kernel "
                                    "does in place for a dense output only (evaluate_compiled "
                                    "computes a {} output dense and converts it)",
                                    name, out.signature.format.to_string()),
                        Error::Kind::Unsupported);
    return resolved.signatures();
}

std::map<std::string, Tensor> CompiledProgram::run(
    const std::map<std::string, const Tensor*>& inputs) const {
    if (driven) return driven(inputs);
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
    for (const auto& [name, format] : convert_after)
        outputs.at(name) = detail::convert_on_threads(outputs.at(name), format, kernel->impl().plan.threads);
    return outputs;
}

bool CompiledProgram::inputs_finite(const std::map<std::string, const Tensor*>& inputs) const {
    for (const auto& name : finite_inputs) {
        auto it = inputs.find(name);
        if (it == inputs.end() || !it->second)
            throw Error(fmt::format("input {} of the kernel is missing", name));
        if (!finite_values(*it->second)) return false;
    }
    return true;
}

std::map<std::string, Tensor> evaluate_compiled(const ir::Program& program,
                                                const std::map<std::string, const Tensor*>& inputs,
                                                const std::map<std::string, OutputSpec>& specs,
                                                const CompileOptions& options) {
    return compile_for(program, inputs, specs, options).run(inputs);
}

} // namespace siskin
