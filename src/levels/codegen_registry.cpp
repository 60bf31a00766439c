// Finding the codegen face of a level kind. (Temporary: becomes LevelFormat::codegen() when the
// level registry of src/levels lands.)
#include <fmt/format.h>

#include "levels/level_codegen.hpp"
#include "siskin/error.hpp"

namespace siskin::levels {

const LevelCodegen& dense_codegen();
const LevelCodegen& sparselist_codegen();
const LevelCodegen& coo_codegen();
const LeafCodegen& element_codegen();
const LeafCodegen& pattern_codegen();

const LevelCodegen& level_codegen(std::string_view kind) {
    if (kind == "dense") return dense_codegen();
    if (kind == "sparselist") return sparselist_codegen();
    if (kind == "coo") return coo_codegen();
    throw Error(fmt::format("the compiler cannot generate code for {} levels yet", kind),
                Error::Kind::Unsupported);
}

const LeafCodegen& leaf_codegen(Leaf leaf) {
    return leaf == Leaf::Element ? element_codegen() : pattern_codegen();
}

} // namespace siskin::levels
