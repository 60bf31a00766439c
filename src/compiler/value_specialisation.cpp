#include "compiler/value_specialisation.hpp"

#include <cmath>
#include <functional>
#include <set>

#include "lowering/tensor_binding.hpp"
#include "simplify/simplify.hpp"
#include "siskin/operators.hpp"

namespace siskin::compiler {

namespace {

// A test, and what the value is known to be where it holds.
struct Test {
    cast::Expr test;
    LExpr known;
};

// Whether fibre f may read its tensor's fill: some level from f's down is not dense.
bool may_read_fill(const Fiber& f) {
    if (f.write) return false;
    for (int l = f.level; l < f.tensor->num_levels(); ++l)
        if (!f.tensor->properties(l).implicit) return true;
    return false;
}

// v + F or v - F (either order) where F reads a float fill of +-inf: the fill regions fold to
// an infinity when v is neither NaN nor the infinity that would cancel (simplify_calls.cpp's
// infinity rule). The test `v > -inf` (or `v < inf`) is false for NaN too.
std::optional<Test> infinity_test(const Call& c, const CValue& v, const LExpr& other) {
    if (!is_float(v.type) || v.finite || (c.op->name != "add" && c.op->name != "sub")) return std::nullopt;
    const auto* f = other->as<Fiber>();
    if (!f || !may_read_fill(*f) || !is_float(f->tensor->fill.type())) return std::nullopt;
    double fill = f->tensor->fill.as_double();
    if (!std::isinf(fill)) return std::nullopt;
    double excluded = c.op->name == "add" ? -fill : fill;
    if (v.not_nan_nor == excluded) return std::nullopt;
    cast::Expr test = cast::bin(excluded < 0 ? cast::BinaryOp::Gt : cast::BinaryOp::Lt, v.expr,
                                cast::lit(Scalar::of(excluded)));
    LExpr known = std::make_shared<CValue>(v.expr, v.type, false, v.source, excluded);
    return Test{test, known};
}

// s[] * F where s is a 0-d tensor whose fill annihilates the operator: at its fill, the call is
// the annihilator's result without reading F (for finite-only annihilators, when F is known
// finite: 0 * inf is NaN).
std::optional<Test> fill_test(const Call& c, const CValue& v, const LExpr& other, int at) {
    if (!v.source || v.source->num_levels() != 0 || !c.op->annihilator) return std::nullopt;
    const Scalar& fill = v.source->fill;
    if (fill.is_nan() || other->as<Literal>()) return std::nullopt;
    auto z = c.op->annihilator(other->type, at);
    if (!z || !z->first.same_value(fill.cast(v.type))) return std::nullopt;
    if (c.op->annihilator_finite_only && !simplify::known_finite(other)) return std::nullopt;
    cast::Expr test = cast::bin(cast::BinaryOp::Eq, v.expr, cast::lit(fill.cast(v.type)));
    return Test{test, Literal::make(fill.cast(v.type))};
}

// v * F where F may read a fill that annihilates the operator for finite v only (0 * inf is
// NaN), and v is a float not known finite: a read of a tensor compiled as possibly not finite
// (a product chain's temporary T), or a product of known finite values, which may overflow
// (A[i,j] * B[j,k] in a fused chain). Without a test, each such v walks F's whole extent.
bool finite_test_pays(const Call& c, const LExpr& v, const LExpr& other, int at) {
    if (!is_float(v->type) || simplify::known_finite(v) || !c.op->annihilator_finite_only || !c.op->annihilator)
        return false;
    const auto* f = other->as<Fiber>();
    if (!f || !may_read_fill(*f)) return false;
    auto z = c.op->annihilator(v->type, 1 - at);
    return z && z->first.same_value(f->tensor->fill.cast(z->first.type()));
}

// The test `-inf < v && v < inf` (false for NaN), and v known finite where it holds.
Test finite_test(const cast::Expr& v, ValueType type, const TensorBinding* source) {
    const double inf = INFINITY;
    cast::Expr test = cast::bin(cast::BinaryOp::LogAnd, cast::bin(cast::BinaryOp::Gt, v, cast::lit(Scalar::of(-inf))),
                                cast::bin(cast::BinaryOp::Lt, v, cast::lit(Scalar::of(inf))));
    return Test{test, std::make_shared<CValue>(v, type, true, source)};
}

// Whether e is computed from values bound outside the loop only (C values the loop does not
// write, literals, operators on them), with at least one operator: such a value is bound to a
// local before its test.
bool invariant_call(const LExpr& e, const std::set<const TensorBinding*>& written) {
    std::function<bool(const LExpr&)> invariant = [&](const LExpr& n) {
        if (const auto* v = n->as<CValue>()) return !v->source || !written.count(v->source);
        if (n->as<Literal>()) return true;
        const auto* c = n->as<Call>();
        if (!c) return false;
        for (const auto& a : c->args)
            if (!invariant(a)) return false;
        return true;
    };
    return e->as<Call>() && invariant(e);
}

} // namespace

std::optional<ValueSpecialisation> value_specialisation(LowerCtx& ctx, const LStmt& loop) {
    if (ctx.tested_values.size() >= kMaxTestedValues) return std::nullopt;
    // A value read from a tensor the loop writes may change inside it: not tested.
    std::set<const TensorBinding*> written;
    visit_stmt(loop, [](const LExpr&) {}, [&](const LStmt& s) {
        if (const auto* a = s->as<Assign>()) written.insert(a->tensor);
    });
    std::optional<Test> found;
    const CValue* chosen = nullptr;
    LExpr outer_call; // an invariant operator call worth a finiteness test
    std::function<void(const LExpr&)> walk = [&](const LExpr& e) {
        if (found || outer_call) return;
        switch (e->kind) {
        case NodeKind::Call: {
            const auto& c = *e->as<Call>();
            if (c.args.size() == 2) {
                for (int k = 0; k < 2 && !found && !outer_call; ++k) {
                    const LExpr& arg = c.args[static_cast<size_t>(k)];
                    const LExpr& other = c.args[static_cast<size_t>(1 - k)];
                    if (invariant_call(arg, written) && finite_test_pays(c, arg, other, k)) {
                        outer_call = arg;
                        continue;
                    }
                    const auto* v = arg->as<CValue>();
                    if (!v || (v->source && written.count(v->source)) || ctx.tested_values.count(expr_key(v->expr)))
                        continue;
                    found = infinity_test(c, *v, other);
                    if (!found) found = fill_test(c, *v, other, k);
                    if (!found && finite_test_pays(c, arg, other, k)) found = finite_test(v->expr, v->type, v->source);
                    if (found) chosen = v;
                }
            }
            for (const auto& a : c.args) walk(a);
            return;
        }
        default: return; // Fiber subscripts, Select cases and Hoists: not tested
        }
    };
    map_stmt_shallow(loop, [&](const LExpr& e) {
        walk(e);
        return e;
    });
    if (outer_call) {
        // Computed once, into a local that both copies read; the copy where the test fails
        // reads it as not known finite, and does not test it again (tested_values).
        cast::Expr local = ctx.local("v", c_value(ctx, outer_call), outer_call->type);
        Test test = finite_test(local, outer_call->type, nullptr);
        LExpr unknown = CValue::make(local, outer_call->type, false);
        auto with = [&](const LExpr& value) {
            return replace_nodes(loop, [&](const Node* n) -> LExpr { return n == outer_call.get() ? value : nullptr; });
        };
        return ValueSpecialisation{expr_key(local), test.test, with(test.known), with(unknown)};
    }
    if (!found) return std::nullopt;
    std::string value = expr_key(chosen->expr);
    LStmt known = map_stmt(loop, [&](const LExpr& e) -> LExpr {
        const auto* v = e->as<CValue>();
        return v && expr_key(v->expr) == value ? found->known : e;
    });
    return ValueSpecialisation{value, found->test, known, loop};
}

} // namespace siskin::compiler
