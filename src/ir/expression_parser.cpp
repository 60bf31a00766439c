#include "ir/expression_parser.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "ir/syntax.hpp"
#include "siskin/error.hpp"
#include "siskin/ir/text.hpp"

namespace siskin::ir {

namespace {

// Tokens that are a literal on their own; a '-' before one makes it negative.
bool is_number(const Token& t) {
    return t.kind == TokenKind::Integer || t.kind == TokenKind::Float || t.is_word("inf") ||
           t.is_word("nan");
}

// What a type name applied to one literal makes a typed literal of: `int8(-3)`, `bool(true)`.
bool is_literal(const Token& t) { return is_number(t) || t.is_word("true") || t.is_word("false"); }

} // namespace

Expr ExpressionParser::expression() {
    TokenCursor::Nested nested(in_, in_.peek().pos);
    return binary(1);
}

Scalar ExpressionParser::constant(std::string_view refusal) {
    const Token& first = in_.peek();
    Expr e = expression();
    if (const auto* literal = e->as<Literal>()) return literal->value;
    std::string read = print(e);
    in_.fail(first.pos, fmt::format("{}, found {}", refusal,
                                    read == first.text ? describe(first) : read));
}

Expr ExpressionParser::number(const Token& t, bool negative, Position pos) const {
    std::string text = (negative ? "-" : "") + std::string(t.text);
    ValueType type = t.kind == TokenKind::Integer ? ValueType::Int64 : ValueType::Float64;
    try {
        return Literal::make(Scalar::parse(text, type), pos);
    } catch (const Error& e) {
        in_.fail(pos, t.kind == TokenKind::Integer
                          ? fmt::format("integer {} does not fit int64 (write {}.0 for a float64, "
                                        "or uint64({}))",
                                        text, text, text)
                          : e.message());
    }
}

void ExpressionParser::count_height(const Expr& node, const std::vector<Expr>& children,
                                    Position pos) {
    height_[node.get()] = height_over(children, pos);
}

int ExpressionParser::height_over(const std::vector<Expr>& children, Position pos) const {
    int h = 1;
    for (const auto& c : children) {
        auto it = height_.find(c.get());
        h = std::max(h, (it == height_.end() ? 1 : it->second) + 1);
    }
    if (h > kMaxExprHeight)
        in_.fail(pos, fmt::format("the expression nests more than {} operations deep here; split "
                                  "it with let (or, in a program, a temporary tensor)",
                                  kMaxExprHeight));
    return h;
}

Expr ExpressionParser::make_call(std::string op, std::vector<Expr> args, Position pos) {
    int h = height_over(args, pos);
    Expr e = Call::make(std::move(op), std::move(args), pos);
    height_[e.get()] = h;
    return e;
}

// Precedence climbing over the table in syntax.cpp.
Expr ExpressionParser::binary(int min_precedence) {
    Expr lhs = unary();
    for (;;) {
        const Token& t = in_.peek();
        const syntax::BinarySymbol* b =
            t.kind == TokenKind::Symbol ? syntax::binary_by_symbol(t.text) : nullptr;
        if (!b || b->precedence < min_precedence) return lhs;
        in_.next();
        in_.skip_newlines();
        Expr rhs = binary(b->precedence + 1);
        lhs = make_call(std::string(b->op), {lhs, rhs}, t.pos);
    }
}

Expr ExpressionParser::unary() {
    const Token& t = in_.peek();
    const syntax::UnarySymbol* u =
        t.kind == TokenKind::Symbol ? syntax::unary_by_symbol(t.text) : nullptr;
    if (!u) return primary();
    TokenCursor::Nested nested(in_, t.pos);
    in_.next();
    // `-3` and `-inf` are negative literals, so printed negative constants read back equal.
    if (t.is("-") && is_number(in_.peek())) return number(in_.next(), true, t.pos);
    Expr operand = unary();
    return make_call(std::string(u->op), {operand}, t.pos);
}

Expr ExpressionParser::primary() {
    const Token& t = in_.peek();
    if (is_number(t)) return number(in_.next(), false, t.pos);
    if (t.is_word("true") || t.is_word("false")) {
        in_.next();
        return Literal::make(Scalar::of(t.text == "true"), t.pos);
    }
    if (t.is("(")) {
        in_.next();
        Expr e = expression();
        in_.expect(")", "')'");
        return e;
    }
    if (t.kind != TokenKind::Identifier || names_.reserved(t.text))
        in_.fail_expected("an expression", t);
    in_.next();
    if (in_.peek().is("(")) return call(t);
    return names_.read(t);
}

// `name(args)`, with the cursor at '('; a type name applied to a literal is a typed literal.
Expr ExpressionParser::call(const Token& name) {
    if (auto literal = typed_literal(name)) return *literal;
    if (syntax::is_protocol(name.text))
        in_.fail(name.pos, fmt::format("{}(...) is an access protocol: it may only wrap an index, "
                                       "as in A[{}(i)]",
                                       name.text, name.text));
    in_.next(); // '('
    std::vector<Expr> args;
    if (!in_.peek().is(")")) {
        do args.push_back(expression());
        while (in_.accept(","));
    }
    in_.expect(")", fmt::format("',' or ')' in the arguments of {}", name.text));
    return make_call(std::string(name.text), std::move(args), name.pos);
}

// `int8(-3)`: the type name, '(', an optional '-', one literal and ')'. Anything else after a
// type name, `int8(x)` or `int8((3))`, is a call (a conversion).
std::optional<Expr> ExpressionParser::typed_literal(const Token& type_name) {
    auto type = syntax::type_named(type_name.text);
    if (!type) return std::nullopt;
    size_t k = 1;
    bool negative = in_.peek(k).is("-");
    if (negative) ++k;
    const Token& literal = in_.peek(k);
    if (!is_literal(literal) || !in_.peek(k + 1).is(")")) return std::nullopt;
    in_.skip(k + 2);
    std::string text = (negative ? "-" : "") + std::string(literal.text);
    try {
        return Literal::make(Scalar::parse(text, *type), type_name.pos);
    } catch (const Error& e) {
        in_.fail(literal.pos, e.message());
    }
}

} // namespace siskin::ir
