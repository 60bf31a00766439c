#include "compiler/affine_order.hpp"

#include <algorithm>
#include <set>

#include "compiler/perfect_nest.hpp"
#include "ir/affine.hpp"
#include "levels/level_format.hpp"
#include "siskin/ir/visit.hpp"

namespace siskin::compiler {

namespace {

class Pass {
public:
    explicit Pass(const std::map<std::string, TensorSignature>& signatures) : signatures_(signatures) {}

    ir::Stmt stmt(const ir::Stmt& s) {
        return ir::rewrite_top_down(s, [&](const ir::Stmt& x) -> std::optional<ir::Stmt> {
            if (auto n = perfect_nest(x)) return reorder(*n);
            return std::nullopt;
        });
    }

private:
    bool dense(const std::string& tensor) const {
        auto it = signatures_.find(tensor);
        return it != signatures_.end() && levels::all_levels_implicit(it->second.format);
    }

    std::optional<ir::Stmt> reorder(const Nest& nest) const {
        const ir::Assign& a = *nest.assign;
        const std::string& out = a.lhs->tensor;
        if (!dense(out)) return std::nullopt;
        std::set<std::string> written;
        for (const auto& s : a.lhs->indices) {
            const auto* i = s->as<ir::Index>();
            if (!i || i->slice) return std::nullopt;
            written.insert(i->name);
        }
        // A compound read of a sparse tensor that a reduction index moves (an offset), and no
        // read of the output (its elements would be read in another order). Its levels give the
        // order: an outer level's own index, then its offsets (a row of the output stays in cache
        // while the filter's rows pass over it); the last level's offsets, then its index (each
        // offset streams the fibre once, shifted, instead of visiting windows).
        std::vector<std::string> sequence;
        bool found = false, reads_output = false;
        ir::visit(a.rhs, [&](const ir::Expr& e) {
            const auto* acc = e->as<ir::Access>();
            if (!acc) return;
            reads_output |= acc->tensor == out;
            if (found || dense(acc->tensor) || !signatures_.count(acc->tensor)) return;
            std::vector<int> modes = signatures_.at(acc->tensor).format.mode_order();
            std::vector<std::string> seq;
            for (size_t k = 0; k < modes.size(); ++k) {
                const ir::Expr& s = acc->indices.at(static_cast<size_t>(modes[k]));
                const ir::Expr* inner = ir::permissive_inner(s);
                auto affine = ir::affine_of(inner ? *inner : s);
                if (!affine) continue;
                std::vector<std::string> own, offsets;
                for (const auto& t : affine->terms)
                    (affine->terms.size() > 1 && !written.count(t.index) ? offsets : own).push_back(t.index);
                found |= !offsets.empty();
                bool last = k + 1 == modes.size();
                for (const auto& i : last ? offsets : own) seq.push_back(i);
                for (const auto& i : last ? own : offsets) seq.push_back(i);
            }
            if (found) sequence = seq;
        });
        if (!found || reads_output) return std::nullopt;
        // The rest as written; the reduction indices keep their order (each element's sum does).
        std::vector<const ir::For*> order;
        auto place = [&](const std::string& index) {
            for (const auto* f : nest.loops)
                if (f->index == index && std::find(order.begin(), order.end(), f) == order.end())
                    order.push_back(f);
        };
        for (const auto& index : sequence) place(index);
        for (const auto* f : nest.loops) place(f->index);
        std::vector<std::string> before, after;
        for (const auto* f : nest.loops)
            if (!written.count(f->index)) before.push_back(f->index);
        for (const auto* f : order)
            if (!written.count(f->index)) after.push_back(f->index);
        if (before != after) return std::nullopt;
        if (std::equal(order.begin(), order.end(), nest.loops.begin())) return std::nullopt;
        ir::Stmt body = nest.assign_stmt;
        for (size_t k = order.size(); k-- > 0;)
            body = ir::For::make(order[k]->index, body, nullptr, nullptr, order[k]->pos);
        return body;
    }

    const std::map<std::string, TensorSignature>& signatures_;
};

} // namespace

ir::Program order_affine_nests(const ir::Program& program,
                               const std::map<std::string, TensorSignature>& signatures) {
    ir::Program out = program;
    out.body = Pass(signatures).stmt(program.body);
    return out;
}

} // namespace siskin::compiler
