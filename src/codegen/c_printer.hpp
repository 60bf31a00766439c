#pragma once
// Prints the C AST as C11 text: 4-space indentation, braces on every body, and only the
// parentheses that C's precedence and associativity need, plus the few that gcc and clang ask
// for under -Wparentheses: a && b inside ||, + or - inside a shift, comparisons inside
// comparisons, a different operator inside &, ^, |, !x inside either, and an arithmetic or
// bitwise condition of ?:. So a - (b - c), a / (b * c), -(-x) and (a < b) == c come out exactly
// so, and a + b * c has no parentheses.
#include <string>
#include <string_view>
#include <vector>

#include "codegen/c_ast.hpp"

namespace siskin::cast {

std::string print(const Expr& e);
/// A statement at an indentation depth (4 spaces per level), ending with a newline.
std::string print(const Stmt& s, int depth = 0);
/// A function definition, ending with a newline.
std::string print(const Function& f);

/// The C spelling of a type: `const double *restrict`.
std::string print(const Type& t);
/// A declaration of `name` with type t: `const double *restrict x`, `int64_t n`.
std::string print_declarator(const Type& t, std::string_view name);

/// A whole translation unit: the prelude include, then the functions, a blank line apart.
std::string print_unit(const std::vector<Function>& functions);

} // namespace siskin::cast
