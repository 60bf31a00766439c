#include "simplify/resolve.hpp"

#include <fmt/format.h>

#include "lowering/lower_ctx.hpp"
#include "lowering/tensor_binding.hpp"
#include "lowering/level_face.hpp"
#include "siskin/error.hpp"

namespace siskin::simplify {

LExpr resolve_fiber(LowerCtx& ctx, const Fiber& f) {
    if (f.subscripts.empty() || !is_closed(f.subscripts.front())) return nullptr;
    const auto& spec = f.tensor->format.levels().at(static_cast<size_t>(f.level));
    const LevelCodegen& level = f.tensor->level(f.level);
    if (LExpr pad = f.pad(); pad && !f.write) {
        // A permissive subscript located: the level's read inside, the pad outside.
        cast::Expr c = c_value(ctx, f.subscripts.front());
        cast::Expr inside = cast::bin(cast::BinaryOp::LogAnd, cast::bin(cast::BinaryOp::Ge, c, c_int(0)),
                                      cast::bin(cast::BinaryOp::Lt, c, f.tensor->level_dim(f.level, f.sub)));
        return std::make_shared<Select>(std::vector<Select::Case>{{inside, level.locate(ctx, f)}, {std::nullopt, pad}},
                                        f.type);
    }
    if (f.protocols.front() == "checked") {
        // A subscript computed from data (x[P[i]]): its coordinate is checked where it is known.
        cast::Expr c = c_value(ctx, f.subscripts.front());
        cast::Expr outside = cast::bin(cast::BinaryOp::LogOr, cast::bin(cast::BinaryOp::Lt, c, c_int(0)),
                                       cast::bin(cast::BinaryOp::Ge, c, f.tensor->level_dim(f.level, f.sub)));
        std::vector<cast::Stmt> check{
            cast::If::make(outside, cast::Return::make(cast::var("SISKIN_ERR_COORDINATE")))};
        if (f.write && f.tensor->properties(f.level).append_only)
            throw Error(fmt::format("output {} is written through a computed subscript at its {} "
                                    "level, which is appended in order; give it a format whose "
                                    "levels all take random-order writes (none appended in order)",
                                    f.tensor->name, spec.kind),
                        Error::Kind::Unsupported);
        return Hoist::make_guard(std::move(check), f.write ? level.locate_write(ctx, f) : level.locate(ctx, f));
    }
    if (!f.write) return level.locate(ctx, f);
    if (f.tensor->properties(f.level).append_only)
        throw Error(fmt::format("output {} would be written out of order: its {} level (mode {}) "
                                "is append-only, and the loops reach it after an index of a "
                                "lower level; writing it in this loop order is not supported yet "
                                "(loop over the output's indices in its storage order, or use a "
                                "dense output)",
                                f.tensor->name, spec.kind, spec.modes.at(static_cast<size_t>(f.sub))),
                    Error::Kind::Unsupported);
    return level.locate_write(ctx, f);
}

} // namespace siskin::simplify
