// Recursive-descent parser for function definitions, bodies and special cases. Expressions use
// the operator table of program text (src/ir/syntax.cpp), so `a % b` means mod everywhere.
#include "functions/parser.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "ir/syntax.hpp"
#include "siskin/error.hpp"

namespace siskin::functions {

namespace {

using ir::Token;
using ir::TokenKind;

// Limits that keep recursion (here, in the checker and in the interpreter) far from the
// stack's end.
constexpr int kMaxNesting = 200;     // blocks, parentheses and unary operators
constexpr int kMaxExprHeight = 1000; // height of an expression tree

constexpr std::string_view kBodyKeywords[] = {"let",  "if",    "else", "while", "return",
                                              "true", "false", "inf",  "nan"};

std::optional<ValueType> type_named(std::string_view word) {
    for (int t = 0; t <= static_cast<int>(ValueType::Float64); ++t)
        if (type_name(static_cast<ValueType>(t)) == word) return static_cast<ValueType>(t);
    return std::nullopt;
}

bool is_number(const Token& t) {
    return t.kind == TokenKind::Integer || t.kind == TokenKind::Float || t.is_word("inf") ||
           t.is_word("nan");
}

class Parser {
public:
    Parser(const ir::SourceText& src, const std::vector<Token>& toks, size_t& at,
           std::shared_ptr<const Source> source)
        : src_(src), toks_(toks), at_(at), source_(std::move(source)) {}

    FunctionDef definition() {
        const Token& def_token = next();
        const Token& name = expect_name("the function's name after def");
        FunctionDef def{std::string(name.text)};
        def.set_where({std::string(src_.name), def_token.pos.line, def_token.pos.column});
        expect("(", fmt::format("'(' and the parameters of {}", name.text));
        std::vector<std::pair<std::string, Position>> seen;
        if (!peek().is(")")) {
            do {
                const Token& p = expect_name("a parameter name");
                for (const auto& [other, where] : seen)
                    if (other == p.text)
                        src_.fail(p.pos, fmt::format("parameter {} is declared twice (first at "
                                                     "{}:{})",
                                                     p.text, where.line, where.column));
                seen.emplace_back(std::string(p.text), p.pos);
                expect(":", fmt::format("':' and the type of parameter {} (as in {}: int64)",
                                        p.text, p.text));
                def.param(std::string(p.text), type());
            } while (accept(","));
        }
        expect(")", "',' or ')' after a parameter");
        if (def.params().empty() || def.params().size() > 3)
            src_.fail(name.pos, fmt::format("function {} has {} parameters; a function takes 1, "
                                            "2 or 3",
                                            name.text, def.params().size()));
        expect("->", fmt::format("'->' and the result type of {} (as in -> float64)",
                                 name.text));
        def.returns(type());
        if (peek().is("[")) properties(def);
        skip_newlines();
        def.set_body(std::make_shared<Body>(Body{block("function body"), source_}));
        return def;
    }

    std::shared_ptr<const Case> case_form() {
        auto c = std::make_shared<Case>();
        c->source = source_;
        c->pos = peek().pos;
        if (peek().is_word("case")) next();
        const Token& name = expect_name("the name of the function the case is for");
        c->function = std::string(name.text);
        expect("(", fmt::format("'(' and the arguments of the case of {}", name.text));
        do {
            const Token& t = peek();
            Case::Pattern p;
            p.pos = t.pos;
            if (t.kind == TokenKind::Identifier && !type_named(t.text) && !is_keyword(t.text)) {
                for (const auto& other : c->patterns)
                    if (other.name == t.text)
                        src_.fail(t.pos, fmt::format("{} names two arguments of the case",
                                                     t.text));
                p.name = std::string(next().text);
            } else {
                p.value = constant("a name or a constant in the case's arguments");
            }
            c->patterns.push_back(std::move(p));
        } while (accept(","));
        expect(")", "',' or ')' in the case's arguments");
        expect("=", "'=' and the case's result, as in case gcd(x, 0) = abs(x)");
        skip_newlines();
        c->result = expr();
        return c;
    }

    std::shared_ptr<const Body> body_only() {
        Position start = peek().pos;
        auto stmts = statements(nullptr);
        auto block = std::make_shared<Stmt>();
        block->kind = StmtKind::Block;
        block->pos = start;
        block->stmts = std::move(stmts);
        block->end = peek().pos;
        return std::make_shared<Body>(Body{block, source_});
    }

    std::shared_ptr<const Space> space_only() {
        return std::make_shared<Space>(Space{expr(), source_});
    }

    const Token& peek(size_t k = 0) const { return toks_[std::min(at_ + k, toks_.size() - 1)]; }
    [[noreturn]] void fail_expected(std::string_view what, const Token& found) const {
        src_.fail(found.pos, fmt::format("expected {}, found {}", what, ir::describe(found)));
    }

private:
    const ir::SourceText& src_;
    const std::vector<Token>& toks_;
    size_t& at_;
    std::shared_ptr<const Source> source_;
    int nesting_ = 0;

    struct Nested {
        Parser& p;
        Nested(Parser& parser, Position pos) : p(parser) {
            if (++p.nesting_ > kMaxNesting)
                p.src_.fail(pos, fmt::format("the function nests more than {} levels deep here",
                                             kMaxNesting));
        }
        ~Nested() { --p.nesting_; }
        Nested(const Nested&) = delete;
        Nested& operator=(const Nested&) = delete;
    };

    static bool is_keyword(std::string_view w) {
        return std::find(std::begin(kBodyKeywords), std::end(kBodyKeywords), w) !=
               std::end(kBodyKeywords);
    }

    const Token& next() {
        const Token& t = toks_[at_];
        if (at_ + 1 < toks_.size()) ++at_;
        return t;
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
        if (is_keyword(t.text))
            src_.fail(t.pos, fmt::format("expected {}, found the keyword '{}'", what, t.text));
        if (type_named(t.text))
            src_.fail(t.pos, fmt::format("expected {}, found the type name '{}'", what, t.text));
        return next();
    }
    void skip_newlines() {
        while (peek().kind == TokenKind::Newline) next();
    }

    ValueType type() {
        const Token& t = peek();
        if (t.kind == TokenKind::Identifier) {
            try {
                ValueType v = parse_type(t.text);
                next();
                return v;
            } catch (const Error&) {
            }
        }
        fail_expected("a type (bool, int8, int16, int32, int64, uint8, uint16, uint32, uint64, "
                      "float32 or float64)",
                      t);
    }

    // ---- constants: properties and case arguments ----

    Scalar number_value(const Token& t, bool negative, ValueType type) {
        std::string text = (negative ? "-" : "") + std::string(t.text);
        try {
            return Scalar::parse(text, type);
        } catch (const Error& e) {
            src_.fail(t.pos, e.message());
        }
    }

    // `3`, `-2.5`, `-inf`, `nan`, `true`, `int8(-3)`.
    Scalar constant(std::string_view what) {
        const Token& t = peek();
        if (t.is_word("true") || t.is_word("false")) {
            next();
            return Scalar::of(t.text == "true");
        }
        bool negative = t.is("-");
        if (is_number(peek(negative ? 1 : 0))) {
            if (negative) next();
            const Token& n = next();
            return number_value(n, negative,
                                n.kind == TokenKind::Integer ? ValueType::Int64
                                                             : ValueType::Float64);
        }
        if (t.kind == TokenKind::Identifier && peek(1).is("(")) {
            if (auto type = type_named(t.text)) {
                next();
                next();
                bool neg = accept("-");
                const Token& n = peek();
                if (!is_number(n) && !n.is_word("true") && !n.is_word("false"))
                    fail_expected(fmt::format("a literal inside {}(...)", t.text), n);
                next();
                expect(")", fmt::format("')' to close {}(", t.text));
                return number_value(n, neg, *type);
            }
        }
        fail_expected(fmt::format("{} (a number, inf, nan, true, false or a typed constant such "
                                  "as int8(3))",
                                  what),
                      t);
    }

    void properties(FunctionDef& def) {
        next(); // '['
        FunctionProperties& p = def.mutable_properties();
        std::vector<std::string> seen;
        if (peek().is("]")) fail_expected("a property", peek());
        do {
            const Token& t = peek();
            if (t.kind != TokenKind::Identifier)
                fail_expected("a property (commutative, associative, idempotent, identity(v), "
                              "annihilator(v), annihilator_finite_only or space(...))",
                              t);
            if (std::find(seen.begin(), seen.end(), t.text) != seen.end())
                src_.fail(t.pos, fmt::format("property {} is given twice", t.text));
            seen.emplace_back(t.text);
            next();
            if (t.text == "commutative") p.commutative = true;
            else if (t.text == "associative") p.associative = true;
            else if (t.text == "idempotent") p.idempotent = true;
            else if (t.text == "annihilator_finite_only") p.annihilator_finite_only = true;
            else if (t.text == "identity") p.identity = declared_value(def, "identity");
            else if (t.text == "annihilator") p.annihilator = declared_value(def, "annihilator");
            else if (t.text == "space") def.set_space(space_property());
            else
                src_.fail(t.pos, fmt::format("unknown property '{}'; the properties are "
                                             "commutative, associative, idempotent, identity(v), "
                                             "annihilator(v), annihilator_finite_only and "
                                             "space(...)",
                                             t.text));
        } while (accept(","));
        expect("]", "',' or ']' after a property");
    }

    // `(x & !y)`: the set expression, checked later (iteration_space.cpp).
    std::shared_ptr<const Space> space_property() {
        expect("(", "'(' and the iteration space, as in space(x & !y)");
        skip_newlines();
        auto s = std::make_shared<Space>(Space{expr(), source_});
        skip_newlines();
        expect(")", "')' to close space(");
        return s;
    }

    // `(v)` or `(v, param)`.
    DeclaredValue declared_value(const FunctionDef& def, std::string_view property) {
        expect("(", fmt::format("'(' and the {} value, as in {}(0)", property, property));
        DeclaredValue d{constant(fmt::format("the {} value", property)), std::nullopt};
        if (accept(",")) {
            const Token& p = expect_name("the name of the parameter it holds for");
            const auto& params = def.params();
            for (size_t k = 0; k < params.size(); ++k)
                if (params[k].name == p.text) d.position = static_cast<int>(k);
            if (!d.position)
                src_.fail(p.pos, fmt::format("{} has no parameter named {}", def.name(), p.text));
        }
        expect(")", fmt::format("')' to close {}(", property));
        return d;
    }

    // ---- statements ----

    std::shared_ptr<Stmt> make(StmtKind kind, Position pos) {
        auto s = std::make_shared<Stmt>();
        s->kind = kind;
        s->pos = pos;
        return s;
    }

    std::vector<StmtPtr> statements(const Token* open) {
        std::vector<StmtPtr> out;
        auto skip_separators = [&] {
            while (peek().kind == TokenKind::Newline || peek().is(";")) next();
        };
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
            out.push_back(statement());
            if (peek().kind == TokenKind::Newline || peek().is(";")) {
                skip_separators();
            } else if (!at_close()) {
                check_unclosed();
                fail_expected("a newline or ';' after the statement", peek());
            }
        }
        return out;
    }

    StmtPtr block(std::string_view of_what) {
        const Token& open = expect("{", fmt::format("'{{' to start the {}", of_what));
        Nested nested(*this, open.pos);
        auto b = std::make_shared<Stmt>();
        b->kind = StmtKind::Block;
        b->pos = open.pos;
        b->stmts = statements(&open);
        b->end = next().pos; // '}'
        return b;
    }

    StmtPtr statement() {
        const Token& t = peek();
        if (t.is_word("let")) {
            auto s = make(StmtKind::Let, next().pos);
            s->name = std::string(expect_name("a variable name after let").text);
            if (accept(":")) s->type = type();
            expect("=", fmt::format("'=' and the initial value of {}", s->name));
            skip_newlines();
            s->value = expr();
            return s;
        }
        if (t.is_word("if")) return if_statement();
        if (t.is_word("while")) {
            auto s = make(StmtKind::While, next().pos);
            s->value = expr();
            skip_newlines();
            s->body = block("loop body");
            return s;
        }
        if (t.is_word("return")) {
            auto s = make(StmtKind::Return, next().pos);
            if (peek().kind == TokenKind::Newline || peek().is(";") || peek().is("}") ||
                peek().kind == TokenKind::End)
                fail_expected("the value to return", peek());
            s->value = expr();
            return s;
        }
        if (t.is("{")) return block("block");
        if (t.kind == TokenKind::Identifier && !is_keyword(t.text) && peek(1).is("=")) {
            auto s = make(StmtKind::Assign, t.pos);
            s->name = std::string(next().text);
            next(); // '='
            skip_newlines();
            s->value = expr();
            return s;
        }
        if (t.kind == TokenKind::Identifier && !is_keyword(t.text) && peek(1).is("["))
            src_.fail(t.pos, "a function body works on scalars: it cannot index a tensor");
        if (t.kind == TokenKind::Identifier && !is_keyword(t.text)) {
            // `x += 1` (one token) or `x -= 1` (two): compound assignments are not C-like
            // enough to be worth a second spelling.
            const Token& op = peek(1);
            bool compound = op.is("+=") || op.is("*=") || op.is("|=") || op.is("&=");
            bool split = op.kind == TokenKind::Symbol && op.text.size() == 1 &&
                         std::string_view("+-*/%|&^").find(op.text[0]) != std::string_view::npos &&
                         peek(2).is("=") && peek(2).pos.line == op.pos.line &&
                         peek(2).pos.column == op.pos.column + 1;
            if (compound || split)
                src_.fail(op.pos, fmt::format("only '=' assigns in a function body: write "
                                              "{} = {} {} ...",
                                              t.text, t.text, op.text.substr(0, 1)));
        }
        fail_expected("a statement (let, an assignment such as x = 1, if, while, return or '{')",
                      t);
    }

    StmtPtr if_statement() {
        auto s = make(StmtKind::If, next().pos);
        s->value = expr();
        skip_newlines();
        s->body = block("if body");
        size_t k = 0;
        while (peek(k).kind == TokenKind::Newline) ++k;
        if (peek(k).is_word("else")) {
            at_ += k;
            next();
            if (peek().is_word("if")) {
                Nested nested(*this, peek().pos);
                s->else_body = if_statement();
            } else {
                skip_newlines();
                s->else_body = block("else body");
            }
        }
        return s;
    }

    // ---- expressions ----

    struct Built {
        Expr e;
        int height;
    };

    Expr expr() { return expression().e; }

    Built expression() {
        Nested nested(*this, peek().pos);
        return binary(1);
    }

    Built call_node(std::string op, std::vector<Built> args, Position pos) {
        int h = 1;
        std::vector<Expr> exprs;
        for (auto& a : args) {
            h = std::max(h, a.height + 1);
            exprs.push_back(std::move(a.e));
        }
        if (h > kMaxExprHeight)
            src_.fail(pos, fmt::format("the expression nests more than {} operations deep here; "
                                       "split it with let",
                                       kMaxExprHeight));
        return {ir::Call::make(std::move(op), std::move(exprs), pos), h};
    }

    Built binary(int min_precedence) {
        Built lhs = unary();
        for (;;) {
            const Token& t = peek();
            const ir::syntax::BinarySymbol* b =
                t.kind == TokenKind::Symbol ? ir::syntax::binary_by_symbol(t.text) : nullptr;
            if (!b || b->precedence < min_precedence) return lhs;
            next();
            skip_newlines();
            Built rhs = binary(b->precedence + 1);
            std::vector<Built> args;
            args.push_back(std::move(lhs));
            args.push_back(std::move(rhs));
            lhs = call_node(std::string(b->op), std::move(args), t.pos);
        }
    }

    Built unary() {
        const Token& t = peek();
        const ir::syntax::UnarySymbol* u =
            t.kind == TokenKind::Symbol ? ir::syntax::unary_by_symbol(t.text) : nullptr;
        if (!u) return primary();
        Nested nested(*this, t.pos);
        next();
        // `-3` and `-inf` are negative literals, as in program text.
        if (t.is("-") && is_number(peek())) {
            const Token& n = next();
            return {literal(n, true, t.pos), 1};
        }
        std::vector<Built> args;
        args.push_back(unary());
        return call_node(std::string(u->op), std::move(args), t.pos);
    }

    Expr literal(const Token& t, bool negative, Position pos) {
        ValueType type = t.kind == TokenKind::Integer ? ValueType::Int64 : ValueType::Float64;
        std::string text = (negative ? "-" : "") + std::string(t.text);
        try {
            return ir::Literal::make(Scalar::parse(text, type), pos);
        } catch (const Error& e) {
            src_.fail(pos, t.kind == TokenKind::Integer
                               ? fmt::format("integer {} does not fit int64 (write {}.0 for a "
                                             "float64, or uint64({}))",
                                             text, text, text)
                               : e.message());
        }
    }

    Built primary() {
        const Token& t = peek();
        if (is_number(t)) {
            next();
            return {literal(t, false, t.pos), 1};
        }
        if (t.is_word("true") || t.is_word("false")) {
            next();
            return {ir::Literal::make(Scalar::of(t.text == "true"), t.pos), 1};
        }
        if (t.is("(")) {
            next();
            skip_newlines();
            Built e = expression();
            expect(")", "')'");
            return e;
        }
        if (t.kind != TokenKind::Identifier || is_keyword(t.text))
            fail_expected("an expression", t);
        next();
        if (peek().is("["))
            src_.fail(t.pos, "a function body works on scalars: it cannot index a tensor");
        if (peek().is("(")) return call(t);
        return {ir::Variable::make(std::string(t.text), t.pos), 1};
    }

    // `name(args)`; a type name applied to one literal is a literal of that type, `int8(-3)`.
    Built call(const Token& name) {
        if (auto type = type_named(name.text)) {
            size_t k = 1;
            bool negative = peek(k).is("-");
            if (negative) ++k;
            const Token& lit = peek(k);
            bool is_literal = is_number(lit) || lit.is_word("true") || lit.is_word("false");
            if (is_literal && peek(k + 1).is(")")) {
                at_ += k + 2;
                return {ir::Literal::make(number_value(lit, negative, *type), name.pos), 1};
            }
        }
        next(); // '('
        std::vector<Built> args;
        skip_newlines();
        if (!peek().is(")")) {
            do args.push_back(expression());
            while (accept(","));
        }
        expect(")", fmt::format("',' or ')' in the arguments of {}", name.text));
        return call_node(std::string(name.text), std::move(args), name.pos);
    }
};

std::shared_ptr<const Source> own(std::string_view text, std::string_view name) {
    return std::make_shared<Source>(Source{std::string(text), std::string(name)});
}

} // namespace

bool is_body_keyword(std::string_view word) {
    return std::find(std::begin(kBodyKeywords), std::end(kBodyKeywords), word) !=
           std::end(kBodyKeywords);
}

bool at_definition(const std::vector<ir::Token>& toks, size_t at) {
    if (at + 2 >= toks.size()) return false;
    const Token& t = toks[at];
    return (t.is_word("def") || t.is_word("case")) && toks[at + 1].kind == TokenKind::Identifier &&
           toks[at + 2].is("(");
}

std::vector<FunctionDef> parse_definitions(const ir::SourceText& src,
                                           const std::vector<ir::Token>& toks, size_t& at,
                                           const std::shared_ptr<const Source>& source) {
    std::vector<FunctionDef> defs;
    Parser p(src, toks, at, source);
    auto skip_separators = [&] {
        while (p.peek().kind == TokenKind::Newline || p.peek().is(";")) ++at;
    };
    skip_separators();
    while (at_definition(toks, at)) {
        if (p.peek().is_word("def")) {
            FunctionDef def = p.definition();
            for (const auto& other : defs)
                if (other.name() == def.name())
                    src.fail({static_cast<int>(def.where()->line),
                          static_cast<int>(def.where()->column)},
                             fmt::format("function {} is defined twice in this text (first at "
                                         "{}:{})",
                                         def.name(), other.where()->line, other.where()->column));
            defs.push_back(std::move(def));
        } else {
            auto c = p.case_form();
            auto it = std::find_if(defs.begin(), defs.end(),
                                   [&](const FunctionDef& d) { return d.name() == c->function; });
            if (it == defs.end())
                src.fail(c->pos, fmt::format("case for {}, which is not defined above it in this "
                                             "text (a case follows the def of its function)",
                                             c->function));
            it->add_case(std::move(c));
        }
        if (p.peek().kind != TokenKind::Newline && !p.peek().is(";") &&
            p.peek().kind != TokenKind::End)
            p.fail_expected("a newline after the definition", p.peek());
        skip_separators();
    }
    return defs;
}

std::shared_ptr<const Body> parse_body(std::string_view text, std::string_view source_name) {
    auto source = own(text, source_name);
    ir::SourceText src{source->text, source->name};
    std::vector<Token> toks = ir::lex(src);
    size_t at = 0;
    return Parser(src, toks, at, source).body_only();
}

namespace {

// One form that must fill the whole text (blank lines around it, and `;` after it when
// `semicolons`, allowed).
template <class Form>
auto parse_whole(std::string_view text, std::string_view source_name, const char* what,
                 bool semicolons, Form form) {
    auto source = own(text, source_name);
    ir::SourceText src{source->text, source->name};
    std::vector<Token> toks = ir::lex(src);
    size_t at = 0;
    Parser p(src, toks, at, source);
    while (p.peek().kind == TokenKind::Newline) ++at;
    auto parsed = form(p);
    while (p.peek().kind == TokenKind::Newline || (semicolons && p.peek().is(";"))) ++at;
    if (p.peek().kind != TokenKind::End) p.fail_expected(what, p.peek());
    return parsed;
}

} // namespace

std::shared_ptr<const Space> parse_space(std::string_view text, std::string_view source_name) {
    return parse_whole(text, source_name, "the end of the space", false,
                       [](Parser& p) { return p.space_only(); });
}

std::shared_ptr<const Case> parse_case(std::string_view text, std::string_view source_name) {
    return parse_whole(text, source_name, "the end of the case", true,
                       [](Parser& p) { return p.case_form(); });
}

} // namespace siskin::functions
