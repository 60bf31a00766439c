// Switch: an if/else chain over the cases of the first switch; the others are lowered inside
// each branch, so every combination of cases gets its own code.
#include "compiler/lower.hpp"
#include "compiler/vocabulary.hpp"

namespace siskin::compiler {

void lower_switch(LowerCtx& ctx, const std::string& index, const Extent& ext, const LStmt& body) {
    if (lower_merge(ctx, index, ext, body)) return; // many guarded operands: linear code
    const Unfurled* sw = unfurled_of(body, index, LoopletKind::Switch).front();
    std::vector<std::pair<std::optional<cast::Expr>, std::vector<cast::Stmt>>> branches;
    auto claims = ctx.claims(); // the branches exclude each other
    for (const auto& c : sw->looplet->as<Switch>()->cases) {
        ctx.restore_claims(claims);
        LStmt branch = replace_unfurled(body, {{sw, sw->with(c.body)}});
        branches.emplace_back(c.cond, ctx.capture([&] { lower_extent(ctx, index, ext, branch); }));
    }
    emit_chain(ctx, branches);
}

} // namespace siskin::compiler
