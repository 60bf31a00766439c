// plan_program: the candidates of the first generator that recognises the program, cheapest
// estimate first; any other program is its own one plan.
#include <algorithm>

#include "planner/candidates.hpp"

namespace siskin {

Plan plan_program(const ir::Program& program, const std::map<std::string, const Tensor*>& inputs,
                  const std::map<std::string, OutputSpec>& outputs, const PlanOptions& options) {
    Plan plan;
    if (auto chain = planner::chain_candidates(program, inputs)) plan.candidates = std::move(*chain);
    else if (auto orders = planner::loop_order_candidates(program, inputs, outputs, options.loops_are_free))
        plan.candidates = std::move(*orders);
    else plan.candidates.push_back({"as written (not weighed)", program, {}, 0, "not estimated"});
    std::stable_sort(plan.candidates.begin(), plan.candidates.end(),
                     [](const PlanCandidate& p, const PlanCandidate& q) { return p.cost < q.cost; });
    return plan;
}

} // namespace siskin
