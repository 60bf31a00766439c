#include "compiler/finite.hpp"

#include <cmath>

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
// level that is not dense, or a let variable, which may hold one), or that a run-time test
// substitutes (a 0-d tensor at its fill: value_specialisation.hpp). A tensor that is not an input
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
            if (it->second->ndims() == 0) found = true;
            for (const auto& level : it->second->format().levels())
                if (!levels::properties_of(level).implicit) found = true;
        }
    });
    return found;
}

// The one value that can stand for e in a fill region, when e is a plain read of an input
// tensor: its fill (wrappers, let variables, temporaries and pattern leaves, whose regions may
// hold other literals, give nothing).
std::optional<Scalar> only_fill(const ir::Expr& e, const std::map<std::string, const Tensor*>& inputs) {
    const auto* a = e->as<ir::Access>();
    if (!a) return std::nullopt;
    auto it = inputs.find(a->tensor);
    if (it == inputs.end() || it->second->format().leaf() != Leaf::Element) return std::nullopt;
    for (const auto& index : a->indices) {
        const auto* i = index->as<ir::Index>();
        if (!i || i->slice) return std::nullopt;
    }
    return it->second->fill();
}

// Whether a literal `v` at argument `at` of op lets the simplifier fold op by a rule that holds
// for finite other arguments only: op's annihilator when it is finite-only (0 * x), or an
// infinity for add and sub (inf + x). Any other literal folds, if at all, by rules that hold
// for every value (x + 0 is x for inf and NaN too), so the other argument's finiteness cannot
// change what the kernel computes.
bool finite_only_rule(const Operator& op, int at, const Scalar& v) {
    if (op.name == "add" || op.name == "sub") return std::isinf(v.as_double());
    if (!op.annihilator_finite_only) return false;
    if (!op.annihilator) return true;
    for (ValueType t : {ValueType::Float32, ValueType::Float64}) {
        auto z = op.annihilator(t, at);
        if (z && (z->first.as_double() == v.as_double() || (z->first.is_nan() && v.is_nan()))) return true;
    }
    return false;
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
        for (size_t k = 0; k < 2; ++k) {
            const ir::Expr& other = c->args[1 - k];
            if (!may_hold_fill(other, inputs)) continue;
            // A plain read whose fill no finite-only rule folds with: nothing to gain from a
            // scan (A + B with fill 0; A * x where A's fill is 1).
            auto fill = only_fill(other, inputs);
            if (fill && !finite_only_rule(*op, static_cast<int>(1 - k), *fill)) continue;
            tensors_in(c->args[k], out);
        }
    });
    // A temporary that copies inputs is finite when they are: scan them in its place.
    for (std::set<std::string> next = out; !next.empty();) {
        std::set<std::string> sources;
        for (const auto& name : next)
            if (!inputs.count(name))
                if (auto from = copied_from(program, name))
                    for (const auto& x : *from)
                        if (out.insert(x).second) sources.insert(x);
        next = std::move(sources);
    }
    return out;
}

std::optional<std::set<std::string>> copied_from(const ir::Program& program, const std::string& name) {
    std::set<std::string> from;
    bool plain = true;
    ir::visit(program.body, [&](const ir::Stmt& s) {
        if (const auto* w = s->as<ir::Swap>(); w && (w->first == name || w->second == name)) plain = false;
        const auto* a = s->as<ir::Assign>();
        if (!a || a->lhs->tensor != name) return;
        const auto* x = a->rhs->as<ir::Access>();
        if (!a->op.empty() || !x || x->tensor == name) plain = false;
        else from.insert(x->tensor);
    });
    if (!plain || from.empty()) return std::nullopt;
    return from;
}

} // namespace siskin::compiler
