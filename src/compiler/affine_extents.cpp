#include "compiler/affine_extents.hpp"

#include <algorithm>

#include "ir/affine.hpp"
#include "siskin/ir/visit.hpp"

namespace siskin::compiler {

namespace {

// floor(a / k) for a constant k != 0; the prelude's floordiv rounds towards -inf.
cast::Expr floor_div(const cast::Expr& a, int64_t k) {
    if (k == 1) return a;
    if (auto v = c_constant(a)) return c_int(ir::floor_div(*v, k));
    return cast::call("siskin_floordiv_i64", {a, c_int(k)});
}

} // namespace

ir::AffineOps<cast::Expr> affine_c_ops(const Prover& prover) {
    ir::AffineOps<cast::Expr> ops;
    ops.constant = [](int64_t v) { return c_int(v); };
    ops.add = [](const cast::Expr& a, const cast::Expr& b) { return c_add(a, b); };
    ops.scale = [](const cast::Expr& a, int64_t k) { return c_mul(a, c_int(k)); };
    ops.floor_div = floor_div;
    ops.ceil_div = [](const cast::Expr& a, int64_t k) {
        return c_sub(c_int(0), floor_div(c_sub(c_int(0), a), k));
    };
    ops.min = [&prover](const cast::Expr& a, const cast::Expr& b) { return prover.min({a, b}); };
    ops.max = [&prover](const cast::Expr& a, const cast::Expr& b) { return prover.max({a, b}); };
    return ops;
}

namespace {

struct Use {
    ir::Affine affine;
    cast::Expr dim;
};

} // namespace

void bind_affine_extents(LowerCtx& ctx, const ir::Program& program, KernelTensors& kt,
                         const std::map<std::string, int64_t>& starts,
                         const std::map<std::string, int64_t>& ends) {
    // The compound subscripts of the inputs, by the indices they mention, and the indices that
    // a plain subscript of an input sizes (an output's dimension is derived from the range).
    std::map<std::string, std::vector<Use>> uses;
    std::set<std::string> sized;
    ir::visit(program.body, {}, [&](const ir::Expr& e) {
        const auto* a = e->as<ir::Access>();
        if (!a || !kt.bindings.count(a->tensor)) return;
        const TensorBinding& t = kt.at(a->tensor);
        if (t.output) return;
        for (size_t k = 0; k < a->indices.size() && k < t.dims.size(); ++k) {
            if (const auto* i = a->indices[k]->as<ir::Index>()) {
                if (!i->slice) sized.insert(i->name);
                continue;
            }
            auto affine = ir::affine_of(a->indices[k]);
            if (!affine) continue;
            for (const auto& term : affine->terms) uses[term.index].push_back({*affine, t.dims[k]});
        }
    });
    auto ops = affine_c_ops(ctx.prover());
    std::map<std::string, ir::IndexRange<cast::Expr>> known;
    // Not settled yet, and every other index its subscripts mention is.
    auto ready = [&](const std::string& index) {
        if (known.count(index)) return false;
        for (const auto& u : uses.at(index))
            for (const auto& term : u.affine.terms)
                if (term.index != index && !known.count(term.index)) return false;
        return true;
    };
    for (const auto& [index, lo] : starts)
        known.insert_or_assign(index, ir::IndexRange<cast::Expr>{c_int(lo), c_int(ends.at(index))});
    for (const auto& [index, extent] : kt.index_extent)
        if (!uses.count(index) || sized.count(index)) known.insert_or_assign(index, ir::IndexRange<cast::Expr>{c_int(0), extent});
    // Settle the indices whose other terms have ranges, until nothing changes. Indices that
    // size each other (m[x], k[x] argmax= I[2*x + p] with m's shape given) start from the
    // extent an output gives one of them, as the verifier does.
    for (bool progress = true; progress;) {
        progress = false;
        if (std::none_of(uses.begin(), uses.end(), [&](const auto& u) { return ready(u.first); })) {
            for (const auto& [index, list] : uses)
                if (!known.count(index) && kt.index_extent.count(index)) {
                    known.insert_or_assign(index, ir::IndexRange<cast::Expr>{c_int(0), kt.index_extent.at(index)});
                    break;
                }
        }
        for (const auto& [index, list] : uses) {
            if (!ready(index)) continue;
            auto range = [&](const std::string& name) { return known.at(name); };
            std::optional<ir::IndexRange<cast::Expr>> r;
            if (auto direct = kt.index_extent.find(index); direct != kt.index_extent.end())
                r = ir::IndexRange<cast::Expr>{c_int(0), direct->second};
            for (const auto& u : list) {
                auto v = ir::valid_range<cast::Expr>(u.affine, index, u.dim, range, ops);
                if (!r) {
                    r = v;
                    continue;
                }
                cast::Expr lo = ops.max(r->lo, v.lo);
                r = ir::IndexRange<cast::Expr>{lo, ops.max(lo, ops.min(r->hi, v.hi))};
            }
            auto keep = [&](const std::string& name, const cast::Expr& v) {
                return c_constant(v) ? v : ctx.local(name, v);
            };
            ir::IndexRange<cast::Expr> local{keep(index + "_lo", r->lo), keep(index + "_hi", r->hi)};
            known.insert_or_assign(index, local);
            kt.index_start.insert_or_assign(index, local.lo);
            kt.index_extent.insert_or_assign(index, local.hi);
            progress = true;
        }
    }
}

} // namespace siskin::compiler
