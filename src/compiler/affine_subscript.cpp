#include "compiler/affine_subscript.hpp"

#include <map>

#include "compiler/affine_extents.hpp"
#include "siskin/operators.hpp"
#include "wrappers/padding.hpp"
#include "wrappers/reverse.hpp"
#include "wrappers/slice.hpp"
#include "wrappers/window.hpp"

namespace siskin::compiler {

namespace {

// The subscript as a sum of unbound indices with constant coefficients plus a C value.
struct Linear {
    std::vector<ir::AffineTerm> open;
    cast::Expr closed = c_int(0);

    void add(const Linear& o, int64_t k) {
        closed = c_add(closed, k == 1 ? o.closed : c_mul(o.closed, c_int(k)));
        for (const auto& t : o.open) {
            auto it = std::find_if(open.begin(), open.end(),
                                   [&](const ir::AffineTerm& x) { return x.index == t.index; });
            if (it == open.end()) open.push_back({t.index, t.coef * k});
            else it->coef += t.coef * k;
        }
        std::erase_if(open, [](const ir::AffineTerm& t) { return t.coef == 0; });
    }
};

std::optional<Linear> linear(LowerCtx& ctx, const LExpr& e) {
    if (const auto* i = e->as<Index>()) {
        if (i->wrapper) return std::nullopt;
        return Linear{{{i->name, 1}}, c_int(0)};
    }
    if (is_closed(e)) {
        if (!is_integer(e->type)) return std::nullopt;
        return Linear{{}, c_value(ctx, e)};
    }
    const auto* c = e->as<Call>();
    if (!c) return std::nullopt;
    std::vector<Linear> args;
    for (const auto& a : c->args) {
        auto l = linear(ctx, a);
        if (!l) return std::nullopt;
        args.push_back(std::move(*l));
    }
    const std::string& op = c->op->name;
    Linear out;
    if (op == "neg" && args.size() == 1) {
        out.add(args[0], -1);
        return out;
    }
    if (args.size() != 2) return std::nullopt;
    if (op == "add" || op == "sub") {
        out.add(args[0], 1);
        out.add(args[1], op == "add" ? 1 : -1);
        return out;
    }
    if (op == "mul") {
        // One factor must be a constant for the product to stay affine in the open indices.
        for (int k = 0; k < 2; ++k) {
            const Linear& a = args[static_cast<size_t>(k)];
            const Linear& b = args[static_cast<size_t>(1 - k)];
            if (!a.open.empty()) continue;
            if (b.open.empty()) return Linear{{}, c_mul(a.closed, b.closed)};
            if (auto v = c_constant(a.closed)) {
                out.add(b, *v);
                return out;
            }
        }
    }
    return std::nullopt;
}

// The closed ranges of the loops inside `body`.
std::map<std::string, ir::IndexRange<cast::Expr>> inner_ranges(LowerCtx& ctx, const LStmt& body) {
    std::map<std::string, ir::IndexRange<cast::Expr>> out;
    visit_stmt(body, [](const LExpr&) {}, [&](const LStmt& s) {
        const auto* f = s->as<For>();
        if (f && is_closed(f->lo) && is_closed(f->hi))
            out.emplace(f->index, ir::IndexRange<cast::Expr>{c_value(ctx, f->lo), c_value(ctx, f->hi)});
    });
    return out;
}

} // namespace

std::optional<LinearForm> linear_form(LowerCtx& ctx, const LExpr& e) {
    auto l = linear(ctx, e);
    if (!l) return std::nullopt;
    return LinearForm{l->open, l->closed};
}

std::optional<AffineRead> affine_read(LowerCtx& ctx, const LExpr& s, const std::string& index,
                                      const LStmt& body) {
    auto l = linear(ctx, s);
    if (!l) return std::nullopt;
    int64_t coef = 0;
    for (const auto& t : l->open)
        if (t.index == index) coef = t.coef;
    if (coef == 0) return std::nullopt;
    if (l->open.size() == 1) return AffineRead{coef, l->closed, std::nullopt};
    auto ranges = inner_ranges(ctx, body);
    ir::Affine inner;
    for (const auto& t : l->open) {
        if (t.index == index) continue;
        if (!ranges.count(t.index)) return std::nullopt;
        inner.terms.push_back(t);
    }
    auto ops = affine_c_ops(ctx.prover());
    auto [lo, hi] = ir::affine_span<cast::Expr>(
        inner, "", [&](const std::string& name) { return ranges.at(name); }, ops);
    return AffineRead{coef, c_add(l->closed, lo), c_add(c_sub(hi, lo), 1)};
}

LExpr resolved_subscript(const std::string& index, const AffineRead& r, const LExpr& pad) {
    return Index::wrapped(index, pad            ? wrappers::padded_window(r.first, r.coef, pad)
                                 : r.coef < 0 ? wrappers::reversed_window(r.first, -r.coef)
                                              : wrappers::slice_window(r.first, r.coef));
}

LoopletPtr reduced_read(LowerCtx& ctx, const AffineRead& r, const LoopletPtr& level,
                        const cast::Expr& dim, const Extent& ext, const LExpr& access,
                        const LExpr& fill, const std::string& what) {
    LoopletPtr windows = wrappers::window_offsets(ctx, level, *r.width, access, fill);
    return wrappers::slice_window(r.first, r.coef)->unfurl(ctx, windows, dim, ext, what);
}

} // namespace siskin::compiler
