// Split accumulators (c_optimize.hpp). A float reduction along a fibre, SpMV's
// `for (; p < p_end; p++) s = add(s, mul(A_values[p], x_values[A_crd[p]]));`, is one chain of
// dependent adds: 4 cycles each on current x86 cores, while the three loads of an iteration need
// 1.5. The C compiler may not break the chain without -ffast-math; the registry says the operator
// is associative and commutative, so siskin does it here: four partial results, each taking every
// fourth term, combined at the end (on fibres of eight terms or more). bcsstk33 (68 entries a
// row) went from 0.68 to 0.42 ms.
// Integer reductions are left alone: the compiler reassociates those itself, exactly.
#include <vector>

#include "codegen/c_optimize.hpp"
#include "codegen/c_walk.hpp"

namespace siskin::cast {

namespace {

constexpr int kWays = 4;
// Fibres shorter than this keep the one chain: a short row gains nothing from the partials, and
// on a graph whose rows are mostly short the extra branch mispredicts (powerlaw, 4 entries a row,
// ran 13% slower when rows of four already split; from eight on, it is even or faster).
constexpr int kMinTerms = 8;

// `acc = f(acc, term)` or `acc = f(term, acc)`, f one of the reassociable helpers and term pure,
// free of acc.
struct Accumulation {
    std::string acc;
    std::string function;
    Type type;
    Expr term;
};

std::optional<Accumulation> accumulation(const Stmt& s, const std::map<std::string, Type>& helpers) {
    if (s.kind() != StmtKind::Assign) return std::nullopt;
    const auto& a = s.as<Assign>();
    if (a.op != AssignOp::Set || a.target.kind() != ExprKind::Var || a.value.kind() != ExprKind::Call)
        return std::nullopt;
    const std::string& acc = a.target.as<Var>().name;
    const auto& c = a.value.as<Call>();
    auto helper = helpers.find(c.function);
    if (helper == helpers.end() || c.args.size() != 2) return std::nullopt;
    int k = is_var(c.args[0], acc) ? 1 : is_var(c.args[1], acc) ? 0 : -1;
    if (k < 0 || mentions(c.args[k], acc) || !is_pure(c.args[k])) return std::nullopt;
    return Accumulation{acc, c.function, helper->second, c.args[k]};
}

// The locals of one type only, by name: the accumulator must have the helper's result type, or
// each step would convert and the partial results would round differently.
std::map<std::string, Type> local_types(const Stmt& body) {
    std::map<std::string, Type> types;
    std::set<std::string> ambiguous;
    for_each_node(body, [](const Expr&) {}, [&](const Stmt& s) {
        if (s.kind() != StmtKind::Decl) return;
        const auto& d = s.as<Decl>();
        auto [it, added] = types.emplace(d.name, d.type);
        if (!added && !(it->second == d.type)) ambiguous.insert(d.name);
    });
    for (const auto& name : ambiguous) types.erase(name);
    return types;
}

// Whether e loads through an index array (x[A_crd[p]]): the C compiler would pack such terms of
// the partials into vectors element by element, slower than four scalar chains
// (siskin_keep_scalar in the prelude).
bool reads_through_an_index(const Expr& e) {
    bool found = false;
    for_each_expr(e, [&](const Expr& n) {
        if (n.kind() != ExprKind::Index) return;
        for_each_expr(n.as<Index>().index, [&](const Expr& m) { found = found || m.kind() == ExprKind::Index; });
    });
    return found;
}

class Splitter {
public:
    Splitter(const Stmt& body, const std::map<std::string, Type>& helpers)
        : helpers_(helpers), locals_(local_types(body)), names_(body) {}

    Stmt rewrite(const Stmt& s) {
        if (s.kind() != StmtKind::Block) return map_bodies(s, [&](const Stmt& b) { return rewrite(b); });
        std::vector<Stmt> out;
        for (const auto& c : s.as<Block>().stmts) {
            auto split = c.kind() == StmtKind::For ? split_loop(c.as<For>()) : std::nullopt;
            if (!split) {
                out.push_back(rewrite(c));
                continue;
            }
            for (const auto& x : *split) out.push_back(x);
        }
        return Block::make(std::move(out));
    }

private:
    // `for (init; v < e; v++) { acc = f(acc, term(v)); }`, e free of v and acc, init absent or a
    // store of v: the loop in four-way steps, then the original loop for the last 0-3 terms,
    // as statements of the enclosing block (in a block of their own when init declares v).
    std::optional<std::vector<Stmt>> split_loop(const For& f) {
        auto loop = counted_for(f);
        if (!loop) return std::nullopt;
        const std::string& v = loop->var;
        const Expr& bound = loop->bound;
        if (f.init && !(f.init->kind() == StmtKind::Decl && f.init->as<Decl>().name == v) &&
            assigned_var(*f.init) != v)
            return std::nullopt;
        const auto& stmts = f.body.as<Block>().stmts;
        if (stmts.size() != 1) return std::nullopt;
        auto a = accumulation(stmts.front(), helpers_);
        if (!a || a->acc == v || !is_pure(bound) || mentions(bound, v) || mentions(bound, a->acc))
            return std::nullopt;
        auto declared = locals_.find(a->acc);
        if (declared == locals_.end() || !(declared->second == a->type)) return std::nullopt;

        auto term = [&](int k) { return k == 0 ? a->term : substitute(a->term, v, bin(BinaryOp::Add, var(v), i64(k))); };
        std::vector<std::string> partial{a->acc};
        for (int k = 1; k < kWays; ++k) partial.push_back(names_.fresh(a->acc + "_" + std::to_string(k)));
        auto fold = [&](const Expr& x, const Expr& y) { return call(a->function, {x, y}); };
        auto take = [&](int k) { return assign(var(partial[k]), fold(var(partial[k]), term(k))); };
        Stmt advance = Assign::make(var(v), AssignOp::Add, i64(kWays));

        // The first four terms start the partial results, so no identity is needed.
        std::vector<Stmt> ahead;
        for (int k = 1; k < kWays; ++k) ahead.push_back(Decl::make(a->type, partial[k], term(k)));
        ahead.push_back(take(0));
        ahead.push_back(advance);
        auto room_for = [&](int terms) {
            return bin(BinaryOp::Lt, bin(BinaryOp::Add, var(v), i64(terms - 1)), bound);
        };
        Expr room = room_for(kWays);
        std::vector<Stmt> steps;
        for (int k = 0; k < kWays; ++k) steps.push_back(take(k));
        if (reads_through_an_index(a->term))
            for (const auto& name : partial) steps.push_back(Eval::make(call("siskin_keep_scalar", {var(name)})));
        ahead.push_back(For::make(std::nullopt, room, advance, Block::make(std::move(steps))));
        Expr rest = fold(var(partial[1]), var(partial[2]));
        for (int k = 3; k < kWays; ++k) rest = fold(rest, var(partial[k]));
        ahead.push_back(assign(var(a->acc), fold(var(a->acc), rest)));

        std::vector<Stmt> out;
        if (f.init) out.push_back(*f.init);
        out.push_back(If::make(room_for(kMinTerms), Block::make(std::move(ahead))));
        out.push_back(For::make(std::nullopt, f.cond, f.step, f.body));
        if (f.init && f.init->kind() == StmtKind::Decl) return std::vector<Stmt>{Block::make(std::move(out))};
        return out;
    }

    const std::map<std::string, Type>& helpers_;
    std::map<std::string, Type> locals_;
    FreshNames names_;
};

} // namespace

Stmt split_accumulators(const Stmt& body, const std::map<std::string, Type>& reassociable) {
    if (reassociable.empty()) return body;
    return Splitter(body, reassociable).rewrite(body);
}

} // namespace siskin::cast
