#include "simplify/collapse.hpp"

#include <set>

#include "compiler/lower_ctx.hpp"
#include "simplify/simplify.hpp"
#include "siskin/operators.hpp"

namespace siskin::compiler {

namespace {

bool reads_any(const LExpr& e, const std::set<const TensorBinding*>& written) {
    bool found = false;
    visit_expr(e, [&](const LExpr& n) {
        if (const auto* c = n->as<CValue>(); c && c->source && written.count(c->source)) found = true;
        if (!n->as<CValue>() && !n->as<Literal>() && !n->as<Call>()) found = true; // not closed
    });
    return found;
}

} // namespace

std::optional<LStmt> collapse_loop(LowerCtx& ctx, const Extent& ext, const LStmt& body) {
    std::vector<const Assign*> assigns;
    if (const auto* a = body->as<Assign>()) {
        assigns.push_back(a);
    } else if (const auto* b = body->as<Block>()) {
        for (const auto& s : b->stmts) {
            const auto* a2 = s->as<Assign>();
            if (!a2) return std::nullopt;
            assigns.push_back(a2);
        }
    } else {
        return std::nullopt;
    }
    std::set<const TensorBinding*> written;
    for (const auto* a : assigns) {
        if (!a->lhs->as<Slot>()) return std::nullopt;
        written.insert(a->tensor);
    }
    Prover& pr = ctx.prover();
    cast::Expr n = c_sub(ext.hi, ext.lo);
    bool nonempty = pr.lt(ext.lo, ext.hi);
    if (!pr.le(ext.lo, ext.hi)) n = pr.max({n, c_int(0)});
    LExpr positive = Literal::make(Scalar::of(true));
    if (!nonempty) positive = CValue::make(cast::bin(cast::BinaryOp::Lt, ext.lo, ext.hi), ValueType::Bool);

    std::vector<LStmt> out;
    for (const auto* a : assigns) {
        if (reads_any(a->rhs, written)) return std::nullopt;
        if (a->op && a->op->name == "add") {
            ValueType t = a->rhs->type;
            LExpr count = CValue::make(t == ValueType::Int64 ? n : cast::Cast::make(cast::Type::of(t), n), t);
            if (auto k = c_constant(n)) count = Literal::make(Scalar::of(*k).cast(t));
            LExpr total = Call::make(find_operator("mul"), {count, a->rhs});
            out.push_back(std::make_shared<Assign>(a->tensor, a->lhs, a->op, total, false));
        } else if (!a->op || (a->op->idempotent && a->op->associative)) {
            LStmt once = std::make_shared<Assign>(a->tensor, a->lhs, a->op, a->rhs, a->single_write);
            out.push_back(nonempty ? once : std::make_shared<If>(positive, once, nullptr));
        } else {
            return std::nullopt;
        }
    }
    return simplify(ctx, make_block(std::move(out)));
}

} // namespace siskin::compiler
