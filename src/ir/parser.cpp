// Recursive-descent parser for program text (grammar in docs/syntax.md). Einsum statements and
// explicit loop programs share one grammar: an assignment adds loops for the indices that no
// enclosing `for` binds, so `y[i] += A[i,j] * x[j]` and `for i, j { y[i] += A[i,j] * x[j] }`
// parse to the same IR.
#include <algorithm>
#include <cctype>
#include <optional>
#include <unordered_map>

#include <fmt/format.h>

#include "functions/parser.hpp"
#include "ir/arg_reduction.hpp"
#include "ir/lexer.hpp"
#include "ir/syntax.hpp"
#include "siskin/error.hpp"
#include "siskin/functions.hpp"
#include "siskin/ir/text.hpp"
#include "siskin/ir/visit.hpp"

namespace siskin::ir {

namespace {

// Limits that keep recursion (here, and in every pass over the IR) far from the stack's end.
constexpr int kMaxNesting = 500;       // parentheses, brackets, braces and unary operators
constexpr int kMaxExprDepth = 2000;    // height of an expression tree (`a + a + ... + a`)

constexpr std::string_view kStatementHint =
    "a statement (an assignment such as y[i] = x[i], for, if, let or '{')";
constexpr std::string_view kAssignHint =
    "an assignment operator (=, +=, *=, min=, max=, |=, &= or <<op>>=)";

std::optional<ValueType> type_named(std::string_view word) {
    for (int t = 0; t <= static_cast<int>(ValueType::Float64); ++t)
        if (type_name(static_cast<ValueType>(t)) == word) return static_cast<ValueType>(t);
    return std::nullopt;
}

bool is_literal_token(const Token& t) {
    return t.kind == TokenKind::Integer || t.kind == TokenKind::Float || t.is_word("inf") ||
           t.is_word("nan") || t.is_word("true") || t.is_word("false");
}

class Parser {
public:
    explicit Parser(const SourceText& src) : src_(src), toks_(lex(src)) {}

    Program program() {
        Program p;
        header(p);
        Position start = peek().pos;
        std::vector<Stmt> stmts = statements(nullptr);
        p.body = stmts.size() == 1 ? stmts[0] : Block::make(std::move(stmts), start);
        check_fill_targets(p);
        return p;
    }

    Expr single_expression() {
        Expr e = expr();
        skip_newlines();
        if (peek().kind != TokenKind::End) fail_expected("end of the expression", peek());
        return e;
    }

private:
    struct Binding {
        std::string name;
        bool is_let;
    };

    const SourceText& src_;
    std::vector<Token> toks_;
    size_t at_ = 0;
    std::vector<Binding> scope_; // innermost last
    int nesting_ = 0;
    bool spliced_ = false; // the last statement() stands for the statements of its Block
    std::unordered_map<const ExprNode*, int> height_; // of the calls and accesses built so far

    // Counts one level of parser recursion for as long as it lives.
    struct Nested {
        Parser& p;
        Nested(Parser& parser, Position pos) : p(parser) {
            if (++p.nesting_ > kMaxNesting)
                p.src_.fail(pos, fmt::format("the program nests more than {} levels deep here",
                                             kMaxNesting));
        }
        ~Nested() { --p.nesting_; }
        Nested(const Nested&) = delete;
        Nested& operator=(const Nested&) = delete;
    };

    int height(const Expr& e) const {
        auto it = height_.find(e.get());
        return it == height_.end() ? 1 : it->second;
    }
    // Checks the height of a node over `children` before it is built.
    int height_over(const std::vector<Expr>& children, Position pos) const {
        int h = 1;
        for (const auto& c : children) h = std::max(h, height(c) + 1);
        if (h > kMaxExprDepth)
            src_.fail(pos, fmt::format("the expression nests more than {} operations deep here; "
                                       "split it with let or a temporary tensor",
                                       kMaxExprDepth));
        return h;
    }
    Expr make_call(std::string op, std::vector<Expr> args, Position pos) {
        int h = height_over(args, pos);
        Expr e = Call::make(std::move(op), std::move(args), pos);
        height_[e.get()] = h;
        return e;
    }

    const Token& peek(size_t k = 0) const { return toks_[std::min(at_ + k, toks_.size() - 1)]; }
    const Token& next() {
        const Token& t = toks_[at_];
        if (at_ + 1 < toks_.size()) ++at_;
        return t;
    }
    [[noreturn]] void fail_expected(std::string_view what, const Token& found) const {
        src_.fail(found.pos, fmt::format("expected {}, found {}", what, describe(found)));
    }
    bool accept(std::string_view symbol) {
        if (!peek().is(symbol)) return false;
        next();
        return true;
    }
    const Token& expect(std::string_view symbol, std::string_view what) {
        if (!peek().is(symbol)) fail_expected(what, peek());
        return next();
    }
    const Token& expect_name(std::string_view what) {
        const Token& t = peek();
        if (t.kind != TokenKind::Identifier) fail_expected(what, t);
        if (syntax::is_keyword(t.text))
            src_.fail(t.pos, fmt::format("expected {}, found the keyword '{}'", what, t.text));
        return next();
    }
    void skip_newlines() {
        while (peek().kind == TokenKind::Newline) next();
    }
    bool loop_bound(std::string_view name) const {
        for (auto it = scope_.rbegin(); it != scope_.rend(); ++it)
            if (it->name == name) return !it->is_let;
        return false;
    }
    bool let_bound(std::string_view name) const {
        for (auto it = scope_.rbegin(); it != scope_.rend(); ++it)
            if (it->name == name) return it->is_let;
        return false;
    }

    // ---- the header: function definitions and fill declarations ----

    void skip_separators() {
        while (peek().kind == TokenKind::Newline || peek().is(";")) next();
    }

    // `fill A = ...`: `fill` then a name. A statement never starts so (an assignment has '['
    // after its tensor's name), so `fill` stays free as a tensor name.
    bool at_fill_declaration(size_t k) const {
        return peek(k).is_word("fill") && peek(k + 1).kind == TokenKind::Identifier;
    }

    // The `def`, `case` and `fill` forms before the first statement, in any order; functions
    // are defined (registered) in order so that the statements, and later definitions, can
    // call them.
    void header(Program& p) {
        for (;;) {
            skip_separators();
            if (at_fill_declaration(0)) {
                p.fills.push_back(fill_declaration(p.fills));
                const Token& t = peek();
                if (t.kind != TokenKind::Newline && !t.is(";") && t.kind != TokenKind::End)
                    fail_expected("a newline after the fill declaration", t);
            } else if (functions::at_definition(toks_, at_)) {
                definitions(p.functions);
            } else {
                return;
            }
        }
    }

    // One run of `def` and `case` forms (functions/parser.cpp parses them).
    void definitions(std::vector<std::shared_ptr<const FunctionDef>>& out) {
        const Token& first = peek();
        // The functions parser attaches a case to a def of its own run; a case split from its
        // def by a fill line would otherwise read as a case of an undefined function.
        if (first.is_word("case"))
            for (const auto& d : out)
                if (d->name() == peek(1).text)
                    src_.fail(first.pos, fmt::format("a case follows the def of its function "
                                                     "directly: move the fill declarations "
                                                     "between def {} and this case elsewhere",
                                                     d->name()));
        auto source = std::make_shared<functions::Source>(
            functions::Source{std::string(src_.text), std::string(src_.name)});
        std::vector<FunctionDef> defs = functions::parse_definitions(src_, toks_, at_, source);
        for (FunctionDef& def : defs) {
            for (const auto& other : out)
                if (other->name() == def.name())
                    src_.fail({static_cast<int>(def.where()->line),
                               static_cast<int>(def.where()->column)},
                              fmt::format("function {} is defined twice in this text (first at "
                                          "{}:{})",
                                          def.name(), other->where()->line,
                                          other->where()->column));
            define_function(def);
            out.push_back(std::make_shared<const FunctionDef>(std::move(def)));
        }
    }

    // `fill A = constant`.
    FillDecl fill_declaration(const std::vector<FillDecl>& earlier) {
        Position pos = next().pos; // fill
        const Token& name = expect_name("a tensor name after fill (as in fill A = inf)");
        for (const auto& f : earlier)
            if (f.tensor == name.text)
                src_.fail(name.pos, fmt::format("the fill of {} is declared twice (first at {}:{})",
                                                name.text, f.pos.line, f.pos.column));
        expect("=", fmt::format("'=' after fill {} (as in fill {} = inf)", name.text, name.text));
        Position at = peek().pos;
        Expr value = expr();
        const auto* literal = value->as<Literal>();
        if (!literal)
            src_.fail(at, fmt::format("the fill of {} must be a constant: a number, inf, "
                                              "nan, true, false, or a typed literal such as "
                                              "int8(3), as in fill {} = -inf",
                                              name.text, name.text));
        return FillDecl{std::string(name.text), literal->value, pos};
    }

    // Every declared fill belongs to a tensor the statements read or write.
    void check_fill_targets(const Program& p) const {
        if (p.fills.empty()) return;
        std::vector<std::string> used = p.inputs(), outs = p.outputs();
        used.insert(used.end(), outs.begin(), outs.end());
        for (const auto& f : p.fills)
            if (std::find(used.begin(), used.end(), f.tensor) == used.end())
                src_.fail(f.pos, fmt::format("fill declared for {}, which the program does not "
                                             "read or write",
                                             f.tensor));
    }

    // ---- statements ----

    // Statements separated by newlines or ';', up to `open`'s matching '}' or the end of input.
    std::vector<Stmt> statements(const Token* open) {
        std::vector<Stmt> out;
        auto skip_separators = [&] {
            while (peek().kind == TokenKind::Newline || peek().is(";")) next();
        };
        auto at_close = [&] {
            return open ? peek().is("}") : peek().kind == TokenKind::End;
        };
        auto check_unclosed = [&] {
            if (open && peek().kind == TokenKind::End)
                fail_expected(fmt::format("'}}' to close the '{{' at {}:{}", open->pos.line,
                                          open->pos.column),
                              peek());
        };
        skip_separators();
        while (!at_close()) {
            check_unclosed();
            Stmt s = statement();
            if (spliced_) { // one statement written, several parsed (argmin=)
                spliced_ = false;
                for (const auto& c : s->as<Block>()->stmts) out.push_back(c);
            } else {
                out.push_back(s);
            }
            if (peek().kind == TokenKind::Newline || peek().is(";")) {
                skip_separators();
            } else if (!at_close()) {
                check_unclosed();
                fail_expected("a newline or ';' after the statement", peek());
            }
        }
        return out;
    }

    // `{ statements }`: one statement stands for itself, none or several make a Block.
    Stmt body(std::string_view of_what) {
        skip_newlines();
        const Token& open = expect("{", fmt::format("'{{' to start the body of the {}", of_what));
        std::vector<Stmt> stmts = statements(&open);
        next(); // '}'
        return stmts.size() == 1 ? stmts[0] : Block::make(std::move(stmts), open.pos);
    }

    Stmt statement() {
        const Token& t = peek();
        Nested nested(*this, t.pos);
        if (functions::at_definition(toks_, at_) || at_fill_declaration(0))
            src_.fail(t.pos, fmt::format("'{}' forms come before the first statement of the "
                                         "program",
                                         t.text));
        if (t.is_word("for")) return for_statement();
        if (t.is_word("if")) return if_statement();
        if (t.is_word("let")) return let_statement();
        if (t.is("{")) {
            const Token& open = next();
            std::vector<Stmt> stmts = statements(&open);
            next(); // '}'
            return Block::make(std::move(stmts), open.pos);
        }
        if (t.kind == TokenKind::Identifier && !syntax::is_keyword(t.text))
            return assignment();
        fail_expected(kStatementHint, t);
    }

    // `for i, j in lo:hi, k { body }` is sugar for nested loops.
    Stmt for_statement() {
        Position for_pos = next().pos;
        struct Head {
            std::string index;
            Expr lo, hi;
            Position pos;
        };
        std::vector<Head> heads;
        size_t scope_size = scope_.size();
        do {
            skip_newlines();
            const Token& name = expect_name("a loop index name");
            Head h{std::string(name.text), nullptr, nullptr, heads.empty() ? for_pos : name.pos};
            if (peek().is_word("in")) {
                next();
                h.lo = expr();
                expect(":", fmt::format("':' between the bounds of {} (as in {} in 0:n)",
                                        h.index, h.index));
                h.hi = expr();
            }
            // Later bounds may use earlier indices: `for i, j in 0:i`.
            scope_.push_back({h.index, false});
            heads.push_back(std::move(h));
        } while (accept(","));
        Stmt s = body("loop");
        scope_.resize(scope_size);
        for (auto it = heads.rbegin(); it != heads.rend(); ++it)
            s = For::make(it->index, s, it->lo, it->hi, it->pos);
        return s;
    }

    Stmt if_statement() {
        Position pos = next().pos;
        Expr cond = expr();
        Stmt then_body = body("if");
        Stmt else_body;
        size_t k = 0;
        while (peek(k).kind == TokenKind::Newline) ++k;
        if (peek(k).is_word("else")) {
            at_ += k;
            next();
            else_body = peek().is_word("if") ? if_statement() : body("else");
        }
        return If::make(cond, then_body, else_body, pos);
    }

    Stmt let_statement() {
        Position pos = next().pos;
        const Token& name = expect_name("a variable name after let");
        expect("=", fmt::format("'=' after let {}", name.text));
        Expr value = expr(); // the variable is not visible in its own value
        scope_.push_back({std::string(name.text), true});
        Stmt b = body("let");
        scope_.pop_back();
        return Let::make(std::string(name.text), value, b, pos);
    }

    Stmt assignment() {
        const Token& name = next();
        if (!peek().is("["))
            fail_expected(fmt::format("'[' after the tensor name {} (write {}[] for a scalar)",
                                      name.text, name.text),
                          peek());
        auto lhs = access(name);
        if (peek().is(",")) return arg_assignment(name, lhs);
        std::string op = assign_operator();
        skip_newlines();
        Expr rhs = expr();
        return with_implied_loops(Assign::make(lhs, op, rhs, name.pos), lhs, rhs);
    }

    // Implied loops: the output's indices first, then the others in order of appearance.
    Stmt with_implied_loops(Stmt s, const std::shared_ptr<const Access>& lhs, const Expr& rhs) {
        std::vector<std::pair<std::string, Position>> free;
        auto collect = [&](const Expr& e) {
            if (auto i = e->as<Index>()) {
                bool seen = std::any_of(free.begin(), free.end(),
                                        [&](const auto& f) { return f.first == i->name; });
                if (!seen && !loop_bound(i->name)) free.emplace_back(i->name, i->pos);
            }
        };
        visit(Expr(lhs), collect);
        visit(rhs, collect);
        for (auto it = free.rbegin(); it != free.rend(); ++it)
            s = For::make(it->first, s, nullptr, nullptr, it->second);
        return s;
    }

    // `m[..], k[..] argmin= e` (or argmax=): two statements (ir/arg_reduction.hpp), spliced
    // into the enclosing list.
    Stmt arg_assignment(const Token& name, const std::shared_ptr<const Access>& value) {
        next(); // ','
        const Token& second = expect_name("the index output after ',' (as in m[], k[] argmin= A[i])");
        if (!peek().is("["))
            fail_expected(fmt::format("'[' after the tensor name {}", second.text), peek());
        auto index = access(second);
        const Token& op = peek();
        bool max = op.is_word("argmax");
        if (!(op.is_word("argmin") || max) || !peek(1).is("="))
            fail_expected("argmin= or argmax= after two outputs (the only assignments with two)", op);
        next();
        next();
        skip_newlines();
        Expr rhs = expr();
        if (value->tensor == index->tensor)
            src_.fail(second.pos, fmt::format("argmin= and argmax= need two different outputs, "
                                              "not {} twice", value->tensor));
        bool same = value->indices.size() == index->indices.size();
        for (size_t k = 0; same && k < value->indices.size(); ++k)
            same = equal(value->indices[k], index->indices[k]);
        if (!same)
            src_.fail(second.pos, fmt::format("the outputs of {}= must have the same indices: {} "
                                              "and {} differ",
                                              op.text, print(Expr(value)), print(Expr(index))));
        // The one index reduced over: in e, not in the outputs.
        std::vector<std::string> reduced;
        visit(rhs, [&](const Expr& e) {
            const auto* i = e->as<Index>();
            if (!i || std::find(reduced.begin(), reduced.end(), i->name) != reduced.end()) return;
            bool in_output = false;
            visit(Expr(value), [&](const Expr& o) {
                if (const auto* j = o->as<Index>(); j && j->name == i->name) in_output = true;
            });
            if (in_output) return;
            if (loop_bound(i->name))
                src_.fail(i->pos, fmt::format("{}= must reduce over an index of its own, but {} "
                                              "is the index of an enclosing for",
                                              op.text, i->name));
            reduced.push_back(i->name);
        });
        if (reduced.size() != 1)
            src_.fail(op.pos, fmt::format("{}= reduces over exactly one index (the one whose "
                                          "position it records); {} has {}",
                                          op.text, print(rhs), reduced.size()));
        std::vector<Stmt> parts;
        for (const auto& a : arg_reduction(value, index, max, rhs, reduced.front(), name.pos))
            parts.push_back(with_implied_loops(a, a->lhs, a->rhs));
        spliced_ = true;
        return Block::make(std::move(parts), name.pos);
    }

    std::string assign_operator() {
        const Token& t = peek();
        for (const auto& a : syntax::assign_symbols()) {
            if (t.is(a.symbol)) {
                next();
                return std::string(a.op);
            }
            // `min=` and `max=`: a word, then '='.
            std::string_view word = a.symbol.substr(0, a.symbol.size() - 1);
            if (!word.empty() && std::isalpha(static_cast<unsigned char>(word[0])) &&
                t.is_word(word) && peek(1).is("=")) {
                next();
                next();
                return std::string(a.op);
            }
        }
        if (t.is("<<")) {
            next();
            const Token& op = peek();
            if (op.kind != TokenKind::Identifier) fail_expected("an operator name after '<<'", op);
            next();
            expect(">>", fmt::format("'>>=' after <<{}", op.text));
            expect("=", fmt::format("'=' after <<{}>>", op.text));
            return std::string(op.text);
        }
        fail_expected(kAssignHint, t);
    }

    // ---- expressions ----

    std::shared_ptr<const Access> access(const Token& name) {
        if (syntax::is_keyword(name.text))
            src_.fail(name.pos, fmt::format("expected a tensor name, found the keyword '{}'",
                                            name.text));
        next(); // '['
        std::vector<Expr> indices;
        std::vector<std::string> protocols;
        bool any_protocol = false;
        if (!peek().is("]")) {
            do {
                const Token& t = peek();
                if (t.kind == TokenKind::Identifier && syntax::is_protocol(t.text) &&
                    peek(1).is("(")) {
                    next();
                    next();
                    indices.push_back(subscript());
                    expect(")", fmt::format("')' to close {}(", t.text));
                    protocols.emplace_back(t.text);
                    any_protocol = true;
                } else {
                    indices.push_back(subscript());
                    protocols.emplace_back();
                }
            } while (accept(","));
        }
        expect("]", fmt::format("',' or ']' in the indices of {}", name.text));
        if (!any_protocol) protocols.clear();
        int h = height_over(indices, name.pos);
        auto a = Access::make(std::string(name.text), std::move(indices), std::move(protocols),
                              name.pos);
        height_[a.get()] = h;
        return a;
    }

    // One subscript of an access: an expression, or a sliced index `i(lo:hi:st)`. A colon
    // appears nowhere else inside parentheses, so `name(` with a ':' before its ')' is a slice.
    Expr subscript() {
        const Token& t = peek();
        if (t.kind != TokenKind::Identifier || !peek(1).is("(")) return expr();
        bool slice = false;
        for (size_t k = 2; !slice; ++k) {
            const Token& u = peek(k);
            if (u.is(":")) slice = true;
            else if (u.is(")") || u.is("(") || u.is("]") || u.kind == TokenKind::End) break;
        }
        if (!slice) return expr();
        if (syntax::is_keyword(t.text) || syntax::is_protocol(t.text) || let_bound(std::string(t.text)))
            src_.fail(t.pos, fmt::format("only a loop index can be sliced, as in A[i(0:4)]; {} is "
                                         "not one",
                                         t.text));
        next();
        next(); // '('
        Slice s;
        s.lo = slice_bound(t.text);
        expect(":", fmt::format("':' in the slice of {} (as in {}(lo:hi:step))", t.text, t.text));
        s.hi = slice_bound(t.text);
        if (accept(":"))
            if (auto step = slice_bound(t.text)) s.step = *step;
        expect(")", fmt::format("')' to close the slice of {} (as in {}(lo:hi:step))", t.text,
                                t.text));
        return Index::sliced(std::string(t.text), s, t.pos);
    }

    // An integer constant, possibly negative, or nothing (before ':' or ')').
    std::optional<int64_t> slice_bound(std::string_view index) {
        if (peek().is(":") || peek().is(")")) return std::nullopt;
        const Token& sign = peek();
        bool negative = sign.is("-");
        if (negative) next();
        const Token& n = peek();
        if (n.kind != TokenKind::Integer)
            fail_expected(fmt::format("an integer bound in the slice of {} (slice bounds are "
                                      "integer constants, as in {}(0:8:2))",
                                      index, index),
                          n);
        next();
        return number(n, negative, sign.pos)->as<Literal>()->value.as_int();
    }

    Expr expr() {
        Nested nested(*this, peek().pos);
        return binary(1);
    }

    // Precedence climbing over the table in syntax.cpp; every binary operator is left-associative.
    Expr binary(int min_precedence) {
        Expr lhs = unary();
        for (;;) {
            const Token& t = peek();
            const syntax::BinarySymbol* b =
                t.kind == TokenKind::Symbol ? syntax::binary_by_symbol(t.text) : nullptr;
            if (!b || b->precedence < min_precedence) return lhs;
            next();
            skip_newlines(); // an expression may continue on the next line after an operator
            Expr rhs = binary(b->precedence + 1);
            lhs = make_call(std::string(b->op), {lhs, rhs}, t.pos);
        }
    }

    Expr unary() {
        const Token& t = peek();
        const syntax::UnarySymbol* u =
            t.kind == TokenKind::Symbol ? syntax::unary_by_symbol(t.text) : nullptr;
        if (!u) return primary();
        Nested nested(*this, t.pos);
        next();
        // `-3` and `-inf` are negative literals, so printed negative constants read back equal.
        const Token& n = peek();
        if (t.is("-") && (n.kind == TokenKind::Integer || n.kind == TokenKind::Float ||
                          n.is_word("inf") || n.is_word("nan"))) {
            next();
            return number(n, true, t.pos);
        }
        Expr operand = unary();
        return make_call(std::string(u->op), {operand}, t.pos);
    }

    Expr number(const Token& t, bool negative, Position pos) {
        std::string text = (negative ? "-" : "") + std::string(t.text);
        ValueType type = t.kind == TokenKind::Integer ? ValueType::Int64 : ValueType::Float64;
        try {
            return Literal::make(Scalar::parse(text, type), pos);
        } catch (const Error& e) {
            src_.fail(pos, t.kind == TokenKind::Integer
                               ? fmt::format("integer {} does not fit int64 (write {}.0 for a "
                                             "float64, or uint64({}))",
                                             text, text, text)
                               : e.message());
        }
    }

    Expr primary() {
        const Token& t = peek();
        if (t.kind == TokenKind::Integer || t.kind == TokenKind::Float || t.is_word("inf") ||
            t.is_word("nan")) {
            next();
            return number(t, false, t.pos);
        }
        if (t.is_word("true") || t.is_word("false")) {
            next();
            return Literal::make(Scalar::of(t.text == "true"), t.pos);
        }
        if (t.is("(")) {
            next();
            skip_newlines();
            Expr e = expr();
            expect(")", "')'");
            return e;
        }
        if (t.kind != TokenKind::Identifier || syntax::is_keyword(t.text))
            fail_expected("an expression", t);
        next();
        if (peek().is("[")) return access(t);
        if (peek().is("(")) return call(t);
        std::string name(t.text);
        if (let_bound(name)) return Variable::make(std::move(name), t.pos);
        return Index::make(std::move(name), t.pos);
    }

    // `name(args)`, or `int8(-3)`: a type name applied to a literal is a literal of that type.
    Expr call(const Token& name) {
        if (auto type = type_named(name.text)) {
            size_t k = 1;
            bool negative = peek(k).is("-");
            if (negative) ++k;
            if (is_literal_token(peek(k)) && peek(k + 1).is(")")) {
                const Token& lit = peek(k);
                std::string text = (negative ? "-" : "") + std::string(lit.text);
                at_ += k + 2;
                try {
                    return Literal::make(Scalar::parse(text, *type), name.pos);
                } catch (const Error& e) {
                    src_.fail(lit.pos, e.message());
                }
            }
        }
        if (syntax::is_protocol(name.text))
            src_.fail(name.pos, fmt::format("{}(...) is an access protocol: it may only wrap an "
                                            "index, as in A[{}(i)]",
                                            name.text, name.text));
        next(); // '('
        std::vector<Expr> args;
        if (!peek().is(")")) {
            do args.push_back(expr());
            while (accept(","));
        }
        expect(")", fmt::format("',' or ')' in the arguments of {}", name.text));
        return make_call(std::string(name.text), std::move(args), name.pos);
    }
};

} // namespace

Program parse_program(std::string_view text, std::string_view source_name) {
    SourceText src{text, source_name};
    return Parser(src).program();
}

Expr parse_expr(std::string_view text) {
    SourceText src{text, "<expr>"};
    return Parser(src).single_expression();
}

} // namespace siskin::ir
