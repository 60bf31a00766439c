#pragma once
// Truncation: a looplet describing extent `from`, restricted to the sub-extent `to`.
// Lookup, Run, Sequence, Stepper and Jumper are absolute and unchanged; a Spike whose tail falls
// outside `to` becomes a Run, and a Switch on the run-time test when the prover cannot tell;
// Switch, Thunk and Shift truncate their children.
#include "looplets/looplet.hpp"

namespace siskin::looplets {

LoopletPtr truncate(LowerCtx& ctx, const LoopletPtr& l, const Extent& from, const Extent& to);

/// The looplet of Shift(delta, l) with the shift pushed into l: index i of the result reads
/// index i - delta of l.
LoopletPtr shift_looplet(const LoopletPtr& l, const cast::Expr& delta);

} // namespace siskin::looplets
