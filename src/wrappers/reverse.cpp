// Backward reads (see reverse.hpp): the fibre walked from its end, then the forward window.
#include "wrappers/reverse.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "looplets/looplet.hpp"
#include "lowering/lower_ctx.hpp"
#include "siskin/error.hpp"
#include "wrappers/slice.hpp"

namespace siskin::wrappers {

using namespace lowering;
using namespace looplets;

namespace {

// A located read seen backwards: a Lookup at dim-1-r, under the set-up and cases that do not
// depend on the coordinate. nullptr for looplets that walk (they only go forwards).
LoopletPtr reverse_located(const LoopletPtr& l, const cast::Expr& dim) {
    switch (l->kind) {
    case LoopletKind::Run: return l;
    case LoopletKind::Lookup: {
        auto body = l->as<Lookup>()->body;
        return make_looplet<Lookup>([body, dim](LowerCtx& c, const cast::Expr& r) {
            return body(c, c_sub(c_add(dim, -1), r));
        });
    }
    case LoopletKind::Thunk: {
        const auto& t = *l->as<Thunk>();
        LoopletPtr body = reverse_located(t.body, dim);
        if (!body) return nullptr;
        return make_looplet<Thunk>(t.preamble, body, t.epilogue, t.facts);
    }
    case LoopletKind::Switch: {
        std::vector<Switch::Case> cases;
        for (const auto& c : l->as<Switch>()->cases) {
            LoopletPtr body = reverse_located(c.body, dim);
            if (!body) return nullptr;
            cases.push_back({c.cond, body});
        }
        return make_looplet<Switch>(std::move(cases));
    }
    default: return nullptr;
    }
}

class ReversedWindow final : public IndexWrapper {
public:
    ReversedWindow(cast::Expr first, int64_t step) : first_(std::move(first)), step_(step) {
        SISKIN_ASSERT(step_ > 0, "a backward read with a step below 1 reached the lowerer");
    }

    std::string key() const override { return fmt::format("rev{}/{}", expr_key(first_), step_); }

    cast::Expr coordinate(const cast::Expr& i) const override {
        return c_sub(first_, c_mul(i, c_int(step_)));
    }

    LoopletPtr unfurl(LowerCtx& ctx, const LoopletPtr& reversed, const cast::Expr& dim,
                      const Extent& ext, const std::string& what) const override {
        // Coordinate first - step * i is reversed coordinate (dim-1-first) + step * i.
        return slice_window(c_sub(c_add(dim, -1), first_), step_)->unfurl(ctx, reversed, dim, ext, what);
    }

    bool reads_backwards() const override { return true; }

private:
    cast::Expr first_;
    int64_t step_;
};

} // namespace

LoopletPtr reversed_fibre(LowerCtx& ctx, const LevelCodegen& level, const Fiber& f,
                          const cast::Expr& dim, const std::string& what) {
    if (LoopletPtr walk = level.unfurl_reversed(ctx, f)) return walk;
    auto known = level.protocols();
    if (std::find(known.begin(), known.end(), "follow") != known.end())
        if (LoopletPtr located = reverse_located(level.unfurl(ctx, f, "follow"), dim)) return located;
    throw Error(fmt::format("{} is read backwards (a flip or a negative slice step), which its "
                            "level cannot do: it neither walks backwards nor locates coordinates",
                            what),
                Error::Kind::Unsupported);
}

IndexWrapperPtr reversed_window(cast::Expr first, int64_t step) {
    return std::make_shared<ReversedWindow>(std::move(first), step);
}

} // namespace siskin::wrappers
