#pragma once
// Looplets: how a level describes the values of one fibre along one loop, as a nest of a few
// kinds (Ahrens et al., "Looplets", CGO 2023; notes in ../shared/papers/notes/looplets.md).
//
// Extents are half-open [lo, hi) C expressions of int64 type, absolute (not relative to the
// looplet). A looplet in the body of a loop being lowered always describes that loop's current
// extent; when a lowerer splits the extent it truncates the others (truncate.hpp).
//
//   Lookup(body(i))        random access: the leaf at each i (a writer may also take a whole
//                          run at once: Lookup::run, Finch's AcceptRun)
//   Run(value)             the same leaf over the whole extent
//   Spike(body, tail)      Run(body) on [lo, hi-1), then tail at hi-1
//   Sequence(phases)       concatenation; phase k covers [stop_{k-1}, stop_k), the last to hi
//   Stepper(seek, stop, chunk, next)   a while loop over chunks, each ending at its stop
//   Jumper(...)            the same, but a step ends at the largest stop (galloping, leading)
//   Switch(cases)          the first case whose run-time condition holds
//   Thunk(pre, body, post) set-up code around the loop, then body
//   Shift(delta, body)     body translated: its index i corresponds to i + delta here
//
// Fields that depend on the extent or on run-time state are callbacks that build C AST nodes
// when the lowerer asks; the state lives in C variables the level declared in a Thunk.
#include <functional>
#include <memory>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "codegen/c_ast.hpp"
#include "lowering/lower_ir.hpp"

namespace siskin::looplets {

// Looplets are written in the floor's vocabulary: lowering-tree nodes, LowerCtx, Extent.
using namespace lowering;

/// a <= b, known when the looplet is lowered; the lowerer gives them to its prover.
using Fact = std::pair<cast::Expr, cast::Expr>;

enum class LoopletKind { Lookup, Run, Spike, Sequence, Stepper, Jumper, Switch, Thunk, Shift };

std::string_view looplet_kind_name(LoopletKind k);

struct Looplet {
    const LoopletKind kind;
    explicit Looplet(LoopletKind k) : kind(k) {}
    virtual ~Looplet() = default;
    template <class T> const T* as() const {
        return kind == T::static_kind ? static_cast<const T*>(this) : nullptr;
    }
};

struct Lookup final : Looplet {
    static constexpr LoopletKind static_kind = LoopletKind::Lookup;
    /// The leaf at index i (a C int64 expression). May declare nothing: it is called inside the
    /// loop body; set-up belongs in a Hoist around the leaf.
    std::function<LExpr(LowerCtx&, const cast::Expr& i)> body;
    /// Only for writers that store a constant run once (runlist): the leaf that writes every
    /// index of the extent [lo, hi) at once. The lowerer uses it when nothing else in the loop
    /// body depends on the index and the body writes nothing but such leaves, so each index
    /// would receive the same value. Empty: one leaf per index.
    std::function<LExpr(LowerCtx&, const Extent& ext)> run;
    explicit Lookup(decltype(body) b, decltype(run) r = {})
        : Looplet(static_kind), body(std::move(b)), run(std::move(r)) {}
};

struct Run final : Looplet {
    static constexpr LoopletKind static_kind = LoopletKind::Run;
    LExpr body;
    explicit Run(LExpr b) : Looplet(static_kind), body(std::move(b)) {}
};

struct Spike final : Looplet {
    static constexpr LoopletKind static_kind = LoopletKind::Spike;
    LExpr body, tail;
    Spike(LExpr b, LExpr t) : Looplet(static_kind), body(std::move(b)), tail(std::move(t)) {}
};

struct Phase {
    std::optional<cast::Expr> stop; // exclusive end; none for the last phase (it ends at hi)
    std::function<LoopletPtr(LowerCtx&, const Extent&)> body;
    /// A cheaper test that holds exactly when [from, stop) is not empty, valid before the level
    /// moves its state: {from, test}. A sorted list's phase of stored entries starts at 0 and
    /// is non-empty exactly when p < p_end, which needs no load of its last coordinate.
    struct Test {
        cast::Expr from, test;
    };
    std::optional<Test> nonempty = {};
};

struct Sequence final : Looplet {
    static constexpr LoopletKind static_kind = LoopletKind::Sequence;
    std::vector<Phase> phases;
    explicit Sequence(std::vector<Phase> p) : Looplet(static_kind), phases(std::move(p)) {}
};

/// The special shape of a stepper that visits positions p, p+1, ..., end-1 of a sorted list,
/// one chunk each, with next = p++; its last chunk ends at last_stop. The lowerer turns it into
/// `for (; p < end; p++)` when the extent ends at last_stop.
struct PositionLoop {
    cast::Expr p, end, last_stop;
};

struct Stepper final : Looplet {
    static constexpr LoopletKind static_kind = LoopletKind::Stepper;
    /// Statements that move the state to the chunk containing `start`.
    std::function<std::vector<cast::Stmt>(LowerCtx&, const cast::Expr& start)> seek;
    /// The exclusive end of the current chunk, read from the state.
    cast::Expr stop;
    /// The current chunk over an extent that ends at `stop` (a local holding the stop).
    std::function<LoopletPtr(LowerCtx&, const cast::Expr& stop)> chunk;
    /// Advances the state to the next chunk.
    std::vector<cast::Stmt> next;
    /// Every stop is <= each of these.
    std::vector<cast::Expr> stop_bounds;
    std::optional<PositionLoop> positions;
    /// A chunk may be empty (its stop equal to the previous one: a strided slice skipping a
    /// stored entry off the stride), so the lowerer guards each step with `start < end`.
    bool may_be_empty = false;
    /// Empty chunks come in runs (a long stride: the entries of a row of a split `b[i*n + j]`
    /// all end at the row's stop), so after a chunk the lowerer seeks past the ones ending with
    /// it, one gallop, instead of stepping through them an entry at a time.
    bool seek_past_empty = false;
    explicit Stepper(cast::Expr s) : Looplet(static_kind), stop(std::move(s)) {}
};

struct Jumper final : Looplet {
    static constexpr LoopletKind static_kind = LoopletKind::Jumper;
    std::function<std::vector<cast::Stmt>(LowerCtx&, const cast::Expr& start)> seek;
    cast::Expr stop;
    /// The looplet over `ext`, which ends at `stop` or, when another jumper leads, past it.
    std::function<LoopletPtr(LowerCtx&, const cast::Expr& stop, const Extent& ext)> chunk;
    std::vector<cast::Stmt> next;
    std::vector<cast::Expr> stop_bounds;
    explicit Jumper(cast::Expr s) : Looplet(static_kind), stop(std::move(s)) {}
};

struct Switch final : Looplet {
    static constexpr LoopletKind static_kind = LoopletKind::Switch;
    struct Case {
        std::optional<cast::Expr> cond; // none: otherwise (last)
        LoopletPtr body;
    };
    std::vector<Case> cases;
    explicit Switch(std::vector<Case> c) : Looplet(static_kind), cases(std::move(c)) {}
};

struct Thunk final : Looplet {
    static constexpr LoopletKind static_kind = LoopletKind::Thunk;
    std::vector<cast::Stmt> preamble;
    LoopletPtr body;
    std::vector<cast::Stmt> epilogue;
    std::vector<Fact> facts; // true once the preamble ran
    Thunk(std::vector<cast::Stmt> pre, LoopletPtr b, std::vector<cast::Stmt> post, std::vector<Fact> f = {})
        : Looplet(static_kind), preamble(std::move(pre)), body(std::move(b)), epilogue(std::move(post)),
          facts(std::move(f)) {}
};

struct Shift final : Looplet {
    static constexpr LoopletKind static_kind = LoopletKind::Shift;
    cast::Expr delta;
    LoopletPtr body;
    Shift(cast::Expr d, LoopletPtr b) : Looplet(static_kind), delta(std::move(d)), body(std::move(b)) {}
};

template <class T, class... A> LoopletPtr make_looplet(A&&... args) {
    return std::make_shared<const T>(std::forward<A>(args)...);
}

} // namespace siskin::looplets
