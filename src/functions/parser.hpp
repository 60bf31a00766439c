#pragma once
// Parsing `def` and `case` forms, function bodies and special cases (grammar in
// docs/syntax.md, "Functions"). Works on the program lexer's tokens, so definitions can start a
// program text and share its positions.
#include <memory>
#include <string_view>
#include <vector>

#include "functions/ast.hpp"
#include "ir/lexer.hpp"
#include "siskin/functions.hpp"

namespace siskin::functions {

/// True when toks[at] starts `def NAME (` or `case NAME (` (so a tensor named def is no
/// definition).
bool at_definition(const std::vector<ir::Token>& toks, size_t at);

/// Parses the def and case forms from toks[at] on (newlines and ';' between them skipped) up
/// to the first token that starts neither, and moves `at` there. Every case is added to the def
/// of its function, which must come earlier in the same text. `source` owns a copy of the text.
std::vector<FunctionDef> parse_definitions(const ir::SourceText& src,
                                           const std::vector<ir::Token>& toks, size_t& at,
                                           const std::shared_ptr<const Source>& source);

/// The statements of a body given on its own (FunctionDef::body).
std::shared_ptr<const Body> parse_body(std::string_view text, std::string_view source_name);
/// "gcd(x, 0) = abs(x)", with or without a leading `case` (FunctionDef::special_case).
std::shared_ptr<const Case> parse_case(std::string_view text, std::string_view source_name);

/// The set expression of a space property given on its own, "x & !y" (FunctionDef::space).
std::shared_ptr<const Space> parse_space(std::string_view text, std::string_view source_name);

/// Words a function body cannot use as a variable name.
bool is_body_keyword(std::string_view word);

} // namespace siskin::functions
