// Run: the access takes its run's value on the whole extent; the simplifier then removes or
// collapses the loop.
#include "compiler/lower.hpp"
#include "compiler/vocabulary.hpp"

namespace siskin::compiler {

void lower_run(LowerCtx& ctx, const std::string& index, const Extent& ext, const LStmt& body) {
    std::map<const Node*, LExpr> by;
    for (const auto* u : unfurled_of(body, index, LoopletKind::Run))
        by.emplace(u, u->looplet->as<Run>()->body);
    lower_extent(ctx, index, ext, replace_unfurled(body, by));
}

} // namespace siskin::compiler
