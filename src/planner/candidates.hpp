#pragma once
// The planner's candidate generators; plan_program (plan_program.cpp) asks each in turn.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "siskin/planner.hpp"

namespace siskin::planner {

/// A chain of three matrix products: the fused nest, A*B first, B*C first (chain_order.cpp).
std::optional<std::vector<PlanCandidate>> chain_candidates(const ir::Program& program,
                                                           const std::map<std::string, const Tensor*>& inputs);

/// One einsum statement with implied loops: its loop orders, each discordant read transposed
/// or searched, the output written in order, through a row workspace or a dense temporary
/// (loop_order.cpp). The program as written comes first. `loops_are_free`: loops written over
/// whole extents (`for i in 0:n`) are weighed as implied ones.
std::optional<std::vector<PlanCandidate>> loop_order_candidates(const ir::Program& program,
                                                                const std::map<std::string, const Tensor*>& inputs,
                                                                const std::map<std::string, OutputSpec>& outputs,
                                                                bool loops_are_free);

} // namespace siskin::planner
