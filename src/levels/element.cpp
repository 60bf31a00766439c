// Element leaf: one value of the tensor's type per position of the last level, in "values".
#include "levels/leaf_format.hpp"
#include "siskin/error.hpp"

namespace siskin::levels {

namespace {

class ElementLeaf final : public LeafFormat {
public:
    Leaf leaf() const override { return Leaf::Element; }
    std::string_view name() const override { return "element"; }
    void check(ValueType, const Scalar&, const Format&) const override {}
    std::vector<BufferSpec> buffers(ValueType type) const override { return {{"values", type}}; }
    bool keeps(const Scalar&) const override { return true; }

    Buffer build(ValueType type, const Scalar& fill, int64_t num_positions,
                 std::span<const int64_t> positions,
                 std::span<const Scalar> values) const override {
        Buffer out(type, num_positions);
        // Full levels have positions no entry names; they hold the fill.
        if (static_cast<int64_t>(positions.size()) != num_positions || !fill.same(Scalar::zero(type)))
            for (int64_t q = 0; q < num_positions; ++q) out.set(q, fill);
        for (size_t e = 0; e < positions.size(); ++e) out.set(positions[e], values[e]);
        return out;
    }

    Scalar value(const Buffer& values, int64_t position) const override {
        return values.get(position);
    }
};

} // namespace

const LeafFormat& element_leaf() {
    static const ElementLeaf leaf;
    return leaf;
}

} // namespace siskin::levels
