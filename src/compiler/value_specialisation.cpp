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

} // namespace

std::optional<ValueSpecialisation> value_specialisation(const LowerCtx& ctx, const LStmt& loop) {
    if (ctx.tested_values.size() >= kMaxTestedValues) return std::nullopt;
    // A value read from a tensor the loop writes may change inside it: not tested.
    std::set<const TensorBinding*> written;
    visit_stmt(loop, [](const LExpr&) {}, [&](const LStmt& s) {
        if (const auto* a = s->as<Assign>()) written.insert(a->tensor);
    });
    std::optional<Test> found;
    const CValue* chosen = nullptr;
    std::function<void(const LExpr&)> walk = [&](const LExpr& e) {
        if (found) return;
        switch (e->kind) {
        case NodeKind::Call: {
            const auto& c = *e->as<Call>();
            if (c.args.size() == 2) {
                for (int k = 0; k < 2 && !found; ++k) {
                    const auto* v = c.args[static_cast<size_t>(k)]->as<CValue>();
                    if (!v || (v->source && written.count(v->source)) ||
                        ctx.tested_values.count(expr_key(v->expr)))
                        continue;
                    const LExpr& other = c.args[static_cast<size_t>(1 - k)];
                    found = infinity_test(c, *v, other);
                    if (!found) found = fill_test(c, *v, other, k);
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
    if (!found) return std::nullopt;
    std::string value = expr_key(chosen->expr);
    LStmt known = map_stmt(loop, [&](const LExpr& e) -> LExpr {
        const auto* v = e->as<CValue>();
        return v && expr_key(v->expr) == value ? found->known : e;
    });
    return ValueSpecialisation{value, found->test, known};
}

} // namespace siskin::compiler
