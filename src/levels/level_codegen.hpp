#pragma once
// Helpers the level files share to implement the level face (lowering/level_face.hpp), and the
// registry's lookup of a level kind's face.
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "codegen/c_ast.hpp"
#include "lowering/level_face.hpp"
#include "lowering/lower_ctx.hpp"
#include "lowering/tensor_binding.hpp"
#include "looplets/looplet.hpp"
#include "siskin/format.hpp"

namespace siskin::levels {

// Levels are written in the floor's vocabulary: lowering-tree nodes, LowerCtx, looplets.
using namespace lowering;
using namespace looplets;

/// The codegen face of a level kind ("dense"); throws Error(Unsupported) when the level has none.
const LevelCodegen& level_codegen(std::string_view kind);
const LeafCodegen& leaf_codegen(Leaf leaf);

/// The leaf after position `pos` of level f.level (sub-mode f.sub) when that is the last mode
/// of the level: the next level's fibre, or the leaf's value (read) or slot (write).
LExpr child_fiber(LowerCtx& ctx, const Fiber& f, std::vector<cast::Expr> pos,
                  const std::optional<cast::Expr>& dirty);
/// The next sub-mode of a multi-mode level, with a level-defined state.
LExpr next_sub(LowerCtx& ctx, const Fiber& f, std::vector<cast::Expr> state);
/// The fill value of f's tensor as a literal leaf.
LExpr fill_leaf(const Fiber& f);

/// Prepares positions [lo, hi) of the level below `level` (or of the leaf).
void init_child_slots(LowerCtx& ctx, const TensorBinding& t, int level, const cast::Expr& lo,
                      const cast::Expr& hi);
/// Kernel start and end for an output: every level's declare, the root's slot, and the freeze
/// chain that sets the final buffer sizes.
void declare_output(LowerCtx& ctx, const TensorBinding& t);
void freeze_output(LowerCtx& ctx, const TensorBinding& t);

/// The pos array (P+1 prefix sums) of a level appended in order, with its level variable `count`
/// (the positions so far, a fresh local named after `count_base`): pos[0] = 0 at kernel start; an
/// opened fibre k starts empty (pos[k+1] = count); the writer closes fibre r with pos[r+1] =
/// count; at freeze a fibre no loop reached (a sparse outer loop skipped it) ends where the one
/// before it did, and pos gets its size.
void declare_appended_positions(LowerCtx& ctx, const TensorBinding& t, int level, std::string_view count_base);
void init_appended_positions(LowerCtx& ctx, const TensorBinding& t, int level, const cast::Expr& lo,
                             const cast::Expr& hi);
void freeze_appended_positions(LowerCtx& ctx, const TensorBinding& t, int level, const cast::Expr& parents);

/// A child slot an in-order writer opens at position `slot`, kept only when something other than
/// the fill is written below it. `pre` declares a dirty flag where the child cannot tell alone (a
/// value leaf right below starts at the fill and changes only by writes, so what it holds says
/// whether it was written) and readies the slot; `child` is what is written; `keep` tests, after
/// the write, whether the slot is kept.
struct KeptSlot {
    std::vector<cast::Stmt> pre;
    LExpr child;
    cast::Expr keep;
};
KeptSlot open_kept_slot(LowerCtx& ctx, const Fiber& f, const cast::Expr& slot);
/// Appends `parent dirty = true` to what a kept slot commits, when f has a dirty flag above it.
void mark_parent_dirty(const Fiber& f, std::vector<cast::Stmt>& commit);
/// The writing Thunk of a fibre appended at the level's `count`: `start` (a fresh variable, when
/// the writer needs it) holds the fibre's first entry while `slots` writes it, and
/// pos[r+1] = count closes it.
LoopletPtr appended_fibre_write(LowerCtx& ctx, const Fiber& f, const std::optional<cast::Expr>& start,
                                LoopletPtr slots);
/// locate_write of the levels written in coordinate order only: throws Error(Unsupported) naming
/// the level and the tensor.
[[noreturn]] void refuse_random_write(const Fiber& f, std::string_view level);
/// What a level reads (its `locate_at`) or writes (`write_at`) at coordinate i of fibre f.
using AtCoordinate = LExpr (*)(LowerCtx&, const Fiber&, const cast::Expr&);
/// Lookup(i -> at(i)): the follow protocol's looplet, and the write looplet of the levels written
/// by random access (sparsebytemap, sparsehash).
LoopletPtr lookup_each(const Fiber& f, AtCoordinate at);
/// at(f's closed subscript): locate, and locate_write of the random-access writers.
LExpr at_subscript(LowerCtx& ctx, const Fiber& f, AtCoordinate at);
/// Sets the final size of an output buffer at freeze.
void set_buffer_size(LowerCtx& ctx, const BufferBinding& b, const cast::Expr& size);

// Runs of sub-fibres (a runlist above other levels; lowering/level_face.hpp, same_fibres).

/// Whether positions p and q of `level` hold the same below: the next level's fibres p and q,
/// or the leaf's values. Emits the comparison's code into ctx.
cast::Expr same_child_fibres(LowerCtx& ctx, const TensorBinding& t, int level, const cast::Expr& p,
                             const cast::Expr& q);
/// Forgets what was written below positions r, r+1, ... of `level` (the leaf needs nothing: its
/// slots are filled again when reopened).
void discard_child_fibres(LowerCtx& ctx, const TensorBinding& t, int level, const cast::Expr& r);
/// Whether test(k) holds for every k < count: `same = 1; for (k = 0; same && k < count; k++)
/// { code of test(k); same = test(k); }`, stopping at the first k that fails.
cast::Expr all_below(LowerCtx& ctx, const cast::Expr& count,
                     const std::function<cast::Expr(const cast::Expr& k)>& test);
/// same_fibres of a level whose fibre r lists entries pos[r] .. pos[r+1]-1, entry k described by
/// the numbers crds[j][k] (coordinates or run bounds: sparselist's crd, runlist's right,
/// sparserunlist's left and right, coo's crd0 ..) and owning child position k: as many entries,
/// the same numbers, and the same below each.
cast::Expr same_listed_fibres(LowerCtx& ctx, const TensorBinding& t, int level,
                              const std::vector<std::string>& crds, const cast::Expr& p, const cast::Expr& q);
/// same_fibres of a level whose fibre r is the segments pos[r] .. pos[r+1]-1, segment k ending
/// at ends[k] and owning the child positions ofs[k] .. ofs[k+1]-1 (sparseblocklist's blocks,
/// packbits' runs and literals): as many segments, the same ends and lengths, and the same below
/// each child position.
cast::Expr same_segmented_fibres(LowerCtx& ctx, const TensorBinding& t, int level, std::string_view ends,
                                 const cast::Expr& p, const cast::Expr& q);
/// discard_fibres of a level appended fibre by fibre at its `count` (sparselist, runlist): the
/// level goes back to pos[r], and the level below forgets what was below from there on.
void discard_appended_fibres(LowerCtx& ctx, const TensorBinding& t, int level, const cast::Expr& r);

/// A loop `for (k = lo; k < hi; k++) body(k)`, or body(lo) alone when hi - lo is 1.
void emit_range_loop(LowerCtx& ctx, const cast::Expr& lo, const cast::Expr& hi,
                     const std::function<std::vector<cast::Stmt>(const cast::Expr&)>& body);
/// The index C type's name suffix of the prelude's search helpers: "i32" or "i64".
std::string_view search_suffix(ValueType index_type);

} // namespace siskin::levels
