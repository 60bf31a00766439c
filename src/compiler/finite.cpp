#include "compiler/finite.hpp"

#include "levels/level_format.hpp"
#include "siskin/ir/visit.hpp"
#include "siskin/operators.hpp"
#include "compiler/vocabulary.hpp"

namespace siskin::compiler {

namespace {

void tensors_in(const ir::Expr& e, std::set<std::string>& out) {
    ir::visit(e, [&](const ir::Expr& n) {
        if (const auto* a = n->as<ir::Access>()) out.insert(a->tensor);
    });
}

// Whether e may evaluate to a fill value a looplet substituted (an access to a tensor with a
// level that is not dense, or a let variable, which may hold one). A tensor that is not an input
// is an output an earlier statement wrote (a product chain's temporary), of any format: its
// neighbours are scanned too, so that its fill regions skip them.
bool may_hold_fill(const ir::Expr& e, const std::map<std::string, const Tensor*>& inputs) {
    bool found = false;
    ir::visit(e, [&](const ir::Expr& n) {
        if (n->as<ir::Variable>()) found = true;
        if (const auto* a = n->as<ir::Access>()) {
            auto it = inputs.find(a->tensor);
            if (it == inputs.end()) {
                found = true;
                return;
            }
            for (const auto& level : it->second->format().levels())
                if (!levels::properties_of(level).implicit) found = true;
        }
    });
    return found;
}

} // namespace

std::set<std::string> finiteness_matters(const ir::Program& program,
                                         const std::map<std::string, const Tensor*>& inputs) {
    std::set<std::string> out;
    // A reduction `s op= e` may stop early at op's annihilator only where e is finite
    // (early_exit.hpp).
    ir::visit(program.body, [&](const ir::Stmt& s) {
        const auto* a = s->as<ir::Assign>();
        if (!a || a->op.empty()) return;
        const Operator* op = lookup_operator(a->op);
        if (op && op->annihilator_finite_only) tensors_in(a->rhs, out);
    });
    ir::visit(program.body, {}, [&](const ir::Expr& e) {
        const auto* c = e->as<ir::Call>();
        if (!c || c->args.size() != 2) return;
        const Operator* op = lookup_operator(c->op);
        // add and sub too: inf + x folds to inf for finite x (simplify_calls.cpp).
        bool matters = op && (op->annihilator_finite_only || op->name == "add" || op->name == "sub");
        if (!matters) return;
        for (size_t k = 0; k < 2; ++k)
            if (may_hold_fill(c->args[1 - k], inputs)) tensors_in(c->args[k], out);
    });
    return out;
}

} // namespace siskin::compiler
