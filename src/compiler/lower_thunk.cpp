// Thunk: the set-up code runs before the loop, the clean-up after it; the body is lowered in
// between, knowing the facts the set-up establishes.
#include "compiler/lower.hpp"
#include "compiler/vocabulary.hpp"

namespace siskin::compiler {

void lower_thunk(LowerCtx& ctx, const std::string& index, const Extent& ext, const LStmt& body) {
    auto thunks = unfurled_of(body, index, LoopletKind::Thunk);
    size_t mark = ctx.prover().mark();
    std::map<const Node*, LExpr> by;
    for (const auto* u : thunks) {
        const auto& t = *u->looplet->as<Thunk>();
        ctx.emit(t.preamble);
        for (const auto& [a, b] : t.facts) ctx.prover().assume_le(a, b);
        by.emplace(u, u->with(t.body));
    }
    lower_extent(ctx, index, ext, replace_unfurled(body, by));
    ctx.prover().rollback(mark);
    for (size_t k = thunks.size(); k-- > 0;) ctx.emit(thunks[k]->looplet->as<Thunk>()->epilogue);
}

} // namespace siskin::compiler
