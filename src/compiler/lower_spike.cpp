// Spike: every spike is Run(body) on [lo, hi-1) and its tail at hi-1, so the extent splits in
// two; the other looplets are truncated to each part.
#include "compiler/lower.hpp"
#include "compiler/vocabulary.hpp"

namespace siskin::compiler {

void lower_spike(LowerCtx& ctx, const std::string& index, const Extent& ext, const LStmt& body) {
    auto spikes = unfurled_of(body, index, LoopletKind::Spike);
    std::set<const Node*> skip(spikes.begin(), spikes.end());
    cast::Expr last = c_add(ext.hi, -1);

    std::map<const Node*, LExpr> runs, tails;
    for (const auto* u : spikes) {
        runs.emplace(u, u->looplet->as<Spike>()->body);
        tails.emplace(u, u->looplet->as<Spike>()->tail);
    }
    Extent head{ext.lo, last};
    lower_range(ctx, index, head, truncate_all(ctx, replace_unfurled(body, runs), index, ext, head, skip));
    Extent tail{last, ext.hi};
    lower_extent(ctx, index, tail, truncate_all(ctx, replace_unfurled(body, tails), index, ext, tail, skip));
}

} // namespace siskin::compiler
