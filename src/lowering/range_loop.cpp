#include "lowering/range_loop.hpp"

namespace siskin::lowering {

cast::Stmt range_loop(LowerCtx& ctx, const cast::Expr& lo, const cast::Expr& hi,
                      const std::function<std::vector<cast::Stmt>(const cast::Expr&)>& body,
                      std::string_view base) {
    std::string k = ctx.fresh(base);
    cast::Expr kv = cast::var(k);
    return cast::For::make(cast::Decl::make(cast::Type::of(ValueType::Int64), k, lo),
                           cast::bin(cast::BinaryOp::Lt, kv, hi), cast::Increment::make(kv),
                           cast::Block::make(body(kv)));
}

} // namespace siskin::lowering
