#include "codegen/c_printer.hpp"

#include <fmt/format.h>

#include "codegen/c_literal.hpp"
#include "siskin/error.hpp"

namespace siskin::cast {

namespace {

// C precedence levels, higher binds tighter (C11 6.5). Only the levels the AST can produce.
enum Prec : int {
    kLowest = 0,
    kTernary = 3, // right-associative
    kLogOr = 4,
    kLogAnd = 5,
    kBitOr = 6,
    kBitXor = 7,
    kBitAnd = 8,
    kEquality = 9,
    kRelational = 10,
    kShift = 11,
    kAdditive = 12,
    kMultiplicative = 13,
    kUnary = 15, // prefix operators and casts, right-associative
    kPostfix = 16,
    kPrimary = 17,
};

struct BinaryInfo {
    std::string_view text;
    int prec;
};

BinaryInfo info(BinaryOp op) {
    switch (op) {
    case BinaryOp::Mul: return {"*", kMultiplicative};
    case BinaryOp::Div: return {"/", kMultiplicative};
    case BinaryOp::Mod: return {"%", kMultiplicative};
    case BinaryOp::Add: return {"+", kAdditive};
    case BinaryOp::Sub: return {"-", kAdditive};
    case BinaryOp::Shl: return {"<<", kShift};
    case BinaryOp::Shr: return {">>", kShift};
    case BinaryOp::Lt: return {"<", kRelational};
    case BinaryOp::Le: return {"<=", kRelational};
    case BinaryOp::Gt: return {">", kRelational};
    case BinaryOp::Ge: return {">=", kRelational};
    case BinaryOp::Eq: return {"==", kEquality};
    case BinaryOp::Ne: return {"!=", kEquality};
    case BinaryOp::BitAnd: return {"&", kBitAnd};
    case BinaryOp::BitXor: return {"^", kBitXor};
    case BinaryOp::BitOr: return {"|", kBitOr};
    case BinaryOp::LogAnd: return {"&&", kLogAnd};
    case BinaryOp::LogOr: return {"||", kLogOr};
    }
    SISKIN_ASSERT(false, "unknown binary operator");
    return {};
}

std::string_view unary_text(UnaryOp op) {
    switch (op) {
    case UnaryOp::Neg: return "-";
    case UnaryOp::Not: return "!";
    case UnaryOp::BitNot: return "~";
    case UnaryOp::AddressOf: return "&";
    case UnaryOp::Deref: return "*";
    }
    SISKIN_ASSERT(false, "unknown unary operator");
    return {};
}

std::string_view assign_text(AssignOp op) {
    switch (op) {
    case AssignOp::Set: return "=";
    case AssignOp::Add: return "+=";
    case AssignOp::Sub: return "-=";
    case AssignOp::Mul: return "*=";
    case AssignOp::Div: return "/=";
    case AssignOp::Mod: return "%=";
    case AssignOp::BitAnd: return "&=";
    case AssignOp::BitOr: return "|=";
    case AssignOp::BitXor: return "^=";
    case AssignOp::Shl: return "<<=";
    case AssignOp::Shr: return ">>=";
    }
    SISKIN_ASSERT(false, "unknown assignment operator");
    return {};
}

bool is_comparison(int prec) { return prec == kRelational || prec == kEquality; }
bool is_bitwise(int prec) { return prec == kBitAnd || prec == kBitXor || prec == kBitOr; }

// The precedence of the text print_expr produces for e. A literal like -1LL or (double)NAN is
// a prefix expression, not a primary one.
int precedence(const Expr& e) {
    switch (e.kind()) {
    case ExprKind::Literal: {
        std::string s = c_literal(e.as<Literal>().value);
        return s[0] == '-' || s[0] == '(' ? kUnary : kPrimary;
    }
    case ExprKind::Var: return kPrimary;
    case ExprKind::Call:
    case ExprKind::Index:
    case ExprKind::Field: return kPostfix;
    case ExprKind::Unary:
    case ExprKind::Cast: return kUnary;
    case ExprKind::Binary: return info(e.as<Binary>().op).prec;
    case ExprKind::Ternary: return kTernary;
    }
    return kLowest;
}

// Parentheses C does not need but gcc/clang -Wparentheses ask for, around an operand `child` of
// a binary operator `parent`. They only ever wrap an operand that binds tighter than its parent.
bool clarity_parens(BinaryOp parent, const Expr& child) {
    int pp = info(parent).prec;
    // !a == b and !a | b apply ! to a alone: -Wlogical-not-parentheses, -Wparentheses.
    if (child.kind() == ExprKind::Unary)
        return (is_comparison(pp) || is_bitwise(pp)) && child.as<Unary>().op == UnaryOp::Not;
    if (child.kind() != ExprKind::Binary) return false;
    BinaryOp c = child.as<Binary>().op;
    int cp = info(c).prec;
    if (parent == BinaryOp::LogOr && c == BinaryOp::LogAnd) return true;
    if (pp == kShift && cp == kAdditive) return true;
    if (is_comparison(pp) && is_comparison(cp)) return true;
    if (is_bitwise(pp) && c != parent) return true;
    return false;
}

std::string expr(const Expr& e, int min_prec);
std::string expr_text(const Expr& e);

std::string wrap(std::string s) { return "(" + s + ")"; }

// An operand of a binary operator that must bind at least as tightly as min_prec.
std::string operand(BinaryOp parent, const Expr& child, int min_prec) {
    if (clarity_parens(parent, child) && precedence(child) >= min_prec)
        return wrap(expr_text(child));
    return expr(child, min_prec);
}

std::string binary(const Binary& b) {
    BinaryInfo bi = info(b.op);
    // Left-associative: the left operand may have the same precedence, the right one must bind
    // tighter, so a - (b - c) keeps its parentheses and (a - b) - c loses them.
    return fmt::format("{} {} {}", operand(b.op, b.lhs, bi.prec), bi.text,
                       operand(b.op, b.rhs, bi.prec + 1));
}

std::string unary_operand(std::string_view op, const Expr& operand) {
    std::string s = expr(operand, kUnary);
    // "- -x" would lex as "--x", and "&&x" as a logical and: keep such operands apart.
    if ((op == "-" || op == "&") && s[0] == op[0]) s = wrap(std::move(s));
    return s;
}

std::string expr_text(const Expr& e) {
    switch (e.kind()) {
    case ExprKind::Literal: return c_literal(e.as<Literal>().value);
    case ExprKind::Var: return e.as<Var>().name;
    case ExprKind::Unary: {
        const auto& u = e.as<Unary>();
        std::string_view op = unary_text(u.op);
        return std::string(op) + unary_operand(op, u.operand);
    }
    case ExprKind::Binary: return binary(e.as<Binary>());
    case ExprKind::Ternary: {
        const auto& t = e.as<Ternary>();
        // Right-associative: a ? b : c ? d : e needs no parentheses, (a ? b : c) ? d : e does.
        // An arithmetic or bitwise condition gets them too: clang warns on a + (b < c) ? x : y.
        int cp = precedence(t.cond);
        std::string cond = kBitOr <= cp && cp <= kMultiplicative && !is_comparison(cp)
                               ? wrap(expr_text(t.cond))
                               : expr(t.cond, kTernary + 1);
        return fmt::format("{} ? {} : {}", cond, expr(t.then_value, kLowest),
                           expr(t.else_value, kTernary));
    }
    case ExprKind::Call: {
        const auto& c = e.as<Call>();
        std::string s = c.function + "(";
        for (size_t i = 0; i < c.args.size(); ++i) {
            if (i) s += ", ";
            s += expr(c.args[i], kLowest); // the AST has no comma operator
        }
        return s + ")";
    }
    case ExprKind::Index: {
        const auto& x = e.as<Index>();
        return fmt::format("{}[{}]", expr(x.base, kPostfix), expr(x.index, kLowest));
    }
    case ExprKind::Field: {
        const auto& f = e.as<Field>();
        return fmt::format("{}{}{}", expr(f.base, kPostfix), f.arrow ? "->" : ".", f.field);
    }
    case ExprKind::Cast: {
        const auto& c = e.as<Cast>();
        return fmt::format("({}){}", print(c.type), expr(c.operand, kUnary));
    }
    }
    SISKIN_ASSERT(false, "unknown C expression kind");
    return {};
}

// Prints e, in parentheses when it binds more loosely than its context requires.
std::string expr(const Expr& e, int min_prec) {
    std::string s = expr_text(e);
    return precedence(e) < min_prec ? wrap(std::move(s)) : s;
}

// ---- Statements -------------------------------------------------------------------------------

class StmtPrinter {
public:
    std::string out;

    void stmt(const Stmt& s, int depth) {
        switch (s.kind()) {
        case StmtKind::Decl:
        case StmtKind::Assign:
        case StmtKind::Increment: line(depth, simple(s) + ";"); return;
        case StmtKind::Eval: line(depth, print(s.as<Eval>().expr) + ";"); return;
        case StmtKind::Block:
            line(depth, "{");
            body(s, depth + 1);
            line(depth, "}");
            return;
        case StmtKind::If: if_chain(s.as<If>(), depth); return;
        case StmtKind::For: {
            const auto& f = s.as<For>();
            std::string head =
                fmt::format("for ({}; {}; {}) {{", f.init ? simple(*f.init) : "",
                            f.cond ? print(*f.cond) : "", f.step ? simple(*f.step) : "");
            // "for (; ; )" reads better as "for (;;)".
            if (!f.init && !f.cond && !f.step) head = "for (;;) {";
            line(depth, head);
            body(f.body, depth + 1);
            line(depth, "}");
            return;
        }
        case StmtKind::While: {
            const auto& w = s.as<While>();
            line(depth, fmt::format("while ({}) {{", print(w.cond)));
            body(w.body, depth + 1);
            line(depth, "}");
            return;
        }
        case StmtKind::Break: line(depth, "break;"); return;
        case StmtKind::Continue: line(depth, "continue;"); return;
        case StmtKind::Return: {
            const auto& r = s.as<Return>();
            line(depth, r.value ? "return " + print(*r.value) + ";" : "return;");
            return;
        }
        case StmtKind::Comment: comment(s.as<Comment>().text, depth); return;
        case StmtKind::Goto: line(depth, "goto " + s.as<Goto>().label + ";"); return;
        case StmtKind::Label: line(depth, s.as<Label>().name + ":;"); return;
        case StmtKind::Pragma:
            line(0, "#pragma " + s.as<Pragma>().text);
            stmt(s.as<Pragma>().body, depth);
            return;
        }
        SISKIN_ASSERT(false, "unknown C statement kind");
    }

    // The statements of a Block, without its braces.
    void body(const Stmt& block, int depth) {
        for (const Stmt& s : block.as<Block>().stmts) stmt(s, depth);
    }

private:
    void line(int depth, std::string_view text) {
        out.append(static_cast<size_t>(depth) * 4, ' ');
        out += text;
        out += '\n';
    }

    // The statements that also appear inside a for header, without the semicolon.
    static std::string simple(const Stmt& s) {
        switch (s.kind()) {
        case StmtKind::Decl: {
            const auto& d = s.as<Decl>();
            std::string text = print_declarator(d.type, d.name);
            return d.init ? text + " = " + print(*d.init) : text;
        }
        case StmtKind::Assign: {
            const auto& a = s.as<Assign>();
            return fmt::format("{} {} {}", print(a.target), assign_text(a.op), print(a.value));
        }
        case StmtKind::Increment: {
            const auto& i = s.as<Increment>();
            return expr(i.target, kPostfix) + (i.decrement ? "--" : "++");
        }
        default: SISKIN_ASSERT(false, "not a simple statement"); return {};
        }
    }

    void if_chain(const If& s, int depth) {
        line(depth, fmt::format("if ({}) {{", print(s.cond)));
        const If* cur = &s;
        while (true) {
            body(cur->then_body, depth + 1);
            if (!cur->else_body) break;
            if (cur->else_body->kind() == StmtKind::If) {
                cur = &cur->else_body->as<If>();
                line(depth, fmt::format("}} else if ({}) {{", print(cur->cond)));
                continue;
            }
            line(depth, "} else {");
            body(*cur->else_body, depth + 1);
            break;
        }
        line(depth, "}");
    }

    // One "//" line per line of text. A line ending in a backslash (or the trigraph ??/) would
    // splice the next source line into the comment, so such text is defused.
    void comment(std::string_view text, int depth) {
        size_t start = 0;
        while (true) {
            size_t end = text.find('\n', start);
            std::string l(text.substr(start, end == std::string_view::npos ? end : end - start));
            for (size_t q = l.find("??"); q != std::string::npos; q = l.find("??", q + 2))
                l.insert(q + 1, " ");
            while (!l.empty() && (l.back() == ' ' || l.back() == '\t' || l.back() == '\r'))
                l.pop_back();
            if (!l.empty() && l.back() == '\\') l += '.';
            line(depth, l.empty() ? "//" : "// " + l);
            if (end == std::string_view::npos) break;
            start = end + 1;
        }
    }
};

} // namespace

std::string print(const Expr& e) { return expr(e, kLowest); }

std::string print(const Stmt& s, int depth) {
    StmtPrinter p;
    p.stmt(s, depth);
    return p.out;
}

std::string print(const Type& t) {
    std::string s = t.is_const ? "const " + t.base : t.base;
    if (t.pointers > 0) s += " " + std::string(static_cast<size_t>(t.pointers), '*');
    if (t.is_restrict) s += "restrict";
    return s;
}

std::string print_declarator(const Type& t, std::string_view name) {
    std::string s = print(t);
    // "double *p" and "double *restrict p": the name follows a star directly.
    if (s.back() != '*') s += ' ';
    return s + std::string(name);
}

std::string print(const Function& f) {
    std::string params;
    for (size_t i = 0; i < f.params.size(); ++i) {
        if (i) params += ", ";
        params += print_declarator(f.params[i].type, f.params[i].name);
    }
    if (f.params.empty()) params = "void";
    std::string out = fmt::format("{}{}({}) {{\n", f.is_static ? "static " : "",
                                  print_declarator(f.result, f.name), params);
    StmtPrinter p;
    p.body(f.body, 1);
    return out + p.out + "}\n";
}

std::string print_unit(const std::vector<Function>& functions) {
    std::string out = "#include \"siskin_prelude.h\"\n";
    for (const Function& f : functions) out += "\n" + print(f);
    return out;
}

} // namespace siskin::cast
