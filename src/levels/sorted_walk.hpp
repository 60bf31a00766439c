#pragma once
// The walk and gallop looplets of a sorted coordinate list (crd[p] .. crd[end-1], strictly
// increasing), shared by the levels that iterate one: sparselist (child position p) and
// sparsebytemap (its sorted list srt, child position base + srt[p]).
#include <optional>
#include <vector>

#include "levels/level_codegen.hpp"

namespace siskin::levels {

struct SortedWalk {
    cast::Expr crd, p, end, last, dim;
    ValueType index_type;
    /// Child position of entry p: p itself when none, else base + crd[p].
    std::optional<cast::Expr> base;
};

/// Statements moving p to the first entry whose coordinate is >= start.
std::vector<cast::Stmt> sorted_seek(const SortedWalk& w, const cast::Expr& start);
/// Thunk(p, end, last) Sequence[Phase(last, walk Stepper or gallop Jumper), Phase(Run(fill))]
/// over fibre f; `pos_lo`/`pos_hi` are the bounds of the fibre's entries.
LoopletPtr sorted_fibre(LowerCtx& ctx, const Fiber& f, const cast::Expr& crd, const cast::Expr& pos_lo,
                        const cast::Expr& pos_hi, bool gallop, std::optional<cast::Expr> base);

} // namespace siskin::levels
