// Running a program through the planner: the candidate a choice names, compiled like any
// program, its temporaries outputs of their own that the caller never sees. `siskin run`, the
// lazy arrays' compute() and the Python package all come through here.
#include <fmt/format.h>

#include "siskin/error.hpp"
#include "siskin/planner.hpp"

namespace siskin {

PlanCandidate choose_plan(const Plan& plan, const ir::Program& program, const PlanChoice& choice) {
    if (choice.as_written && choice.candidate)
        throw Error("a plan number and 'as written' both choose the plan: give one");
    if (choice.as_written) return {"as written", program, {}, 0, ""};
    const size_t k = choice.candidate.value_or(0);
    if (k >= plan.candidates.size())
        throw Error(fmt::format("plan {}: the planner weighed {} plan{} (siskin explain lists them)", k,
                                plan.candidates.size(), plan.candidates.size() == 1 ? "" : "s"));
    return plan.candidates[k];
}

std::map<std::string, Tensor> PlannedProgram::run(const std::map<std::string, const Tensor*>& inputs) const {
    std::map<std::string, Tensor> outputs = compiled.run(inputs);
    for (const auto& [name, spec] : chosen.temporaries) outputs.erase(name);
    return outputs;
}

PlannedProgram compile_planned(const ir::Program& program, const std::map<std::string, const Tensor*>& inputs,
                               const std::map<std::string, OutputSpec>& outputs, const CompileOptions& options,
                               const PlanChoice& choice, const PlanOptions& plan_options) {
    // As written, nothing is weighed (no statistics are measured).
    PlanCandidate chosen = choice.as_written
                               ? choose_plan(Plan{}, program, choice)
                               : choose_plan(plan_program(program, inputs, outputs, plan_options), program, choice);
    std::map<std::string, OutputSpec> specs = outputs;
    for (const auto& [name, spec] : chosen.temporaries) specs[name] = spec;
    try {
        CompiledProgram compiled = compile_for(chosen.program, inputs, specs, options);
        return {std::move(chosen), std::move(compiled)};
    } catch (const Error& e) {
        // The cheapest plan is an optimisation: where the compiler cannot run it yet, the
        // program as written (whose own refusal, if any, is the one to report). A plan asked
        // for by number fails as it is.
        if (e.kind() != Error::Kind::Unsupported || choice.as_written || choice.candidate ||
            ir::equal(chosen.program, program))
            throw;
    }
    PlanChoice written;
    written.as_written = true;
    return compile_planned(program, inputs, outputs, options, written, plan_options);
}

std::map<std::string, Tensor> evaluate_planned(const ir::Program& program,
                                               const std::map<std::string, const Tensor*>& inputs,
                                               const std::map<std::string, OutputSpec>& outputs,
                                               const CompileOptions& options, const PlanChoice& choice) {
    return compile_planned(program, inputs, outputs, options, choice).run(inputs);
}

} // namespace siskin
