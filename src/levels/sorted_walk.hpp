#pragma once
// The walk and gallop looplets of a sorted coordinate list (crd[p] .. crd[end-1], strictly
// increasing), shared by the levels that iterate one: sparselist (child position p),
// sparsebytemap (its sorted list srt, child position base + srt[p]) and sparsehash (its sorted
// list idx, child position srt[p]), each over a fibre of its pos array (pos_bounded_fibre); the
// stepper over entries with increasing exclusive ends (runlist, sparserunlist and
// sparseblocklist: runs and blocks); and the binary search that locates a coordinate in a fibre
// of such a list.
#include <functional>
#include <optional>
#include <string_view>
#include <vector>

#include "levels/level_codegen.hpp"

namespace siskin::levels {

struct SortedWalk {
    cast::Expr crd, p, end, last, dim;
    ValueType index_type;
    /// Child position of entry p: p itself when neither is set, base + crd[p], or positions[p].
    std::optional<cast::Expr> base;
    std::optional<cast::Expr> positions;
};

/// Statements moving p to the first entry whose coordinate is >= start.
std::vector<cast::Stmt> sorted_seek(const SortedWalk& w, const cast::Expr& start);
/// Thunk(p, end, last) Sequence[Phase(last, walk Stepper or gallop Jumper), Phase(Run(fill))]
/// over fibre f; `pos_lo`/`pos_hi` are the bounds of the fibre's entries.
LoopletPtr sorted_fibre(LowerCtx& ctx, const Fiber& f, const cast::Expr& crd, const cast::Expr& pos_lo,
                        const cast::Expr& pos_hi, bool gallop, std::optional<cast::Expr> base,
                        std::optional<cast::Expr> positions = std::nullopt);
/// The same fibre walked from its end, over reversed coordinates: index r holds the entry at
/// coordinate dim-1-r. Thunk(q = pos_hi-1, q_lo, q_last) Sequence[Phase(q_last, Stepper(stop =
/// dim - crd[q], chunk = Spike(fill, child(q)), next = q--)), Phase(Run(fill))]; its seek is a
/// binary search. Work is the stored entries, as forwards. Child positions as sorted_fibre's.
LoopletPtr sorted_fibre_reversed(LowerCtx& ctx, const Fiber& f, const cast::Expr& crd,
                                 const cast::Expr& pos_lo, const cast::Expr& pos_hi,
                                 std::optional<cast::Expr> base,
                                 std::optional<cast::Expr> positions = std::nullopt);

/// sorted_fibre over fibre r = f.pos[0] of a level with a pos array: its entries pos[r] ..
/// pos[r+1]-1 of the coordinate buffer `crd` (sparselist crd, sparsebytemap srt, sparsehash idx),
/// walked, galloped or (`reversed`) walked from its end; child positions as sorted_fibre's.
enum class SortedOrder { Walk, Gallop, Reversed };
/// The forward order of a read protocol: Gallop for "gallop", else Walk.
inline SortedOrder sorted_order(std::string_view protocol) {
    return protocol == "gallop" ? SortedOrder::Gallop : SortedOrder::Walk;
}
LoopletPtr pos_bounded_fibre(LowerCtx& ctx, const Fiber& f, std::string_view crd, SortedOrder order,
                             std::optional<cast::Expr> base, std::optional<cast::Expr> positions = std::nullopt);

/// The chunk of entry q of a fibre of ended entries: what covers the coordinates up to ends[q].
using EndedChunk = std::function<LoopletPtr(LowerCtx&, const Fiber&, const cast::Expr& q)>;

/// A fibre r of entries q = pos[r] .. pos[r+1]-1 whose exclusive ends ends[q] increase:
///   Thunk(q, q_end, last) Sequence[Phase(last, Stepper(stop = ends[q], chunk(q), next = q++)),
///                                  Phase(Run(fill))]
/// so an entry is one step whatever its length; a seek gallops over ends to the first entry ending
/// past the start. When the entries cover the whole fibre (`covers`: runlist) the Stepper alone.
LoopletPtr ended_fibre(LowerCtx& ctx, const Fiber& f, const cast::Expr& ends, bool covers, EndedChunk chunk);

/// The first entry k of fibre f (pos[r] <= k < pos[r+1] over the level's pos array) whose
/// sorted[k] >= target, by binary search: `pre` declares `end` (pos[r+1]) and `q`.
struct FibreSearch {
    std::vector<cast::Stmt> pre;
    cast::Expr q, end;
};
FibreSearch search_fibre(LowerCtx& ctx, const Fiber& f, const cast::Expr& sorted, const cast::Expr& target);
/// Hoist(pre) Select(found: child at `position`, else: the fill): a located coordinate.
LExpr child_or_fill(LowerCtx& ctx, const Fiber& f, std::vector<cast::Stmt> pre, const cast::Expr& found,
                    const cast::Expr& position);

} // namespace siskin::levels
