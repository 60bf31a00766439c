#include "levels/level_format.hpp"
#include "passes/output_fill.hpp"

#include <optional>
#include <set>

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
    // Writes every element of the output wherever the program runs: not under an `if` whose
    // condition depends on the data or an index, and with one whole-extent loop index per
    // subscript. A write that does not cover the output leaves the other elements at the
    // output's initial value.
    bool covers;
};

struct Findings {
    std::vector<Assigned> assigned;      // one per `=` assignment
    std::vector<std::string> reductions; // operator of each `op=` assignment
};

// Where a statement sits: whether it can run where every input holds its fill, whether it runs
// wherever its loops run (no data- or index-dependent `if` around it), and the indices of the
// loops around it that cover their whole extent.
struct Context {
    bool runs = true;
    bool always = true;
    std::set<std::string> whole_loops;
};

bool covers_output(const Access& lhs, const Context& where) {
    if (!where.always) return false;
    std::set<std::string> seen;
    for (const auto& e : lhs.indices) {
        const auto* i = e->as<Index>();
        if (!i || i->slice || !where.whole_loops.count(i->name) || !seen.insert(i->name).second)
            return false;
    }
    return true;
}

// `fe` evaluates on the input fills; `pure` knows no tensor, so what it evaluates holds
// whatever the data.
void collect(const Stmt& s, const std::string& output, FillEvaluator& fe, FillEvaluator& pure,
             Findings& found, const Context& where) {
    switch (s->kind) {
    case StmtKind::Block:
        for (const auto& c : s->as<Block>()->stmts) collect(c, output, fe, pure, found, where);
        return;
    case StmtKind::For: {
        const auto& loop = *s->as<For>();
        Context inner = where;
        if (loop.lo) inner.whole_loops.erase(loop.index);
        else inner.whole_loops.insert(loop.index);
        return collect(loop.body, output, fe, pure, found, inner);
    }
    case StmtKind::If: {
        const auto& node = *s->as<If>();
        std::optional<Scalar> cond = fe.eval(node.cond);
        std::optional<Scalar> fixed = pure.eval(node.cond);
        Context then_where = where, else_where = where;
        then_where.runs = where.runs && (!cond || cond->as_bool());
        else_where.runs = where.runs && (!cond || !cond->as_bool());
        then_where.always = where.always && fixed && fixed->as_bool();
        else_where.always = where.always && fixed && !fixed->as_bool();
        collect(node.then_body, output, fe, pure, found, then_where);
        if (node.else_body) collect(node.else_body, output, fe, pure, found, else_where);
        return;
    }
    case StmtKind::Let: {
        const auto& node = *s->as<Let>();
        auto saved = fe.lets_;
        auto saved_pure = pure.lets_;
        fe.lets_[node.name] = fe.eval(node.value);
        pure.lets_[node.name] = pure.eval(node.value);
        collect(node.body, output, fe, pure, found, where);
        fe.lets_ = std::move(saved);
        pure.lets_ = std::move(saved_pure);
        return;
    }
    case StmtKind::Assign: {
        const auto& a = *s->as<Assign>();
        if (a.lhs->tensor != output) return;
        if (a.op.empty())
            found.assigned.push_back({fe.eval(a.rhs), where.runs, covers_output(*a.lhs, where)});
        else found.reductions.push_back(a.op);
        return;
    }
    case StmtKind::While: {
        // The body may run no time at all: its writes cover nothing for sure.
        Context inner = where;
        inner.always = false;
        return collect(s->as<While>()->body, output, fe, pure, found, inner);
    }
    case StmtKind::Swap: return; // exchanges two outputs of one fill (resolve_program checks)
    }
}

Findings find(const Program& program, const std::string& output,
              const std::map<std::string, Scalar>& input_fills) {
    static const std::map<std::string, Scalar> no_fills;
    FillEvaluator fe(input_fills), pure(no_fills);
    Findings found;
    collect(program.body, output, fe, pure, found, Context{});
    return found;
}


} // namespace

Scalar infer_output_fill(const Program& program, const std::string& output, ValueType type,
                         const std::map<std::string, Scalar>& input_fills) {
    Findings found = find(program, output, input_fills);
    Scalar zero = Scalar::zero(type);
    if (!found.assigned.empty()) {
        // The output starts at its fill, and an element no write reaches keeps it: a fill taken
        // from a write that may not happen (`if c[i] { y[i] = 5 }`) would put the written value
        // where the condition is false. Only when some write covers the output does the value
        // the writes give on the fills decide it; else the output starts at zero.
        bool covered = false;
        std::optional<Scalar> value;
        for (const auto& a : found.assigned) {
            covered = covered || a.covers;
            if (!a.runs_on_fills) continue;
            if (!a.value) return zero;
            Scalar v = a.value->cast(type);
            if (value && !value->same(v)) return zero;
            value = v;
        }
        return covered && value ? *value : zero;
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
