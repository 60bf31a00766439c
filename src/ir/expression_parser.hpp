#pragma once
// The expression layer of every grammar in siskin's text: program statements, fill
// declarations, function bodies, cases and properties (docs/syntax.md, "Expressions"). One
// precedence table (ir/syntax.cpp), one literal grammar, one height limit; a grammar says only
// which words it reserves and what a name means in it.
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/token_cursor.hpp"
#include "siskin/ir/program.hpp"

namespace siskin::ir {

/// How tall an expression tree may grow: `a + a + ... + a` has no parentheses to count, and
/// every pass over the tree recurses once per level.
inline constexpr int kMaxExprHeight = 2000;

class ExpressionParser {
public:
    /// What the grammar around the expressions decides.
    struct Names {
        /// Words that cannot start an expression ("expected an expression, found 'for'").
        bool (*reserved)(std::string_view word);
        /// What a name means where no '(' (a call) follows it; called with the cursor past the
        /// name, perhaps at a '['. Programs read indices, variables and accesses, bodies
        /// variables.
        std::function<Expr(const Token& name)> read;
    };

    ExpressionParser(TokenCursor& in, Names names) : in_(in), names_(std::move(names)) {}
    ExpressionParser(const ExpressionParser&) = delete;
    ExpressionParser& operator=(const ExpressionParser&) = delete;

    /// One expression. It may continue on the next line after a binary operator.
    Expr expression();

    /// A constant where a grammar wants one (a fill, a property value, a case argument): an
    /// expression that reads as a literal, so `-inf`, `int8(3)` and `(2)` are constants, and
    /// `-(3)` and `1 + 2` are not. Anything else is an error at its start: "<refusal>, found
    /// <it>".
    Scalar constant(std::string_view refusal);

    /// The literal a number token spells (digits, `inf` or `nan`), negated when `negative`:
    /// int64 for digits alone, else float64.
    Expr number(const Token& t, bool negative, Position pos) const;

    /// Records the height of a node the grammar built over `children` itself (an access over
    /// its indices); past kMaxExprHeight, an error at `pos`.
    void count_height(const Expr& node, const std::vector<Expr>& children, Position pos);

private:
    TokenCursor& in_;
    Names names_;
    // Heights of the calls and accesses built so far; any other node is a leaf.
    std::unordered_map<const ExprNode*, int> height_;

    Expr binary(int min_precedence);
    Expr unary();
    Expr primary();
    Expr call(const Token& name);
    std::optional<Expr> typed_literal(const Token& type_name);
    Expr make_call(std::string op, std::vector<Expr> args, Position pos);
    int height_over(const std::vector<Expr>& children, Position pos) const;
};

} // namespace siskin::ir
