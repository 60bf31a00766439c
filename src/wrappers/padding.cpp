// The padded window (see padding.hpp).
#include "wrappers/padding.hpp"

#include <fmt/format.h>

#include "looplets/looplet.hpp"
#include "lowering/lower_ctx.hpp"
#include "wrappers/slice.hpp"

namespace siskin::wrappers {

using namespace lowering;
using namespace looplets;

namespace {

// ceil(a / k) for a constant k >= 1 and any sign of a.
cast::Expr ceil_div(const cast::Expr& a, int64_t k) {
    if (k == 1) return a;
    if (auto v = c_constant(a)) return c_int(*v >= 0 ? (*v + k - 1) / k : -((-*v) / k));
    cast::Expr down = cast::call("siskin_floordiv_i64", {c_sub(c_int(0), a), c_int(k)});
    return c_sub(c_int(0), down);
}

class PaddedWindow final : public IndexWrapper {
public:
    PaddedWindow(cast::Expr first, int64_t step, LExpr pad)
        : first_(std::move(first)), step_(step), pad_(std::move(pad)), inside_(slice_window(first_, step_)) {}

    std::string key() const override { return "pad:" + inside_->key(); }

    cast::Expr coordinate(const cast::Expr& i) const override { return inside_->coordinate(i); }

    LoopletPtr unfurl(LowerCtx& ctx, const LoopletPtr& l, const cast::Expr& dim, const Extent& ext,
                      const std::string& what) const override {
        Prover& pr = ctx.prover();
        // The indices whose coordinates lie in [0, dim), clamped to the extent.
        cast::Expr lo = pr.min({pr.max({ext.lo, ceil_div(c_sub(c_int(0), first_), step_)}), ext.hi});
        cast::Expr hi = pr.max({lo, pr.min({ext.hi, ceil_div(c_sub(dim, first_), step_)})});
        // Computed once, in the thunk's preamble, before the loop.
        std::vector<cast::Stmt> pre;
        auto keep = [&](const std::string& base, const cast::Expr& v) {
            if (v.kind() == cast::ExprKind::Var || c_constant(v)) return v;
            std::string name = ctx.fresh(base);
            pre.push_back(cast::Decl::make(cast::Type::of(ValueType::Int64), name, v));
            return cast::var(name);
        };
        lo = keep("pad_lo", lo);
        hi = keep("pad_hi", hi);
        LoopletPtr pad = make_looplet<Run>(pad_);
        IndexWrapperPtr inside = inside_;
        LoopletPtr level = l;
        std::string name = what;
        cast::Expr d = dim;
        LoopletPtr phases = make_looplet<Sequence>(std::vector<Phase>{
            {lo, [pad](LowerCtx&, const Extent&) { return pad; }},
            {hi, [inside, level, d, name](LowerCtx& c, const Extent& e) {
                 return inside->unfurl(c, level, d, e, name);
             }},
            {std::nullopt, [pad](LowerCtx&, const Extent&) { return pad; }}});
        return make_looplet<Thunk>(std::move(pre), phases, std::vector<cast::Stmt>{},
                                   std::vector<Fact>{{ext.lo, lo}, {lo, hi}, {hi, ext.hi}});
    }

private:
    cast::Expr first_;
    int64_t step_;
    LExpr pad_;
    IndexWrapperPtr inside_;
};

} // namespace

IndexWrapperPtr padded_window(cast::Expr first, int64_t step, LExpr pad) {
    return std::make_shared<PaddedWindow>(std::move(first), step, std::move(pad));
}

} // namespace siskin::wrappers
