#include "ir/lexer.hpp"

#include <cctype>

#include <fmt/format.h>

#include "siskin/error.hpp"

namespace siskin::ir {

std::string_view SourceText::line(int n) const {
    size_t start = 0;
    for (int k = 1; k < n; ++k) {
        size_t nl = text.find('\n', start);
        if (nl == std::string_view::npos) return {};
        start = nl + 1;
    }
    size_t end = text.find('\n', start);
    std::string_view l = text.substr(start, end == std::string_view::npos ? end : end - start);
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
    return l;
}

void SourceText::fail(Position at, const std::string& message) const {
    std::string_view l = line(at.line);
    // Copy tabs from the line so the caret lines up however tabs are shown.
    std::string caret;
    for (int k = 1; k < at.column; ++k)
        caret += k - 1 < static_cast<int>(l.size()) && l[k - 1] == '\t' ? '\t' : ' ';
    caret += '^';
    throw Error(fmt::format("{}\n  {}\n  {}", message, l, caret), Error::Kind::User,
                SourceLocation{std::string(name), at.line, at.column});
}

std::string describe(const Token& t) {
    switch (t.kind) {
    case TokenKind::End: return "end of input";
    case TokenKind::Newline: return "end of line";
    case TokenKind::Integer:
    case TokenKind::Float: return fmt::format("number {}", t.text);
    default: return fmt::format("'{}'", t.text);
    }
}

namespace {
bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

constexpr std::string_view kTwoCharSymbols[] = {"==", "!=", "<=", ">=", "<<", ">>", "&&",
                                                "||", "+=", "*=", "|=", "&=", "->"};
constexpr std::string_view kOneCharSymbols = "()[]{},;:=<>+-*/%&|^~!";
} // namespace

std::vector<Token> lex(const SourceText& src) {
    std::string_view s = src.text;
    std::vector<Token> out;
    size_t i = 0;
    int line = 1, line_start = 0, depth = 0;
    auto pos_of = [&](size_t at) { return Position{line, static_cast<int>(at) - line_start + 1}; };
    auto push = [&](TokenKind k, size_t from, size_t to) {
        out.push_back({k, s.substr(from, to - from), pos_of(from)});
    };
    while (i < s.size()) {
        char c = s[i];
        if (c == '\n') {
            if (depth == 0 && !out.empty() && out.back().kind != TokenKind::Newline)
                push(TokenKind::Newline, i, i + 1);
            ++i;
            ++line;
            line_start = static_cast<int>(i);
        } else if (c == ' ' || c == '\t' || c == '\r') {
            ++i;
        } else if (c == '#') {
            while (i < s.size() && s[i] != '\n') ++i;
        } else if (ident_start(c)) {
            size_t j = i;
            while (j < s.size() && ident_char(s[j])) ++j;
            push(TokenKind::Identifier, i, j);
            i = j;
        } else if (digit(c) || (c == '.' && i + 1 < s.size() && digit(s[i + 1]))) {
            size_t j = i;
            bool is_float = false;
            while (j < s.size() && digit(s[j])) ++j;
            if (j < s.size() && s[j] == '.') {
                if (j + 1 >= s.size() || !digit(s[j + 1]))
                    src.fail(pos_of(j + 1), "expected a digit after the decimal point");
                is_float = true;
                for (++j; j < s.size() && digit(s[j]);) ++j;
            }
            if (j < s.size() && (s[j] == 'e' || s[j] == 'E')) {
                size_t k = j + 1;
                if (k < s.size() && (s[k] == '+' || s[k] == '-')) ++k;
                if (k >= s.size() || !digit(s[k]))
                    src.fail(pos_of(k), "expected the digits of an exponent");
                is_float = true;
                for (j = k; j < s.size() && digit(s[j]);) ++j;
            }
            push(is_float ? TokenKind::Float : TokenKind::Integer, i, j);
            i = j;
        } else {
            size_t len = 0;
            for (auto two : kTwoCharSymbols)
                if (s.substr(i, 2) == two) len = 2;
            if (len == 0 && kOneCharSymbols.find(c) != std::string_view::npos) len = 1;
            if (len == 0) {
                bool printable = std::isprint(static_cast<unsigned char>(c));
                src.fail(pos_of(i), printable ? fmt::format("unexpected character '{}'", c)
                                              : fmt::format("unexpected byte 0x{:02x}",
                                                            static_cast<unsigned char>(c)));
            }
            if (c == '(' || c == '[') ++depth;
            if ((c == ')' || c == ']') && depth > 0) --depth;
            push(TokenKind::Symbol, i, i + len);
            i += len;
        }
    }
    // End of input sits just after the last token, so "found end of input" points somewhere
    // visible rather than at an empty line after a trailing newline.
    Position end = pos_of(s.size());
    for (auto it = out.rbegin(); it != out.rend(); ++it)
        if (it->kind != TokenKind::Newline) {
            end = {it->pos.line, it->pos.column + static_cast<int>(it->text.size())};
            break;
        }
    out.push_back({TokenKind::End, s.substr(s.size()), end});
    return out;
}

} // namespace siskin::ir
