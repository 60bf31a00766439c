#include "lowering/tensor_binding.hpp"

#include "siskin/error.hpp"

namespace siskin::lowering {

const BufferBinding& TensorBinding::buffer(int level, std::string_view buffer_name) const {
    for (const auto& b : levels.at(static_cast<size_t>(level)))
        if (b.name == buffer_name) return b;
    SISKIN_ASSERT(false, "tensor " + name + " has no buffer " + std::string(buffer_name) +
                             " at level " + std::to_string(level));
}

cast::Expr TensorBinding::level_dim(int level, int sub) const {
    const auto& spec = format.levels().at(static_cast<size_t>(level));
    return dims.at(static_cast<size_t>(spec.modes.at(static_cast<size_t>(sub))));
}

ValueType TensorBinding::index_type(int level) const {
    int bits = format.levels().at(static_cast<size_t>(level)).index_bits;
    SISKIN_ASSERT(bits == 32 || bits == 64, "level of " + name + " without an index width");
    return bits == 32 ? ValueType::Int32 : ValueType::Int64;
}

const LevelCodegen& TensorBinding::level(int level) const {
    const LevelCodegen* face = level_facts.at(static_cast<size_t>(level)).face;
    SISKIN_ASSERT(face, "level " + std::to_string(level) + " of " + name + " was bound without its face");
    return *face;
}

const LeafCodegen& TensorBinding::leaf() const {
    SISKIN_ASSERT(leaf_face, "the leaf of " + name + " was bound without its face");
    return *leaf_face;
}

const LevelProperties& TensorBinding::properties(int level) const {
    return level_facts.at(static_cast<size_t>(level)).properties;
}

} // namespace siskin::lowering
