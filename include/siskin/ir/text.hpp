#pragma once
// Program text: parsing (einsum statements and explicit loop programs) and printing.
// The syntax is documented in docs/syntax.md; print() output parses back to an equal program.
#include <map>
#include <string>
#include <string_view>

#include "siskin/ir/program.hpp"

namespace siskin::ir {

/// Parses program text. Throws Error with line, column and a caret line under the bad token.
Program parse_program(std::string_view text, std::string_view source_name = "<program>");
/// Parses a single expression (used by tests and the CLI).
Expr parse_expr(std::string_view text);

std::string print(const Program& p);
std::string print(const Stmt& s);
std::string print(const Expr& e);
/// `fill A = inf`, as the parser reads it.
std::string print(const FillDecl& f);

} // namespace siskin::ir
