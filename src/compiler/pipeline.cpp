#include "compiler/pipeline.hpp"

#include "codegen/c_printer.hpp"
#include "compiler/lower.hpp"
#include "levels/level_codegen.hpp"

namespace siskin::compiler {

KernelPlan plan_kernel(const ir::Program& program,
                       const std::map<std::string, TensorSignature>& signatures) {
    LowerCtx ctx;
    KernelPlan plan;
    auto code = ctx.capture([&] {
        KernelTensors tensors = bind_tensors(ctx, program, signatures);
        Converted converted = convert_program(ctx, program, tensors);
        for (const auto& name : tensors.outputs) levels::declare_output(ctx, tensors.at(name));
        lower_body(ctx, converted.body);
        for (const auto& name : tensors.outputs) levels::freeze_output(ctx, tensors.at(name));
        ctx.emit(cast::Return::make(cast::var("SISKIN_OK")));

        plan.inputs = tensors.inputs;
        plan.outputs = tensors.outputs;
        for (const auto& name : tensors.order()) plan.signatures.emplace(name, signatures.at(name));
        plan.dim_classes = tensors.dim_classes;
        plan.checks = converted.checks;
        plan.num_buffers = tensors.num_buffers;
    });
    cast::Function kernel = cast::Function::make(
        cast::Type::named("int"), kKernelSymbol,
        {{cast::Type::named("siskin_buffer").pointer().pointer(), "buffers"},
         {cast::Type::of(ValueType::Int64).as_const().pointer(), "dims"}},
        cast::Block::make(code));
    std::string helpers = ctx.helpers();
    plan.c_source = "#include \"siskin_prelude.h\"\n\n" + (helpers.empty() ? "" : helpers + "\n") +
                    cast::print(kernel);
    return plan;
}

} // namespace siskin::compiler
