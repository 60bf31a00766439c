#pragma once
// A cursor over the tokens of one text. Program statements, the `def`, `case` and `fill` forms
// and function bodies all read one text through one cursor, so their errors point into the same
// source and their nesting counts against one limit.
#include <algorithm>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/lexer.hpp"

namespace siskin::ir {

/// How deep parentheses, brackets, braces, unary operators and statements may nest in any text.
/// It keeps recursion, in the parsers and in every pass over what they build, far from the
/// stack's end.
inline constexpr int kMaxNesting = 500;

class TokenCursor {
public:
    /// Lexes `src`, which must outlive the cursor.
    explicit TokenCursor(const SourceText& src) : src_(src), toks_(lex(src_)) {}
    TokenCursor(const TokenCursor&) = delete;
    TokenCursor& operator=(const TokenCursor&) = delete;

    const SourceText& source() const { return src_; }

    /// The token `k` ahead (the End token when that is past the end).
    const Token& peek(size_t k = 0) const { return toks_[std::min(at_ + k, toks_.size() - 1)]; }
    /// Moves past the current token, never past End, and returns it.
    const Token& next();
    /// Moves `k` tokens on (after a look-ahead with peek(k - 1)).
    void skip(size_t k);
    /// Moves past `symbol` when it comes next.
    bool accept(std::string_view symbol);
    /// Moves past `symbol`, which must come next: else "expected <what>, found ...".
    const Token& expect(std::string_view symbol, std::string_view what);
    /// Moves past a name: an identifier that is not one of the words `reserved` claims.
    const Token& expect_name(std::string_view what, bool (*reserved)(std::string_view));

    void skip_newlines();
    /// Skips newlines and ';', which separate statements and header forms alike.
    void skip_separators();
    bool at_separator() const { return peek().kind == TokenKind::Newline || peek().is(";"); }
    /// Moves past `word` when it comes next on this line or a later one (`else` may start the
    /// line after a '}'); else leaves the newlines in place.
    bool accept_word_after_newlines(std::string_view word);

    /// Runs `statement` for each statement up to the '}' matching `open`, which stays next, or
    /// to the end of the input when `open` is null. Statements are separated by newlines or ';'.
    void statements(const Token* open, const std::function<void()>& statement);

    [[noreturn]] void fail(Position at, const std::string& message) const {
        src_.fail(at, message);
    }
    /// "expected <what>, found <found>", at `found`.
    [[noreturn]] void fail_expected(std::string_view what, const Token& found) const;

    /// The levels of nesting open now.
    int depth() const { return depth_; }

    /// Counts one level of nesting for as long as it lives; one past kMaxNesting is an error.
    class Nested {
    public:
        Nested(TokenCursor& in, Position pos);
        ~Nested() { --in_.depth_; }
        Nested(const Nested&) = delete;
        Nested& operator=(const Nested&) = delete;

    private:
        TokenCursor& in_;
    };

private:
    const SourceText& src_;
    std::vector<Token> toks_;
    size_t at_ = 0;
    int depth_ = 0;
};

} // namespace siskin::ir
