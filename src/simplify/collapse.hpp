#pragma once
// Loop collapse: a loop whose body does not depend on its index runs the same statements n
// times, and for some operators that is one statement (Looplets, Fig. 5):
//   s += v over n iterations          -> s += n * v
//   s op= v with op idempotent and associative (min, max, or, and), or s = v, or v a known
//   value with op(v, v) == v for an associative op (gcd at its fill)
//                                     -> if (n > 0) s op= v
//   s *= v                            -> s *= pow(v, n)   (integers wrap alike)
//   s xor= v, s ^= v (bitwise)        -> if (n is odd) s op= v
// Any other operator keeps its loop.
// Every statement of the body must be such a write, and none may read a tensor the body writes.
#include <optional>

#include "lowering/lower_ir.hpp"
#include "looplets/looplet.hpp"

namespace siskin::simplify {

using namespace lowering;

std::optional<LStmt> collapse_loop(LowerCtx& ctx, const Extent& ext, const LStmt& body);

/// A body of `s min= f(i)` (or `max=`) writes with f non-decreasing in the loop's index i (i
/// itself, or ifelse(c, f1, f2) and min/max(f1, f2) of such, c not using i, anything not using
/// i): the minimum over [lo, hi) is f(lo) (the maximum f(hi - 1)), so the body with i fixed
/// there does the same work once. argmin's index term (ir/arg_reduction.hpp) has this form over
/// a fill region. nullopt when the body is not of that form.
std::optional<LStmt> fix_monotone_index(const std::string& index, const Extent& ext, const LStmt& body);

} // namespace siskin::simplify
