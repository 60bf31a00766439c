// Element leaf: one value of the tensor's type per position of the last level, in "values".
#include "levels/leaf_format.hpp"
#include "siskin/error.hpp"
#include "levels/level_codegen.hpp"
#include "lowering/tensor_binding.hpp"

namespace siskin::levels {

namespace {


// Element leaf, codegen face: the value at position q is values[q].
class ElementCodegen final : public LeafCodegen {
public:
    LExpr read(LowerCtx&, const TensorBinding& t, const cast::Expr& pos) const override {
        return CValue::make(cast::at(t.values->data_var(), pos), t.type, t.finite, &t);
    }

    LExpr write(LowerCtx&, const TensorBinding& t, const cast::Expr& pos,
                const std::optional<cast::Expr>& dirty) const override {
        return std::make_shared<Slot>(cast::at(t.values->data_var(), pos), t.type, dirty);
    }

    void init_slots(LowerCtx& ctx, const TensorBinding& t, const cast::Expr& lo,
                    const cast::Expr& hi) const override {
        // Every new slot gets the fill right here, so the growth need not zero it first.
        ctx.emit(ctx.reserve(*t.values, hi, /*written_first=*/true));
        cast::Expr fill = cast::lit(t.fill);
        emit_range_loop(ctx, lo, hi, [&](const cast::Expr& k) {
            return std::vector<cast::Stmt>{cast::assign(cast::at(t.values->data_var(), k), fill)};
        });
    }

    cast::Expr holds_value(LowerCtx&, const TensorBinding& t, const cast::Expr& pos) const override {
        cast::Expr v = cast::at(t.values->data_var(), pos);
        if (t.fill.is_nan()) return cast::bin(cast::BinaryOp::Eq, v, v);
        return cast::bin(cast::BinaryOp::Ne, v, cast::lit(t.fill));
    }

    cast::Expr same_values(LowerCtx&, const TensorBinding& t, const cast::Expr& p,
                           const cast::Expr& q) const override {
        cast::Expr a = cast::at(t.values->data_var(), p), b = cast::at(t.values->data_var(), q);
        cast::Expr eq = cast::bin(cast::BinaryOp::Eq, a, b);
        if (!is_float(t.type)) return eq;
        cast::Expr both_nan = cast::bin(cast::BinaryOp::LogAnd, cast::bin(cast::BinaryOp::Ne, a, a),
                                        cast::bin(cast::BinaryOp::Ne, b, b));
        return cast::bin(cast::BinaryOp::LogOr, eq, both_nan);
    }

    void freeze(LowerCtx& ctx, const TensorBinding& t, const cast::Expr& count) const override {
        ctx.emit(cast::assign(cast::Field::make(t.values->raw_var(), "size"), count));
    }
};


class ElementLeaf final : public LeafFormat {
public:
    Leaf leaf() const override { return Leaf::Element; }
    std::string_view name() const override { return "element"; }
    void check(ValueType, const Scalar&, const Format&) const override {}
    std::vector<BufferSpec> buffers(ValueType type) const override {
        return {{"values", type, BufferRole::Values}};
    }
    bool keeps(const Scalar&) const override { return true; }

    Buffer build(ValueType type, const Scalar& fill, int64_t num_positions,
                 std::span<const int64_t> positions,
                 std::span<const Scalar> values) const override {
        Buffer out(type, num_positions); // zeroed
        // Full levels have positions no entry names; they hold the fill.
        if (!fill.same(Scalar::zero(type))) out.fill(fill);
        for (size_t e = 0; e < positions.size(); ++e) out.set(positions[e], values[e]);
        return out;
    }

    Scalar value(const Buffer& values, int64_t position) const override {
        return values.get(position);
    }

    const LeafCodegen* codegen() const override {
        static const ElementCodegen face;
        return &face;
    }
};

} // namespace

const LeafFormat& element_leaf() {
    static const ElementLeaf leaf;
    return leaf;
}

} // namespace siskin::levels
