#pragma once
// The program IR: concrete index notation. Immutable nodes shared through shared_ptr<const>.
//
// Semantics (dense): a program runs every statement on dense arrays in which each unstored
// element equals its tensor's fill. Every tensor that is assigned anywhere is an output; outputs
// start as all-fill before the program runs (an implicit declare). `for i` runs i over 0..n-1 with
// n inferred from the accesses indexed by i (or over lo..hi-1 when given). `A[..] op= e` combines
// the old element with e by the binary operator op; `A[..] = e` overwrites. `let x = e` binds a
// scalar for its body; `if c` runs its branch where c is true. Coordinates are 0-based.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "siskin/value.hpp"

namespace siskin {
class FunctionDef; // siskin/functions.hpp
}

namespace siskin::ir {

struct Position {
    int line = 0;   // 1-based in the program text; 0 for nodes built in C++
    int column = 0;
};

enum class ExprKind { Literal, Index, Variable, Access, Call };
enum class StmtKind { For, Assign, If, Let, Block, While, Swap };

struct ExprNode {
    const ExprKind kind;
    Position pos;
    explicit ExprNode(ExprKind k, Position p = {}) : kind(k), pos(p) {}
    virtual ~ExprNode() = default;
    template <class T> const T* as() const {
        return kind == T::static_kind ? static_cast<const T*>(this) : nullptr;
    }
};
using Expr = std::shared_ptr<const ExprNode>;

struct StmtNode {
    const StmtKind kind;
    Position pos;
    explicit StmtNode(StmtKind k, Position p = {}) : kind(k), pos(p) {}
    virtual ~StmtNode() = default;
    template <class T> const T* as() const {
        return kind == T::static_kind ? static_cast<const T*>(this) : nullptr;
    }
};
using Stmt = std::shared_ptr<const StmtNode>;

/// A constant: `3`, `2.5`, `true`, `inf`, `nan`, `int8(3)`.
struct Literal final : ExprNode {
    static constexpr ExprKind static_kind = ExprKind::Literal;
    Scalar value;
    Literal(Scalar v, Position p = {}) : ExprNode(static_kind, p), value(v) {}
    static Expr make(Scalar v, Position p = {}) { return std::make_shared<Literal>(v, p); }
};

/// A slice `lo:hi:st` of one dimension, with Python's meaning: hi exclusive, st default 1, an
/// absent bound is that end of the dimension, a negative bound counts from the end. Bounds
/// outside [-n, n] and steps <= 0 are errors (no clamping).
struct Slice {
    std::optional<int64_t> lo, hi;
    int64_t step = 1;
    bool operator==(const Slice&) const = default;
};

/// A slice resolved against a dimension: it reads coordinates first + step * i, 0 <= i < length.
struct SliceWindow {
    int64_t first = 0, length = 0;
};

/// Resolves `s` in a dimension of size n; throws Error naming `what` (e.g. "dimension 0 of b")
/// when a bound is outside [-n, n] or the step is not positive.
SliceWindow resolve_slice(const Slice& s, int64_t n, const std::string& what);
/// "lo:hi:st" as written in program text (absent bounds empty, ":st" only when st != 1).
std::string slice_text(const Slice& s);

/// A loop index used as a coordinate or as a value (int64). As a subscript it may carry a slice:
/// `b[i(0:8:2)]` reads b at 0 + 2 * i, and i's extent there is the slice's length.
struct Index final : ExprNode {
    static constexpr ExprKind static_kind = ExprKind::Index;
    std::string name;
    std::optional<Slice> slice = std::nullopt;
    Index(std::string n, Position p = {}) : ExprNode(static_kind, p), name(std::move(n)) {}
    Index(std::string n, Slice s, Position p) : ExprNode(static_kind, p), name(std::move(n)), slice(s) {}
    static Expr make(std::string n, Position p = {}) {
        return std::make_shared<Index>(std::move(n), p);
    }
    static Expr sliced(std::string n, Slice s, Position p = {}) {
        return std::make_shared<Index>(std::move(n), s, p);
    }
};

/// A scalar bound by `let`.
struct Variable final : ExprNode {
    static constexpr ExprKind static_kind = ExprKind::Variable;
    std::string name;
    Variable(std::string n, Position p = {}) : ExprNode(static_kind, p), name(std::move(n)) {}
    static Expr make(std::string n, Position p = {}) {
        return std::make_shared<Variable>(std::move(n), p);
    }
};

/// `A[i, j]`: an element of a named tensor. `protocols[k]` is the access protocol requested for
/// index k ("" = the level's default; "walk", "gallop", "follow" as in `x[gallop(i)]`).
struct Access final : ExprNode {
    static constexpr ExprKind static_kind = ExprKind::Access;
    std::string tensor;
    std::vector<Expr> indices;
    std::vector<std::string> protocols; // same length as indices
    Access(std::string t, std::vector<Expr> idx, std::vector<std::string> protos, Position p = {});
    static std::shared_ptr<const Access> make(std::string t, std::vector<Expr> idx,
                                              std::vector<std::string> protos = {},
                                              Position p = {});
};

/// A named operator from the registry applied to arguments: `add(a, b)`, written `a + b` too.
struct Call final : ExprNode {
    static constexpr ExprKind static_kind = ExprKind::Call;
    std::string op;
    std::vector<Expr> args;
    Call(std::string o, std::vector<Expr> a, Position p = {})
        : ExprNode(static_kind, p), op(std::move(o)), args(std::move(a)) {}
    static Expr make(std::string o, std::vector<Expr> a, Position p = {}) {
        return std::make_shared<Call>(std::move(o), std::move(a), p);
    }
};

/// `for i { body }` (extent inferred) or `for i in lo:hi { body }`.
struct For final : StmtNode {
    static constexpr StmtKind static_kind = StmtKind::For;
    std::string index;
    Expr lo, hi; // both null when inferred
    Stmt body;
    For(std::string i, Expr l, Expr h, Stmt b, Position p = {})
        : StmtNode(static_kind, p), index(std::move(i)), lo(std::move(l)), hi(std::move(h)),
          body(std::move(b)) {}
    static Stmt make(std::string i, Stmt b, Expr lo = nullptr, Expr hi = nullptr, Position p = {}) {
        return std::make_shared<For>(std::move(i), std::move(lo), std::move(hi), std::move(b), p);
    }
};

/// `lhs = rhs` (op empty) or `lhs op= rhs` with op a binary operator name ("add" for +=).
struct Assign final : StmtNode {
    static constexpr StmtKind static_kind = StmtKind::Assign;
    std::shared_ptr<const Access> lhs;
    std::string op;
    Expr rhs;
    Assign(std::shared_ptr<const Access> l, std::string o, Expr r, Position p = {})
        : StmtNode(static_kind, p), lhs(std::move(l)), op(std::move(o)), rhs(std::move(r)) {}
    static Stmt make(std::shared_ptr<const Access> l, std::string o, Expr r, Position p = {}) {
        return std::make_shared<Assign>(std::move(l), std::move(o), std::move(r), p);
    }
};

/// `if cond { then } else { otherwise }`; otherwise may be null.
struct If final : StmtNode {
    static constexpr StmtKind static_kind = StmtKind::If;
    Expr cond;
    Stmt then_body, else_body;
    If(Expr c, Stmt t, Stmt e, Position p = {})
        : StmtNode(static_kind, p), cond(std::move(c)), then_body(std::move(t)),
          else_body(std::move(e)) {}
    static Stmt make(Expr c, Stmt t, Stmt e = nullptr, Position p = {}) {
        return std::make_shared<If>(std::move(c), std::move(t), std::move(e), p);
    }
};

/// `let x = value { body }`: x is visible in body only.
struct Let final : StmtNode {
    static constexpr StmtKind static_kind = StmtKind::Let;
    std::string name;
    Expr value;
    Stmt body;
    Let(std::string n, Expr v, Stmt b, Position p = {})
        : StmtNode(static_kind, p), name(std::move(n)), value(std::move(v)), body(std::move(b)) {}
    static Stmt make(std::string n, Expr v, Stmt b, Position p = {}) {
        return std::make_shared<Let>(std::move(n), std::move(v), std::move(b), p);
    }
};

/// Statements run in order.
struct Block final : StmtNode {
    static constexpr StmtKind static_kind = StmtKind::Block;
    std::vector<Stmt> stmts;
    Block(std::vector<Stmt> s, Position p = {}) : StmtNode(static_kind, p), stmts(std::move(s)) {}
    static Stmt make(std::vector<Stmt> s, Position p = {}) {
        return std::make_shared<Block>(std::move(s), p);
    }
};

/// `while cond { body }`: runs body while cond (an expression over 0-d tensors, `n[] > 0`) is
/// true (nonzero). Only at the top level of a program or inside another while: each pass runs
/// the body's statements in order, and tensors keep their values from pass to pass.
struct While final : StmtNode {
    static constexpr StmtKind static_kind = StmtKind::While;
    Expr cond;
    Stmt body;
    While(Expr c, Stmt b, Position p = {})
        : StmtNode(static_kind, p), cond(std::move(c)), body(std::move(b)) {}
    static Stmt make(Expr c, Stmt b, Position p = {}) {
        return std::make_shared<While>(std::move(c), std::move(b), p);
    }
};

/// `swap(F, G)`: F and G exchange their contents (whole tensors, no copy). Both are outputs of
/// the program of the same shape, type, fill and format. Where while is allowed only.
struct Swap final : StmtNode {
    static constexpr StmtKind static_kind = StmtKind::Swap;
    std::string first, second;
    Swap(std::string a, std::string b, Position p = {})
        : StmtNode(static_kind, p), first(std::move(a)), second(std::move(b)) {}
    static Stmt make(std::string a, std::string b, Position p = {}) {
        return std::make_shared<Swap>(std::move(a), std::move(b), p);
    }
};

/// `fill A = inf` in program text: the fill the program expects of input A (a tensor with
/// another fill is an error), or the fill it asks of output A (as OutputSpec::fill does).
struct FillDecl {
    std::string tensor;
    Scalar value; // as written: `0` is an int64, `inf` a float64, `int8(3)` an int8
    Position pos = {};
    /// Whether a tensor whose fill is `fill` (a value of the tensor's own type) meets the
    /// declaration: the declared value converts to that type exactly and equals it (NaN
    /// equals NaN). `0` matches a float64 fill 0.0; `inf` matches no int64 fill.
    bool matches(const Scalar& fill) const;
    /// "fill A = inf (line 2)", for messages ("fill A = inf" for a declaration built in C++).
    std::string describe() const;
};

struct Program {
    Stmt body;
    /// The functions the program text defines (`def`, before the statements), in order. They
    /// are registered as operators when the text is parsed; this list is for printing.
    std::vector<std::shared_ptr<const FunctionDef>> functions = {};
    /// The `fill` declarations of the text (one per tensor at most), in order.
    std::vector<FillDecl> fills = {};
    /// The declaration of `tensor`'s fill, or null.
    const FillDecl* declared_fill(const std::string& tensor) const;
    /// Whether the program has a `while` or a `swap` (run as several kernels: a program driver).
    bool has_control() const;
    /// Tensors assigned anywhere in the program, in order of first assignment.
    std::vector<std::string> outputs() const;
    /// Tensors only read, in order of first appearance.
    std::vector<std::string> inputs() const;
};

/// Structural equality (positions ignored).
bool equal(const Expr& a, const Expr& b);
bool equal(const Stmt& a, const Stmt& b);
/// Equal bodies, equal function definitions (the same FunctionDef::to_string()) and equal fill
/// declarations (same tensors, values of the same type and value, in the same order).
bool equal(const Program& a, const Program& b);

} // namespace siskin::ir
