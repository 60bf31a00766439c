// The codegen faces of the registered level and leaf formats.
#include <fmt/format.h>

#include "levels/leaf_format.hpp"
#include "levels/level_codegen.hpp"
#include "levels/level_format.hpp"
#include "siskin/error.hpp"

namespace siskin::levels {

const LevelCodegen& level_codegen(std::string_view kind) {
    if (const LevelCodegen* face = level_format(kind).codegen()) return *face;
    throw Error(fmt::format("the compiler cannot generate code for {} levels yet", kind),
                Error::Kind::Unsupported);
}

const LeafCodegen& leaf_codegen(Leaf leaf) {
    const LeafCodegen* face = leaf_format(leaf).codegen();
    SISKIN_ASSERT(face, "a leaf format without a codegen face");
    return *face;
}

} // namespace siskin::levels
