#pragma once
// The codegen face of level and leaf formats: what the compiler asks of a level to read and
// write it in generated C. Each level file implements it next to its runtime face.
//
// Reading: unfurl(fibre, protocol) gives the looplet nest of a fibre along the loop of its next
// subscript; locate(fibre) reads at a coordinate already known (a subscript bound by an outer
// loop, or a literal). Leaves are built with child(): the next level's fibre, or the leaf value.
//
// Writing (outputs): declare() creates the level's kernel-wide variables and storage at kernel
// start; init_slots() prepares positions [lo, hi) when a parent opens them; unfurl_write() gives
// the looplet that assigns positions to the coordinates a loop writes (Lookup for random-access
// levels, an in-order append with a dirty flag for sparse ones); freeze() sets the final buffer
// sizes at kernel end. Positions flow top-down: the root's parent has the single position 0.
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "codegen/c_ast.hpp"
#include "compiler/lower_ir.hpp"
#include "looplets/looplet.hpp"
#include "siskin/format.hpp"

namespace siskin::compiler {
class LowerCtx;
struct TensorBinding;
} // namespace siskin::compiler

namespace siskin::levels {

using compiler::Fiber;
using compiler::LExpr;
using compiler::LoopletPtr;
using compiler::LowerCtx;
using compiler::TensorBinding;

class LevelCodegen {
public:
    virtual ~LevelCodegen() = default;

    /// The protocols this level can be read with; the first is the default.
    virtual std::vector<std::string_view> protocols() const = 0;
    /// The looplet nest of `f` along the loop of f.subscripts[0] over [0, dim), for a protocol
    /// from protocols(). Called at the loop; may only build looplets (set-up goes in a Thunk).
    virtual LoopletPtr unfurl(LowerCtx& ctx, const Fiber& f, std::string_view protocol) const = 0;
    /// The leaf at the closed subscripts of f (all of this level's); nullptr when they are not
    /// closed yet. Throws Error(Unsupported) when the level cannot be read that way.
    virtual LExpr locate(LowerCtx& ctx, const Fiber& f) const = 0;

    /// Whether positions can be written in any order (dense); else only in coordinate order,
    /// each once per fibre.
    virtual bool random_write() const = 0;
    virtual void declare(LowerCtx& ctx, const TensorBinding& t, int level) const = 0;
    virtual void init_slots(LowerCtx& ctx, const TensorBinding& t, int level, const cast::Expr& lo,
                            const cast::Expr& hi) const = 0;
    virtual LoopletPtr unfurl_write(LowerCtx& ctx, const Fiber& f) const = 0;
    /// Write access at closed subscripts (random-write levels only).
    virtual LExpr locate_write(LowerCtx& ctx, const Fiber& f) const = 0;
    /// Sets the sizes of the level's buffers given the parent's number of positions, and returns
    /// this level's number of positions.
    virtual cast::Expr freeze(LowerCtx& ctx, const TensorBinding& t, int level,
                              const cast::Expr& parents) const = 0;

    /// Reading in storage order: the positions of the level below (or of the leaf) that hold
    /// the fibres at parent positions [lo, hi), when they are one contiguous range in which each
    /// position is one coordinate of this level (dense, sparselist, coo). nullopt for levels
    /// whose positions stand for runs, blocks or unused slots.
    virtual std::optional<std::pair<cast::Expr, cast::Expr>> stored_range(const TensorBinding&, int,
                                                                          const cast::Expr&,
                                                                          const cast::Expr&) const {
        return std::nullopt;
    }
};

class LeafCodegen {
public:
    virtual ~LeafCodegen() = default;
    virtual LExpr read(LowerCtx& ctx, const TensorBinding& t, const cast::Expr& pos) const = 0;
    virtual LExpr write(LowerCtx& ctx, const TensorBinding& t, const cast::Expr& pos,
                        const std::optional<cast::Expr>& dirty) const = 0;
    /// Storage for positions [lo, hi), holding the fill.
    virtual void init_slots(LowerCtx& ctx, const TensorBinding& t, const cast::Expr& lo,
                            const cast::Expr& hi) const = 0;
    /// Whether the value at pos differs from the fill (a sparse parent keeps only such entries).
    virtual cast::Expr holds_value(LowerCtx& ctx, const TensorBinding& t, const cast::Expr& pos) const = 0;
    /// Whether positions p and q hold the same value, as Scalar::same judges it (NaN equals NaN,
    /// -0.0 equals 0.0): a runlist merges adjacent runs that do.
    virtual cast::Expr same_values(LowerCtx& ctx, const TensorBinding& t, const cast::Expr& p,
                                   const cast::Expr& q) const = 0;
    virtual void freeze(LowerCtx& ctx, const TensorBinding& t, const cast::Expr& count) const = 0;
};

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

/// A loop `for (k = lo; k < hi; k++) body(k)`, or body(lo) alone when hi - lo is 1.
void emit_range_loop(LowerCtx& ctx, const cast::Expr& lo, const cast::Expr& hi,
                     const std::function<std::vector<cast::Stmt>(const cast::Expr&)>& body);
/// The index C type's name suffix of the prelude's search helpers: "i32" or "i64".
std::string_view search_suffix(ValueType index_type);

} // namespace siskin::levels
