#pragma once
// Tokens of program text, and the source text that parse errors point into.
#include <string>
#include <string_view>
#include <vector>

#include "siskin/ir/program.hpp"

namespace siskin::ir {

/// Program text with its name, for error messages with a caret under the bad token.
struct SourceText {
    std::string_view text;
    std::string_view name;
    /// The text of 1-based line n, without its newline.
    std::string_view line(int n) const;
    /// Throws Error at `at` with the message, then the source line and a caret under the column.
    [[noreturn]] void fail(Position at, const std::string& message) const;
};

enum class TokenKind { Identifier, Integer, Float, Symbol, Newline, End };

struct Token {
    TokenKind kind;
    std::string_view text; // a view into the source text ("" for End, "\n" for Newline)
    Position pos;
    bool is(std::string_view symbol) const { return kind == TokenKind::Symbol && text == symbol; }
    bool is_word(std::string_view w) const { return kind == TokenKind::Identifier && text == w; }
};

/// How a token reads in "expected X, found Y": "']'", "'foo'", "number 3", "end of line".
std::string describe(const Token& t);

/// Splits text into tokens. Comments (`#` to end of line) are dropped; newlines inside () and []
/// are dropped too, so long expressions may span lines; consecutive newlines become one token.
std::vector<Token> lex(const SourceText& src);

} // namespace siskin::ir
