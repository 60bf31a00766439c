#pragma once
// The lowering tree: the program as the looplet lowerer sees it while it turns loops into C.
//
// It starts as a copy of the program IR in which every tensor access is a Fiber (a tensor at a
// level and a position, with the subscripts it has not consumed yet) and ends, loop by loop, as
// scalar expressions over C values. On the way, an access indexed by the loop being lowered is
// an Unfurled looplet nest; looplet leaves put back a child Fiber or a scalar; Hoist and Select
// carry the set-up code and run-time choices a level needs (a binary search, found or not).
// Nodes are immutable and shared; identity matters for Unfurled and Hoist nodes, which several
// accesses of one output fibre share.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "codegen/c_ast.hpp"
#include "siskin/ir/program.hpp"
#include "siskin/value.hpp"

namespace siskin {
class Operator;
}
namespace siskin::looplets {
struct Looplet; // looplets/looplet.hpp: the kinds; the floor only passes nests around
}

namespace siskin::lowering {

using LoopletPtr = std::shared_ptr<const looplets::Looplet>;
class IndexWrapper; // index_wrapper.hpp
using IndexWrapperPtr = std::shared_ptr<const IndexWrapper>;
struct TensorBinding;
class LowerCtx;

/// The half-open range [lo, hi) of a loop or of a part of one: absolute int64 C expressions.
struct Extent {
    cast::Expr lo, hi;
};

enum class NodeKind { Literal, CValue, Index, Variable, Call, Fiber, Unfurled, Hoist, Select, Slot };

struct Node {
    const NodeKind kind;
    const ValueType type;
    Node(NodeKind k, ValueType t) : kind(k), type(t) {}
    virtual ~Node() = default;
    template <class T> const T* as() const {
        return kind == T::static_kind ? static_cast<const T*>(this) : nullptr;
    }
};
using LExpr = std::shared_ptr<const Node>;

/// A constant.
struct Literal final : Node {
    static constexpr NodeKind static_kind = NodeKind::Literal;
    const Scalar value;
    explicit Literal(Scalar v) : Node(static_kind, v.type()), value(v) {}
    static LExpr make(Scalar v) { return std::make_shared<Literal>(v); }
};

/// A C expression of a known value type; `finite` when it can be neither inf nor NaN (integer
/// types always; a float read from a tensor the caller declared finite).
/// `source` is the tensor an element read comes from (loop collapse must not reorder a read of
/// a tensor the loop writes).
/// `not_nan_nor`: a float that is not `finite` but is known to be neither NaN nor this infinity
/// (-inf or +inf; 0 when nothing is known), as a run-time test found it
/// (compiler/value_specialisation.hpp): inf + x is then inf for x excluding -inf.
struct CValue final : Node {
    static constexpr NodeKind static_kind = NodeKind::CValue;
    const cast::Expr expr;
    const bool finite;
    const TensorBinding* source;
    const double not_nan_nor;
    CValue(cast::Expr e, ValueType t, bool f, const TensorBinding* s, double excluded = 0)
        : Node(static_kind, t), expr(std::move(e)), finite(f), source(s), not_nan_nor(excluded) {}
    static LExpr make(cast::Expr e, ValueType t, bool finite = false,
                      const TensorBinding* source = nullptr) {
        return std::make_shared<CValue>(std::move(e), t, finite || !is_float(t), source);
    }
};

/// A loop index not bound to a C variable yet (int64). As a subscript it may carry an index
/// wrapper (index_wrapper.hpp): the access then reads coordinate wrapper->coordinate(index).
struct Index final : Node {
    static constexpr NodeKind static_kind = NodeKind::Index;
    const std::string name;
    const IndexWrapperPtr wrapper;
    explicit Index(std::string n, IndexWrapperPtr w = nullptr)
        : Node(static_kind, ValueType::Int64), name(std::move(n)), wrapper(std::move(w)) {}
    static LExpr make(std::string n) { return std::make_shared<Index>(std::move(n)); }
    static LExpr wrapped(std::string n, IndexWrapperPtr w) {
        return std::make_shared<Index>(std::move(n), std::move(w));
    }
};

/// A `let` variable not emitted yet.
struct Variable final : Node {
    static constexpr NodeKind static_kind = NodeKind::Variable;
    const std::string name;
    Variable(std::string n, ValueType t) : Node(static_kind, t), name(std::move(n)) {}
    static LExpr make(std::string n, ValueType t) { return std::make_shared<Variable>(std::move(n), t); }
};

/// An operator of the registry applied to arguments; type is its result type.
struct Call final : Node {
    static constexpr NodeKind static_kind = NodeKind::Call;
    const Operator* op;
    const std::vector<LExpr> args;
    Call(const Operator* o, std::vector<LExpr> a, ValueType t)
        : Node(static_kind, t), op(o), args(std::move(a)) {}
    /// Computes the result type through the operator (throws Error for refused types).
    static LExpr make(const Operator& op, std::vector<LExpr> args);
};

/// A tensor at one level, at one fibre: the part of an access that is still to be lowered.
/// `level` indexes the format's levels (== their count: the leaf); `sub` is the mode within a
/// multi-mode level (coo). `pos` is the level's description of the fibre (one position for most
/// levels; a position range inside a coo level). `subscripts` are the remaining ones, in storage
/// order, the first for this level.
struct Fiber final : Node {
    static constexpr NodeKind static_kind = NodeKind::Fiber;
    const TensorBinding* tensor;
    const int level;
    const int sub;
    const std::vector<cast::Expr> pos;
    const std::vector<LExpr> subscripts;
    const std::vector<std::string> protocols;
    const bool write;
    /// For writes below a sparse level: the flag that records "something was written here".
    const std::optional<cast::Expr> dirty;
    /// The loop depth at which this fibre was reached (0: program level). An append-only level
    /// must be unfurled by a loop of depth + 1, or it would be written more than once per fibre.
    const int depth;
    /// Identifies the fibre across rebuilds of the node (an append-only output fibre may be
    /// unfurled by one loop only).
    const uint64_t id;
    /// Empty, or one per subscript: the value a permissive subscript (`coalesce(A[~(i+1)], 0)`)
    /// reads outside the tensor, null for the others.
    const std::vector<LExpr> pads;
    /// A position of this fibre's sorted entries at or before the first entry any read of it
    /// needs (set by the window stepper around a compound subscript, which stands at that entry:
    /// wrappers/window.hpp): a walk starts there, not at the fibre's first entry, so the windows
    /// of a split do not each search the fibre from its start. None: the fibre's first entry.
    const std::optional<cast::Expr> resume;
    Fiber(const TensorBinding* t, ValueType type, int lvl, int s, std::vector<cast::Expr> p,
          std::vector<LExpr> subs, std::vector<std::string> protos, bool w,
          std::optional<cast::Expr> d, int dep, uint64_t ident = next_id(), std::vector<LExpr> pd = {},
          std::optional<cast::Expr> from = std::nullopt)
        : Node(static_kind, type), tensor(t), level(lvl), sub(s), pos(std::move(p)),
          subscripts(std::move(subs)), protocols(std::move(protos)), write(w), dirty(std::move(d)),
          depth(dep), id(ident), pads(std::move(pd)), resume(std::move(from)) {}
    /// The pad of the current subscript, or null.
    LExpr pad() const { return pads.empty() ? nullptr : pads.front(); }
    /// The same fibre with other subscripts (and pads), its resume position kept.
    LExpr with_subscripts(std::vector<LExpr> subs, std::vector<LExpr> pd) const;
    /// The same fibre read from position `from` on (see resume).
    LExpr resumed_at(cast::Expr from) const;
    static uint64_t next_id();
};

/// An access replaced by the looplet nest of its fibre over the loop of `index`.
struct Unfurled final : Node {
    static constexpr NodeKind static_kind = NodeKind::Unfurled;
    const std::string index;
    const LoopletPtr looplet;
    const bool write;
    const TensorBinding* tensor; // whose values it describes (null for test looplets)
    Unfurled(std::string i, LoopletPtr l, ValueType t, bool w, const TensorBinding* tb)
        : Node(static_kind, t), index(std::move(i)), looplet(std::move(l)), write(w), tensor(tb) {}
    static LExpr make(std::string i, LoopletPtr l, ValueType t, bool w, const TensorBinding* tb) {
        return std::make_shared<Unfurled>(std::move(i), std::move(l), t, w, tb);
    }
    /// The same access with another looplet.
    LExpr with(LoopletPtr l) const { return make(index, std::move(l), type, write, tensor); }
};

/// `inner`, with statements to run before and after the statement that holds it (a binary
/// search; opening and committing an output slot). Hoisted to the enclosing loop body.
/// `guard`: `pre` only tests that `inner` may be read where the statement runs (a computed
/// subscript's coordinate check), so it stays inside an `if` that holds the statement: hoisted
/// above it, it would test what the program guards off.
struct Hoist final : Node {
    static constexpr NodeKind static_kind = NodeKind::Hoist;
    const std::vector<cast::Stmt> pre, post;
    const LExpr inner;
    const bool guard;
    Hoist(std::vector<cast::Stmt> b, LExpr i, std::vector<cast::Stmt> a, bool g)
        : Node(static_kind, i->type), pre(std::move(b)), post(std::move(a)), inner(std::move(i)), guard(g) {}
    static LExpr make(std::vector<cast::Stmt> pre, LExpr inner, std::vector<cast::Stmt> post) {
        return std::make_shared<Hoist>(std::move(pre), std::move(inner), std::move(post), false);
    }
    static LExpr make_guard(std::vector<cast::Stmt> check, LExpr inner) {
        return std::make_shared<Hoist>(std::move(check), std::move(inner), std::vector<cast::Stmt>{}, true);
    }
    /// The same hoist around another inner value.
    LExpr with(LExpr i) const { return std::make_shared<Hoist>(pre, std::move(i), post, guard); }
};

/// The first value whose condition holds; the last condition may be absent (otherwise).
/// Lowered as an if/else chain around the statement that holds it.
/// `first_total`: the first case's value may be read whatever the conditions say and is then
/// the Select's value (a level that keeps the fill in the slots it leaves unused: reading the
/// slot gives the fill there), so the chain may be replaced by that read (lower_loop.cpp).
struct Select final : Node {
    static constexpr NodeKind static_kind = NodeKind::Select;
    struct Case {
        std::optional<cast::Expr> cond;
        LExpr value;
    };
    const std::vector<Case> cases;
    const bool first_total;
    Select(std::vector<Case> c, ValueType t, bool total = false)
        : Node(static_kind, t), cases(std::move(c)), first_total(total) {}
};

/// Where an assignment writes: an lvalue of the output's value type, and the dirty flag to set.
struct Slot final : Node {
    static constexpr NodeKind static_kind = NodeKind::Slot;
    const cast::Expr target;
    const std::optional<cast::Expr> dirty;
    Slot(cast::Expr t, ValueType type, std::optional<cast::Expr> d)
        : Node(static_kind, type), target(std::move(t)), dirty(std::move(d)) {}
};

// ------------------------------------------------------------------------------------------------
// Statements

enum class StmtKind { For, Assign, If, Let, Block };

struct SNode {
    const StmtKind kind;
    explicit SNode(StmtKind k) : kind(k) {}
    virtual ~SNode() = default;
    template <class T> const T* as() const {
        return kind == T::static_kind ? static_cast<const T*>(this) : nullptr;
    }
};
using LStmt = std::shared_ptr<const SNode>;

/// `for index in [lo, hi)`; lo and hi are closed scalar expressions.
struct For final : SNode {
    static constexpr StmtKind static_kind = StmtKind::For;
    const std::string index;
    const LExpr lo, hi;
    const LStmt body;
    For(std::string i, LExpr l, LExpr h, LStmt b)
        : SNode(static_kind), index(std::move(i)), lo(std::move(l)), hi(std::move(h)), body(std::move(b)) {}
};

/// `lhs op= rhs` (op null: `lhs = rhs`). `single_write`: an overwrite that is the only assignment
/// of its tensor and writes every element at most once, or an idempotent reduction that is the
/// only kind of write to its tensor: either way writing the output's fill changes nothing.
struct Assign final : SNode {
    static constexpr StmtKind static_kind = StmtKind::Assign;
    const TensorBinding* tensor;
    const LExpr lhs;
    const Operator* op;
    const LExpr rhs;
    const bool single_write;
    Assign(const TensorBinding* t, LExpr l, const Operator* o, LExpr r, bool single)
        : SNode(static_kind), tensor(t), lhs(std::move(l)), op(o), rhs(std::move(r)), single_write(single) {}
};

struct If final : SNode {
    static constexpr StmtKind static_kind = StmtKind::If;
    const LExpr cond;
    const LStmt then_body, else_body; // else_body may be null
    If(LExpr c, LStmt t, LStmt e) : SNode(static_kind), cond(std::move(c)), then_body(std::move(t)), else_body(std::move(e)) {}
};

struct Let final : SNode {
    static constexpr StmtKind static_kind = StmtKind::Let;
    const std::string name;
    const LExpr value;
    const LStmt body;
    Let(std::string n, LExpr v, LStmt b) : SNode(static_kind), name(std::move(n)), value(std::move(v)), body(std::move(b)) {}
};

struct Block final : SNode {
    static constexpr StmtKind static_kind = StmtKind::Block;
    const std::vector<LStmt> stmts;
    explicit Block(std::vector<LStmt> s) : SNode(static_kind), stmts(std::move(s)) {}
};

LStmt make_block(std::vector<LStmt> stmts);
/// The empty statement (an empty Block).
LStmt nothing();
bool is_nothing(const LStmt& s);

// ------------------------------------------------------------------------------------------------
// Traversal

using ExprMap = std::function<LExpr(const LExpr&)>;
using StmtMap = std::function<LStmt(const LStmt&)>;

/// Rebuilds bottom-up: children first (Call args, Fiber subscripts, Hoist inner, Select values),
/// then f on the node. Unchanged subtrees keep their identity. Looplets are opaque.
LExpr map_expr(const LExpr& e, const ExprMap& f);
/// Applies on_expr to every expression of s (loop bounds, sides, conditions, let values) and
/// on_stmt (may be empty) to every statement after its children.
LStmt map_stmt(const LStmt& s, const ExprMap& on_expr, const StmtMap& on_stmt = {});

/// Like map_stmt, but on_expr gets each whole expression slot once and does its own recursion.
LStmt map_stmt_shallow(const LStmt& s, const ExprMap& on_expr, const StmtMap& on_stmt = {});

/// Calls f on e and its subexpressions, parents first.
void visit_expr(const LExpr& e, const std::function<void(const LExpr&)>& f);
void visit_stmt(const LStmt& s, const std::function<void(const LExpr&)>& on_expr,
                const std::function<void(const LStmt&)>& on_stmt = {});

/// Whether index `name` occurs (also inside pending subscripts).
bool mentions_index(const LStmt& s, const std::string& name);
bool mentions_index(const LExpr& e, const std::string& name);
/// Whether the expression is a closed C-computable value: no Index, Variable, Fiber, Unfurled,
/// Hoist or Select left.
bool is_closed(const LExpr& e);

/// Replaces Index(name) by value everywhere.
LStmt substitute_index(const LStmt& s, const std::string& name, const LExpr& value);
/// Replaces nodes by identity.
LStmt replace_nodes(const LStmt& s, const std::function<LExpr(const Node*)>& lookup);

// ------------------------------------------------------------------------------------------------
// Text (lower_ir_print.cpp): the tree as the pass dump shows it.

std::string print(const LExpr& e);
std::string print(const LStmt& s);

} // namespace siskin::lowering
