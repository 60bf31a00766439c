// Prefetching the fibres an indirect walk will reach (c_optimize.hpp). In Gustavson's SpGEMM
// the loop over row i of A starts, for each entry, a walk of row A_crd[p] of B: a row in a
// random place, usually out of L1 and L2, which no hardware prefetcher can guess. The loop
// itself knows which rows come next, so it asks for them a few entries ahead.
#include <algorithm>
#include <vector>

#include "codegen/c_optimize.hpp"
#include "codegen/c_walk.hpp"

namespace siskin::cast {

namespace {

// How many iterations ahead: enough to cover a load from L3 with a short row of B per
// iteration, few enough that the row is still in L1 when its walk starts.
constexpr int64_t kDistance = 4;

// The arrays the counted loops over q read as Y[q] (Y a variable), in order of first use, and
// the bound of the first such loop.
struct Walk {
    std::vector<std::string> arrays;
    std::optional<Expr> bound;
};

Walk walked_arrays(const Stmt& body, const std::string& q) {
    Walk walk;
    std::vector<std::string>& arrays = walk.arrays;
    for_each_node(body, {}, [&](const Stmt& s) {
        if (s.kind() != StmtKind::For) return;
        const auto& f = s.as<For>();
        auto loop = counted_for(f);
        if (!loop || loop->var != q || f.init) return;
        if (!walk.bound) walk.bound = loop->bound;
        for_each_node(f.body, [&](const Expr& e) {
            if (e.kind() != ExprKind::Index) return;
            const auto& i = e.as<Index>();
            if (i.base.kind() != ExprKind::Var || !is_var(i.index, q)) return;
            const std::string& y = i.base.as<Var>().name;
            if (std::find(arrays.begin(), arrays.end(), y) == arrays.end()) arrays.push_back(y);
        });
    });
    return walk;
}

Stmt prefetch(const Stmt& s, FreshNames& names);

Stmt prefetch_body(const Stmt& body, FreshNames& names) {
    std::vector<Stmt> out;
    for (const auto& c : body.as<Block>().stmts) out.push_back(prefetch(c, names));
    return Block::make(std::move(out));
}

// The loop with the prefetch at the top of its body, or none when it does not fit the shape of
// c_optimize.hpp's prefetch_fibres.
std::optional<Stmt> with_prefetch(const For& f, FreshNames& names) {
    auto loop = counted_for(f);
    if (!loop) return std::nullopt;
    const std::string& v = loop->var;
    const Expr& end = loop->bound;
    const auto& stmts = f.body.as<Block>().stmts;
    auto first = std::find_if(stmts.begin(), stmts.end(),
                              [](const Stmt& s) { return s.kind() != StmtKind::Comment; });
    if (first == stmts.end() || first->kind() != StmtKind::Decl) return std::nullopt;
    const auto& start = first->as<Decl>();
    // The fibre's start: P[X] with X a load that moves with v (an indirection: a coordinate).
    if (!start.init || start.init->kind() != ExprKind::Index) return std::nullopt;
    const auto& fibre = start.init->as<Index>();
    if (fibre.index.kind() != ExprKind::Index || !mentions(fibre.index, v)) return std::nullopt;
    Writes w = writes_of(f.body);
    if (w.exits || w.vars.count(v) || !unchanged(end, w) || !unchanged(*start.init, w))
        return std::nullopt;
    Walk walk = walked_arrays(f.body, start.name);
    std::vector<std::string> arrays;
    for (const auto& y : walk.arrays)
        if (!w.vars.count(y)) arrays.push_back(y); // a pointer that moves would point nowhere
    if (arrays.empty()) return std::nullopt;
    // Iteration v + d evaluates P[X] at v + d when v + d < end (the loop has no early exit and
    // starts with the declaration), so reading it now reads nothing the loop would not.
    Expr ahead = bin(BinaryOp::Add, var(v), i64(kDistance));
    auto at_ahead = [&](const Expr& x) { return substitute(x, v, ahead); };
    std::string q = names.fresh(start.name + "_ahead");
    std::vector<Stmt> hint{Decl::make(start.type, q, at_ahead(*start.init))};
    // The fibre's end, when the walk's bound is declared right after the start from what moves
    // with v (`q_end = P[X + 1]`): iteration v + d evaluates it too. A row of B often spans
    // several lines, and the hardware prefetcher follows a stream only after a few misses, so
    // the hint then covers the fibre's first, second and last lines (siskin_prefetch_span).
    std::optional<std::string> q_end;
    auto second = std::find_if(first + 1, stmts.end(),
                               [](const Stmt& s) { return s.kind() != StmtKind::Comment; });
    if (walk.bound && walk.bound->kind() == ExprKind::Var && second != stmts.end() &&
        second->kind() == StmtKind::Decl) {
        const auto& end_decl = second->as<Decl>();
        if (end_decl.name == walk.bound->as<Var>().name && end_decl.init && mentions(*end_decl.init, v) &&
            unchanged(*end_decl.init, w)) {
            q_end = names.fresh(end_decl.name + "_ahead");
            hint.push_back(Decl::make(end_decl.type, *q_end, at_ahead(*end_decl.init)));
        }
    }
    for (const auto& y : arrays) {
        Expr from = bin(BinaryOp::Add, var(y), var(q));
        if (q_end)
            hint.push_back(Eval::make(
                call("siskin_prefetch_span", {from, bin(BinaryOp::Add, var(y), var(*q_end))})));
        else
            hint.push_back(Eval::make(call("siskin_prefetch", {from})));
    }
    std::vector<Stmt> body{If::make(bin(BinaryOp::Lt, ahead, end), Block::make(std::move(hint)))};
    Stmt rest = prefetch_body(f.body, names);
    for (const auto& c : rest.as<Block>().stmts) body.push_back(c);
    return For::make(f.init, f.cond, f.step, Block::make(std::move(body)));
}

Stmt prefetch(const Stmt& s, FreshNames& names) {
    switch (s.kind()) {
    case StmtKind::Block: return prefetch_body(s, names);
    case StmtKind::For:
        if (auto done = with_prefetch(s.as<For>(), names)) return *done;
        [[fallthrough]];
    default: return map_bodies(s, [&](const Stmt& b) { return prefetch_body(b, names); });
    }
}

} // namespace

Stmt prefetch_fibres(const Stmt& body) {
    FreshNames names(body);
    return prefetch(body, names);
}

} // namespace siskin::cast
