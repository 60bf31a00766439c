#pragma once
// Loop collapse: a loop whose body does not depend on its index runs the same statements n
// times, and for some operators that is one statement (Looplets, Fig. 5):
//   s += v over n iterations          -> s += n * v
//   s op= v with op idempotent and associative (min, max, or, and), or s = v
//                                     -> if (n > 0) s op= v
// Every statement of the body must be such a write, and none may read a tensor the body writes.
#include <optional>

#include "compiler/lower_ir.hpp"
#include "looplets/looplet.hpp"

namespace siskin::compiler {

std::optional<LStmt> collapse_loop(LowerCtx& ctx, const Extent& ext, const LStmt& body);

} // namespace siskin::compiler
