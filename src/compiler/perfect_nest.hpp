#pragma once
// A perfect nest: loops without ranges, each holding only the next, around one assignment (an
// einsum statement, or loops written around one). Its loops may run in any order that keeps
// every element's own reduction order, so the passes that choose an order rewrite such nests:
// workspaces (sparse outputs) and affine_order (dense outputs of compound reads).
#include <optional>
#include <vector>

#include "siskin/ir/program.hpp"

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

} // namespace siskin::compiler
