#pragma once
// Early exit of a reduction (paper §7.2): a loop nest whose only effect is `x op= e` into one
// element x (one that none of the nest's indices reach) may stop as soon as x holds an
// annihilator z of op, since op(z, e) == z whatever e is: no later iteration changes anything.
// `s[] &= A[i,j] > 0` stops at the first false, `s[] min= A[i]` over int64 at INT64_MIN, an
// integer product at 0. Where the annihilator holds for finite values only (0 * inf is NaN), e
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

} // namespace siskin::compiler
