#pragma once
// The counted loop every generated copy and walk is built of.
#include <functional>
#include <string_view>
#include <vector>

#include "lowering/lower_ctx.hpp"

namespace siskin::lowering {

/// The loop `for (int64_t k = lo; k < hi; k++) body(k)`, k a fresh name starting with `base`.
cast::Stmt range_loop(LowerCtx& ctx, const cast::Expr& lo, const cast::Expr& hi,
                      const std::function<std::vector<cast::Stmt>(const cast::Expr&)>& body,
                      std::string_view base = "k");

} // namespace siskin::lowering
