// Recursive-descent parser for function definitions, bodies and special cases. Expressions are
// those of program text (ir/expression_parser.hpp) where every name is a variable; what is here
// is the `def` and `case` forms and the statements of bodies.
#include "functions/parser.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "ir/expression_parser.hpp"
#include "ir/syntax.hpp"
#include "siskin/error.hpp"

namespace siskin::functions {

namespace {

using ir::Token;
using ir::TokenCursor;
using ir::TokenKind;
using ir::syntax::type_named;

// A name in a body's expression: a variable, never a tensor.
Expr variable(const TokenCursor& in, const Token& t) {
    if (in.peek().is("["))
        in.fail(t.pos, "a function body works on scalars: it cannot index a tensor");
    return ir::Variable::make(std::string(t.text), t.pos);
}

class Parser {
public:
    Parser(TokenCursor& in, std::shared_ptr<const Source> source)
        : in_(in), source_(std::move(source)),
          exprs_(in_, {ir::syntax::is_body_keyword,
                       [this](const Token& t) { return variable(in_, t); }}) {}

    FunctionDef definition() {
        const Token& def_token = in_.next();
        const Token& name = expect_name("the function's name after def");
        FunctionDef def{std::string(name.text)};
        def.set_where({std::string(in_.source().name), def_token.pos.line, def_token.pos.column});
        in_.expect("(", fmt::format("'(' and the parameters of {}", name.text));
        std::vector<std::pair<std::string, Position>> seen;
        if (!in_.peek().is(")")) {
            do {
                const Token& p = expect_name("a parameter name");
                for (const auto& [other, where] : seen)
                    if (other == p.text)
                        in_.fail(p.pos, fmt::format("parameter {} is declared twice (first at "
                                                    "{}:{})",
                                                    p.text, where.line, where.column));
                seen.emplace_back(std::string(p.text), p.pos);
                in_.expect(":", fmt::format("':' and the type of parameter {} (as in {}: int64)",
                                            p.text, p.text));
                def.param(std::string(p.text), type());
            } while (in_.accept(","));
        }
        in_.expect(")", "',' or ')' after a parameter");
        if (def.params().empty() || def.params().size() > 3)
            in_.fail(name.pos, fmt::format("function {} has {} parameters; a function takes 1, "
                                           "2 or 3",
                                           name.text, def.params().size()));
        in_.expect("->", fmt::format("'->' and the result type of {} (as in -> float64)",
                                     name.text));
        def.returns(type());
        if (in_.peek().is("[")) properties(def);
        in_.skip_newlines();
        def.set_body(std::make_shared<Body>(Body{block("function body"), source_}));
        return def;
    }

    std::shared_ptr<const Case> case_form() {
        auto c = std::make_shared<Case>();
        c->source = source_;
        c->pos = in_.peek().pos;
        if (in_.peek().is_word("case")) in_.next();
        const Token& name = expect_name("the name of the function the case is for");
        c->function = std::string(name.text);
        in_.expect("(", fmt::format("'(' and the arguments of the case of {}", name.text));
        do {
            const Token& t = in_.peek();
            Case::Pattern p;
            p.pos = t.pos;
            if (t.kind == TokenKind::Identifier && !type_named(t.text) &&
                !ir::syntax::is_body_keyword(t.text)) {
                for (const auto& other : c->patterns)
                    if (other.name == t.text)
                        in_.fail(t.pos, fmt::format("{} names two arguments of the case", t.text));
                p.name = std::string(in_.next().text);
            } else {
                p.value = constant("a name or a constant in the case's arguments");
            }
            c->patterns.push_back(std::move(p));
        } while (in_.accept(","));
        in_.expect(")", "',' or ')' in the case's arguments");
        in_.expect("=", "'=' and the case's result, as in case gcd(x, 0) = abs(x)");
        in_.skip_newlines();
        c->result = exprs_.expression();
        return c;
    }

    std::shared_ptr<const Body> body_only() {
        Position start = in_.peek().pos;
        auto block = std::make_shared<Stmt>();
        block->kind = StmtKind::Block;
        block->pos = start;
        block->stmts = statements(nullptr);
        block->end = in_.peek().pos;
        return std::make_shared<Body>(Body{block, source_});
    }

    std::shared_ptr<const Space> space_only() {
        return std::make_shared<Space>(Space{exprs_.expression(), source_});
    }

private:
    TokenCursor& in_;
    std::shared_ptr<const Source> source_;
    ir::ExpressionParser exprs_;

    // A variable, parameter or function name: neither a keyword nor a type name (`int8(x)` is
    // a conversion).
    const Token& expect_name(std::string_view what) {
        const Token& t = in_.expect_name(what, ir::syntax::is_body_keyword);
        if (type_named(t.text))
            in_.fail(t.pos, fmt::format("expected {}, found the type name '{}'", what, t.text));
        return t;
    }

    ValueType type() {
        const Token& t = in_.peek();
        if (t.kind == TokenKind::Identifier) {
            try {
                ValueType v = parse_type(t.text);
                in_.next();
                return v;
            } catch (const Error&) {
            }
        }
        in_.fail_expected("a type (bool, int8, int16, int32, int64, uint8, uint16, uint32, "
                          "uint64, float32 or float64)",
                          t);
    }

    // ---- constants: properties and case arguments ----

    // `3`, `-inf`, `int8(-3)`, `(true)`: ExpressionParser::constant.
    Scalar constant(std::string_view what) {
        return exprs_.constant(fmt::format("expected {} (a number, inf, nan, true, false or a "
                                           "typed literal such as int8(3))",
                                           what));
    }

    void properties(FunctionDef& def) {
        in_.next(); // '['
        FunctionProperties& p = def.mutable_properties();
        std::vector<std::string> seen;
        if (in_.peek().is("]")) in_.fail_expected("a property", in_.peek());
        do {
            const Token& t = in_.peek();
            if (t.kind != TokenKind::Identifier)
                in_.fail_expected("a property (commutative, associative, idempotent, "
                                  "identity(v), annihilator(v), annihilator_finite_only or "
                                  "space(...))",
                                  t);
            if (std::find(seen.begin(), seen.end(), t.text) != seen.end())
                in_.fail(t.pos, fmt::format("property {} is given twice", t.text));
            seen.emplace_back(t.text);
            in_.next();
            if (t.text == "commutative") p.commutative = true;
            else if (t.text == "associative") p.associative = true;
            else if (t.text == "idempotent") p.idempotent = true;
            else if (t.text == "annihilator_finite_only") p.annihilator_finite_only = true;
            else if (t.text == "identity") p.identity = declared_value(def, "identity");
            else if (t.text == "annihilator") p.annihilator = declared_value(def, "annihilator");
            else if (t.text == "space") def.set_space(space_property());
            else
                in_.fail(t.pos, fmt::format("unknown property '{}'; the properties are "
                                            "commutative, associative, idempotent, identity(v), "
                                            "annihilator(v), annihilator_finite_only and "
                                            "space(...)",
                                            t.text));
        } while (in_.accept(","));
        in_.expect("]", "',' or ']' after a property");
    }

    // `(x & !y)`: the set expression, checked later (iteration_space.cpp).
    std::shared_ptr<const Space> space_property() {
        in_.expect("(", "'(' and the iteration space, as in space(x & !y)");
        auto s = std::make_shared<Space>(Space{exprs_.expression(), source_});
        in_.expect(")", "')' to close space(");
        return s;
    }

    // `(v)` or `(v, param)`.
    DeclaredValue declared_value(const FunctionDef& def, std::string_view property) {
        in_.expect("(", fmt::format("'(' and the {} value, as in {}(0)", property, property));
        DeclaredValue d{constant(fmt::format("the {} value", property)), std::nullopt};
        if (in_.accept(",")) {
            const Token& p = expect_name("the name of the parameter it holds for");
            const auto& params = def.params();
            for (size_t k = 0; k < params.size(); ++k)
                if (params[k].name == p.text) d.position = static_cast<int>(k);
            if (!d.position)
                in_.fail(p.pos, fmt::format("{} has no parameter named {}", def.name(), p.text));
        }
        in_.expect(")", fmt::format("')' to close {}(", property));
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
        in_.statements(open, [&] { out.push_back(statement()); });
        return out;
    }

    StmtPtr block(std::string_view of_what) {
        const Token& open = in_.expect("{", fmt::format("'{{' to start the {}", of_what));
        TokenCursor::Nested nested(in_, open.pos);
        auto b = std::make_shared<Stmt>();
        b->kind = StmtKind::Block;
        b->pos = open.pos;
        b->stmts = statements(&open);
        b->end = in_.next().pos; // '}'
        return b;
    }

    StmtPtr statement() {
        const Token& t = in_.peek();
        if (t.is_word("let")) {
            auto s = make(StmtKind::Let, in_.next().pos);
            s->name = std::string(expect_name("a variable name after let").text);
            if (in_.accept(":")) s->type = type();
            in_.expect("=", fmt::format("'=' and the initial value of {}", s->name));
            in_.skip_newlines();
            s->value = exprs_.expression();
            return s;
        }
        if (t.is_word("if")) return if_statement();
        if (t.is_word("while")) {
            auto s = make(StmtKind::While, in_.next().pos);
            s->value = exprs_.expression();
            in_.skip_newlines();
            s->body = block("loop body");
            return s;
        }
        if (t.is_word("return")) {
            auto s = make(StmtKind::Return, in_.next().pos);
            if (in_.at_separator() || in_.peek().is("}") || in_.peek().kind == TokenKind::End)
                in_.fail_expected("the value to return", in_.peek());
            s->value = exprs_.expression();
            return s;
        }
        if (t.is("{")) return block("block");
        bool name = t.kind == TokenKind::Identifier && !ir::syntax::is_body_keyword(t.text);
        if (name && in_.peek(1).is("=")) {
            auto s = make(StmtKind::Assign, t.pos);
            s->name = std::string(in_.next().text);
            in_.next(); // '='
            in_.skip_newlines();
            s->value = exprs_.expression();
            return s;
        }
        if (name && in_.peek(1).is("["))
            in_.fail(t.pos, "a function body works on scalars: it cannot index a tensor");
        if (name) {
            // `x += 1` (one token) or `x -= 1` (two): compound assignments are not C-like
            // enough to be worth a second spelling.
            const Token& op = in_.peek(1);
            bool compound = op.is("+=") || op.is("*=") || op.is("|=") || op.is("&=");
            bool split = op.kind == TokenKind::Symbol && op.text.size() == 1 &&
                         std::string_view("+-*/%|&^").find(op.text[0]) != std::string_view::npos &&
                         in_.peek(2).is("=") && in_.peek(2).pos.line == op.pos.line &&
                         in_.peek(2).pos.column == op.pos.column + 1;
            if (compound || split)
                in_.fail(op.pos, fmt::format("only '=' assigns in a function body: write "
                                             "{} = {} {} ...",
                                             t.text, t.text, op.text.substr(0, 1)));
        }
        in_.fail_expected("a statement (let, an assignment such as x = 1, if, while, return or "
                          "'{')",
                          t);
    }

    StmtPtr if_statement() {
        auto s = make(StmtKind::If, in_.next().pos);
        s->value = exprs_.expression();
        in_.skip_newlines();
        s->body = block("if body");
        if (in_.accept_word_after_newlines("else")) {
            if (in_.peek().is_word("if")) {
                // An else-if chain nests one level per link, like the tree it builds.
                TokenCursor::Nested nested(in_, in_.peek().pos);
                s->else_body = if_statement();
            } else {
                in_.skip_newlines();
                s->else_body = block("else body");
            }
        }
        return s;
    }
};

std::shared_ptr<const Source> own(std::string_view text, std::string_view name) {
    return std::make_shared<Source>(Source{std::string(text), std::string(name)});
}

} // namespace

bool at_definition(const TokenCursor& in) {
    const Token& t = in.peek();
    return (t.is_word("def") || t.is_word("case")) && in.peek(1).kind == TokenKind::Identifier &&
           in.peek(2).is("(");
}

std::vector<FunctionDef> parse_definitions(TokenCursor& in,
                                           const std::shared_ptr<const Source>& source) {
    std::vector<FunctionDef> defs;
    Parser p(in, source);
    in.skip_separators();
    while (at_definition(in)) {
        if (in.peek().is_word("def")) {
            FunctionDef def = p.definition();
            for (const auto& other : defs)
                if (other.name() == def.name())
                    in.fail({static_cast<int>(def.where()->line),
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
                in.fail(c->pos, fmt::format("case for {}, which is not defined above it in this "
                                            "text (a case follows the def of its function)",
                                            c->function));
            it->add_case(std::move(c));
        }
        if (!in.at_separator() && in.peek().kind != TokenKind::End)
            in.fail_expected("a newline after the definition", in.peek());
        in.skip_separators();
    }
    return defs;
}

namespace {

// One form that must fill the whole text (blank lines around it, and `;` after it when
// `semicolons`, allowed).
template <class Form>
auto parse_whole(std::string_view text, std::string_view source_name, const char* what,
                 bool semicolons, Form form) {
    auto source = own(text, source_name);
    ir::SourceText src{source->text, source->name};
    TokenCursor in(src);
    Parser p(in, source);
    in.skip_newlines();
    auto parsed = form(p);
    if (semicolons) in.skip_separators();
    else in.skip_newlines();
    if (in.peek().kind != TokenKind::End) in.fail_expected(what, in.peek());
    return parsed;
}

} // namespace

std::shared_ptr<const Body> parse_body(std::string_view text, std::string_view source_name) {
    auto source = own(text, source_name);
    ir::SourceText src{source->text, source->name};
    TokenCursor in(src);
    return Parser(in, source).body_only();
}

std::shared_ptr<const Space> parse_space(std::string_view text, std::string_view source_name) {
    return parse_whole(text, source_name, "the end of the space", false,
                       [](Parser& p) { return p.space_only(); });
}

std::shared_ptr<const Case> parse_case(std::string_view text, std::string_view source_name) {
    return parse_whole(text, source_name, "the end of the case", true,
                       [](Parser& p) { return p.case_form(); });
}

} // namespace siskin::functions
