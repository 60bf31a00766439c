// Recursive-descent parser for program text (grammar in docs/syntax.md). Einsum statements and
// explicit loop programs share one grammar: an assignment adds loops for the indices that no
// enclosing `for` binds, so `y[i] += A[i,j] * x[j]` and `for i, j { y[i] += A[i,j] * x[j] }`
// parse to the same IR. Expressions are the shared layer of ir/expression_parser.hpp; what is
// here is statements, accesses and the header forms.
#include <algorithm>
#include <cctype>
#include <list>
#include <optional>

#include <fmt/format.h>

#include "functions/parser.hpp"
#include "ir/arg_reduction.hpp"
#include "ir/expression_parser.hpp"
#include "ir/syntax.hpp"
#include "siskin/error.hpp"
#include "siskin/functions.hpp"
#include "siskin/ir/text.hpp"
#include "siskin/ir/visit.hpp"
#include "siskin/limits.hpp"

namespace siskin::ir {

namespace {

constexpr std::string_view kStatementHint =
    "a statement (an assignment such as y[i] = x[i], for, if, let, while, swap or '{')";
constexpr std::string_view kAssignHint =
    "an assignment operator (=, +=, *=, min=, max=, |=, &= or <<op>>=)";

class Parser {
public:
    explicit Parser(const SourceText& src)
        : in_(src), exprs_(in_, {syntax::is_keyword, [this](const Token& t) { return name(t); }}) {}

    Program program() {
        Program p;
        header(p);
        Position start = in_.peek().pos;
        std::vector<Stmt> stmts = statements(nullptr);
        p.body = stmts.size() == 1 ? stmts[0] : Block::make(std::move(stmts), start);
        check_fill_targets(p);
        return p;
    }

    Expr single_expression() {
        Expr e = exprs_.expression();
        in_.skip_newlines();
        if (in_.peek().kind != TokenKind::End)
            in_.fail_expected("end of the expression", in_.peek());
        return e;
    }

private:
    struct Binding {
        std::string name;
        bool is_let;
    };

    TokenCursor in_;
    ExpressionParser exprs_;
    std::vector<Binding> scope_; // innermost last
    bool spliced_ = false;       // the last statement() stands for the statements of its Block

    const Token& expect_name(std::string_view what) {
        return in_.expect_name(what, syntax::is_keyword);
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

    // `fill A = ...`: `fill` then a name. A statement never starts so (an assignment has '['
    // after its tensor's name), so `fill` stays free as a tensor name.
    bool at_fill_declaration() const {
        return in_.peek().is_word("fill") && in_.peek(1).kind == TokenKind::Identifier;
    }

    // The `def`, `case` and `fill` forms before the first statement, in any order; functions
    // are defined (registered) in order so that the statements, and later definitions, can
    // call them.
    void header(Program& p) {
        for (;;) {
            in_.skip_separators();
            if (at_fill_declaration()) {
                p.fills.push_back(fill_declaration(p.fills));
                if (!in_.at_separator() && in_.peek().kind != TokenKind::End)
                    in_.fail_expected("a newline after the fill declaration", in_.peek());
            } else if (functions::at_definition(in_)) {
                definitions(p.functions);
            } else {
                return;
            }
        }
    }

    // One run of `def` and `case` forms (functions/parser.cpp parses them).
    void definitions(std::vector<std::shared_ptr<const FunctionDef>>& out) {
        const Token& first = in_.peek();
        // The functions parser attaches a case to a def of its own run; a case split from its
        // def by a fill line would otherwise read as a case of an undefined function.
        if (first.is_word("case"))
            for (const auto& d : out)
                if (d->name() == in_.peek(1).text)
                    in_.fail(first.pos, fmt::format("a case follows the def of its function "
                                                    "directly: move the fill declarations "
                                                    "between def {} and this case elsewhere",
                                                    d->name()));
        const SourceText& src = in_.source();
        auto source = std::make_shared<functions::Source>(
            functions::Source{std::string(src.text), std::string(src.name)});
        std::vector<FunctionDef> defs = functions::parse_definitions(in_, source);
        for (FunctionDef& def : defs) {
            for (const auto& other : out)
                if (other->name() == def.name())
                    in_.fail({static_cast<int>(def.where()->line),
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
        Position pos = in_.next().pos; // fill
        const Token& name = expect_name("a tensor name after fill (as in fill A = inf)");
        for (const auto& f : earlier)
            if (f.tensor == name.text)
                in_.fail(name.pos, fmt::format("the fill of {} is declared twice (first at {}:{})",
                                               name.text, f.pos.line, f.pos.column));
        in_.expect("=", fmt::format("'=' after fill {} (as in fill {} = inf)", name.text,
                                    name.text));
        Scalar value = exprs_.constant(fmt::format("the fill of {} must be a constant: a number, "
                                                   "inf, nan, true, false, or a typed literal "
                                                   "such as int8(3), as in fill {} = -inf",
                                                   name.text, name.text));
        return FillDecl{std::string(name.text), value, pos};
    }

    // Every declared fill belongs to a tensor the statements read or write.
    void check_fill_targets(const Program& p) const {
        if (p.fills.empty()) return;
        std::vector<std::string> used = p.inputs(), outs = p.outputs();
        used.insert(used.end(), outs.begin(), outs.end());
        for (const auto& f : p.fills)
            if (std::find(used.begin(), used.end(), f.tensor) == used.end())
                in_.fail(f.pos, fmt::format("fill declared for {}, which the program does not "
                                            "read or write",
                                            f.tensor));
    }

    // ---- statements ----

    // Statements up to `open`'s matching '}' or the end of input.
    std::vector<Stmt> statements(const Token* open) {
        std::vector<Stmt> out;
        in_.statements(open, [&] {
            Stmt s = statement();
            if (spliced_) { // one statement written, several parsed (argmin=)
                spliced_ = false;
                for (const auto& c : s->as<Block>()->stmts) out.push_back(c);
            } else {
                out.push_back(s);
            }
        });
        return out;
    }

    // `{ statements }`: one statement stands for itself, none or several make a Block.
    Stmt body(std::string_view of_what) {
        in_.skip_newlines();
        const Token& open =
            in_.expect("{", fmt::format("'{{' to start the body of the {}", of_what));
        std::vector<Stmt> stmts = statements(&open);
        in_.next(); // '}'
        return stmts.size() == 1 ? stmts[0] : Block::make(std::move(stmts), open.pos);
    }

    Stmt statement() {
        const Token& t = in_.peek();
        TokenCursor::Nested nested(in_, t.pos);
        if (functions::at_definition(in_) || at_fill_declaration())
            in_.fail(t.pos, fmt::format("'{}' forms come before the first statement of the "
                                        "program",
                                        t.text));
        if (t.is_word("for")) return for_statement();
        if (t.is_word("if")) return if_statement();
        if (t.is_word("let")) return let_statement();
        // `while` and `swap` start statements only where no tensor of that name is written.
        if (t.is_word("while") && !in_.peek(1).is("[")) return while_statement();
        if (t.is_word("swap") && in_.peek(1).is("(")) return swap_statement();
        if (t.is("{")) {
            const Token& open = in_.next();
            std::vector<Stmt> stmts = statements(&open);
            in_.next(); // '}'
            return Block::make(std::move(stmts), open.pos);
        }
        if (t.kind == TokenKind::Identifier && !syntax::is_keyword(t.text)) return assignment();
        in_.fail_expected(kStatementHint, t);
    }

    // `for i, j in lo:hi, k { body }` is sugar for nested loops.
    Stmt for_statement() {
        Position for_pos = in_.next().pos;
        struct Head {
            std::string index;
            Expr lo, hi;
            Position pos;
        };
        std::vector<Head> heads;
        // `for i, j, k` nests three loops: each index after the first counts as a level, so
        // that the loops built stay within kMaxNesting as written ones do.
        std::list<TokenCursor::Nested> nested;
        size_t scope_size = scope_.size();
        do {
            in_.skip_newlines();
            if (!heads.empty()) nested.emplace_back(in_, in_.peek().pos);
            const Token& name = expect_name("a loop index name");
            Head h{std::string(name.text), nullptr, nullptr, heads.empty() ? for_pos : name.pos};
            if (in_.peek().is_word("in")) {
                in_.next();
                h.lo = exprs_.expression();
                in_.expect(":", fmt::format("':' between the bounds of {} (as in {} in 0:n)",
                                            h.index, h.index));
                h.hi = exprs_.expression();
            }
            // Later bounds may use earlier indices: `for i, j in 0:i`.
            scope_.push_back({h.index, false});
            heads.push_back(std::move(h));
        } while (in_.accept(","));
        Stmt s = body("loop");
        scope_.resize(scope_size);
        for (auto it = heads.rbegin(); it != heads.rend(); ++it)
            s = For::make(it->index, s, it->lo, it->hi, it->pos);
        return s;
    }

    Stmt if_statement() {
        Position pos = in_.next().pos;
        Expr cond = exprs_.expression();
        Stmt then_body = body("if");
        Stmt else_body;
        if (in_.accept_word_after_newlines("else")) {
            if (in_.peek().is_word("if")) {
                // An else-if chain nests one level per link, like the IR it builds.
                TokenCursor::Nested nested(in_, in_.peek().pos);
                else_body = if_statement();
            } else {
                else_body = body("else");
            }
        }
        return If::make(cond, then_body, else_body, pos);
    }

    Stmt while_statement() {
        Position pos = in_.next().pos;
        Expr cond = exprs_.expression();
        return While::make(cond, body("while"), pos);
    }

    Stmt swap_statement() {
        Position pos = in_.next().pos;
        in_.next(); // '('
        const Token& first = expect_name("a tensor name in swap(F, G)");
        in_.expect(",", "',' between the two tensors of swap(F, G)");
        const Token& second = expect_name("a tensor name in swap(F, G)");
        in_.expect(")", "')' after swap(F, G)");
        return Swap::make(std::string(first.text), std::string(second.text), pos);
    }

    Stmt let_statement() {
        Position pos = in_.next().pos;
        const Token& name = expect_name("a variable name after let");
        in_.expect("=", fmt::format("'=' after let {}", name.text));
        Expr value = exprs_.expression(); // the variable is not visible in its own value
        scope_.push_back({std::string(name.text), true});
        Stmt b = body("let");
        scope_.pop_back();
        return Let::make(std::string(name.text), value, b, pos);
    }

    Stmt assignment() {
        const Token& name = in_.next();
        if (!in_.peek().is("["))
            in_.fail_expected(fmt::format("'[' after the tensor name {} (write {}[] for a scalar)",
                                          name.text, name.text),
                              in_.peek());
        auto lhs = access(name);
        if (in_.peek().is(",")) return arg_assignment(name, lhs);
        std::string op = assign_operator();
        in_.skip_newlines();
        Expr rhs = exprs_.expression();
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
        // Each implied loop nests in the one before it: together they count against the
        // nesting limit like written loops, so that no pass recurses through thousands.
        if (in_.depth() + static_cast<int64_t>(free.size()) > kMaxNesting)
            in_.fail(s->pos, fmt::format("the statement implies {} nested loops (one per index), "
                                         "more than the nesting limit of {} allows here",
                                         free.size(), kMaxNesting));
        for (auto it = free.rbegin(); it != free.rend(); ++it)
            s = For::make(it->first, s, nullptr, nullptr, it->second);
        return s;
    }

    // `m[..], k[..] argmin= e` (or argmax=): two statements (ir/arg_reduction.hpp), spliced
    // into the enclosing list.
    Stmt arg_assignment(const Token& name, const std::shared_ptr<const Access>& value) {
        in_.next(); // ','
        const Token& second =
            expect_name("the index output after ',' (as in m[], k[] argmin= A[i])");
        if (!in_.peek().is("["))
            in_.fail_expected(fmt::format("'[' after the tensor name {}", second.text),
                              in_.peek());
        auto index = access(second);
        const Token& op = in_.peek();
        bool max = op.is_word("argmax");
        if (!(op.is_word("argmin") || max) || !in_.peek(1).is("="))
            in_.fail_expected("argmin= or argmax= after two outputs (the only assignments with "
                              "two)",
                              op);
        in_.skip(2);
        in_.skip_newlines();
        Expr rhs = exprs_.expression();
        if (value->tensor == index->tensor)
            in_.fail(second.pos, fmt::format("argmin= and argmax= need two different outputs, "
                                             "not {} twice",
                                             value->tensor));
        bool same = value->indices.size() == index->indices.size();
        for (size_t k = 0; same && k < value->indices.size(); ++k)
            same = equal(value->indices[k], index->indices[k]);
        if (!same)
            in_.fail(second.pos, fmt::format("the outputs of {}= must have the same indices: {} "
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
                in_.fail(i->pos, fmt::format("{}= must reduce over an index of its own, but {} "
                                             "is the index of an enclosing for",
                                             op.text, i->name));
            reduced.push_back(i->name);
        });
        if (reduced.size() != 1)
            in_.fail(op.pos, fmt::format("{}= reduces over exactly one index (the one whose "
                                         "position it records); {} has {}",
                                         op.text, print(rhs), reduced.size()));
        std::vector<Stmt> parts;
        for (const auto& a : arg_reduction(value, index, max, rhs, reduced.front(), name.pos))
            parts.push_back(with_implied_loops(a, a->lhs, a->rhs));
        spliced_ = true;
        return Block::make(std::move(parts), name.pos);
    }

    std::string assign_operator() {
        const Token& t = in_.peek();
        for (const auto& a : syntax::assign_symbols()) {
            if (t.is(a.symbol)) {
                in_.next();
                return std::string(a.op);
            }
            // `min=` and `max=`: a word, then '='.
            std::string_view word = a.symbol.substr(0, a.symbol.size() - 1);
            if (!word.empty() && std::isalpha(static_cast<unsigned char>(word[0])) &&
                t.is_word(word) && in_.peek(1).is("=")) {
                in_.skip(2);
                return std::string(a.op);
            }
        }
        if (t.is("<<")) {
            in_.next();
            const Token& op = in_.peek();
            if (op.kind != TokenKind::Identifier)
                in_.fail_expected("an operator name after '<<'", op);
            in_.next();
            in_.expect(">>", fmt::format("'>>=' after <<{}", op.text));
            in_.expect("=", fmt::format("'=' after <<{}>>", op.text));
            return std::string(op.text);
        }
        in_.fail_expected(kAssignHint, t);
    }

    // ---- names and accesses: what program text adds to the shared expressions ----

    // A name in an expression, with the cursor past it: `A[...]` an access, a name bound by
    // let that variable, any other name an index.
    Expr name(const Token& t) {
        if (in_.peek().is("[")) return access(t);
        std::string word(t.text);
        if (let_bound(word)) return Variable::make(std::move(word), t.pos);
        return Index::make(std::move(word), t.pos);
    }

    std::shared_ptr<const Access> access(const Token& name) {
        if (syntax::is_keyword(name.text))
            in_.fail(name.pos, fmt::format("expected a tensor name, found the keyword '{}'",
                                           name.text));
        in_.next(); // '['
        std::vector<Expr> indices;
        std::vector<std::string> protocols;
        bool any_protocol = false;
        if (!in_.peek().is("]")) {
            do {
                const Token& t = in_.peek();
                if (t.kind == TokenKind::Identifier && syntax::is_protocol(t.text) &&
                    in_.peek(1).is("(")) {
                    in_.skip(2);
                    indices.push_back(subscript());
                    in_.expect(")", fmt::format("')' to close {}(", t.text));
                    protocols.emplace_back(t.text);
                    any_protocol = true;
                } else {
                    indices.push_back(subscript());
                    protocols.emplace_back();
                }
            } while (in_.accept(","));
        }
        in_.expect("]", fmt::format("',' or ']' in the indices of {}", name.text));
        try {
            check_rank(static_cast<int64_t>(indices.size()), fmt::format("access {}[...]", name.text));
        } catch (const Error& e) {
            in_.fail(name.pos, e.message());
        }
        if (!any_protocol) protocols.clear();
        auto a = Access::make(std::string(name.text), std::move(indices), std::move(protocols),
                              name.pos);
        exprs_.count_height(a, a->indices, name.pos);
        return a;
    }

    // One subscript of an access: an expression, or a sliced index `i(lo:hi:st)`. A colon
    // appears nowhere else inside parentheses, so `name(` with a ':' before its ')' is a slice.
    Expr subscript() {
        const Token& t = in_.peek();
        if (t.kind != TokenKind::Identifier || !in_.peek(1).is("(")) return exprs_.expression();
        bool slice = false;
        for (size_t k = 2; !slice; ++k) {
            const Token& u = in_.peek(k);
            if (u.is(":")) slice = true;
            else if (u.is(")") || u.is("(") || u.is("]") || u.kind == TokenKind::End) break;
        }
        if (!slice) return exprs_.expression();
        if (syntax::is_keyword(t.text) || syntax::is_protocol(t.text) || let_bound(t.text))
            in_.fail(t.pos, fmt::format("only a loop index can be sliced, as in A[i(0:4)]; {} is "
                                        "not one",
                                        t.text));
        in_.skip(2); // name '('
        Slice s;
        s.lo = slice_bound(t.text);
        in_.expect(":", fmt::format("':' in the slice of {} (as in {}(lo:hi:step))", t.text,
                                    t.text));
        s.hi = slice_bound(t.text);
        if (in_.accept(":"))
            if (auto step = slice_bound(t.text)) s.step = *step;
        in_.expect(")", fmt::format("')' to close the slice of {} (as in {}(lo:hi:step))", t.text,
                                    t.text));
        return Index::sliced(std::string(t.text), s, t.pos);
    }

    // An integer constant, possibly negative, or nothing (before ':' or ')').
    std::optional<int64_t> slice_bound(std::string_view index) {
        if (in_.peek().is(":") || in_.peek().is(")")) return std::nullopt;
        const Token& sign = in_.peek();
        bool negative = in_.accept("-");
        const Token& n = in_.peek();
        if (n.kind != TokenKind::Integer)
            in_.fail_expected(fmt::format("an integer bound in the slice of {} (slice bounds are "
                                          "integer constants, as in {}(0:8:2))",
                                          index, index),
                              n);
        in_.next();
        return exprs_.number(n, negative, sign.pos)->as<Literal>()->value.as_int();
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
