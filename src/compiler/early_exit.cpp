#include "compiler/early_exit.hpp"

#include <set>
#include <vector>

#include "simplify/simplify.hpp"
#include "siskin/operators.hpp"
#include "compiler/vocabulary.hpp"

namespace siskin::compiler {

namespace {

// The value x holds from which `x = op(x, e)` never changes it, if op has one for these types.
std::optional<Scalar> absorbing_value(const Operator& op, ValueType out, const LExpr& rhs) {
    if (!op.annihilator) return std::nullopt;
    std::vector<ValueType> types{out, rhs->type};
    std::vector<ValueType> operands = op.operand_types ? op.operand_types(types) : types;
    if (operands.size() != 2) operands = types;
    // z at position 0 (where x is), for the type the other operand is computed in.
    auto z = op.annihilator(operands[1], 0);
    if (!z) return std::nullopt;
    if (op.annihilator_finite_only && !known_finite(rhs)) return std::nullopt;
    // x holds op's result converted to its own type; it must convert back to z.
    Scalar held = z->second.cast(out);
    if (held.is_nan() || !held.cast(z->first.type()).same_value(z->first)) return std::nullopt;
    if (!z->second.same_value(held)) return std::nullopt;
    return held;
}

} // namespace

std::optional<ExitCondition> early_exit_of(const For& loop) {
    std::vector<const Assign*> assigns;
    std::set<std::string> indices{loop.index};
    visit_stmt(loop.body, {}, [&](const LStmt& s) {
        if (const auto* a = s->as<Assign>()) assigns.push_back(a);
        if (const auto* f = s->as<For>()) indices.insert(f->index);
    });
    if (assigns.size() != 1 || !assigns.front()->op) return std::nullopt;
    const Assign& a = *assigns.front();

    // One element for the whole nest: no index of the nest, no variable bound in it.
    for (const auto& i : indices)
        if (mentions_index(a.lhs, i)) return std::nullopt;
    bool ok = true;
    visit_expr(a.lhs, [&](const LExpr& e) {
        if (e->as<Variable>()) ok = false;
    });
    // Nothing in the nest reads the output (a read could see the skipped updates).
    visit_stmt(loop.body, [&](const LExpr& e) {
        if (const auto* f = e->as<Fiber>(); f && f->tensor == a.tensor && !f->write) ok = false;
        if (const auto* u = e->as<Unfurled>(); u && u->tensor == a.tensor && !u->write) ok = false;
        if (const auto* c = e->as<CValue>(); c && c->source == a.tensor) ok = false;
    });
    if (!ok) return std::nullopt;

    if (auto value = absorbing_value(*a.op, a.lhs->type, a.rhs)) return ExitCondition{a.tensor, *value};
    if (keeps_first(*a.op) && a.op->identity)
        if (auto e = a.op->identity(a.lhs->type, 0); e && !e->is_nan())
            return ExitCondition{a.tensor, e->cast(a.lhs->type)};
    return std::nullopt;
}

// choose(x, y) is x unless x is 0 (src/algebra/logical_operators.cpp); the builtin is the only
// operator of that kind, so it is known by name.
bool keeps_first(const Operator& op) { return op.name == "choose"; }

cast::Expr exit_reached(const Operator& op, const ExitCondition& when, const cast::Expr& x) {
    return cast::bin(keeps_first(op) ? cast::BinaryOp::Ne : cast::BinaryOp::Eq, x, cast::lit(when.value));
}

} // namespace siskin::compiler
