// Pattern leaf: structure only. Every position of the last level is an entry that reads as true;
// nothing is stored, so the type is bool, the fill false, and the last level must not be full
// (a dense last level would make every element true).
#include <fmt/format.h>

#include "levels/leaf_format.hpp"
#include "siskin/error.hpp"
#include "levels/level_codegen.hpp"
#include "lowering/tensor_binding.hpp"

namespace siskin::levels {

namespace {


// Pattern leaf, codegen face: every stored entry reads as true. Writing: an entry is stored iff
// its value is true, and the sparse level above keeps a slot iff its dirty flag is set, so the
// value written *is* that flag: the slot is the flag itself (false, the fill, until written).
class PatternCodegen final : public LeafCodegen {
public:
    LExpr read(LowerCtx&, const TensorBinding&, const cast::Expr&) const override {
        return Literal::make(Scalar::of(true));
    }
    LExpr write(LowerCtx&, const TensorBinding& t, const cast::Expr&,
                const std::optional<cast::Expr>& dirty) const override {
        // check() puts a pattern leaf only below levels that store some coordinates only, and
        // those all give their slots a dirty flag.
        SISKIN_ASSERT(dirty.has_value(), "the pattern leaf of " + t.name + " has no dirty flag above it");
        return std::make_shared<Slot>(*dirty, ValueType::Bool, std::nullopt);
    }
    void init_slots(LowerCtx&, const TensorBinding&, const cast::Expr&, const cast::Expr&) const override {}
    cast::Expr holds_value(LowerCtx&, const TensorBinding&, const cast::Expr&) const override {
        return cast::lit(Scalar::of(true));
    }
    cast::Expr same_values(LowerCtx&, const TensorBinding&, const cast::Expr&,
                           const cast::Expr&) const override {
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
        // Positions no entry names are unused slots (sparsebytemap), never read; the entries of
        // one run (sparserunlist) share a position.
        int64_t named = 0;
        for (size_t e = 0; e < positions.size(); ++e) named += e == 0 || positions[e] != positions[e - 1];
        SISKIN_ASSERT(named <= num_positions, "every stored position under a pattern leaf is an entry");
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
