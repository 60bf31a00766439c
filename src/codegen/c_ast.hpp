#pragma once
// A small C AST: what the looplet lowerer builds and c_printer.hpp turns into C11 text.
//
// Nodes are immutable and shared: build them with the static make() of each node (or the short
// helpers at the end), which check their arguments. A malformed node (an assignment to a
// non-lvalue, a bad identifier) is a siskin bug and fails SISKIN_ASSERT. Expressions mean exactly
// what the same C means; the printer adds only the parentheses that C's precedence needs, so the
// tree, not the text, decides evaluation order (a + (b + c) stays so, which matters for floats).
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "siskin/value.hpp"

namespace siskin::cast {

/// A C type as it appears in a declaration: a base type name, const on the base, pointer levels
/// and restrict on the outermost pointer. Kernels need no arrays or function pointers.
/// Example: Type::of(ValueType::Float64).as_const().pointer().restricted() is
/// `const double *restrict`.
struct Type {
    std::string base; // "int64_t", "double", "siskin_buffer", "void"
    bool is_const = false;
    int pointers = 0;
    bool is_restrict = false;

    static Type of(ValueType t);
    static Type named(std::string base); // asserts base is an identifier
    Type pointer() const;                // T -> T *  (asserts T is not restrict)
    Type as_const() const;               // const on the base type
    Type restricted() const;             // restrict on the outermost pointer (asserts a pointer)

    bool operator==(const Type&) const = default;
};

// ------------------------------------------------------------------------------------------------
// Expressions

enum class ExprKind : uint8_t { Literal, Var, Unary, Binary, Ternary, Call, Index, Field, Cast };

struct ExprNode {
    const ExprKind kind;
    explicit ExprNode(ExprKind k) : kind(k) {}
    virtual ~ExprNode() = default;
};

/// A shared handle to an expression node; never null.
class Expr {
public:
    ExprKind kind() const { return node_->kind; }
    /// The node as its concrete type; asserts the kind matches.
    template <class T> const T& as() const {
        check_kind(T::kKind);
        return static_cast<const T&>(*node_);
    }
    const ExprNode* get() const { return node_.get(); }

    explicit Expr(std::shared_ptr<const ExprNode> node); // asserts non-null

private:
    void check_kind(ExprKind k) const;
    std::shared_ptr<const ExprNode> node_;
};

/// A constant of a siskin value type; printed with the C spelling of its exact type and value
/// (integer suffixes, inf, nan, -0.0): see c_literal.hpp.
struct Literal final : ExprNode {
    static constexpr ExprKind kKind = ExprKind::Literal;
    const Scalar value;
    static Expr make(Scalar value);
    explicit Literal(Scalar v) : ExprNode(kKind), value(v) {}
};

struct Var final : ExprNode {
    static constexpr ExprKind kKind = ExprKind::Var;
    const std::string name;
    static Expr make(std::string name); // asserts an identifier
    explicit Var(std::string n) : ExprNode(kKind), name(std::move(n)) {}
};

enum class UnaryOp : uint8_t {
    Neg,       // -x
    Not,       // !x
    BitNot,    // ~x
    AddressOf, // &x  (x an lvalue)
    Deref,     // *p
};

struct Unary final : ExprNode {
    static constexpr ExprKind kKind = ExprKind::Unary;
    const UnaryOp op;
    const Expr operand;
    static Expr make(UnaryOp op, Expr operand);
    Unary(UnaryOp o, Expr e) : ExprNode(kKind), op(o), operand(std::move(e)) {}
};

// Grouped by C precedence, tightest first.
// clang-format off
enum class BinaryOp : uint8_t {
    Mul, Div, Mod,
    Add, Sub,
    Shl, Shr,
    Lt, Le, Gt, Ge,
    Eq, Ne,
    BitAnd,
    BitXor,
    BitOr,
    LogAnd,
    LogOr,
};
// clang-format on

struct Binary final : ExprNode {
    static constexpr ExprKind kKind = ExprKind::Binary;
    const BinaryOp op;
    const Expr lhs, rhs;
    static Expr make(BinaryOp op, Expr lhs, Expr rhs);
    Binary(BinaryOp o, Expr l, Expr r)
        : ExprNode(kKind), op(o), lhs(std::move(l)), rhs(std::move(r)) {}
};

/// cond ? then_value : else_value
struct Ternary final : ExprNode {
    static constexpr ExprKind kKind = ExprKind::Ternary;
    const Expr cond, then_value, else_value;
    static Expr make(Expr cond, Expr then_value, Expr else_value);
    Ternary(Expr c, Expr t, Expr e)
        : ExprNode(kKind), cond(std::move(c)), then_value(std::move(t)), else_value(std::move(e)) {}
};

/// A call of a named function (a prelude helper, a libm function): f(a, b).
struct Call final : ExprNode {
    static constexpr ExprKind kKind = ExprKind::Call;
    const std::string function;
    const std::vector<Expr> args;
    static Expr make(std::string function, std::vector<Expr> args); // asserts an identifier
    Call(std::string f, std::vector<Expr> a)
        : ExprNode(kKind), function(std::move(f)), args(std::move(a)) {}
};

/// base[index]
struct Index final : ExprNode {
    static constexpr ExprKind kKind = ExprKind::Index;
    const Expr base, index;
    static Expr make(Expr base, Expr index);
    Index(Expr b, Expr i) : ExprNode(kKind), base(std::move(b)), index(std::move(i)) {}
};

/// base->field (arrow) or base.field
struct Field final : ExprNode {
    static constexpr ExprKind kKind = ExprKind::Field;
    const Expr base;
    const std::string field;
    const bool arrow;
    static Expr make(Expr base, std::string field, bool arrow = true); // asserts an identifier
    Field(Expr b, std::string f, bool a)
        : ExprNode(kKind), base(std::move(b)), field(std::move(f)), arrow(a) {}
};

/// (type)operand
struct Cast final : ExprNode {
    static constexpr ExprKind kKind = ExprKind::Cast;
    const Type type;
    const Expr operand;
    static Expr make(Type type, Expr operand);
    Cast(Type t, Expr e) : ExprNode(kKind), type(std::move(t)), operand(std::move(e)) {}
};

/// True for the expressions C lets one assign to or take the address of: a variable, a[i],
/// s->f or s.f, *p.
bool is_lvalue(const Expr& e);

// ------------------------------------------------------------------------------------------------
// Statements

enum class StmtKind : uint8_t {
    Decl,
    Assign,
    Increment,
    Eval,
    If,
    For,
    While,
    Break,
    Continue,
    Return,
    Block,
    Comment,
    Goto,
    Label,
    Pragma,
};

struct StmtNode {
    const StmtKind kind;
    explicit StmtNode(StmtKind k) : kind(k) {}
    virtual ~StmtNode() = default;
};

/// A shared handle to a statement node; never null.
class Stmt {
public:
    StmtKind kind() const { return node_->kind; }
    template <class T> const T& as() const {
        check_kind(T::kKind);
        return static_cast<const T&>(*node_);
    }
    const StmtNode* get() const { return node_.get(); }

    explicit Stmt(std::shared_ptr<const StmtNode> node); // asserts non-null

private:
    void check_kind(StmtKind k) const;
    std::shared_ptr<const StmtNode> node_;
};

/// type name = init;   or   type name;
struct Decl final : StmtNode {
    static constexpr StmtKind kKind = StmtKind::Decl;
    const Type type;
    const std::string name;
    const std::optional<Expr> init;
    static Stmt make(Type type, std::string name, std::optional<Expr> init = std::nullopt);
    Decl(Type t, std::string n, std::optional<Expr> i)
        : StmtNode(kKind), type(std::move(t)), name(std::move(n)), init(std::move(i)) {}
};

enum class AssignOp : uint8_t { Set, Add, Sub, Mul, Div, Mod, BitAnd, BitOr, BitXor, Shl, Shr };

/// target = value;   target += value;   ...
struct Assign final : StmtNode {
    static constexpr StmtKind kKind = StmtKind::Assign;
    const Expr target;
    const AssignOp op;
    const Expr value;
    static Stmt make(Expr target, AssignOp op, Expr value); // asserts target is an lvalue
    Assign(Expr t, AssignOp o, Expr v)
        : StmtNode(kKind), target(std::move(t)), op(o), value(std::move(v)) {}
};

/// target++;  or  target--;
struct Increment final : StmtNode {
    static constexpr StmtKind kKind = StmtKind::Increment;
    const Expr target;
    const bool decrement;
    static Stmt make(Expr target, bool decrement = false); // asserts target is an lvalue
    Increment(Expr t, bool d) : StmtNode(kKind), target(std::move(t)), decrement(d) {}
};

/// An expression statement, e.g. a call: f(x);
struct Eval final : StmtNode {
    static constexpr StmtKind kKind = StmtKind::Eval;
    const Expr expr;
    static Stmt make(Expr expr);
    explicit Eval(Expr e) : StmtNode(kKind), expr(std::move(e)) {}
};

/// A sequence of statements; printed inside braces when nested.
struct Block final : StmtNode {
    static constexpr StmtKind kKind = StmtKind::Block;
    const std::vector<Stmt> stmts;
    static Stmt make(std::vector<Stmt> stmts);
    explicit Block(std::vector<Stmt> s) : StmtNode(kKind), stmts(std::move(s)) {}
};

/// if (cond) { then_body } else { else_body }. Bodies are Blocks (make() wraps any other
/// statement in one); an else_body that is an If prints as `else if`.
struct If final : StmtNode {
    static constexpr StmtKind kKind = StmtKind::If;
    const Expr cond;
    const Stmt then_body;
    const std::optional<Stmt> else_body;
    static Stmt make(Expr cond, Stmt then_body, std::optional<Stmt> else_body = std::nullopt);
    If(Expr c, Stmt t, std::optional<Stmt> e)
        : StmtNode(kKind), cond(std::move(c)), then_body(std::move(t)), else_body(std::move(e)) {}
};

/// for (init; cond; step) { body }. init is a Decl or Assign, step an Assign or Increment; each
/// part may be absent.
struct For final : StmtNode {
    static constexpr StmtKind kKind = StmtKind::For;
    const std::optional<Stmt> init;
    const std::optional<Expr> cond;
    const std::optional<Stmt> step;
    const Stmt body;
    static Stmt make(std::optional<Stmt> init, std::optional<Expr> cond, std::optional<Stmt> step,
                     Stmt body);
    For(std::optional<Stmt> i, std::optional<Expr> c, std::optional<Stmt> s, Stmt b)
        : StmtNode(kKind), init(std::move(i)), cond(std::move(c)), step(std::move(s)),
          body(std::move(b)) {}
};

struct While final : StmtNode {
    static constexpr StmtKind kKind = StmtKind::While;
    const Expr cond;
    const Stmt body;
    static Stmt make(Expr cond, Stmt body);
    While(Expr c, Stmt b) : StmtNode(kKind), cond(std::move(c)), body(std::move(b)) {}
};

struct Break final : StmtNode {
    static constexpr StmtKind kKind = StmtKind::Break;
    static Stmt make();
    Break() : StmtNode(kKind) {}
};

struct Continue final : StmtNode {
    static constexpr StmtKind kKind = StmtKind::Continue;
    static Stmt make();
    Continue() : StmtNode(kKind) {}
};

struct Return final : StmtNode {
    static constexpr StmtKind kKind = StmtKind::Return;
    const std::optional<Expr> value;
    static Stmt make(std::optional<Expr> value = std::nullopt);
    explicit Return(std::optional<Expr> v) : StmtNode(kKind), value(std::move(v)) {}
};

/// goto label;  Only forward jumps out of loop nests (an early exit): the label follows the
/// nest in an enclosing block.
struct Goto final : StmtNode {
    static constexpr StmtKind kKind = StmtKind::Goto;
    const std::string label;
    static Stmt make(std::string label); // asserts an identifier
    explicit Goto(std::string l) : StmtNode(kKind), label(std::move(l)) {}
};

/// label:;  (with the empty statement C requires after a label)
struct Label final : StmtNode {
    static constexpr StmtKind kKind = StmtKind::Label;
    const std::string name;
    static Stmt make(std::string name); // asserts an identifier
    explicit Label(std::string n) : StmtNode(kKind), name(std::move(n)) {}
};

/// `#pragma text` and the block it applies to: an OpenMP parallel region (`omp parallel ...`),
/// which C requires to be one structured block that is left only at its end (no return, no
/// jump out of it).
struct Pragma final : StmtNode {
    static constexpr StmtKind kKind = StmtKind::Pragma;
    const std::string text;
    const Stmt body; // a Block
    static Stmt make(std::string text, Stmt body); // asserts one line; wraps a non-Block body
    Pragma(std::string t, Stmt b) : StmtNode(kKind), text(std::move(t)), body(std::move(b)) {}
};

/// A `//` comment; the text may have several lines.
struct Comment final : StmtNode {
    static constexpr StmtKind kKind = StmtKind::Comment;
    const std::string text;
    static Stmt make(std::string text);
    explicit Comment(std::string t) : StmtNode(kKind), text(std::move(t)) {}
};

// ------------------------------------------------------------------------------------------------
// Functions

struct Param {
    Type type; // mark pointers that alias nothing else with Type::restricted()
    std::string name;
};

/// A function definition. Kernels are exported (not static); helpers may be static.
struct Function {
    Type result;
    std::string name;
    std::vector<Param> params;
    Stmt body; // a Block
    bool is_static = false;

    /// Checks identifiers and that parameter names are distinct; wraps a non-Block body.
    static Function make(Type result, std::string name, std::vector<Param> params, Stmt body,
                         bool is_static = false);
};

// ------------------------------------------------------------------------------------------------
// Short builders for the common nodes.

inline Expr lit(Scalar v) { return Literal::make(v); }
inline Expr i64(int64_t v) { return Literal::make(Scalar::of(v)); }
inline Expr var(std::string name) { return Var::make(std::move(name)); }
inline Expr bin(BinaryOp op, Expr a, Expr b) {
    return Binary::make(op, std::move(a), std::move(b));
}
inline Expr un(UnaryOp op, Expr a) { return Unary::make(op, std::move(a)); }
inline Expr at(Expr base, Expr index) { return Index::make(std::move(base), std::move(index)); }
inline Expr call(std::string f, std::vector<Expr> args) {
    return Call::make(std::move(f), std::move(args));
}
inline Stmt assign(Expr target, Expr value) {
    return Assign::make(std::move(target), AssignOp::Set, std::move(value));
}

/// True if `name` can be a C identifier: [A-Za-z_][A-Za-z0-9_]* and not a C11 keyword.
bool is_identifier(std::string_view name);

} // namespace siskin::cast
