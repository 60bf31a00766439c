#include "compiler/ordered_writes.hpp"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include "ir/affine.hpp"

namespace siskin::compiler {

namespace {

// The loops around a site, outermost first (a program may reuse an index name in loops that
// run one after the other, so loops are told apart by node, not by name).
using Loops = std::vector<const ir::For*>;

struct Site {
    const ir::Access* lhs;
    Loops loops;
};

void collect(const ir::Stmt& s, const std::string& output, Loops& loops, std::vector<Site>& sites) {
    switch (s->kind) {
    case ir::StmtKind::Block:
        for (const auto& c : s->as<ir::Block>()->stmts) collect(c, output, loops, sites);
        return;
    case ir::StmtKind::For: {
        const auto& f = *s->as<ir::For>();
        loops.push_back(&f);
        collect(f.body, output, loops, sites);
        loops.pop_back();
        return;
    }
    case ir::StmtKind::Assign: {
        const auto& a = *s->as<ir::Assign>();
        if (a.lhs->tensor == output) sites.push_back({a.lhs.get(), loops});
        return;
    }
    case ir::StmtKind::If: {
        const auto& n = *s->as<ir::If>();
        collect(n.then_body, output, loops, sites);
        if (n.else_body) collect(n.else_body, output, loops, sites);
        return;
    }
    case ir::StmtKind::Let:
        collect(s->as<ir::Let>()->body, output, loops, sites);
        return;
    }
}

// [lo, hi) of a window subscript; none for a plain index or any other subscript.
std::optional<std::pair<int64_t, int64_t>> window(const ir::Index& i) {
    if (!i.slice || i.slice->step != 1 || !i.slice->lo || !i.slice->hi) return std::nullopt;
    if (*i.slice->lo < 0 || *i.slice->hi < *i.slice->lo) return std::nullopt;
    return std::pair{*i.slice->lo, *i.slice->hi};
}

// The loop of `index` around s (the innermost of that name); nullptr when none.
const ir::For* loop_of(const Site& s, const std::string& index) {
    for (auto it = s.loops.rbegin(); it != s.loops.rend(); ++it)
        if ((*it)->index == index) return *it;
    return nullptr;
}

bool inside(const Site& s, const ir::For* loop) {
    return std::find(s.loops.begin(), s.loops.end(), loop) != s.loops.end();
}

// Whether site b, right after site a, writes after everything a wrote.
bool ordered(const Site& a, const Site& b, const std::vector<int>& modes) {
    for (int m : modes) {
        const auto* x = a.lhs->indices.at(static_cast<size_t>(m))->as<ir::Index>();
        const auto* y = b.lhs->indices.at(static_cast<size_t>(m))->as<ir::Index>();
        const ir::For* lx = loop_of(a, x->name);
        const ir::For* ly = loop_of(b, y->name);
        if (!lx || !ly) return false;
        if (lx == ly && x->slice == y->slice) continue; // one loop around both
        auto wa = window(*x), wb = window(*y);
        return wa && wb && lx != ly && !inside(a, ly) && !inside(b, lx) && wa->second <= wb->first;
    }
    return false; // the same subscripts: one fibre written twice
}

// The position of `loop` among the loops around s (outermost 0); -1 when it is not one of them.
int depth_of(const Site& s, const ir::For* loop) {
    auto it = std::find(s.loops.begin(), s.loops.end(), loop);
    return it == s.loops.end() ? -1 : static_cast<int>(it - s.loops.begin());
}

// Whether the terms of a compound subscript, outer loop first, grow it strictly in the order
// its loops run: each coefficient positive and above the most the inner terms add.
bool increasing(const std::vector<std::pair<const ir::For*, int64_t>>& terms) {
    __int128 inner_span = 0; // the most the terms inside the current one add
    for (auto it = terms.rbegin(); it != terms.rend(); ++it) {
        const auto& [loop, coef] = *it;
        if (coef <= inner_span) return false;
        if (it + 1 == terms.rend()) break; // the outermost term's range does not matter
        auto lo = loop->lo ? ir::constant_of(loop->lo) : std::nullopt;
        auto hi = loop->hi ? ir::constant_of(loop->hi) : std::nullopt;
        if (!lo || !hi || *hi <= *lo) return false;
        inner_span += static_cast<__int128>(coef) * (*hi - 1 - *lo);
        if (inner_span > INT64_MAX) return false;
    }
    return true;
}

} // namespace

bool writes_collapsed_in_order(const ir::Program& program, const std::string& output, const Format& format) {
    Loops loops;
    std::vector<Site> sites;
    collect(program.body, output, loops, sites);
    if (sites.size() != 1) return false;
    const Site& site = sites.front();
    std::vector<const ir::For*> order; // the loops the subscripts run over, in storage order
    bool compound = false;
    for (const auto& level : format.levels())
        for (int m : level.modes) {
            const ir::Expr& e = site.lhs->indices.at(static_cast<size_t>(m));
            if (const auto* i = e->as<ir::Index>(); i && i->slice) return false;
            auto affine = ir::affine_of(e);
            if (!affine || affine->terms.empty()) return false;
            compound = compound || !affine->plain();
            std::vector<std::pair<const ir::For*, int64_t>> terms;
            for (const auto& t : affine->terms) {
                const ir::For* loop = loop_of(site, t.index);
                if (!loop) return false;
                terms.emplace_back(loop, t.coef);
            }
            std::sort(terms.begin(), terms.end(), [&](const auto& a, const auto& b) {
                return depth_of(site, a.first) < depth_of(site, b.first);
            });
            if (!increasing(terms)) return false;
            for (const auto& t : terms) order.push_back(t.first);
        }
    return compound && order == site.loops;
}

bool writes_in_window_order(const ir::Program& program, const std::string& output, const Format& format) {
    Loops loops;
    std::vector<Site> sites;
    collect(program.body, output, loops, sites);
    if (sites.empty()) return false;
    bool windowed = sites.size() > 1;
    for (const Site& s : sites)
        for (const auto& e : s.lhs->indices) {
            const auto* i = e->as<ir::Index>();
            if (!i || (i->slice && !window(*i))) return false;
            windowed = windowed || i->slice;
        }
    if (!windowed) return false;
    std::vector<int> modes;
    for (const auto& level : format.levels())
        for (int m : level.modes) modes.push_back(m);
    for (size_t k = 1; k < sites.size(); ++k)
        if (!ordered(sites[k - 1], sites[k], modes)) return false;
    return true;
}

} // namespace siskin::compiler
