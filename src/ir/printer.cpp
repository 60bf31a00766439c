// Prints the explicit loop form, with only the parentheses that precedence requires. The output
// parses back to an equal program (tests/ir_roundtrip_test.cpp checks this on many programs).
#include <cctype>

#include <fmt/format.h>

#include "ir/syntax.hpp"
#include "siskin/error.hpp"
#include "siskin/functions.hpp"
#include "siskin/ir/text.hpp"

namespace siskin::ir {

namespace {

struct Printed {
    std::string text;
    int precedence; // how tightly the text binds, as in syntax.hpp
};

bool is_type_name(std::string_view word) {
    for (int t = 0; t <= static_cast<int>(ValueType::Float64); ++t)
        if (type_name(static_cast<ValueType>(t)) == word) return true;
    return false;
}

// int64, float64 and bool have plain spellings; other types are written `int8(3)`.
std::string literal_text(const Scalar& v) {
    std::string text = v.to_string();
    switch (v.type()) {
    case ValueType::Int64:
    case ValueType::Bool: return text;
    case ValueType::Float64:
        // "2" would read back as an int64.
        if (text.find_first_of(".en") == std::string::npos) text += ".0";
        return text;
    default: return fmt::format("{}({})", type_name(v.type()), text);
    }
}

std::string parens(const Printed& p, bool needed) {
    return needed ? "(" + p.text + ")" : p.text;
}

Printed print_expr(const Expr& e);

std::string join_exprs(const std::vector<Expr>& es) {
    std::string out;
    for (size_t k = 0; k < es.size(); ++k) out += (k ? ", " : "") + print_expr(es[k]).text;
    return out;
}

Printed print_call(const Call& c) {
    if (c.args.size() == 2)
        if (auto b = syntax::binary_by_op(c.op)) {
            // Left-associative: a right operand of equal precedence needs parentheses.
            Printed l = print_expr(c.args[0]), r = print_expr(c.args[1]);
            return {fmt::format("{} {} {}", parens(l, l.precedence < b->precedence), b->symbol,
                                parens(r, r.precedence <= b->precedence)),
                    b->precedence};
        }
    if (c.args.size() == 1)
        if (auto u = syntax::unary_by_op(c.op)) {
            Printed x = print_expr(c.args[0]);
            bool needed = x.precedence < syntax::kUnaryPrecedence;
            // `-3` would read back as the literal -3: neg(3) keeps its parentheses. neg(-x) is
            // `- -x`, a space rather than parentheses, so that printing a chain of signs does
            // not nest it deeper than the text it was parsed from (the parser's depth limit).
            if (u->symbol == "-" && !x.text.empty()) {
                if (x.text[0] == '-' && !needed) return {"- " + x.text, syntax::kUnaryPrecedence};
                needed |= std::isdigit(static_cast<unsigned char>(x.text[0])) || x.text == "inf" ||
                          x.text == "nan";
            }
            return {std::string(u->symbol) + parens(x, needed), syntax::kUnaryPrecedence};
        }
    // `int8(3)` is a typed literal: a call of an operator named int8 on a literal keeps its
    // argument in parentheses so it reads back as a call.
    if (c.args.size() == 1 && is_type_name(c.op) && c.args[0]->kind == ExprKind::Literal) {
        Printed x = print_expr(c.args[0]);
        if (x.text.find('(') == std::string::npos)
            return {fmt::format("{}(({}))", c.op, x.text), syntax::kPrimaryPrecedence};
    }
    return {fmt::format("{}({})", c.op, join_exprs(c.args)), syntax::kPrimaryPrecedence};
}

std::string print_access(const Access& a) {
    std::string out = a.tensor + "[";
    for (size_t k = 0; k < a.indices.size(); ++k) {
        std::string idx = print_expr(a.indices[k]).text;
        const std::string& proto = a.protocols[k];
        out += (k ? ", " : "") + (proto.empty() ? idx : proto + "(" + idx + ")");
    }
    return out + "]";
}

Printed print_expr(const Expr& e) {
    SISKIN_ASSERT(e, "cannot print a null expression");
    switch (e->kind) {
    case ExprKind::Literal: {
        std::string t = literal_text(e->as<Literal>()->value);
        // A negative constant reads like a unary minus.
        return {t, t[0] == '-' ? syntax::kUnaryPrecedence : syntax::kPrimaryPrecedence};
    }
    case ExprKind::Index: {
        const auto& i = *e->as<Index>();
        return {i.slice ? i.name + "(" + slice_text(*i.slice) + ")" : i.name, syntax::kPrimaryPrecedence};
    }
    case ExprKind::Variable: return {e->as<Variable>()->name, syntax::kPrimaryPrecedence};
    case ExprKind::Access: return {print_access(*e->as<Access>()), syntax::kPrimaryPrecedence};
    case ExprKind::Call: return print_call(*e->as<Call>());
    }
    SISKIN_ASSERT(false, "unknown expression kind");
}

std::string pad(int indent) { return std::string(4 * indent, ' '); }

std::string print_stmt(const Stmt& s, int indent);

// `{ ... }` after for/if/let: a Block of n != 1 statements prints as its statements, anything
// else (a Block of one included) as one statement, matching how the parser builds bodies.
std::string print_body(const Stmt& s, int indent) {
    SISKIN_ASSERT(s, "cannot print a null statement body");
    std::vector<Stmt> stmts{s};
    if (auto b = s->as<Block>(); b && b->stmts.size() != 1) stmts = b->stmts;
    if (stmts.empty()) return "{}";
    std::string out = "{\n";
    for (const auto& x : stmts) out += pad(indent + 1) + print_stmt(x, indent + 1) + "\n";
    return out + pad(indent) + "}";
}

std::string print_stmt(const Stmt& s, int indent) {
    SISKIN_ASSERT(s, "cannot print a null statement");
    switch (s->kind) {
    case StmtKind::For: {
        // Nested loops print as one `for i, j { ... }`.
        std::string heads;
        const For* f = s->as<For>();
        for (;;) {
            SISKIN_ASSERT(!f->lo == !f->hi, "a loop needs both bounds or neither");
            heads += (heads.empty() ? "" : ", ") + f->index;
            if (f->lo)
                heads += fmt::format(" in {}:{}", print_expr(f->lo).text, print_expr(f->hi).text);
            if (!f->body || f->body->kind != StmtKind::For) break;
            f = f->body->as<For>();
        }
        return fmt::format("for {} {}", heads, print_body(f->body, indent));
    }
    case StmtKind::Assign: {
        auto a = s->as<Assign>();
        return fmt::format("{} {} {}", print_access(*a->lhs), syntax::assign_spelling(a->op),
                           print_expr(a->rhs).text);
    }
    case StmtKind::If: {
        auto i = s->as<If>();
        std::string out = fmt::format("if {} {}", print_expr(i->cond).text,
                                      print_body(i->then_body, indent));
        if (i->else_body)
            out += " else " + (i->else_body->kind == StmtKind::If
                                   ? print_stmt(i->else_body, indent)
                                   : print_body(i->else_body, indent));
        return out;
    }
    case StmtKind::Let: {
        auto l = s->as<Let>();
        return fmt::format("let {} = {} {}", l->name, print_expr(l->value).text,
                           print_body(l->body, indent));
    }
    case StmtKind::Block: {
        auto b = s->as<Block>();
        if (b->stmts.empty()) return "{}";
        std::string out = "{\n";
        for (const auto& x : b->stmts) out += pad(indent + 1) + print_stmt(x, indent + 1) + "\n";
        return out + pad(indent) + "}";
    }
    case StmtKind::While: {
        auto w = s->as<While>();
        return fmt::format("while {} {}", print_expr(w->cond).text, print_body(w->body, indent));
    }
    case StmtKind::Swap: {
        auto w = s->as<Swap>();
        return fmt::format("swap({}, {})", w->first, w->second);
    }
    }
    SISKIN_ASSERT(false, "unknown statement kind");
}

} // namespace

std::string print(const Expr& e) { return print_expr(e).text; }

std::string print(const Stmt& s) { return print_stmt(s, 0); }

std::string print(const FillDecl& f) {
    return fmt::format("fill {} = {}", f.tensor, literal_text(f.value));
}

std::string FillDecl::describe() const {
    if (pos.line == 0) return print(*this);
    return fmt::format("{} (line {})", print(*this), pos.line);
}

std::string print(const Program& p) {
    // Definitions and fill declarations first, as the parser wants them, then a blank line.
    std::string out;
    for (const auto& f : p.functions) out += f->to_string();
    for (const auto& f : p.fills) out += print(f) + "\n";
    if (!out.empty()) out += "\n";
    auto b = p.body ? p.body->as<Block>() : nullptr;
    if (!b || b->stmts.size() == 1) return out + print_stmt(p.body, 0) + "\n";
    for (const auto& s : b->stmts) out += print_stmt(s, 0) + "\n";
    return out;
}

} // namespace siskin::ir
