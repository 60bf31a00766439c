#include "compiler/pipeline.hpp"

#include <algorithm>

#include "codegen/c_printer.hpp"
#include "compiler/concordize.hpp"
#include "compiler/count_work.hpp"
#include "compiler/lower.hpp"
#include "compiler/workspaces.hpp"
#include "levels/level_codegen.hpp"

namespace siskin::compiler {

KernelPlan plan_kernel(const ir::Program& program,
                       const std::map<std::string, TensorSignature>& signatures,
                       bool count_work) {
    LowerCtx ctx;
    KernelPlan plan;
    auto code = ctx.capture([&] {
        Workspaced ws = add_workspaces(program, signatures);
        Concordized cz = concordize(ws.program, ws.signatures);
        KernelTensors tensors = bind_tensors(ctx, cz.program, cz.signatures);
        Converted converted = convert_program(ctx, cz.program, tensors);
        for (const auto& name : tensors.outputs) levels::declare_output(ctx, tensors.at(name));
        lower_body(ctx, converted.body);
        for (const auto& name : tensors.outputs) levels::freeze_output(ctx, tensors.at(name));
        ctx.emit(cast::Return::make(cast::var("SISKIN_OK")));

        plan.inputs = tensors.inputs;
        plan.outputs = tensors.outputs;
        for (const auto& name : tensors.order()) plan.signatures.emplace(name, cz.signatures.at(name));
        plan.transposes = cz.transposes;
        plan.workspaces = ws.workspaces;
        for (const auto& name : tensors.outputs)
            if (std::none_of(ws.workspaces.begin(), ws.workspaces.end(),
                             [&](const Workspace& w) { return w.name == name; }))
                plan.visible_outputs.push_back(name);
        plan.dim_classes = tensors.dim_classes;
        plan.checks = converted.checks;
        plan.num_buffers = tensors.num_buffers;
    });
    cast::Stmt body = cast::Block::make(code);
    if (count_work) body = count_loop_bodies(body);
    cast::Function kernel = cast::Function::make(
        cast::Type::named("int"), kKernelSymbol,
        {{cast::Type::named("siskin_buffer").pointer().pointer(), "buffers"},
         {cast::Type::of(ValueType::Int64).as_const().pointer(), "dims"}},
        body);
    std::string helpers = ctx.helpers();
    plan.c_source = "#include \"siskin_prelude.h\"\n\n" + (helpers.empty() ? "" : helpers + "\n") +
                    (count_work ? std::string(work_counter_definition()) + "\n" : "") +
                    cast::print(kernel);
    return plan;
}

} // namespace siskin::compiler
