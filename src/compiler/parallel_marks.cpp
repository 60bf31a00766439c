#include "compiler/parallel_marks.hpp"

#include <fmt/format.h>

#include "lowering/index_wrapper.hpp"

namespace siskin::compiler {

namespace {

bool all_dense(const TensorBinding& t) {
    for (int l = 0; l < t.num_levels(); ++l)
        if (!t.properties(l).implicit) return false;
    return true;
}

// Whether e is the loop's index itself (no wrapper: a window or an offset would move it).
bool is_loop_index(const LExpr& e, const std::string& index) {
    const auto* i = e->as<Index>();
    return i && i->name == index && !i->wrapper;
}

// A fibre at the root of a tensor whose first level is dense and indexed by the loop.
bool row_of_loop(const Fiber& f, const std::string& index) {
    return f.level == 0 && f.sub == 0 && !f.subscripts.empty() &&
           is_loop_index(f.subscripts.front(), index) && f.tensor->num_levels() > 0 &&
           f.tensor->properties(0).implicit;
}

// The positions buffer of the level below a read's first level: pos[i]..pos[i+1] is the fibre
// that iteration i walks.
const BufferBinding* fibre_positions(const Fiber& f) {
    if (f.tensor->num_levels() < 2) return nullptr;
    for (const auto& b : f.tensor->levels[1])
        if (b.role == BufferRole::Positions) return &b;
    return nullptr;
}

std::optional<ParallelMark> mark_of(const LStmt& s) {
    const auto* loop = s->as<For>();
    if (!loop) return std::nullopt;
    ParallelMark mark{loop->index, nullptr};
    bool ok = true;
    visit_stmt(
        loop->body,
        [&](const LExpr& e) {
            const auto* f = e->as<Fiber>();
            if (!f || !f->tensor) return;
            if (f->tensor->output) {
                // Reads of an output could see another iteration's writes; writes are checked
                // at their statement.
                if (!f->write) ok = false;
                return;
            }
            if (!mark.weight && row_of_loop(*f, loop->index)) mark.weight = fibre_positions(*f);
        },
        [&](const LStmt& st) {
            const auto* a = st->as<Assign>();
            if (!a) return;
            const auto* target = a->lhs->as<Fiber>();
            if (!a->tensor || !target || !a->tensor->output || a->tensor->workspace ||
                !a->tensor->values || !all_dense(*a->tensor) || !row_of_loop(*target, loop->index))
                ok = false;
        });
    if (!ok) return std::nullopt;
    return mark;
}

} // namespace

std::map<size_t, ParallelMark> mark_parallel_loops(const LStmt& body) {
    std::map<size_t, ParallelMark> marks;
    const auto* top = body->as<Block>();
    size_t n = top ? top->stmts.size() : 1;
    for (size_t k = 0; k < n; ++k)
        if (auto m = mark_of(top ? top->stmts[k] : body)) marks.emplace(k, *m);
    return marks;
}

std::string print_marks(const std::map<size_t, ParallelMark>& marks) {
    std::string out;
    for (const auto& [k, m] : marks)
        out += fmt::format("statement {}: for {} in parallel, chunks balanced by {}\n", k, m.index,
                           m.weight ? m.weight->data : "iterations");
    return out.empty() ? "no parallel loop\n" : out;
}

} // namespace siskin::compiler
