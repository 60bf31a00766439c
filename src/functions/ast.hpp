#pragma once
// The parsed form of function bodies and special cases. Expressions are program IR
// expressions (ir::Literal, ir::Variable for every name, ir::Call for operators and for
// conversions such as int32(x)), so they print and compare like program text; statements are
// the function language's own.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "siskin/ir/program.hpp"
#include "siskin/value.hpp"

namespace siskin::functions {

using ir::Expr;
using ir::Position;

/// The text a body or case was parsed from, kept for the caret lines of check errors.
struct Source {
    std::string text;
    std::string name; // "prog.sk", "<function gcd>"
};

enum class StmtKind { Let, Assign, If, While, Return, Block };

struct Stmt;
using StmtPtr = std::shared_ptr<const Stmt>;

/// One statement; which fields are used depends on kind:
///   Let     `let name [: type] = value`      name, type (optional), value
///   Assign  `name = value`                   name, value
///   If      `if value { body } else { ... }` value, body, else_body (null, a Block or an If)
///   While   `while value { body }`           value, body
///   Return  `return value`                   value
///   Block   `{ stmts }`                      stmts, end (the position of the '}')
struct Stmt {
    StmtKind kind;
    Position pos;
    std::string name;
    std::optional<ValueType> type;
    Expr value;
    StmtPtr body, else_body;
    std::vector<StmtPtr> stmts;
    Position end;
};

/// A function body: its outermost block and the text it came from.
struct Body {
    StmtPtr block;
    std::shared_ptr<const Source> source;
};

/// `case f(x, 0) = abs(x)`: per argument a name bound to it or a constant it must equal.
struct Case {
    struct Pattern {
        std::optional<std::string> name;
        std::optional<Scalar> value; // as written: int64 0 for `0`
        Position pos;
    };
    std::string function;
    std::vector<Pattern> patterns;
    Expr result;
    Position pos;
    std::shared_ptr<const Source> source;
};

/// `space(x & !y)`: a declared iteration space, as parsed (an expression over the parameters;
/// checked and turned into a SpaceNode tree by check_space, iteration_space.hpp).
struct Space {
    Expr expr;
    std::shared_ptr<const Source> source;
};

} // namespace siskin::functions
