#include "passes/output_fill.hpp"

#include <optional>

#include "siskin/operators.hpp"

namespace siskin {

namespace {

using namespace ir;

// Evaluates an expression where every access reads its tensor's fill; nullopt when the value is
// not a constant (it mentions an index, or a tensor whose fill is unknown).
class FillEvaluator {
public:
    explicit FillEvaluator(const std::map<std::string, Scalar>& fills) : fills_(fills) {}

    std::optional<Scalar> eval(const Expr& e) const {
        switch (e->kind) {
        case ExprKind::Literal: return e->as<Literal>()->value;
        case ExprKind::Index: return std::nullopt;
        case ExprKind::Variable: {
            auto it = lets_.find(e->as<Variable>()->name);
            return it == lets_.end() ? std::nullopt : it->second;
        }
        case ExprKind::Access: {
            auto it = fills_.find(e->as<Access>()->tensor);
            if (it == fills_.end()) return std::nullopt;
            return it->second;
        }
        case ExprKind::Call: {
            const auto& call = *e->as<Call>();
            std::vector<Scalar> args;
            for (const auto& arg : call.args) {
                auto v = eval(arg);
                if (!v) return std::nullopt;
                args.push_back(*v);
            }
            const Operator* op = lookup_operator(call.op);
            if (!op) return std::nullopt;
            return op->apply(args);
        }
        }
        return std::nullopt;
    }

    std::map<std::string, std::optional<Scalar>> lets_;

private:
    const std::map<std::string, Scalar>& fills_;
};

struct Findings {
    std::vector<std::optional<Scalar>> assigned; // one per `=` assignment
    std::vector<std::string> reductions;        // operator of each `op=` assignment
};

void collect(const Stmt& s, const std::string& output, FillEvaluator& fe, Findings& found) {
    switch (s->kind) {
    case StmtKind::Block:
        for (const auto& c : s->as<Block>()->stmts) collect(c, output, fe, found);
        return;
    case StmtKind::For: return collect(s->as<For>()->body, output, fe, found);
    case StmtKind::If: {
        const auto& node = *s->as<If>();
        collect(node.then_body, output, fe, found);
        if (node.else_body) collect(node.else_body, output, fe, found);
        return;
    }
    case StmtKind::Let: {
        const auto& node = *s->as<Let>();
        auto saved = fe.lets_;
        fe.lets_[node.name] = fe.eval(node.value);
        collect(node.body, output, fe, found);
        fe.lets_ = std::move(saved);
        return;
    }
    case StmtKind::Assign: {
        const auto& a = *s->as<Assign>();
        if (a.lhs->tensor != output) return;
        if (a.op.empty()) found.assigned.push_back(fe.eval(a.rhs));
        else found.reductions.push_back(a.op);
        return;
    }
    }
}

} // namespace

Scalar infer_output_fill(const Program& program, const std::string& output, ValueType type,
                         const std::map<std::string, Scalar>& input_fills) {
    FillEvaluator fe(input_fills);
    Findings found;
    collect(program.body, output, fe, found);
    Scalar zero = Scalar::zero(type);
    if (!found.assigned.empty()) {
        const auto& first = found.assigned.front();
        for (const auto& v : found.assigned)
            if (!v || !first || !v->cast(type).same(first->cast(type))) return zero;
        return first->cast(type);
    }
    if (found.reductions.empty()) return zero;
    for (const auto& op : found.reductions)
        if (op != found.reductions.front()) return zero;
    const Operator* op = lookup_operator(found.reductions.front());
    if (!op) return zero;
    return op->reduction_identity(type).value_or(zero);
}

} // namespace siskin
