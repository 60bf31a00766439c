#pragma once
// How a loop reads an access whose subscript at the current level is compound (`I[x + i]`,
// ir/affine.hpp), in the lowering tree where the indices of outer loops are C values already:
//   resolves  the loop's index is the subscript's only unbound one, with coefficient c > 0: the
//             access reads coordinate first + c * index, the slice window (wrappers/slice.hpp)
//             over the level's fibre; a dense level locates, a sorted list seeks and walks;
//   reduces   indices of inner loops are unbound too: on a level that is not dense, the loop
//             visits only the offsets whose window of the level holds a stored entry
//             (wrappers/window.hpp), the window spanning the coordinates the inner indices add.
//             A dense level keeps plain index arithmetic (no looplet: the inner loop resolves).
#include <optional>
#include <string>
#include <vector>

#include "ir/affine.hpp"

#include "looplets/looplet.hpp"
#include "lowering/lower_ctx.hpp"
#include "compiler/vocabulary.hpp"

namespace siskin::compiler {

/// A subscript (or any int64 expression) as a sum of unbound indices with constant coefficients
/// plus a C value of the bound part; nothing when it is not of that form.
struct LinearForm {
    std::vector<ir::AffineTerm> open;
    cast::Expr closed;
};
std::optional<LinearForm> linear_form(LowerCtx& ctx, const LExpr& e);

struct AffineRead {
    int64_t coef = 0;      // of the loop's index
    cast::Expr first;      // the coordinate at index 0 (and inner indices at their lowest)
    /// Reducing: the number of coordinates the inner indices span; none when resolving.
    std::optional<cast::Expr> width;
};

/// How loop `index` (whose body is `body`) reads the compound subscript `s`; nothing when `s`
/// does not mention `index`, or is not affine, or an inner index has no closed range.
std::optional<AffineRead> affine_read(LowerCtx& ctx, const LExpr& s, const std::string& index,
                                      const LStmt& body);

/// The subscript through which a resolving read (`r` without width) of loop `index` sees its
/// level: `index` wrapped in the slice window (wrappers/slice.hpp), the reversed window for a
/// negative coefficient (wrappers/reverse.hpp), the padded window where `pad` is given
/// (wrappers/padding.hpp). Reading backwards through padding or into an output is the caller's
/// to refuse.
LExpr resolved_subscript(const std::string& index, const AffineRead& r, const LExpr& pad);

/// The looplet of a reduced read over loop extent `ext`: the window offsets of `level` (the
/// fibre's own looplet over [0, dim)) seen through the subscript's offset and stride.
LoopletPtr reduced_read(LowerCtx& ctx, const AffineRead& r, const LoopletPtr& level,
                        const cast::Expr& dim, const Extent& ext, const LExpr& access,
                        const LExpr& fill, const std::string& what);

} // namespace siskin::compiler
