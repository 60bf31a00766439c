#pragma once
// The codegen shared by the singular levels (Finch's "Sparse + Singular"): sparsepoint and
// sparseinterval store at most one region [lo, hi) per fibre, and every coordinate of it shares
// the child position of the fibre itself (position r of the level is fibre r: no pos array).
//
// Reading: Thunk(lo, hi) Sequence[Phase(lo, Run(fill)), Phase(hi, Run(child(r))), Phase(Run(fill))]
// so nothing outside the region is visited and a reduction over the region is integrated.
// Writing: in coordinate order, one fibre at a time. While the fibre is empty, coordinates are
// tried in the fibre's own child slot r; once it holds its region, later coordinates go to a
// scratch slot past every position opened so far (so a write of the fill cannot clobber the
// stored region), and something other than the fill kept there is a second region: the level
// decides whether it extends the region (an adjacent run of the same value) or stops the kernel
// with SISKIN_ERR_STRUCTURE.
#include <functional>
#include <memory>
#include <optional>

#include "levels/level_codegen.hpp"

namespace siskin::levels {

/// The region [lo, hi) of fibre f (declared by `pre`), read with every protocol but follow.
LoopletPtr single_region_fibre(const Fiber& f, cast::Expr lo, cast::Expr hi, std::vector<cast::Stmt> pre,
                               std::vector<Fact> facts);
/// The value of fibre f at coordinate c: the child when lo <= c < hi, else the fill.
LExpr single_region_at(LowerCtx& ctx, const Fiber& f, const cast::Expr& lo, const cast::Expr& hi,
                       std::vector<cast::Stmt> pre, const cast::Expr& c);

/// Declares the level's scratch position `high` (one past the highest position a parent opened).
void declare_single_region(LowerCtx& ctx, const TensorBinding& t, int level);
/// Opens positions [lo, hi): `mark_empty(k)` empties fibre k, and the children's slots are readied.
void init_single_region_slots(LowerCtx& ctx, const TensorBinding& t, int level, const cast::Expr& lo,
                              const cast::Expr& hi,
                              const std::function<std::vector<cast::Stmt>(const cast::Expr&)>& mark_empty);

/// What a singular level does with a write it kept, given the coordinates [lo, hi) written.
struct RegionWrite {
    /// Whether fibre r holds its region yet.
    cast::Expr holds;
    /// Records [lo, hi) as the region of the empty fibre.
    std::function<std::vector<cast::Stmt>(const cast::Expr& lo, const cast::Expr& hi)> record;
    /// A kept write while the region exists (its value in slot `scratch`): statements that extend
    /// the region or return SISKIN_ERR_STRUCTURE.
    std::function<std::vector<cast::Stmt>(LowerCtx&, const cast::Expr& lo, const cast::Expr& hi,
                                          const cast::Expr& scratch)>
        again;
};

/// The leaf for the coordinates [lo, hi) of the fibre being written (hi = lo + 1 but for runs).
LExpr write_single_region(LowerCtx& ctx, const Fiber& f, const RegionWrite& w, const cast::Expr& lo,
                          const cast::Expr& hi);

/// The statement that stops the kernel because a fibre would need a second region.
cast::Stmt structure_error();

} // namespace siskin::levels
