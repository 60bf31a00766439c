#pragma once
// Parsing `def` and `case` forms, function bodies and special cases (grammar in
// docs/syntax.md, "Functions"). Reads through the program's token cursor, so definitions can
// start a program text and share its positions; expressions are the program's.
#include <memory>
#include <string_view>
#include <vector>

#include "functions/ast.hpp"
#include "ir/token_cursor.hpp"
#include "siskin/functions.hpp"

namespace siskin::functions {

/// True when the cursor is at `def NAME (` or `case NAME (` (so a tensor named def is no
/// definition).
bool at_definition(const ir::TokenCursor& in);

/// Parses the def and case forms from the cursor on (newlines and ';' between them skipped) up
/// to the first token that starts neither, and leaves the cursor there. Every case is added to
/// the def of its function, which must come earlier in the same text. `source` owns a copy of
/// the text.
std::vector<FunctionDef> parse_definitions(ir::TokenCursor& in,
                                           const std::shared_ptr<const Source>& source);

/// The statements of a body given on its own (FunctionDef::body).
std::shared_ptr<const Body> parse_body(std::string_view text, std::string_view source_name);
/// "gcd(x, 0) = abs(x)", with or without a leading `case` (FunctionDef::special_case).
std::shared_ptr<const Case> parse_case(std::string_view text, std::string_view source_name);

/// The set expression of a space property given on its own, "x & !y" (FunctionDef::space).
std::shared_ptr<const Space> parse_space(std::string_view text, std::string_view source_name);

} // namespace siskin::functions
