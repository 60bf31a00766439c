#pragma once
// A perfect nest: loops without ranges, each holding only the next, around one assignment (an
// einsum statement, or loops written around one). Its loops may run in any order that keeps
// every element's own reduction order, so the passes that choose an order rewrite such nests:
// workspaces (sparse outputs) and affine_order (dense outputs of compound reads).
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "siskin/ir/program.hpp"
#include "siskin/ir/visit.hpp"

namespace siskin::compiler {

struct Nest {
    std::vector<const ir::For*> loops;
    const ir::Assign* assign = nullptr;
    ir::Stmt assign_stmt;
};

inline std::optional<Nest> perfect_nest(const ir::Stmt& s) {
    Nest n;
    ir::Stmt cur = s;
    while (const auto* f = cur->as<ir::For>()) {
        if (f->lo) return std::nullopt;
        n.loops.push_back(f);
        cur = f->body;
    }
    n.assign = cur->as<ir::Assign>();
    n.assign_stmt = cur;
    if (!n.assign || n.loops.empty()) return std::nullopt;
    return n;
}

/// The nest's loop indices, outermost first, when they are distinct and none of them is one of
/// the `outer` loops around the nest (else nothing: such a nest keeps its order).
inline std::optional<std::vector<std::string>> free_loops(const Nest& nest, const std::vector<std::string>& outer) {
    std::vector<std::string> loops;
    for (const auto* f : nest.loops) loops.push_back(f->index);
    std::set<std::string> loop_set(loops.begin(), loops.end());
    if (loop_set.size() != loops.size()) return std::nullopt;
    for (const auto& l : outer)
        if (loop_set.count(l)) return std::nullopt;
    return loops;
}

/// The reads of tensors named in `inputs` in `rhs`, or nothing when it reads one of `outputs`
/// (a nest that reads an output keeps the written order).
template <class Inputs>
std::optional<std::vector<const ir::Access*>> input_reads(const ir::Expr& rhs, const std::set<std::string>& outputs,
                                                          const Inputs& inputs) {
    std::vector<const ir::Access*> reads;
    bool reads_output = false;
    ir::visit(rhs, [&](const ir::Expr& e) {
        const auto* r = e->as<ir::Access>();
        if (!r) return;
        if (outputs.count(r->tensor)) reads_output = true;
        else if (inputs.count(r->tensor)) reads.push_back(r);
    });
    if (reads_output) return std::nullopt;
    return reads;
}

/// Rebuilds `s`, handing each perfect nest (at its outermost loop) to `rewrite` with `loops`
/// holding the loops around it; where it returns a statement, that replaces the nest, elsewhere
/// the walk goes on inside.
inline ir::Stmt rewrite_perfect_nests(const ir::Stmt& s, std::vector<std::string>& loops,
                                      const std::function<std::optional<ir::Stmt>(const Nest&)>& rewrite) {
    auto again = [&](const ir::Stmt& c) { return rewrite_perfect_nests(c, loops, rewrite); };
    switch (s->kind) {
    case ir::StmtKind::Block: {
        std::vector<ir::Stmt> out;
        for (const auto& c : s->as<ir::Block>()->stmts) out.push_back(again(c));
        return ir::Block::make(std::move(out), s->pos);
    }
    case ir::StmtKind::For: {
        if (auto n = perfect_nest(s))
            if (auto r = rewrite(*n)) return *r;
        const auto& f = *s->as<ir::For>();
        loops.push_back(f.index);
        ir::Stmt body = again(f.body);
        loops.pop_back();
        return ir::For::make(f.index, body, f.lo, f.hi, f.pos);
    }
    case ir::StmtKind::If: {
        const auto& n = *s->as<ir::If>();
        return ir::If::make(n.cond, again(n.then_body), n.else_body ? again(n.else_body) : nullptr, n.pos);
    }
    case ir::StmtKind::Let: {
        const auto& n = *s->as<ir::Let>();
        return ir::Let::make(n.name, n.value, again(n.body), n.pos);
    }
    case ir::StmtKind::Assign:
    case ir::StmtKind::While:
    case ir::StmtKind::Swap: return s;
    }
    return s;
}

/// What the nest passes ask of a program: its outputs, how often each tensor is assigned, and
/// every tensor name (so that a new temporary's name is unique).
struct ProgramTensors {
    std::set<std::string> outputs, names;
    std::map<std::string, int> assigns;
    explicit ProgramTensors(const ir::Program& program) {
        for (const auto& name : program.outputs()) outputs.insert(name);
        ir::visit(program.body, [&](const ir::Stmt& s) {
            if (const auto* a = s->as<ir::Assign>()) ++assigns[a->lhs->tensor];
        }, [&](const ir::Expr& e) {
            if (const auto* a = e->as<ir::Access>()) names.insert(a->tensor);
        });
    }
    /// `base`, or `base` with underscores added, unused so far (and now taken).
    std::string fresh(std::string base) {
        while (names.count(base)) base += "_";
        names.insert(base);
        return base;
    }
};

} // namespace siskin::compiler
