#include "ir/token_cursor.hpp"

#include <fmt/format.h>

namespace siskin::ir {

const Token& TokenCursor::next() {
    const Token& t = toks_[at_];
    if (at_ + 1 < toks_.size()) ++at_;
    return t;
}

void TokenCursor::skip(size_t k) { at_ = std::min(at_ + k, toks_.size() - 1); }

bool TokenCursor::accept(std::string_view symbol) {
    if (!peek().is(symbol)) return false;
    next();
    return true;
}

const Token& TokenCursor::expect(std::string_view symbol, std::string_view what) {
    if (!peek().is(symbol)) fail_expected(what, peek());
    return next();
}

const Token& TokenCursor::expect_name(std::string_view what,
                                      bool (*reserved)(std::string_view)) {
    const Token& t = peek();
    if (t.kind != TokenKind::Identifier) fail_expected(what, t);
    if (reserved(t.text))
        fail(t.pos, fmt::format("expected {}, found the keyword '{}'", what, t.text));
    return next();
}

void TokenCursor::skip_newlines() {
    while (peek().kind == TokenKind::Newline) next();
}

void TokenCursor::skip_separators() {
    while (at_separator()) next();
}

bool TokenCursor::accept_word_after_newlines(std::string_view word) {
    size_t k = 0;
    while (peek(k).kind == TokenKind::Newline) ++k;
    if (!peek(k).is_word(word)) return false;
    skip(k + 1);
    return true;
}

void TokenCursor::statements(const Token* open, const std::function<void()>& statement) {
    auto at_close = [&] { return open ? peek().is("}") : peek().kind == TokenKind::End; };
    auto check_unclosed = [&] {
        if (open && peek().kind == TokenKind::End)
            fail_expected(fmt::format("'}}' to close the '{{' at {}:{}", open->pos.line,
                                      open->pos.column),
                          peek());
    };
    skip_separators();
    while (!at_close()) {
        check_unclosed();
        statement();
        if (at_separator()) {
            skip_separators();
        } else if (!at_close()) {
            check_unclosed();
            fail_expected("a newline or ';' after the statement", peek());
        }
    }
}

void TokenCursor::fail_expected(std::string_view what, const Token& found) const {
    fail(found.pos, fmt::format("expected {}, found {}", what, describe(found)));
}

TokenCursor::Nested::Nested(TokenCursor& in, Position pos) : in_(in) {
    if (++in_.depth_ > kMaxNesting)
        in_.fail(pos, fmt::format("the text nests more than {} levels deep here", kMaxNesting));
}

} // namespace siskin::ir
