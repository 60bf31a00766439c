#include "compiler/resolve.hpp"

#include <fmt/format.h>

#include "compiler/lower_ctx.hpp"
#include "compiler/tensor_binding.hpp"
#include "levels/level_codegen.hpp"
#include "siskin/error.hpp"

namespace siskin::compiler {

LExpr resolve_fiber(LowerCtx& ctx, const Fiber& f) {
    if (f.subscripts.empty() || !is_closed(f.subscripts.front())) return nullptr;
    const auto& spec = f.tensor->format.levels().at(static_cast<size_t>(f.level));
    const levels::LevelCodegen& level = levels::level_codegen(spec.kind);
    if (!f.write) return level.locate(ctx, f);
    if (!level.random_write())
        throw Error(fmt::format("output {} would be written out of order: its {} level (mode {}) "
                                "is append-only, and the loops reach it after an index of a "
                                "lower level; writing it in this loop order is not supported yet "
                                "(loop over the output's indices in its storage order, or use a "
                                "dense output)",
                                f.tensor->name, spec.kind, spec.modes.at(static_cast<size_t>(f.sub))),
                    Error::Kind::Unsupported);
    return level.locate_write(ctx, f);
}

} // namespace siskin::compiler
