#pragma once
// The leaf formats that end a tensor's storage tree: what is held at each position of the last
// level. Element keeps one value per position; Pattern keeps nothing (every stored entry reads as
// true). Stateless singletons like the level formats; registered in registry.cpp.
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "levels/level_format.hpp"

namespace siskin::levels {

using lowering::LeafCodegen; // lowering/level_face.hpp

class LeafFormat {
public:
    LeafFormat() = default;
    LeafFormat(const LeafFormat&) = delete;
    LeafFormat& operator=(const LeafFormat&) = delete;
    virtual ~LeafFormat() = default;

    virtual Leaf leaf() const = 0;
    virtual std::string_view name() const = 0;
    /// Throws Error when a tensor of this type, fill and format cannot use this leaf.
    virtual void check(ValueType type, const Scalar& fill, const Format& format) const = 0;
    virtual std::vector<BufferSpec> buffers(ValueType type) const = 0;
    /// Whether an entry with value v (of the tensor's type) must be stored. Pattern drops false.
    virtual bool keeps(const Scalar& v) const = 0;
    /// The leaf buffer for `num_positions` positions: entry e's value at positions[e], the fill
    /// elsewhere. values are already of the tensor's type.
    virtual Buffer build(ValueType type, const Scalar& fill, int64_t num_positions,
                         std::span<const int64_t> positions,
                         std::span<const Scalar> values) const = 0;
    /// The value at a position of the last level.
    virtual Scalar value(const Buffer& values, int64_t position) const = 0;
    /// The codegen face: reading and writing the leaf from generated C.
    virtual const LeafCodegen* codegen() const { return nullptr; }
};

const LeafFormat& leaf_format(Leaf leaf);
/// The leaf of a name ("element", "pattern"); nullptr when there is none.
const LeafFormat* find_leaf_format(std::string_view name);
/// "element, pattern": for error messages.
std::string known_leaf_names();

} // namespace siskin::levels
