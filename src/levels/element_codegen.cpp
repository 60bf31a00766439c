// Element leaf, codegen face: the value at position q is values[q].
#include "compiler/lower.hpp"
#include "compiler/tensor_binding.hpp"
#include "levels/level_codegen.hpp"
#include "siskin/error.hpp"

namespace siskin::levels {

using namespace compiler;

namespace {

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
        ctx.emit(ctx.reserve(*t.values, hi));
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

    void freeze(LowerCtx& ctx, const TensorBinding& t, const cast::Expr& count) const override {
        ctx.emit(cast::assign(cast::Field::make(t.values->raw_var(), "size"), count));
    }
};

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

} // namespace

const LeafCodegen& element_codegen() {
    static const ElementCodegen face;
    return face;
}

const LeafCodegen& pattern_codegen() {
    static const PatternCodegen face;
    return face;
}

} // namespace siskin::levels
