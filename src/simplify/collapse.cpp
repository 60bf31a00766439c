#include "simplify/collapse.hpp"

#include <set>

#include "lowering/lower_ctx.hpp"
#include "simplify/simplify.hpp"
#include "siskin/operators.hpp"

namespace siskin::simplify {

namespace {

bool reads_any(const LExpr& e, const std::set<const TensorBinding*>& written) {
    bool found = false;
    visit_expr(e, [&](const LExpr& n) {
        if (const auto* c = n->as<CValue>(); c && c->source && written.count(c->source)) found = true;
        if (!n->as<CValue>() && !n->as<Literal>() && !n->as<Call>()) found = true; // not closed
    });
    return found;
}

// Whether writing v once does what writing it n > 0 times does: op idempotent, v absorbed by
// itself (op(v, v) == v for a known v and an associative op, e.g. gcd at its fill), or a
// product of bools (an `and`).
bool once_is_enough(const Operator& op, const LExpr& v) {
    if (op.idempotent && op.associative) return true;
    if (op.name == "mul" && v->type == ValueType::Bool) return true;
    const auto* lit = v->as<Literal>();
    if (!op.associative || !lit) return false;
    std::vector<Scalar> args{lit->value, lit->value};
    return op.apply(args).same_value(lit->value);
}

// xor of n copies of v is v when n is odd and nothing when n is even.
bool cancels_in_pairs(const Operator& op, ValueType out) {
    return op.name == "bitwise_xor" || (op.name == "xor" && out == ValueType::Bool);
}

bool nondecreasing_in(const LExpr& e, const std::string& index) {
    if (!mentions_index(e, index)) return true;
    if (const auto* i = e->as<Index>()) return i->name == index;
    const auto* c = e->as<Call>();
    if (!c) return false;
    const std::string& name = c->op->name;
    if (name == "ifelse" && c->args.size() == 3)
        return !mentions_index(c->args[0], index) && nondecreasing_in(c->args[1], index) &&
               nondecreasing_in(c->args[2], index);
    if ((name == "min" || name == "max") && c->args.size() == 2)
        return nondecreasing_in(c->args[0], index) && nondecreasing_in(c->args[1], index);
    return false;
}

} // namespace

std::optional<LStmt> fix_monotone_index(const std::string& index, const Extent& ext, const LStmt& body) {
    std::vector<const Assign*> assigns;
    if (const auto* a = body->as<Assign>()) assigns.push_back(a);
    else if (const auto* b = body->as<Block>())
        for (const auto& s : b->stmts) assigns.push_back(s->as<Assign>());
    if (assigns.empty()) return std::nullopt;
    bool at_start = false, at_end = false;
    for (const auto* a : assigns) {
        if (!a || !a->op || mentions_index(a->lhs, index) || !nondecreasing_in(a->rhs, index))
            return std::nullopt;
        // Integer and bool results only: a float min would also have to mind NaN.
        if (is_float(a->rhs->type)) return std::nullopt;
        if (a->op->name == "min") at_start = true;
        else if (a->op->name == "max") at_end = true;
        else return std::nullopt;
    }
    if (at_start && at_end) return std::nullopt;
    cast::Expr where = at_start ? ext.lo : c_sub(ext.hi, c_int(1));
    return substitute_index(body, index, CValue::make(where, ValueType::Int64));
}

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
    // n as a value of type t.
    auto count_as = [&](ValueType t) -> LExpr {
        if (auto k = c_constant(n)) return Literal::make(Scalar::of(*k).cast(t));
        return CValue::make(t == ValueType::Int64 ? n : cast::Cast::make(cast::Type::of(t), n), t);
    };

    std::vector<LStmt> out;
    for (const auto* a : assigns) {
        if (reads_any(a->rhs, written)) return std::nullopt;
        const Operator* op = a->op;
        ValueType t = a->rhs->type;
        if (op && op->name == "add") {
            LExpr total = Call::make(find_operator("mul"), {count_as(t), a->rhs});
            LStmt add = std::make_shared<Assign>(a->tensor, a->lhs, a->op, total, false);
            // No iteration adds nothing, but 0 * v is NaN for an infinite or NaN float v: a
            // loop that may be empty (the rows of a 3 x 0 matrix, over its fill) keeps its test.
            out.push_back(nonempty || !is_float(t) ? add : std::make_shared<If>(positive, add, nullptr));
        } else if (!op || once_is_enough(*op, a->rhs)) {
            LStmt once = std::make_shared<Assign>(a->tensor, a->lhs, a->op, a->rhs, a->single_write);
            out.push_back(nonempty ? once : std::make_shared<If>(positive, once, nullptr));
        } else if (op->name == "mul") {
            // v^n; integer powers wrap like the n products (in 64 bits, whose low bits are those
            // of any narrower type), and uint64 keeps its own type (with int64 it would
            // promote to float64).
            ValueType e = t == ValueType::UInt64 ? ValueType::UInt64 : ValueType::Int64;
            LExpr power = Call::make(find_operator("pow"), {a->rhs, count_as(e)});
            out.push_back(std::make_shared<Assign>(a->tensor, a->lhs, a->op, power, false));
        } else if (cancels_in_pairs(*op, a->lhs->type)) {
            LStmt once = std::make_shared<Assign>(a->tensor, a->lhs, a->op, a->rhs, false);
            LExpr odd;
            if (auto k = c_constant(n)) odd = Literal::make(Scalar::of(*k % 2 == 1));
            else odd = CValue::make(cast::bin(cast::BinaryOp::Eq,
                                              cast::bin(cast::BinaryOp::BitAnd, n, c_int(1)), c_int(1)),
                                    ValueType::Bool);
            out.push_back(std::make_shared<If>(odd, once, nullptr));
        } else {
            return std::nullopt;
        }
    }
    return simplify_stmt(ctx, make_block(std::move(out)));
}

} // namespace siskin::simplify
