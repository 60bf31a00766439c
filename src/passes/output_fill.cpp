#include "levels/level_format.hpp"
#include "passes/output_fill.hpp"

#include <optional>

#include <fmt/format.h>

#include "siskin/error.hpp"
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

struct Assigned {
    std::optional<Scalar> value; // on the input fills, when constant
    bool runs_on_fills;          // false under an `if` whose condition is false on the fills
};

struct Findings {
    std::vector<Assigned> assigned;      // one per `=` assignment
    std::vector<std::string> reductions; // operator of each `op=` assignment
};

// `runs` says whether the statement can run where every input holds its fill.
void collect(const Stmt& s, const std::string& output, FillEvaluator& fe, Findings& found,
             bool runs) {
    switch (s->kind) {
    case StmtKind::Block:
        for (const auto& c : s->as<Block>()->stmts) collect(c, output, fe, found, runs);
        return;
    case StmtKind::For: return collect(s->as<For>()->body, output, fe, found, runs);
    case StmtKind::If: {
        const auto& node = *s->as<If>();
        std::optional<Scalar> cond = fe.eval(node.cond);
        collect(node.then_body, output, fe, found, runs && (!cond || cond->as_bool()));
        if (node.else_body)
            collect(node.else_body, output, fe, found, runs && (!cond || !cond->as_bool()));
        return;
    }
    case StmtKind::Let: {
        const auto& node = *s->as<Let>();
        auto saved = fe.lets_;
        fe.lets_[node.name] = fe.eval(node.value);
        collect(node.body, output, fe, found, runs);
        fe.lets_ = std::move(saved);
        return;
    }
    case StmtKind::Assign: {
        const auto& a = *s->as<Assign>();
        if (a.lhs->tensor != output) return;
        if (a.op.empty()) found.assigned.push_back({fe.eval(a.rhs), runs});
        else found.reductions.push_back(a.op);
        return;
    }
    }
}

Findings find(const Program& program, const std::string& output,
              const std::map<std::string, Scalar>& input_fills) {
    FillEvaluator fe(input_fills);
    Findings found;
    collect(program.body, output, fe, found, true);
    return found;
}


} // namespace

Scalar infer_output_fill(const Program& program, const std::string& output, ValueType type,
                         const std::map<std::string, Scalar>& input_fills) {
    Findings found = find(program, output, input_fills);
    Scalar zero = Scalar::zero(type);
    if (!found.assigned.empty()) {
        const auto& first = found.assigned.front().value;
        for (const auto& a : found.assigned)
            if (!a.value || !first || !a.value->cast(type).same(first->cast(type))) return zero;
        return first->cast(type);
    }
    if (found.reductions.empty()) return zero;
    for (const auto& op : found.reductions)
        if (op != found.reductions.front()) return zero;
    const Operator* op = lookup_operator(found.reductions.front());
    if (!op) return zero;
    return op->reduction_identity(type).value_or(zero);
}

std::optional<Scalar> produced_fill(const Program& program, const std::string& output,
                                    ValueType type, const std::map<std::string, Scalar>& input_fills) {
    Findings found = find(program, output, input_fills);
    if (!found.reductions.empty()) return std::nullopt;
    std::optional<Scalar> value;
    for (const auto& a : found.assigned) {
        if (!a.runs_on_fills) continue;
        if (!a.value) return std::nullopt;
        Scalar v = a.value->cast(type);
        if (value && !value->same(v)) return std::nullopt;
        value = v;
    }
    return value;
}

void check_requested_fill(const Program& program, const std::string& output, ValueType type,
                          const Scalar& requested, const Format& format,
                          const std::map<std::string, Scalar>& input_fills) {
    if (levels::all_levels_implicit(format)) return;
    std::optional<Scalar> produced = produced_fill(program, output, type, input_fills);
    Scalar want = requested.cast(type);
    if (!produced || produced->same(want)) return;
    throw Error(fmt::format(
        "output {} cannot have fill {}: where every input holds its fill the program gives it "
        "{}, so the {} output would not be sparse there (use fill {}, leave the fill to be "
        "inferred, or ask for a dense output)",
        output, want.to_string(), produced->to_string(), format.to_string(),
        produced->to_string()));
}

} // namespace siskin
