#include "codegen/c_ast.hpp"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "siskin/error.hpp"

namespace siskin::cast {

namespace {

constexpr std::string_view kKeywords[] = {
    "auto",       "break",     "case",           "char",
    "const",      "continue",  "default",        "do",
    "double",     "else",      "enum",           "extern",
    "float",      "for",       "goto",           "if",
    "inline",     "int",       "long",           "register",
    "restrict",   "return",    "short",          "signed",
    "sizeof",     "static",    "struct",         "switch",
    "typedef",    "union",     "unsigned",       "void",
    "volatile",   "while",     "_Alignas",       "_Alignof",
    "_Atomic",    "_Bool",     "_Complex",       "_Generic",
    "_Imaginary", "_Noreturn", "_Static_assert", "_Thread_local",
};

void check_identifier(std::string_view name, std::string_view what) {
    SISKIN_ASSERT(is_identifier(name), fmt::format("{} '{}' is not a C identifier", what, name));
}

// Bodies of if/for/while are always blocks, so the printer has one shape to print.
Stmt as_block(Stmt s) {
    if (s.kind() == StmtKind::Block) return s;
    return Block::make({std::move(s)});
}

} // namespace

bool is_identifier(std::string_view name) {
    if (name.empty()) return false;
    auto alpha = [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    };
    if (!alpha(name[0])) return false;
    for (char c : name)
        if (!alpha(c) && !(c >= '0' && c <= '9')) return false;
    return std::find(std::begin(kKeywords), std::end(kKeywords), name) == std::end(kKeywords);
}

// ---- Type -------------------------------------------------------------------------------------

Type Type::of(ValueType t) { return Type{std::string(c_type_name(t))}; }

Type Type::named(std::string base) {
    // Type names are identifiers too, but "double" and "int" are keywords: allow the base types.
    static const std::set<std::string, std::less<>> kBuiltin = {"void",  "char",   "int", "long",
                                                                "float", "double", "bool"};
    SISKIN_ASSERT(kBuiltin.count(base) || is_identifier(base),
                  fmt::format("type name '{}' is not a C identifier", base));
    return Type{std::move(base)};
}

Type Type::pointer() const {
    SISKIN_ASSERT(!is_restrict, "a pointer to a restrict pointer is not supported");
    Type t = *this;
    ++t.pointers;
    return t;
}

Type Type::as_const() const {
    Type t = *this;
    t.is_const = true;
    return t;
}

Type Type::restricted() const {
    SISKIN_ASSERT(pointers > 0, fmt::format("restrict needs a pointer type, not '{}'", base));
    Type t = *this;
    t.is_restrict = true;
    return t;
}

// ---- Expressions ------------------------------------------------------------------------------

Expr::Expr(std::shared_ptr<const ExprNode> node) : node_(std::move(node)) {
    SISKIN_ASSERT(node_ != nullptr, "null C expression");
}

void Expr::check_kind(ExprKind k) const {
    SISKIN_ASSERT(node_->kind == k,
                  fmt::format("C expression of kind {} used as kind {}",
                              static_cast<int>(node_->kind), static_cast<int>(k)));
}

bool is_lvalue(const Expr& e) {
    switch (e.kind()) {
    case ExprKind::Var:
    case ExprKind::Index:
    case ExprKind::Field: return true;
    case ExprKind::Unary: return e.as<Unary>().op == UnaryOp::Deref;
    default: return false;
    }
}

Expr Literal::make(Scalar value) { return Expr(std::make_shared<const Literal>(value)); }

Expr Var::make(std::string name) {
    check_identifier(name, "variable");
    return Expr(std::make_shared<const Var>(std::move(name)));
}

Expr Unary::make(UnaryOp op, Expr operand) {
    if (op == UnaryOp::AddressOf)
        SISKIN_ASSERT(is_lvalue(operand), "& of an expression that is not an lvalue");
    return Expr(std::make_shared<const Unary>(op, std::move(operand)));
}

Expr Binary::make(BinaryOp op, Expr lhs, Expr rhs) {
    return Expr(std::make_shared<const Binary>(op, std::move(lhs), std::move(rhs)));
}

Expr Ternary::make(Expr cond, Expr then_value, Expr else_value) {
    return Expr(std::make_shared<const Ternary>(std::move(cond), std::move(then_value),
                                                std::move(else_value)));
}

Expr Call::make(std::string function, std::vector<Expr> args) {
    check_identifier(function, "function");
    return Expr(std::make_shared<const Call>(std::move(function), std::move(args)));
}

Expr Index::make(Expr base, Expr index) {
    return Expr(std::make_shared<const Index>(std::move(base), std::move(index)));
}

Expr Field::make(Expr base, std::string field, bool arrow) {
    check_identifier(field, "field");
    return Expr(std::make_shared<const Field>(std::move(base), std::move(field), arrow));
}

Expr Cast::make(Type type, Expr operand) {
    return Expr(std::make_shared<const Cast>(std::move(type), std::move(operand)));
}

// ---- Statements -------------------------------------------------------------------------------

Stmt::Stmt(std::shared_ptr<const StmtNode> node) : node_(std::move(node)) {
    SISKIN_ASSERT(node_ != nullptr, "null C statement");
}

void Stmt::check_kind(StmtKind k) const {
    SISKIN_ASSERT(node_->kind == k,
                  fmt::format("C statement of kind {} used as kind {}",
                              static_cast<int>(node_->kind), static_cast<int>(k)));
}

Stmt Decl::make(Type type, std::string name, std::optional<Expr> init) {
    check_identifier(name, "variable");
    SISKIN_ASSERT(type.base != "void" || type.pointers > 0, "a variable of type void");
    return Stmt(std::make_shared<const Decl>(std::move(type), std::move(name), std::move(init)));
}

Stmt Assign::make(Expr target, AssignOp op, Expr value) {
    SISKIN_ASSERT(is_lvalue(target), "assignment to an expression that is not an lvalue");
    return Stmt(std::make_shared<const Assign>(std::move(target), op, std::move(value)));
}

Stmt Increment::make(Expr target, bool decrement) {
    SISKIN_ASSERT(is_lvalue(target), "increment of an expression that is not an lvalue");
    return Stmt(std::make_shared<const Increment>(std::move(target), decrement));
}

Stmt Eval::make(Expr expr) { return Stmt(std::make_shared<const Eval>(std::move(expr))); }

Stmt Block::make(std::vector<Stmt> stmts) {
    return Stmt(std::make_shared<const Block>(std::move(stmts)));
}

Stmt If::make(Expr cond, Stmt then_body, std::optional<Stmt> else_body) {
    if (else_body && else_body->kind() != StmtKind::If) else_body = as_block(std::move(*else_body));
    return Stmt(std::make_shared<const If>(std::move(cond), as_block(std::move(then_body)),
                                           std::move(else_body)));
}

Stmt For::make(std::optional<Stmt> init, std::optional<Expr> cond, std::optional<Stmt> step,
               Stmt body) {
    SISKIN_ASSERT(!init || init->kind() == StmtKind::Decl || init->kind() == StmtKind::Assign,
                  "a for loop's init must be a declaration or an assignment");
    SISKIN_ASSERT(!step || step->kind() == StmtKind::Assign || step->kind() == StmtKind::Increment,
                  "a for loop's step must be an assignment or an increment");
    return Stmt(std::make_shared<const For>(std::move(init), std::move(cond), std::move(step),
                                            as_block(std::move(body))));
}

Stmt While::make(Expr cond, Stmt body) {
    return Stmt(std::make_shared<const While>(std::move(cond), as_block(std::move(body))));
}

Stmt Break::make() { return Stmt(std::make_shared<const Break>()); }
Stmt Continue::make() { return Stmt(std::make_shared<const Continue>()); }

Stmt Return::make(std::optional<Expr> value) {
    return Stmt(std::make_shared<const Return>(std::move(value)));
}

Stmt Goto::make(std::string label) {
    check_identifier(label, "label");
    return Stmt(std::make_shared<const Goto>(std::move(label)));
}

Stmt Label::make(std::string name) {
    check_identifier(name, "label");
    return Stmt(std::make_shared<const Label>(std::move(name)));
}

Stmt Pragma::make(std::string text, Stmt body) {
    SISKIN_ASSERT(!text.empty() && text.find('\n') == std::string::npos,
                  "a pragma is one line of text");
    return Stmt(std::make_shared<const Pragma>(std::move(text), as_block(std::move(body))));
}

Stmt Comment::make(std::string text) {
    return Stmt(std::make_shared<const Comment>(std::move(text)));
}

// ---- Functions --------------------------------------------------------------------------------

Function Function::make(Type result, std::string name, std::vector<Param> params, Stmt body,
                        bool is_static) {
    check_identifier(name, "function");
    std::set<std::string_view> seen;
    for (const Param& p : params) {
        check_identifier(p.name, "parameter");
        SISKIN_ASSERT(seen.insert(p.name).second,
                      fmt::format("parameter '{}' of '{}' appears twice", p.name, name));
        SISKIN_ASSERT(p.type.base != "void" || p.type.pointers > 0,
                      fmt::format("parameter '{}' of type void", p.name));
    }
    return Function{std::move(result), std::move(name), std::move(params),
                    as_block(std::move(body)), is_static};
}

} // namespace siskin::cast
