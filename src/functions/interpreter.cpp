// A tree-walking interpreter over the checked code. It evaluates exactly what the emitted C
// evaluates: the same operators (through their evaluate(), which the algebra tests tie to their
// C templates), the same conversions (Scalar::cast, mirrored by the C helpers), and the same
// laziness for &&, || and ifelse.
#include "functions/interpreter.hpp"

#include <array>
#include <optional>

#include <fmt/format.h>

#include "siskin/error.hpp"

namespace siskin::functions {

namespace {

std::string call_text(const Code& code, std::span<const Scalar> args) {
    std::string s = code.name + "(";
    for (size_t k = 0; k < args.size(); ++k)
        s += fmt::format("{}{} {}", k ? ", " : "", type_name(args[k].type()), args[k].to_string());
    return s + ")";
}

class Machine {
public:
    Machine(const Code& code, std::span<const Scalar> args)
        : code_(code), args_(args), slots_(code.slot_types.size()) {
        SISKIN_ASSERT(args.size() == code.params.size(), "interpret: wrong number of arguments");
        for (size_t k = 0; k < args.size(); ++k) {
            SISKIN_ASSERT(args[k].type() == code.params[k], "interpret: argument of wrong type");
            slots_[k] = args[k];
        }
    }

    Scalar body() {
        std::optional<Scalar> r = exec(code_.body);
        SISKIN_ASSERT(r.has_value(), "the checker let a path without return through");
        return *r;
    }

    Scalar eval(const CodeExpr& e) {
        switch (e.kind) {
        case CodeExprKind::Constant: return e.value;
        case CodeExprKind::Slot: return slots_[e.slot];
        case CodeExprKind::Call: {
            std::array<Scalar, 3> args;
            size_t n = e.args.size();
            SISKIN_ASSERT(n <= args.size(), "an operator call with more than 3 arguments");
            for (size_t k = 0; k < n; ++k) args[k] = eval(e.args[k]);
            return e.op->evaluate(std::span<const Scalar>(args.data(), n));
        }
        case CodeExprKind::And:
        case CodeExprKind::Or: {
            bool stop_at = e.kind == CodeExprKind::Or; // || stops at true, && at false
            if (truth(e, 0) == stop_at) return Scalar::of(stop_at).cast(e.type);
            return Scalar::of(truth(e, 1)).cast(e.type);
        }
        case CodeExprKind::Select: {
            size_t k = truth(e, 0) ? 1 : 2;
            return eval(e.args[k]).cast(e.operand_types[k]).cast(e.type);
        }
        case CodeExprKind::Convert: return eval(e.args[0]).cast(e.type);
        }
        SISKIN_ASSERT(false, "unknown expression kind");
    }

private:
    const Code& code_;
    std::span<const Scalar> args_;
    std::vector<Scalar> slots_;
    int64_t steps_ = 0;

    bool truth(const CodeExpr& e, size_t k) {
        return eval(e.args[k]).cast(e.operand_types[k]).as_bool();
    }

    std::optional<Scalar> exec(const std::vector<CodeStmt>& stmts) {
        for (const CodeStmt& s : stmts) {
            switch (s.kind) {
            case CodeStmtKind::Set: slots_[s.slot] = eval(s.expr); break;
            case CodeStmtKind::If: {
                auto r = exec(eval(s.expr).as_bool() ? s.body : s.else_body);
                if (r) return r;
                break;
            }
            case CodeStmtKind::While:
                while (eval(s.expr).as_bool()) {
                    if (++steps_ > code_.step_limit)
                        throw Error(fmt::format("{} did not finish within {} loop steps (a loop "
                                                "that never ends?); FunctionDef::step_limit "
                                                "raises the limit",
                                                call_text(code_, args_), code_.step_limit));
                    auto r = exec(s.body);
                    if (r) return r;
                }
                break;
            case CodeStmtKind::Return: return eval(s.expr);
            case CodeStmtKind::Block: {
                auto r = exec(s.body);
                if (r) return r;
                break;
            }
            }
        }
        return std::nullopt;
    }
};

bool matches(const CodeCase& c, std::span<const Scalar> args) {
    for (size_t k = 0; k < c.fixed.size(); ++k)
        if (c.fixed[k] && !args[k].same(*c.fixed[k])) return false;
    return true;
}

} // namespace

Scalar interpret(const Code& code, std::span<const Scalar> args, bool use_cases) {
    Machine m(code, args);
    if (use_cases)
        for (const CodeCase& c : code.cases)
            if (matches(c, args)) return m.eval(c.result);
    return m.body();
}

Scalar interpret_case(const Code& code, size_t k, std::span<const Scalar> args) {
    SISKIN_ASSERT(k < code.cases.size(), "interpret_case: no such case");
    Machine m(code, args);
    return m.eval(code.cases[k].result);
}

} // namespace siskin::functions
