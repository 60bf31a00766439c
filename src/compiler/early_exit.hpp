#pragma once
// Early exit of a reduction (paper §7.2): a loop nest whose only effect is `x op= e` into one
// element x (one that none of the nest's indices reach) may stop as soon as x holds an
// annihilator z of op, since op(z, e) == z whatever e is: no later iteration changes anything.
// `s[] &= A[i,j] > 0` stops at the first false, `s[] min= A[i]` over int64 at INT64_MIN, an
// integer product at 0. choose (GraphBLAS's "any": x unless x is 0) has no annihilator, but
// every value other than its identity stays, so `s[] <<choose>>= e` stops at the first such
// value (Finch's early break); the exit condition then holds the identity and the test is `!=`.
// Where the annihilator holds for finite values only (0 * inf is NaN), e
// must be known finite. Any other statement in the nest (a second output, even the same one
// written twice) or a read of x in it rules the exit out.
//
// The lowerer (lower_loop.cpp) emits `if (x == z) goto L;` after each C assignment of x in the
// nest, whichever of the looplets' C loops it lands in, and `L:;` after the nest; scalar
// replacement stores x's register back before the goto.
#include <optional>
#include <string>

#include "lowering/lower_ctx.hpp"
#include "siskin/value.hpp"
#include "compiler/vocabulary.hpp"

namespace siskin::compiler {

/// Whether the nest `loop` may exit early, and when.
std::optional<ExitCondition> early_exit_of(const For& loop);

/// Whether op keeps its first argument whenever that is not its identity (choose).
bool keeps_first(const Operator& op);

/// The C test that x, the element a nest reduces into with op, ends the nest: x holds the
/// annihilator `when.value`, or (keeps_first) anything but the identity `when.value`.
cast::Expr exit_reached(const Operator& op, const ExitCondition& when, const cast::Expr& x);

} // namespace siskin::compiler
