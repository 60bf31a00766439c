#include "compiler/pipeline.hpp"

#include "codegen/c_printer.hpp"
#include "compiler/lower.hpp"
#include "compiler/pass_dump.hpp"
#include "levels/level_codegen.hpp"

namespace siskin {

// The passes, in the order plan_kernel runs them (the names the pass dump accepts).
std::vector<std::string> compiler_passes() {
    return {"bind", "convert", "declare", "lower", "freeze", "print"};
}

} // namespace siskin

namespace siskin::compiler {

KernelPlan plan_kernel(const ir::Program& program,
                       const std::map<std::string, TensorSignature>& signatures,
                       const std::optional<std::string>& dump_after) {
    PassDump dump(dump_after, compiler_passes());
    dump.input(program);
    LowerCtx ctx;
    KernelPlan plan;
    auto code = ctx.capture([&] {
        KernelTensors tensors = bind_tensors(ctx, program, signatures);
        dump.after("bind", program);
        Converted converted = convert_program(ctx, program, tensors);
        dump.after("convert", program);
        for (const auto& name : tensors.outputs) levels::declare_output(ctx, tensors.at(name));
        dump.after("declare", program);
        lower_body(ctx, converted.body);
        dump.after("lower", program);
        for (const auto& name : tensors.outputs) levels::freeze_output(ctx, tensors.at(name));
        dump.after("freeze", program);
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
    dump.after_text("print", plan.c_source);
    return plan;
}

} // namespace siskin::compiler
