#include "compiler/ordered_writes.hpp"

#include <algorithm>
#include <optional>
#include <vector>

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

} // namespace

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
