// Sequence: one sub-loop per combination of phases (one phase of every sequence), over the
// intersection of their ranges, in lexicographic order, which is increasing index order.
// Combinations the prover shows empty, or whose body simplifies to nothing, emit no code; the
// others are guarded by `if (lo < hi)` unless provably non-empty.
#include "compiler/lower.hpp"
#include "compiler/vocabulary.hpp"

namespace siskin::compiler {

void lower_sequence(LowerCtx& ctx, const std::string& index, const Extent& ext, const LStmt& body) {
    if (lower_merge(ctx, index, ext, body)) return; // many operands: linear code
    auto seqs = unfurled_of(body, index, LoopletKind::Sequence);
    std::set<const Node*> skip(seqs.begin(), seqs.end());
    Prover& pr = ctx.prover();
    std::vector<size_t> choice(seqs.size(), 0);
    while (true) {
        std::vector<cast::Expr> los{ext.lo}, his{ext.hi};
        for (size_t s = 0; s < seqs.size(); ++s) {
            const auto& phases = seqs[s]->looplet->as<Sequence>()->phases;
            if (choice[s] > 0) los.push_back(*phases[choice[s] - 1].stop);
            if (phases[choice[s]].stop) his.push_back(*phases[choice[s]].stop);
        }
        Extent range{pr.max(los), pr.min(his)};
        if (!pr.le(range.hi, range.lo)) {
            std::map<const Node*, LExpr> by;
            std::optional<cast::Expr> guard;
            for (size_t s = 0; s < seqs.size(); ++s) {
                const auto& phase = seqs[s]->looplet->as<Sequence>()->phases[choice[s]];
                by.emplace(seqs[s], seqs[s]->with(phase.body(ctx, range)));
                // The range is exactly this phase from its start: its own cheaper test decides.
                if (phase.nonempty && phase.stop && pr.eq(range.lo, phase.nonempty->from) &&
                    pr.eq(range.hi, *phase.stop))
                    guard = phase.nonempty->test;
            }
            LStmt part = replace_unfurled(truncate_all(ctx, body, index, ext, range, skip), by);
            lower_range(ctx, index, range, part, guard);
        }
        // Next combination, last sequence fastest.
        size_t s = seqs.size();
        while (s > 0) {
            --s;
            if (++choice[s] < seqs[s]->looplet->as<Sequence>()->phases.size()) break;
            choice[s] = 0;
            if (s == 0) return;
        }
        if (seqs.empty()) return;
    }
}

} // namespace siskin::compiler
