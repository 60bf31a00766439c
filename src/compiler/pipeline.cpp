#include "compiler/pipeline.hpp"

#include <algorithm>
#include <set>

#include "codegen/c_optimize.hpp"
#include "codegen/c_printer.hpp"
#include "compiler/concordize.hpp"
#include "compiler/count_work.hpp"
#include "compiler/lower.hpp"
#include "compiler/workspaces.hpp"
#include "compiler/pass_dump.hpp"
#include "passes/declared_fills.hpp"
#include "levels/level_codegen.hpp"
#include "compiler/vocabulary.hpp"

namespace siskin {

// The passes, in the order plan_kernel runs them (the names the pass dump accepts).
std::vector<std::string> compiler_passes() {
    return {"workspaces", "concordize", "bind", "convert", "declare", "lower", "freeze", "print"};
}

} // namespace siskin

namespace siskin::compiler {

KernelPlan plan_kernel(const ir::Program& program,
                       const std::map<std::string, TensorSignature>& signatures,
                       const CompileOptions& options) {
    const bool count_work = options.count_work;
    check_declared_signature_fills(program, signatures);
    PassDump dump(options.dump_after, compiler_passes());
    dump.input(program);
    LowerCtx ctx;
    KernelPlan plan;
    std::map<std::string, cast::Type> output_arrays; // data pointer -> element type
    std::set<std::string> narrow_positions; // data pointers of 32-bit output position buffers
    auto code = ctx.capture([&] {
        Workspaced ws = add_workspaces(program, signatures);
        dump.after("workspaces", ws.program);
        Concordized cz = concordize(ws.program, ws.signatures);
        dump.after("concordize", cz.program);
        KernelTensors tensors = bind_tensors(ctx, cz.program, cz.signatures);
        for (const auto& w : ws.workspaces) tensors.bindings.at(w.name)->workspace = true;
        dump.after("bind", cz.program);
        Converted converted = convert_program(ctx, cz.program, tensors);
        dump.after("convert", cz.program);
        for (const auto& name : tensors.outputs) levels::declare_output(ctx, tensors.at(name));
        dump.after("declare", cz.program);
        // Lifecycle: an output a later statement reads is frozen right after its last writer.
        std::set<std::string> frozen;
        const auto* top = converted.body->as<Block>();
        for (size_t k = 0; k < (top ? top->stmts.size() : 1); ++k) {
            lower_body(ctx, top ? top->stmts[k] : converted.body);
            if (auto it = converted.freeze_after.find(k); it != converted.freeze_after.end())
                for (const auto& name : it->second) {
                    levels::freeze_output(ctx, tensors.at(name));
                    frozen.insert(name);
                }
        }
        dump.after("lower", cz.program);
        for (const auto& name : tensors.outputs)
            if (!frozen.count(name)) levels::freeze_output(ctx, tensors.at(name));
        dump.after("freeze", cz.program);
        ctx.emit(cast::Return::make(cast::var("SISKIN_OK")));

        plan.inputs = tensors.inputs;
        plan.outputs = tensors.outputs;
        for (const auto& name : tensors.order()) plan.signatures.emplace(name, cz.signatures.at(name));
        plan.transposes = cz.transposes;
        if (ws.workspaces.empty()) plan.forwarded = forwarded_copy(cz);
        plan.workspaces = ws.workspaces;
        for (const auto& name : tensors.outputs)
            if (std::none_of(ws.workspaces.begin(), ws.workspaces.end(),
                             [&](const Workspace& w) { return w.name == name; }))
                plan.visible_outputs.push_back(name);
        plan.dim_classes = tensors.dim_classes;
        plan.checks = converted.checks;
        plan.slice_checks = converted.slice_checks;
        plan.num_buffers = tensors.num_buffers;
        for (const auto& name : tensors.outputs) {
            const TensorBinding& t = tensors.at(name);
            for (const auto& level : t.levels)
                for (const auto& b : level) {
                    output_arrays.emplace(b.data, cast::Type::of(b.type));
                    // The kernel counts positions in int64 and stores them here.
                    if (b.type == ValueType::Int32 && b.role == BufferRole::Positions)
                        narrow_positions.insert(b.data);
                }
            if (t.values) output_arrays.emplace(t.values->data, cast::Type::of(t.values->type));
        }
    });
    plan.zeroed_room = ctx.zeroed_room();
    // Cleanups the looplets leave to the finished C (c_optimize.hpp).
    cast::Stmt body = cast::remove_dead_locals(cast::merge_nested_ifs(cast::Block::make(code)));
    body = cast::replace_scalars(cast::fuse_constant_init(body, output_arrays), output_arrays);
    body = cast::hoist_growth_checks(cast::remove_overwritten_stores(body, output_arrays));
    body = cast::fold_opened_slot_updates(body, output_arrays);
    std::set<std::string> output_pointers;
    for (const auto& [name, type] : output_arrays) output_pointers.insert(name);
    body = cast::restrict_pointers(body, output_pointers);
    body = cast::check_position_stores(body, narrow_positions, options.max_position_32);
    body = cast::prefetch_fibres(body);
    // An instrumented build counts the iterations of the loops as lowered, one per entry.
    if (options.reassociate && !count_work)
        body = cast::split_accumulators(body, ctx.reassociable_helpers());
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
    dump.after_text("print", plan.c_source);
    return plan;
}

} // namespace siskin::compiler
