#pragma once
// The wrapper face: what lowering asks of an index wrapper (Finch §1.5), a view of one mode of a
// tensor through a transformation of its coordinates that is never materialised. A subscript that
// is not a plain loop index (a slice `i(lo:hi:st)`; offsets, padding, masks and the shape
// operators to come) wraps its index: the access still moves with the loop of that index, but
// index value i reads coordinate(i) of the level.
//
// Lowering unfurls the level's fibre over its own coordinates [0, dim) as usual and hands the
// looplet to the wrapper, which returns the looplet over the loop's extent (shifted, strided,
// windowed, ...). Where the subscript is already bound (a located read), the level is read at
// coordinate(i) directly. Each wrapper is one file in src/wrappers implementing this face, made by
// the pass that recognises its subscript form through the factory its header declares.
#include <memory>
#include <string>

#include "codegen/c_ast.hpp"
#include "lowering/lower_ir.hpp"

namespace siskin::lowering {

class IndexWrapper {
public:
    virtual ~IndexWrapper() = default;

    /// Equal keys mean the same view (writes of one fibre through equal subscripts share one
    /// looplet, one slot per coordinate).
    virtual std::string key() const = 0;
    /// The coordinate of the wrapped mode that index value i reads (an int64 C expression).
    virtual cast::Expr coordinate(const cast::Expr& i) const = 0;
    /// The looplet over the loop extent `ext` whose index i reads coordinate(i) of `inner`, the
    /// looplet of a level's fibre over coordinates [0, dim). `what` names the access for the
    /// Error (Unsupported) thrown when the wrapper cannot see through one of inner's looplets.
    virtual LoopletPtr unfurl(LowerCtx& ctx, const LoopletPtr& inner, const cast::Expr& dim,
                              const Extent& ext, const std::string& what) const = 0;
    /// Whether the wrapper reads the fibre from its end: then `inner` is the fibre over
    /// reversed coordinates (index r holds coordinate dim-1-r; wrappers/reverse.hpp).
    virtual bool reads_backwards() const { return false; }
};

} // namespace siskin::lowering
