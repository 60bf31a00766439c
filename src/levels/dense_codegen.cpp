// Dense, codegen face: the child position of coordinate i in fibre p is p * n + i; every
// protocol reads it with a Lookup, and writes go anywhere in any order.
#include "compiler/lower.hpp"
#include "compiler/tensor_binding.hpp"
#include "levels/level_codegen.hpp"

namespace siskin::levels {

using namespace compiler;

namespace {

class DenseCodegen final : public LevelCodegen {
public:
    std::vector<std::string_view> protocols() const override { return {"walk", "follow", "gallop"}; }

    LoopletPtr unfurl(LowerCtx&, const Fiber& f, std::string_view) const override {
        return lookup(f);
    }

    LExpr locate(LowerCtx& ctx, const Fiber& f) const override {
        return child_fiber(ctx, f, {position(f, c_value(ctx, f.subscripts.front()))}, f.dirty);
    }

    bool random_write() const override { return true; }
    void declare(LowerCtx&, const TensorBinding&, int) const override {}

    void init_slots(LowerCtx& ctx, const TensorBinding& t, int level, const cast::Expr& lo,
                    const cast::Expr& hi) const override {
        cast::Expr n = t.level_dim(level);
        init_child_slots(ctx, t, level, c_mul(lo, n), c_mul(hi, n));
    }

    LoopletPtr unfurl_write(LowerCtx&, const Fiber& f) const override { return lookup(f); }

    LExpr locate_write(LowerCtx& ctx, const Fiber& f) const override { return locate(ctx, f); }

    cast::Expr freeze(LowerCtx&, const TensorBinding& t, int level,
                      const cast::Expr& parents) const override {
        return c_mul(parents, t.level_dim(level));
    }

private:
    static cast::Expr position(const Fiber& f, const cast::Expr& i) {
        return c_add(c_mul(f.pos.front(), f.tensor->level_dim(f.level)), i);
    }

    static LoopletPtr lookup(const Fiber& f) {
        auto fiber = std::make_shared<const Fiber>(f);
        return make_looplet<Lookup>([fiber](LowerCtx& ctx, const cast::Expr& i) {
            return child_fiber(ctx, *fiber, {position(*fiber, i)}, fiber->dirty);
        });
    }
};

} // namespace

const LevelCodegen& dense_codegen() {
    static const DenseCodegen face;
    return face;
}

} // namespace siskin::levels
