// Pattern leaf: structure only. Every position of the last level is an entry that reads as true;
// nothing is stored, so the type is bool, the fill false, and the last level must not be full
// (a dense last level would make every element true).
#include <fmt/format.h>

#include "levels/leaf_format.hpp"
#include "siskin/error.hpp"
#include "levels/level_codegen.hpp"
#include "compiler/lower.hpp"
#include "compiler/tensor_binding.hpp"

namespace siskin::levels {

namespace {

using namespace siskin::compiler;

// Pattern leaf, codegen face: every stored entry reads as true; writing is not supported yet.
class PatternCodegen final : public LeafCodegen {
public:
    LExpr read(LowerCtx&, const TensorBinding&, const cast::Expr&) const override {
        return Literal::make(Scalar::of(true));
    }
    LExpr write(LowerCtx&, const TensorBinding& t, const cast::Expr&,
                const std::optional<cast::Expr>&) const override {
        throw Error("output " + t.name + " has a pattern leaf; compiled code cannot write pattern "
                    "tensors yet (use an element leaf)",
                    Error::Kind::Unsupported);
    }
    void init_slots(LowerCtx&, const TensorBinding&, const cast::Expr&, const cast::Expr&) const override {}
    cast::Expr holds_value(LowerCtx&, const TensorBinding&, const cast::Expr&) const override {
        return cast::lit(Scalar::of(true));
    }
    void freeze(LowerCtx&, const TensorBinding&, const cast::Expr&) const override {}
};


class PatternLeaf final : public LeafFormat {
public:
    Leaf leaf() const override { return Leaf::Pattern; }
    std::string_view name() const override { return "pattern"; }

    void check(ValueType type, const Scalar& fill, const Format& format) const override {
        if (type != ValueType::Bool)
            throw Error(fmt::format("a pattern tensor has type bool, not {}", type_name(type)));
        if (!fill.same(Scalar::of(false)))
            throw Error(fmt::format("a pattern tensor has fill false, not {}", fill.to_string()));
        if (format.levels().empty())
            throw Error("a 0-dimensional tensor cannot have a pattern leaf (it would always be "
                        "true); use element");
        const LevelSpec& last = format.levels().back();
        LevelProperties p = level_format(last.kind).properties();
        if (p.full || p.stores_fill)
            throw Error(fmt::format("a pattern leaf cannot follow a {} level: every position of "
                                    "that level would read as true",
                                    last.kind));
    }

    std::vector<BufferSpec> buffers(ValueType) const override { return {}; }
    bool keeps(const Scalar& v) const override { return v.as_bool(); }

    Buffer build(ValueType, const Scalar&, int64_t num_positions,
                 std::span<const int64_t> positions, std::span<const Scalar>) const override {
        // Positions no entry names are unused slots (sparsebytemap), never read.
        SISKIN_ASSERT(static_cast<int64_t>(positions.size()) <= num_positions,
                      "every stored position under a pattern leaf is an entry");
        return Buffer(ValueType::Bool, 0);
    }

    Scalar value(const Buffer&, int64_t) const override { return Scalar::of(true); }

    const LeafCodegen* codegen() const override {
        static const PatternCodegen face;
        return &face;
    }
};

} // namespace

const LeafFormat& pattern_leaf() {
    static const PatternLeaf leaf;
    return leaf;
}

} // namespace siskin::levels
