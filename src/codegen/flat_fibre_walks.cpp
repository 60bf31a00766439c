// One flat walk over the entries of consecutive fibres (c_optimize.hpp). A nest
// `for j { for p in P[j] .. P[j + 1] { B } }` exits its inner loop once per fibre, at a length
// the branch predictor cannot guess when fibre lengths vary: with a dozen entries a column (CSC
// SpMV's scatter) that mispredict costs about as much as the column's entries. The entries of
// fibres j .. c - 1 are consecutive, P[j] .. P[c], so one loop walks them all; what B reads
// through j is copied beside each entry first, in blocks that stay in L1.
#include <algorithm>
#include <vector>

#include "codegen/c_optimize.hpp"
#include "codegen/c_walk.hpp"

namespace siskin::cast {

namespace {

// Entries of one block: its copies of the values read through j stay in L1.
constexpr int64_t kBlock = 1024;
// A fibre of at most this many entries gets its copies by one unconditional run of stores
// (the next fibre's copies overwrite the overshoot), so filling takes no branch per fibre.
constexpr int64_t kShort = 16;

// The element type of a pointer declared `T *x` with T a number type, else none.
std::optional<Type> number_element(const std::map<std::string, Type>& decls, const std::string& name) {
    auto it = decls.find(name);
    if (it == decls.end() || it->second.pointers != 1) return std::nullopt;
    static const std::set<std::string> numbers{"double", "float", "int64_t", "int32_t", "int16_t", "int8_t",
                                               "uint64_t", "uint32_t", "uint16_t", "uint8_t", "bool"};
    if (!numbers.count(it->second.base)) return std::nullopt;
    return Type::named(it->second.base);
}

// The nest's parts: `for (int64_t j = lo; j < hi; j++) { T p = P[j]; T p_end = P[j + 1];
// [if (p < p_end)] for (; p < p_end; p++) B }`.
struct Nest {
    std::string j, p, p_end, positions;
    Expr lo, hi;
    Type p_type;
    Stmt body; // B
};

std::optional<Nest> nest_of(const For& f) {
    auto loop = counted_for(f);
    if (!loop || !f.init || f.init->kind() != StmtKind::Decl) return std::nullopt;
    const auto& init = f.init->as<Decl>();
    if (init.name != loop->var || !init.init || !is_arithmetic(*init.init) || !is_arithmetic(loop->bound))
        return std::nullopt;
    const auto& stmts = f.body.as<Block>().stmts;
    if (stmts.size() != 3 || stmts[0].kind() != StmtKind::Decl || stmts[1].kind() != StmtKind::Decl)
        return std::nullopt;
    Nest n{loop->var, stmts[0].as<Decl>().name, stmts[1].as<Decl>().name, "", *init.init, loop->bound,
           stmts[0].as<Decl>().type, stmts[2]};
    const auto& start = stmts[0].as<Decl>();
    const auto& end = stmts[1].as<Decl>();
    // P[j] and P[j + 1], P a variable.
    if (!start.init || !end.init || start.init->kind() != ExprKind::Index || end.init->kind() != ExprKind::Index)
        return std::nullopt;
    const auto& s = start.init->as<Index>();
    const auto& e = end.init->as<Index>();
    if (s.base.kind() != ExprKind::Var || !same_expr(s.base, e.base) || !is_var(s.index, n.j) ||
        !same_expr(e.index, bin(BinaryOp::Add, var(n.j), i64(1))))
        return std::nullopt;
    n.positions = s.base.as<Var>().name;
    // [if (p < p_end)] for (; p < p_end; p++) B
    Stmt walk = stmts[2];
    Expr in_fibre = bin(BinaryOp::Lt, var(n.p), var(n.p_end));
    if (walk.kind() == StmtKind::If) {
        const auto& guard = walk.as<If>();
        const auto& then = guard.then_body.as<Block>().stmts;
        if (guard.else_body || !same_expr(guard.cond, in_fibre) || then.size() != 1) return std::nullopt;
        walk = then[0];
    }
    if (walk.kind() != StmtKind::For) return std::nullopt;
    const auto& inner = walk.as<For>();
    auto inner_loop = counted_for(inner);
    if (inner.init || !inner_loop || inner_loop->var != n.p || !is_var(inner_loop->bound, n.p_end))
        return std::nullopt;
    n.body = inner.body;
    return n;
}

// The flat form of a nest, or none when B does not fit: B has no loop, exit or unknown call,
// writes neither j, p, p_end nor P, and reads j only in loads X[e(j)] (X a number array B does
// not write, e reading nothing B writes), which become copies beside each entry.
std::optional<Stmt> flatten(const For& f, const std::map<std::string, Type>& decls, FreshNames& names) {
    auto nest = nest_of(f);
    // A body with loops of its own keeps its nest: the copies pay for mispredicted exits of short
    // fibres, not for longer bodies.
    if (!nest || holds(nest->body, {StmtKind::For, StmtKind::While})) return std::nullopt;
    const Writes w = writes_of(nest->body);
    if (w.exits || w.vars.count(nest->j) || w.vars.count(nest->p) || w.vars.count(nest->p_end) ||
        w.arrays.count(nest->positions) || mentions(nest->body, nest->p_end))
        return std::nullopt;

    std::string first = names.fresh(nest->j + "_first");
    Expr at_entry = bin(BinaryOp::Sub, var(nest->p), var(first));
    struct Copy {
        Expr load;
        std::string name;
        Type type;
    };
    std::vector<Copy> copies;
    bool other_use = false;
    Stmt body = rewrite_exprs(nest->body, [&](const Expr& e) -> std::optional<Expr> {
        if (e.kind() != ExprKind::Index || !mentions(e, nest->j)) return std::nullopt;
        const auto& load = e.as<Index>();
        if (load.base.kind() != ExprKind::Var) return std::nullopt;
        auto type = number_element(decls, load.base.as<Var>().name);
        if (!type || !unchanged(e, w) || mentions(e, nest->p)) return std::nullopt;
        auto same = std::find_if(copies.begin(), copies.end(), [&](const Copy& c) { return same_expr(c.load, e); });
        if (same == copies.end()) {
            copies.push_back({e, names.fresh(load.base.as<Var>().name + "_at_entry"), *type});
            same = copies.end() - 1;
        }
        return at(var(same->name), at_entry);
    });
    for_each_node(body, [&](const Expr& e) { other_use |= e.kind() == ExprKind::Var && e.as<Var>().name == nest->j; });
    if (other_use) return std::nullopt;

    const Type i64t = Type::of(ValueType::Int64);
    auto P = [&](Expr k) { return at(var(nest->positions), std::move(k)); };
    auto plus = [](Expr a, int64_t b) { return bin(BinaryOp::Add, std::move(a), i64(b)); };
    const std::string& j = nest->j;
    // B reads nothing through j: the fibres' entries are one walk, P[lo] .. P[hi].
    std::string last = names.fresh(j + "_last");
    if (copies.empty()) {
        Stmt walk = For::make(Decl::make(nest->p_type, nest->p, P(nest->lo)),
                              bin(BinaryOp::Lt, var(nest->p), var(last)), Increment::make(var(nest->p)), body);
        return If::make(bin(BinaryOp::Lt, nest->lo, nest->hi),
                        Block::make({Decl::make(i64t, last, P(nest->hi)), walk}));
    }

    // The positions' element type names the runtime's test (siskin_flat_walk.h).
    auto positions_type = decls.find(nest->positions);
    if (positions_type == decls.end() || positions_type->second.pointers != 1 ||
        (positions_type->second.base != "int32_t" && positions_type->second.base != "int64_t"))
        return std::nullopt;
    std::string pays = positions_type->second.base == "int32_t" ? "siskin_flat_walk_pays_i32"
                                                                : "siskin_flat_walk_pays_i64";
    std::vector<Stmt> out;
    for (const auto& c : copies)
        out.push_back(Decl::make(c.type.pointer().restricted(), c.name,
                                 Cast::make(c.type.pointer(),
                                            call("__builtin_alloca", {i64(8 * (kBlock + kShort))}))));
    out.push_back(Decl::make(i64t, j, nest->lo));
    // Blocks of whole fibres j .. c - 1 of at most kBlock entries: the copies of fibre c are made
    // as the block's end is sought, then one walk takes the block. A fibre longer than a block
    // runs alone, as in the nest.
    std::string c = names.fresh(j + "_block_end"), length = names.fresh(j + "_length"),
                r = names.fresh(j + "_copy"), slot = names.fresh(j + "_slot");
    auto length_of = [&](Expr fibre) { return bin(BinaryOp::Sub, P(plus(fibre, 1)), P(fibre)); };
    std::vector<Stmt> fill{Decl::make(i64t, slot, bin(BinaryOp::Sub, P(var(c)), var(first))),
                           Decl::make(i64t, length, length_of(var(c)))};
    auto copy_loop = [&](Expr bound) {
        std::vector<Stmt> stores;
        for (const auto& copy : copies)
            stores.push_back(assign(at(var(copy.name), bin(BinaryOp::Add, var(slot), var(r))),
                                    substitute(copy.load, j, var(c))));
        return For::make(Decl::make(i64t, r, i64(0)), bin(BinaryOp::Lt, var(r), std::move(bound)),
                         Increment::make(var(r)), Block::make(std::move(stores)));
    };
    fill.push_back(If::make(bin(BinaryOp::Le, var(length), i64(kShort)), Block::make({copy_loop(i64(kShort))}),
                            Block::make({copy_loop(var(length))})));
    std::vector<Stmt> alone = f.body.as<Block>().stmts;
    alone.push_back(Increment::make(var(j)));
    std::vector<Stmt> block{
        Decl::make(i64t, first, P(var(j))), Decl::make(i64t, c, var(j)),
        For::make(std::nullopt,
                  bin(BinaryOp::LogAnd, bin(BinaryOp::Lt, var(c), nest->hi),
                      bin(BinaryOp::Le, bin(BinaryOp::Sub, P(plus(var(c), 1)), var(first)), i64(kBlock))),
                  Increment::make(var(c)), Block::make(std::move(fill))),
        If::make(bin(BinaryOp::Eq, var(c), var(j)), Block::make(std::move(alone)),
                 Block::make({Decl::make(i64t, last, P(var(c))),
                              For::make(Decl::make(nest->p_type, nest->p, var(first)),
                                        bin(BinaryOp::Lt, var(nest->p), var(last)), Increment::make(var(nest->p)),
                                        body),
                              assign(var(j), var(c))}))};
    Stmt flat = While::make(bin(BinaryOp::Lt, var(j), nest->hi), Block::make(std::move(block)));
    // The nest as it was, where the runtime finds the fibres long, short or alike.
    Stmt nested = For::make(std::nullopt, bin(BinaryOp::Lt, var(j), nest->hi), Increment::make(var(j)), f.body);
    out.push_back(If::make(call(pays, {var(nest->positions), nest->lo, nest->hi}), Block::make({flat}),
                           Block::make({nested})));
    return Block::make(std::move(out));
}

// Only nests outside every other loop: the copies' room is taken from the stack once.
Stmt rewrite(const Stmt& s, const std::map<std::string, Type>& decls, FreshNames& names);

Stmt rewrite_block(const Stmt& b, const std::map<std::string, Type>& decls, FreshNames& names) {
    std::vector<Stmt> out;
    for (const auto& c : b.as<Block>().stmts) out.push_back(rewrite(c, decls, names));
    return Block::make(std::move(out));
}

Stmt rewrite(const Stmt& s, const std::map<std::string, Type>& decls, FreshNames& names) {
    switch (s.kind()) {
    case StmtKind::Block: return rewrite_block(s, decls, names);
    case StmtKind::For:
        if (auto done = flatten(s.as<For>(), decls, names)) return *done;
        return s;
    case StmtKind::While: return s;
    default: return map_bodies(s, [&](const Stmt& b) { return rewrite_block(b, decls, names); });
    }
}

} // namespace

Stmt flatten_fibre_walks(const Stmt& body) {
    // Each name's declared type; a name declared with two types has none.
    std::map<std::string, Type> decls;
    std::set<std::string> ambiguous;
    for_each_node(body, {}, [&](const Stmt& s) {
        if (s.kind() != StmtKind::Decl) return;
        const auto& d = s.as<Decl>();
        auto [it, fresh] = decls.emplace(d.name, d.type);
        if (!fresh && (it->second.base != d.type.base || it->second.pointers != d.type.pointers))
            ambiguous.insert(d.name);
    });
    for (const auto& name : ambiguous) decls.erase(name);
    FreshNames names(body);
    return rewrite(body, decls, names);
}

} // namespace siskin::cast
