#pragma once
// The level face: what lowering asks of a level format to read and write it in generated C.
// This is the one header a level author reads; each level file in src/levels implements it next
// to its runtime face (levels/level_format.hpp), and levels/level_codegen.hpp has the helpers
// the level files share. Lowering reaches a bound tensor's faces through its TensorBinding,
// looked up once when the tensor is bound.
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
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "codegen/c_ast.hpp"
#include "lowering/lower_ir.hpp"
#include "siskin/error.hpp"

namespace siskin::lowering {

class LevelCodegen {
public:
    virtual ~LevelCodegen() = default;

    /// The protocols this level can be read with; the first is the default.
    virtual std::vector<std::string_view> protocols() const = 0;
    /// The looplet nest of `f` along the loop of f.subscripts[0] over [0, dim), for a protocol
    /// from protocols(). Called at the loop; may only build looplets (set-up goes in a Thunk).
    virtual LoopletPtr unfurl(LowerCtx& ctx, const Fiber& f, std::string_view protocol) const = 0;
    /// The looplet nest of `f` walked from its end: over [0, dim), index r reads coordinate
    /// dim-1-r (flip, negative slice steps). nullptr when the level has no backward walk; a
    /// backward read then locates each coordinate (wrappers/reverse.hpp).
    virtual LoopletPtr unfurl_reversed(LowerCtx&, const Fiber&) const { return nullptr; }
    /// The leaf at the closed subscripts of f (all of this level's); nullptr when they are not
    /// closed yet. Throws Error(Unsupported) when the level cannot be read that way.
    virtual LExpr locate(LowerCtx& ctx, const Fiber& f) const = 0;

    virtual void declare(LowerCtx& ctx, const TensorBinding& t, int level) const = 0;
    virtual void init_slots(LowerCtx& ctx, const TensorBinding& t, int level, const cast::Expr& lo,
                            const cast::Expr& hi) const = 0;
    virtual LoopletPtr unfurl_write(LowerCtx& ctx, const Fiber& f) const = 0;
    /// Write access at closed subscripts (levels that are not append_only).
    virtual LExpr locate_write(LowerCtx& ctx, const Fiber& f) const = 0;
    /// Sets the sizes of the level's buffers given the parent's number of positions, and returns
    /// this level's number of positions.
    virtual cast::Expr freeze(LowerCtx& ctx, const TensorBinding& t, int level,
                              const cast::Expr& parents) const = 0;

    /// Runs of sub-fibres: a runlist above this level merges a run into the one before it when
    /// their sub-fibres hold the same, comparing them right after the later one is written, so
    /// every level compares and discards its fibres.
    /// Emits code comparing fibres p and q of the level (both written and closed) and returns
    /// an expression, valid after that code, that holds when they store the same coordinates
    /// with the same values below (levels/level_codegen.hpp: same_child_fibres).
    virtual cast::Expr same_fibres(LowerCtx& ctx, const TensorBinding& t, int level, const cast::Expr& p,
                                   const cast::Expr& q) const = 0;
    /// Emits code forgetting what was written in fibres r, r+1, ... of the level and below (the
    /// latest written), so that the next fibre opened at r (after init_slots) starts empty.
    virtual void discard_fibres(LowerCtx& ctx, const TensorBinding& t, int level, const cast::Expr& r) const = 0;

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

} // namespace siskin::lowering
