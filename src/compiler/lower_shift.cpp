// Shift: no loop of its own; the translation is pushed into the wrapped looplet.
#include "compiler/lower.hpp"
#include "looplets/truncate.hpp"
#include "compiler/vocabulary.hpp"

namespace siskin::compiler {

void lower_shift(LowerCtx& ctx, const std::string& index, const Extent& ext, const LStmt& body) {
    std::map<const Node*, LExpr> by;
    for (const auto* u : unfurled_of(body, index, LoopletKind::Shift)) {
        const auto& s = *u->looplet->as<Shift>();
        by.emplace(u, u->with(shift_looplet(s.body, s.delta)));
    }
    lower_extent(ctx, index, ext, replace_unfurled(body, by));
}

} // namespace siskin::compiler
