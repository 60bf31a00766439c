#pragma once
// The checked form of a function: every name resolved to a slot, every operator resolved to
// its registry entry, every expression typed and every literal converted to the type it is used
// at. The interpreter and the C emitter both run on this form, so they cannot disagree on
// typing.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "siskin/functions.hpp"
#include "siskin/operators.hpp"
#include "siskin/value.hpp"

namespace siskin::functions {

enum class CodeExprKind {
    Constant, // value
    Slot,     // slot
    Call,     // op on args (op converts them to operand_types itself)
    And,      // args[0] && args[1], the right side only when needed (as C's && does)
    Or,       // args[0] || args[1]
    Select,   // args[0] ? args[1] : args[2], only the chosen side (ifelse, as C's ?:)
    Convert,  // args[0] converted to type, with Scalar::cast semantics
};

struct CodeExpr {
    CodeExprKind kind;
    ValueType type; // of the result
    Scalar value;
    int slot = -1;
    const Operator* op = nullptr;             // Call, And, Or, Select
    std::vector<ValueType> operand_types;     // And, Or, Select: what args convert to
    std::vector<CodeExpr> args;
};

enum class CodeStmtKind { Set, If, While, Return, Block };

struct CodeStmt {
    CodeStmtKind kind;
    int slot = -1;       // Set: the variable (declared here when declares)
    bool declares = false;
    CodeExpr expr;       // Set: the value (already of the slot's type); If/While: condition;
                         // Return: the value (of the result type)
    std::vector<CodeStmt> body, else_body;
};

struct CodeCase {
    std::vector<std::optional<Scalar>> fixed; // per argument, in the parameter's type
    CodeExpr result;                          // of the result type, over the argument slots
    std::string text;                         // "gcd(x, 0) = abs(x)", for reports
};

/// A declared iteration space, checked: atoms "parameter `param` differs from `value`" (the
/// value in the parameter's type) combined by complement, intersection, union and symmetric
/// difference. iteration_space.hpp evaluates it.
struct SpaceNode {
    enum class Kind { Differs, Not, And, Or, Xor };
    Kind kind = Kind::Differs;
    int param = -1;
    Scalar value;
    std::vector<SpaceNode> args;
};

struct Code {
    std::string name;
    std::vector<ValueType> params;   // slots 0..n-1
    ValueType result;
    std::vector<ValueType> slot_types;
    std::vector<std::string> slot_names; // as written
    std::vector<CodeStmt> body;
    std::vector<CodeCase> cases;
    std::optional<SpaceNode> space; // FunctionDef::space, when declared
    std::string space_text;         // as printed, for reports
    int64_t step_limit = 0;
    /// The user-defined operators the body and cases call, in order of first use.
    std::vector<const Operator*> calls;
};

/// Checks def (types, names, every path returns, properties, cases) and builds its code.
/// Throws Error with line:column and a caret line in the text the definition came from.
std::shared_ptr<const Code> compile(const FunctionDef& def);

} // namespace siskin::functions
