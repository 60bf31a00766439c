// Merge: the fallback style of the stepper lowering for a union of many sparse operands, whose
// code is linear in their number (a k-way merge on the smallest current coordinate).
//
// The specialised lowering (lower_sequence, then lower_stepper) gives every combination of phases
// its own loop and every combination of spikes at a step's end its own branch: the best code for
// two or three operands, but 3^n pieces for n sorted lists. Beyond kMergeAbove operands, every
// Sequence and Stepper of the index becomes one cursor instead:
//
//   - an operand's current phase is the first whose stop lies beyond `start` (phase_k);
//   - its stop is that phase's: the stepper's stop in a stepper phase, start + 1 in a lookup
//     phase (one index per step), the phase's own stop otherwise;
//   - one while loop takes steps [start, end) to the smallest stop, so no step crosses a chunk
//     or phase boundary of any operand;
//   - over the step, each operand is the Switch on its phase of its truncated chunk, and that
//     Switch (and the Switch truncation makes of a spike: `end == stop`) is folded into one value
//     looplet, Spike(head, tail), whose leaves are C conditionals: the operand contributes
//     `(its stop == end) ? its value : fill` at end - 1, and no subset of operands is enumerated;
//   - a sorted list ([Stepper of spikes, Run(fill)]: sparselist, coo, bytemap) keeps its stop
//     and value in locals that change only when it moves on (Cursor::list), so a step costs a
//     min and a load per operand (ListState::choice: `val[end == stop]`, no branch).
//
// The steps then lower as usual (lower_spike splits each at end - 1, where the fill head
// simplifies away). Where every operand ends in a phase without a stepper (the fill after a
// list's last entry), the loop stops at the largest start of those last phases and the rest of
// the extent is lowered once with every operand in its last phase.
//
// It applies when every chunk and phase is a value looplet (Run, Spike, a Switch of them, or a
// Lookup phase). Leaves are values, or fibres of a further level: there, `(stop == end) ? fibre :
// fill` is a *guarded fibre*, the fibre seen through the index wrapper Guard (below), which
// unfurls in the inner loop as Switch(cond: its looplets, else: Run(fill)). The inner loop's merge
// takes such a Switch as a guarded operand: its set-up runs only where cond holds (declarations
// take `cond ? init : 0`), and each of its phases is current only where cond holds, so an absent
// operand is its fill without a branch of code of its own. A union of dcsr or coo matrices thus
// merges at both levels, shifted reads (`I[x+1, y+2]`) and padded ones included: a fibre whose
// next subscript is a compound of one index is guarded as that index through its window, and a
// phase that is itself a sequence (a padded window: pad, the shifted row, pad) spreads into the
// operand's phases.
#include <cstdint>
#include <functional>
#include <optional>

#include "compiler/affine_subscript.hpp"
#include "compiler/lower.hpp"
#include "looplets/truncate.hpp"
#include "lowering/index_wrapper.hpp"
#include "simplify/simplify.hpp"
#include "siskin/error.hpp"
#include "siskin/operators.hpp"
#include "compiler/vocabulary.hpp"

namespace siskin::compiler {

namespace {

/// Operands of the index (sequences and steppers) up to which the specialised lowering stays.
/// Measured on `o[i] = x0[i] + ... + x{n-1}[i]`, sorted lists of 10^4 entries in 10^6, sparse
/// output (kernel ms, specialised vs merge): n = 2: 0.04-0.06 vs 0.07; 3: 0.13-0.21 vs 0.27-0.29;
/// 4: 0.41-0.54 vs 0.46-0.47, but 4.5 s of cc for 575 lines; 5: 0.62-0.71 vs 0.59-0.60, 12 s of cc.
constexpr size_t kMergeAbove = 3;
/// The same where the operands' entries are rows that merge again (dcsr, coo; guarded rows):
/// three per-case rows loops of three per-case entry merges each gave 775 lines of C for three
/// shifted reads of a dcsr matrix (2.7 s of cc), the merge at both levels ~140.
constexpr size_t kRowsMergeAbove = 2;

using cast::BinaryOp;

/// The leaves of a value looplet over one step: `head` on [start, end - 1), `tail` at end - 1;
/// no head: the looplet holds over steps of one index only (a lookup phase).
struct Leaves {
    std::optional<LExpr> head;
    LExpr tail;
};

bool is_value(const LExpr& e) {
    switch (e->kind) {
    case NodeKind::Literal:
    case NodeKind::CValue: return true;
    case NodeKind::Call:
        for (const auto& a : e->as<Call>()->args)
            if (!is_value(a)) return false;
        return true;
    default: return false;
    }
}

bool same_value(const LExpr& a, const LExpr& b) {
    if (a == b) return true;
    const auto* la = a->as<Literal>();
    const auto* lb = b->as<Literal>();
    if (la && lb) return la->value.same(lb->value) && la->type == lb->type;
    const auto* ca = a->as<CValue>();
    const auto* cb = b->as<CValue>();
    return ca && cb && ca->type == cb->type && expr_key(ca->expr) == expr_key(cb->expr);
}

/// A fibre read that the inner loop unfurls, with its next subscript as that loop's index: the
/// index itself, or a compound subscript of one index (`y + 1`, `2*y - 1`) as the index seen
/// through the window lower_for gives it (affine_subscript.hpp); a permissive one (`~(y + 1)`)
/// through its padded window, its pad then spent.
struct FibreLeaf {
    const Fiber* fibre;
    LExpr index;
    std::vector<LExpr> pads;
};

std::optional<FibreLeaf> fibre_leaf(LowerCtx& ctx, const LExpr& e) {
    const auto* f = e->as<Fiber>();
    if (!f || f->write || f->subscripts.empty()) return std::nullopt;
    const LExpr& s = f->subscripts.front();
    const LExpr pad = f->pad();
    const auto* idx = s->as<Index>();
    if (idx && !pad) return FibreLeaf{f, s, f->pads};
    if (idx && idx->wrapper) return std::nullopt; // lower_for does not pad a wrapped index
    std::optional<AffineRead> read;
    std::string index;
    if (idx) {
        read = AffineRead{1, c_int(0), std::nullopt};
        index = idx->name;
    } else {
        auto form = linear_form(ctx, s);
        if (!form || form->open.size() != 1) return std::nullopt;
        read = AffineRead{form->open.front().coef, form->closed, std::nullopt};
        index = form->open.front().index;
    }
    if (pad && read->coef < 0) return std::nullopt; // lower_for refuses it
    std::vector<LExpr> pads = f->pads;
    if (pad) pads.front() = nullptr;
    return FibreLeaf{f, resolved_subscript(index, *read, pad), std::move(pads)};
}

bool is_leaf(LowerCtx& ctx, const LExpr& e) { return is_value(e) || fibre_leaf(ctx, e); }

bool is_fibre(const LExpr& e) { return e->kind == NodeKind::Fiber; }

/// The view of a fibre that is present only where `cond` holds, and all fill elsewhere (around
/// the wrapper the subscript had, if any).
class Guard final : public IndexWrapper {
public:
    Guard(cast::Expr cond, Scalar fill, IndexWrapperPtr inner)
        : cond_(std::move(cond)), fill_(fill), inner_(std::move(inner)) {}
    std::string key() const override {
        return "guard(" + expr_key(cond_) + ")" + (inner_ ? inner_->key() : "");
    }
    cast::Expr coordinate(const cast::Expr& i) const override {
        return inner_ ? inner_->coordinate(i) : i;
    }
    LoopletPtr unfurl(LowerCtx& ctx, const LoopletPtr& looplet, const cast::Expr& dim, const Extent& ext,
                      const std::string& what) const override {
        LoopletPtr seen = inner_ ? inner_->unfurl(ctx, looplet, dim, ext, what) : looplet;
        return make_looplet<Switch>(std::vector<Switch::Case>{
            {cond_, seen}, {std::nullopt, make_looplet<Run>(Literal::make(fill_))}});
    }
    bool reads_backwards() const override { return inner_ && inner_->reads_backwards(); }
    const cast::Expr& cond() const { return cond_; }
    const IndexWrapperPtr& inner() const { return inner_; }

private:
    cast::Expr cond_;
    Scalar fill_;
    IndexWrapperPtr inner_;
};

/// The leaf's fibre where cond holds, its fill elsewhere.
LExpr guarded(const FibreLeaf& leaf, cast::Expr cond) {
    const Fiber& f = *leaf.fibre;
    const auto& idx = *leaf.index->as<Index>();
    IndexWrapperPtr inner = idx.wrapper;
    if (const auto* g = dynamic_cast<const Guard*>(idx.wrapper.get())) {
        cond = cast::bin(cast::BinaryOp::LogAnd, cond, g->cond());
        inner = g->inner();
    }
    std::vector<LExpr> subs = f.subscripts;
    subs.front() = Index::wrapped(idx.name, std::make_shared<Guard>(cond, f.tensor->fill, inner));
    return f.with_subscripts(std::move(subs), leaf.pads);
}

bool is_fill_of(const LExpr& e, const Fiber& f) {
    const auto* l = e->as<Literal>();
    return l && l->value.cast(f.type).same(f.tensor->fill.cast(f.type));
}

/// Folds value looplets into Leaves, choosing between leaves with C conditionals (`c ? a : b`,
/// which reads a only where c holds: an operand's value past its last entry is not read).
class Folder {
public:
    explicit Folder(LowerCtx& ctx) : ctx_(ctx) {}

    /// The leaves of `l` over the step that ends at `last + 1`; none when `l` is not a value
    /// looplet. `unit`: a Lookup is allowed (its phase makes every step one index long).
    std::optional<Leaves> fold(const LoopletPtr& l, const cast::Expr& last, bool unit) {
        switch (l->kind) {
        case LoopletKind::Run: {
            const LExpr& v = l->as<Run>()->body;
            if (!is_leaf(ctx_, v)) return std::nullopt;
            return Leaves{v, v};
        }
        case LoopletKind::Spike: {
            const auto& s = *l->as<Spike>();
            if (!is_leaf(ctx_, s.body) || !is_leaf(ctx_, s.tail)) return std::nullopt;
            return Leaves{s.body, s.tail};
        }
        case LoopletKind::Lookup: {
            if (!unit) return std::nullopt;
            LExpr v = l->as<Lookup>()->body(ctx_, last);
            if (!is_leaf(ctx_, v)) return std::nullopt;
            return Leaves{std::nullopt, v};
        }
        case LoopletKind::Switch: {
            const auto& cases = l->as<Switch>()->cases;
            if (cases.empty() || cases.back().cond) return std::nullopt;
            std::vector<Leaves> leaves;
            for (const auto& c : cases) {
                auto f = fold(c.body, last, unit);
                if (!f) return std::nullopt;
                leaves.push_back(*f);
            }
            Leaves out = leaves.back();
            for (size_t k = cases.size() - 1; k-- > 0;) {
                const cast::Expr& cond = *cases[k].cond;
                auto tail = choose(cond, leaves[k].tail, out.tail);
                if (!tail) return std::nullopt;
                out.tail = *tail;
                if (!leaves[k].head) continue; // never over more than one index: any head will do
                if (!out.head) {
                    out.head = leaves[k].head;
                    continue;
                }
                auto head = choose(cond, *leaves[k].head, *out.head);
                if (!head) return std::nullopt;
                out.head = *head;
            }
            return out;
        }
        default: return std::nullopt;
        }
    }

    /// cond ? a : b, where a and b are leaves; none when one is a fibre and the other is not
    /// its fill. (c1 ? (c2 ? v : f) : f) is (c1 && c2 ? v : f).
    std::optional<LExpr> choose(cast::Expr cond, LExpr a, const LExpr& b) {
        if (same_value(a, b)) return a;
        if (auto f = fibre_leaf(ctx_, a)) {
            if (!is_fill_of(b, *f->fibre)) return std::nullopt;
            return guarded(*f, cond);
        }
        if (auto f = fibre_leaf(ctx_, b)) {
            if (!is_fill_of(a, *f->fibre)) return std::nullopt;
            return guarded(*f, cast::un(cast::UnaryOp::Not, cond));
        }
        if (auto it = chosen_.find(a.get()); it != chosen_.end() && same_value(it->second.b, b)) {
            cond = cast::bin(BinaryOp::LogAnd, cond, it->second.cond);
            a = it->second.a;
        }
        ValueType t = a->type;
        cast::Expr ca = c_value(ctx_, a), cb = c_value(ctx_, b);
        if (b->type != t) {
            t = find_operator("ifelse").result_type(std::vector<ValueType>{ValueType::Bool, a->type, b->type});
            if (a->type != t) ca = cast::Cast::make(cast::Type::of(t), ca);
            if (b->type != t) cb = cast::Cast::make(cast::Type::of(t), cb);
        }
        LExpr out = CValue::make(cast::Ternary::make(cond, ca, cb), t, known_finite(a) && known_finite(b));
        chosen_.emplace(out.get(), Choice{cond, a, b, out});
        return out;
    }

private:
    struct Choice {
        cast::Expr cond;
        LExpr a, b;
        LExpr made; // keeps the key's node alive, so its address is not reused
    };

    LowerCtx& ctx_;
    std::map<const Node*, Choice> chosen_;
};

LoopletPtr value_looplet(const Leaves& f) {
    LExpr head = f.head ? *f.head : f.tail;
    if (same_value(head, f.tail)) return make_looplet<Run>(head);
    return make_looplet<Spike>(head, f.tail);
}

cast::Expr lt(const cast::Expr& a, const cast::Expr& b) { return cast::bin(BinaryOp::Lt, a, b); }

/// A guarded operand (Guard::unfurl): Switch(cond: Thunk*(body), else: Run(fill)), its Thunks
/// peeled off.
struct Guarded {
    cast::Expr cond;
    LoopletPtr body;
    LExpr fill;
    std::vector<cast::Stmt> pre, post; // to run only where cond holds
};

std::optional<Guarded> guarded_of(const LoopletPtr& l) {
    const auto* sw = l->as<Switch>();
    if (!sw || sw->cases.size() != 2 || !sw->cases[0].cond || sw->cases[1].cond) return std::nullopt;
    const auto* run = sw->cases[1].body->as<Run>();
    if (!run || !is_value(run->body)) return std::nullopt;
    Guarded g{*sw->cases[0].cond, sw->cases[0].body, run->body, {}, {}};
    std::vector<std::vector<cast::Stmt>> posts;
    while (const auto* t = g.body->as<Thunk>()) {
        g.pre.insert(g.pre.end(), t->preamble.begin(), t->preamble.end());
        posts.push_back(t->epilogue);
        g.body = t->body;
    }
    for (size_t k = posts.size(); k-- > 0;) g.post.insert(g.post.end(), posts[k].begin(), posts[k].end());
    return g;
}

/// The statements run only where cond holds; declarations stay visible, set to 0 elsewhere (a
/// value nothing reads there).
std::vector<cast::Stmt> only_where(const cast::Expr& cond, const std::vector<cast::Stmt>& stmts) {
    std::vector<cast::Stmt> out;
    for (const auto& st : stmts) {
        if (st.kind() == cast::StmtKind::Decl) {
            const auto& d = st.as<cast::Decl>();
            out.push_back(d.init ? cast::Decl::make(d.type, d.name, cast::Ternary::make(cond, *d.init, c_int(0))) : st);
        } else {
            out.push_back(cast::If::make(cond, st));
        }
    }
    return out;
}

struct Cursor {
    const Unfurled* node;
    struct Part {
        std::optional<cast::Expr> stop; // none: the last phase
        LoopletPtr looplet;             // the phase's looplet over its range
        Extent range;                   // the phase within the extent
    };
    std::vector<Part> parts;
    std::optional<cast::Expr> guard; // a guarded operand: present where it holds, else its last phase
    /// The shape of a sorted list: [Stepper whose chunks are Spike(v, tail), Run(v)]. Its stop
    /// and tail value live across steps (loop-carried, read again only when it moves on), and
    /// past its last entry its stop is a sentinel no step reaches, so `end == stop` alone says
    /// that its entry is at the step's end: no load or branch per step for operands not there.
    bool list = false;
    /// Its entries are fibres of a further level (or it is such a fibre, guarded): the loop
    /// inside merges again, so per-case code would multiply at every level.
    bool rows = false;
    /// The set-up and clean-up of looplets inside its phases (a padded window's level), run
    /// before and after the merge loop.
    std::vector<cast::Stmt> pre{}, post{};
};

// Appends the parts of looplet l over `range`, the phase that ends at `stop` (none: the last):
// a Sequence, seen through Shifts and Thunks, spreads into its own phases, ending where they end
// or where the phase does, so a padded window (pad, the level's sequence, pad) is one cursor too.
void add_parts(LowerCtx& ctx, Cursor& c, LoopletPtr l, const Extent& range, const std::optional<cast::Expr>& stop) {
    for (;;) {
        if (const auto* sh = l->as<Shift>()) {
            l = shift_looplet(sh->body, sh->delta);
        } else if (const auto* t = l->as<Thunk>()) {
            c.pre.insert(c.pre.end(), t->preamble.begin(), t->preamble.end());
            c.post.insert(c.post.begin(), t->epilogue.begin(), t->epilogue.end());
            l = t->body;
        } else {
            break;
        }
    }
    const auto* seq = l->as<Sequence>();
    if (!seq) {
        c.parts.push_back({stop, l, range});
        return;
    }
    Prover& pr = ctx.prover();
    cast::Expr from = range.lo;
    for (const auto& ph : seq->phases) {
        std::optional<cast::Expr> ends = stop;
        if (ph.stop) ends = stop ? pr.min({*ph.stop, *stop}) : *ph.stop;
        Extent part{from, ph.stop ? pr.min({*ph.stop, range.hi}) : range.hi};
        add_parts(ctx, c, ph.body(ctx, part), part, ends);
        if (ph.stop) from = pr.max({*ph.stop, range.lo});
    }
}

// An operand as cursor phases, or none when it is not a Sequence or Stepper of value looplets
// (guarded or not).
std::optional<Cursor> cursor_of(LowerCtx& ctx, const Unfurled* u, const LoopletPtr& l, const Extent& ext,
                                const std::optional<Guarded>& g) {
    Cursor c{u, {}, std::nullopt};
    if (l->kind == LoopletKind::Stepper) c.parts.push_back({std::nullopt, l, ext});
    else if (l->kind == LoopletKind::Sequence) add_parts(ctx, c, l, ext, std::nullopt);
    else return std::nullopt;
    c.rows = g.has_value();
    if (g) {
        // Absent, the operand is its last phase: Run(fill), added when it is not that already.
        c.guard = g->cond;
        const auto* last = c.parts.back().looplet->as<Run>();
        if (!last || !same_value(last->body, g->fill)) {
            c.parts.back().stop = ext.hi;
            c.parts.push_back({std::nullopt, make_looplet<Run>(g->fill), Extent{ext.hi, ext.hi}});
        }
    }
    if (c.parts.size() == 2 && c.parts[0].stop) {
        const auto* s = c.parts[0].looplet->as<Stepper>();
        const auto* run = c.parts[1].looplet->as<Run>();
        bool bounded = false; // its chunks end by its entries' end (list_stop)
        for (const auto& b : s ? s->stop_bounds : std::vector<cast::Expr>{})
            bounded = bounded || ctx.prover().le(b, *c.parts[0].stop);
        if (s && bounded && run && !s->may_be_empty && is_value(run->body)) {
            LoopletPtr chunk = s->chunk(ctx, s->stop);
            const auto* spike = chunk->as<Spike>();
            c.list = spike && same_value(spike->body, run->body) && is_leaf(ctx, spike->tail);
        }
    }
    cast::Expr probe = cast::var("siskin_probe");
    for (const auto& part : c.parts) {
        const LoopletPtr& p = part.looplet;
        const auto* s = p->as<Stepper>();
        auto leaves = Folder(ctx).fold(s ? s->chunk(ctx, s->stop) : p, probe, p->kind == LoopletKind::Lookup);
        if (!leaves) return std::nullopt;
        c.rows = c.rows || is_fibre(leaves->tail) || (leaves->head && is_fibre(*leaves->head));
    }
    return c;
}

/// A guarded Lookup as one Lookup: cond ? its leaf : fill at every index.
std::optional<LoopletPtr> guarded_lookup(LowerCtx& ctx, const Guarded& g) {
    const auto* look = g.body->as<Lookup>();
    if (!look) return std::nullopt;
    if (!Folder(ctx).choose(g.cond, look->body(ctx, cast::var("siskin_probe")), g.fill)) return std::nullopt;
    auto body = look->body;
    cast::Expr cond = g.cond;
    LExpr fill = g.fill;
    return make_looplet<Lookup>([body, cond, fill](LowerCtx& c, const cast::Expr& i) {
        return *Folder(c).choose(cond, body(c, i), fill);
    });
}

/// A sorted list's state across steps: the stop of its current chunk, INT64_MAX past its last
/// entry, and the chunk's tail value when it is a value (else the tail is read where used).
struct ListState {
    const Cursor* cursor;
    const Stepper* stepper;
    cast::Expr last;                // where its entries end (the first phase's stop)
    LExpr fill;                     // its value off its entries
    cast::Expr stop;                // a local
    std::optional<cast::Expr> tail; // a local holding the tail value
    /// With a literal fill, the tail lives in entry 1 of a two-entry local whose entry 0 holds
    /// the fill, and a step reads `choice[end == stop]`: a load, where `end == stop ? tail :
    /// fill` on floats compiles to a branch per operand per step that mispredicts whenever the
    /// operand is at the step's end (about 20 % of a 12-operand union's time).
    std::optional<cast::Expr> choice{};
    ValueType tail_type = ValueType::Float64;
    bool tail_finite = false;
};

cast::Expr list_stop(LowerCtx& ctx, const ListState& st) {
    for (const auto& b : st.stepper->stop_bounds)
        if (ctx.prover().le(b, st.last)) return st.stepper->stop;
    return ctx.prover().min({st.stepper->stop, st.last});
}

// Whether the list has an entry at or after `at` (the state then points at it).
cast::Expr list_live(const ListState& st, const cast::Expr& at) {
    cast::Expr live = lt(at, st.last);
    return st.cursor->guard ? cast::bin(BinaryOp::LogAnd, *st.cursor->guard, live) : live;
}

LExpr spike_tail(LowerCtx& ctx, const ListState& st, const cast::Expr& stop) {
    LoopletPtr chunk = st.stepper->chunk(ctx, stop);
    return chunk->as<Spike>()->tail;
}

// (Re)reads the stop and tail of a list positioned for `at`.
std::vector<cast::Stmt> read_list(LowerCtx& ctx, const ListState& st, const cast::Expr& live) {
    std::vector<cast::Stmt> out{cast::assign(st.stop, cast::Ternary::make(live, list_stop(ctx, st), c_int(INT64_MAX)))};
    if (st.tail)
        out.push_back(cast::assign(*st.tail, cast::Ternary::make(live, c_value(ctx, spike_tail(ctx, st, st.stop)),
                                                                 c_value(ctx, st.fill))));
    return out;
}

ListState open_list(LowerCtx& ctx, const Cursor& c, const cast::Expr& from) {
    const auto* s = c.parts.front().looplet->as<Stepper>();
    ListState st{&c, s, *c.parts.front().stop, c.parts.back().looplet->as<Run>()->body,
                 ctx.local("stop", c_int(INT64_MAX)), {}};
    LExpr tail = spike_tail(ctx, st, st.stop);
    if (is_value(tail) && tail->type == st.fill->type) {
        st.tail_type = tail->type;
        st.tail_finite = known_finite(tail) && known_finite(st.fill);
        if (st.fill->kind == NodeKind::Literal) {
            std::string name = ctx.fresh("val");
            ctx.emit(cast::Decl::make(cast::Type::named("siskin_choice_" + std::string(c_type_name(tail->type))), name));
            st.choice = cast::var(name);
            ctx.emit(cast::assign(cast::at(*st.choice, c_int(0)), c_value(ctx, st.fill)));
            st.tail = cast::at(*st.choice, c_int(1));
        } else {
            st.tail = ctx.local("val", c_value(ctx, st.fill), tail->type);
        }
    }
    cast::Expr live = ctx.local("live", list_live(st, from), ValueType::Bool);
    ctx.emit(read_list(ctx, st, live));
    return st;
}

// The list over the step that ends at `end`: its tail there if its chunk stops there, else fill.
LoopletPtr list_looplet(LowerCtx& ctx, Folder& folder, const ListState& st, const cast::Expr& end) {
    if (st.choice) {
        cast::Expr at_end = cast::at(*st.choice, cast::bin(BinaryOp::Eq, end, st.stop));
        return value_looplet(Leaves{st.fill, CValue::make(at_end, st.tail_type, st.tail_finite)});
    }
    LExpr tail = st.tail ? CValue::make(*st.tail, st.tail_type, st.tail_finite) : spike_tail(ctx, st, st.stop);
    auto at_end = folder.choose(cast::bin(BinaryOp::Eq, end, st.stop), tail, st.fill);
    SISKIN_ASSERT(at_end, "a sorted list's tail is neither a value nor a fibre");
    return value_looplet(Leaves{st.fill, *at_end});
}

// The list's chunk ended at `end`: it moves on.
void advance_list(LowerCtx& ctx, const ListState& st, const cast::Expr& end) {
    ctx.emit(st.stepper->next);
    cast::Expr live = ctx.local("live", list_live(st, end), ValueType::Bool);
    ctx.emit(read_list(ctx, st, live));
}

// The body over `step`, a part of ext: every other access of the index truncated to the step,
// operand m of the cursors the looplet of(m) gives; lowered as one extent, or where the step may
// be empty as a range (its code guarded).
void lower_step(LowerCtx& ctx, const std::string& index, const Extent& ext, const Extent& step, const LStmt& body,
                const std::vector<Cursor>& cursors, const std::function<LoopletPtr(size_t)>& of,
                bool may_be_empty) {
    std::set<const Node*> skip;
    for (const auto& c : cursors) skip.insert(c.node);
    LStmt part = truncate_all(ctx, body, index, ext, step, skip);
    std::map<const Node*, LExpr> by;
    for (size_t m = 0; m < cursors.size(); ++m) by.emplace(cursors[m].node, cursors[m].node->with(of(m)));
    LStmt code = replace_unfurled(part, by);
    if (may_be_empty) lower_range(ctx, index, step, code);
    else lower_extent(ctx, index, step, code);
}

// The rest of the extent past merge_hi: every operand in its last phase.
void lower_rest(LowerCtx& ctx, const std::string& index, const Extent& ext, const LStmt& body,
                const std::vector<Cursor>& cursors, const cast::Expr& merge_hi) {
    Extent rest{merge_hi, ext.hi};
    lower_step(ctx, index, ext, rest, body, cursors, [&](size_t m) {
        const auto& part = cursors[m].parts.back();
        return truncate(ctx, part.looplet, part.range, rest);
    }, true);
}

// The window merge: where every operand is a sorted list of values of one type with a literal
// fill and the body does nothing where they all hold it, the loop visits coordinates some list
// holds in windows of `width` coordinates. Each list spreads its entries in the window into a
// local array (entry j * k + m for operand m at coordinate lo + j) and marks them in a bitmap;
// then the body runs once per marked coordinate with every operand read from the array, which
// gets its fills back as it goes. The step loop above costs a min, a compare and a branch per
// operand per coordinate, and the branch that moves the operand on mispredicts about once per
// coordinate; here a list costs one store per entry and a loop exit per window. Measured on
// `o[i] = x0[i] + ... + x11[i]` (10^4 entries each in 10^6; bench/many_operands.sh): 0.69 ms
// against 1.60 ms for the step loop; separate arrays per operand (one L1 set per coordinate for
// all of them) were slower than the step loop.

/// Entries of the window's array (siskin_window_* in the prelude): 64 KiB of doubles, in L1 or
/// L2; the window spans the most multiple of 64 coordinates that fit k operands.
constexpr int64_t kWindowEntries = 8192;

// Whether the body does nothing (lowers to no code) where every list holds its fill, or, given
// `alone`, where every list but that one does (it holds some other value).
bool fills_do_nothing(LowerCtx& ctx, const std::string& index, const Extent& ext, const LStmt& body,
                      const std::vector<Cursor>& cursors, const std::vector<std::optional<ListState>>& lists,
                      std::optional<size_t> alone = std::nullopt) {
    auto claims = ctx.claims();
    size_t mark = ctx.prover().mark();
    Extent probe{cast::var("siskin_probe_lo"), cast::var("siskin_probe_hi")};
    auto code = ctx.capture([&] {
        lower_step(ctx, index, ext, probe, body, cursors, [&](size_t m) {
            return make_looplet<Run>(m == alone ? CValue::make(cast::var("siskin_probe_value"), lists[m]->tail_type,
                                                               lists[m]->tail_finite)
                                                : lists[m]->fill);
        }, false);
    });
    ctx.prover().rollback(mark);
    ctx.restore_claims(std::move(claims));
    return code.empty();
}

// The window merge applies: the outermost loop (its array is filled once per call), unguarded
// lists of one value type with literal fills, few enough for a window of 64 coordinates, and a
// true union: the body does nothing where all hold their fills, and something where any one
// list alone holds another value. Where one list alone does nothing (an intersection such as
// `and(T1, R) xor and(T2, R)`), the step loop skips by that list and costs its entries, while a
// window costs its width.
bool window_applies(LowerCtx& ctx, const std::string& index, const Extent& ext, const LStmt& body,
                    const std::vector<Cursor>& cursors, const std::vector<std::optional<ListState>>& lists) {
    if (ctx.depth != 1 || static_cast<int64_t>(cursors.size()) * 64 > kWindowEntries) return false;
    for (size_t m = 0; m < cursors.size(); ++m)
        if (!lists[m] || cursors[m].guard || !lists[m]->choice || lists[m]->tail_type != lists[0]->tail_type)
            return false;
    if (!fills_do_nothing(ctx, index, ext, body, cursors, lists)) return false;
    for (size_t m = 0; m < cursors.size(); ++m)
        if (fills_do_nothing(ctx, index, ext, body, cursors, lists, m)) return false;
    return true;
}

void window_merge(LowerCtx& ctx, const std::string& index, const Extent& ext, const LStmt& body,
                  const std::vector<Cursor>& cursors, const std::vector<std::optional<ListState>>& lists,
                  const cast::Expr& merge_hi) {
    Prover& pr = ctx.prover();
    const int64_t k = static_cast<int64_t>(cursors.size());
    const int64_t width = kWindowEntries / k / 64 * 64;
    const ValueType type = lists[0]->tail_type;
    std::string window = ctx.fresh("window"), marks = ctx.fresh("window_marks");
    ctx.emit(cast::Decl::make(cast::Type::named("siskin_window_" + std::string(c_type_name(type))), window));
    ctx.emit(cast::Decl::make(cast::Type::named("siskin_window_marks"), marks));
    auto slot = [&](const cast::Expr& j, int64_t m) {
        return cast::at(cast::var(window), c_add(cast::bin(BinaryOp::Mul, j, c_int(k)), m));
    };
    // Every entry holds its operand's fill, every mark is clear, between windows too.
    auto refill = [&](const cast::Expr& j) {
        std::vector<cast::Stmt> out;
        for (int64_t m = 0; m < k; ++m) out.push_back(cast::assign(slot(j, m), c_value(ctx, lists[m]->fill)));
        return out;
    };
    std::string j0 = ctx.fresh("j");
    ctx.emit(cast::For::make(cast::Decl::make(cast::Type::of(ValueType::Int64), j0, c_int(0)),
                             lt(cast::var(j0), c_int(width)), cast::Increment::make(cast::var(j0)),
                             cast::Block::make(refill(cast::var(j0)))));
    std::string w0 = ctx.fresh("w");
    ctx.emit(cast::For::make(cast::Decl::make(cast::Type::of(ValueType::Int64), w0, c_int(0)),
                             lt(cast::var(w0), c_int(width / 64)), cast::Increment::make(cast::var(w0)),
                             cast::assign(cast::at(cast::var(marks), cast::var(w0)), c_int(0))));

    // The window starts at the first coordinate some list holds (stops are coordinate + 1,
    // INT64_MAX past a list's end).
    std::vector<cast::Expr> stops;
    for (const auto& st : lists) stops.push_back(st->stop);
    auto first = [&] { return c_add(pr.min(stops), -1); };
    std::string lo_name = ctx.fresh(index + "_window");
    cast::Expr lo = cast::var(lo_name);
    ctx.emit(cast::Decl::make(cast::Type::of(ValueType::Int64), lo_name, first()));
    auto code = ctx.capture([&] {
        cast::Expr hi = ctx.local(index + "_window_end", pr.min({c_add(lo, width), merge_hi}));
        auto mark_bit = [&](const cast::Expr& j) {
            cast::Expr one = cast::Cast::make(cast::Type::of(ValueType::UInt64), c_int(1));
            return cast::Assign::make(cast::at(cast::var(marks), cast::bin(BinaryOp::Shr, j, c_int(6))),
                                      cast::AssignOp::BitOr,
                                      cast::bin(BinaryOp::Shl, one, cast::bin(BinaryOp::BitAnd, j, c_int(63))));
        };
        // Each list spreads its entries in [lo, hi) into the window.
        for (int64_t m = 0; m < k; ++m) {
            const ListState& st = *lists[m];
            auto spread = ctx.capture([&] {
                cast::Expr j = ctx.local("j", c_add(cast::bin(BinaryOp::Sub, st.stop, lo), -1));
                ctx.emit(cast::assign(slot(j, m), *st.tail));
                ctx.emit(mark_bit(j));
                advance_list(ctx, st, st.stop);
            });
            ctx.emit(cast::While::make(cast::bin(BinaryOp::Le, st.stop, hi), cast::Block::make(spread)));
        }
        // The body at each marked coordinate, in order; its entries then get their fills back.
        std::string w = ctx.fresh("w");
        auto words = ctx.capture([&] {
            cast::Expr bits = ctx.local("bits", cast::at(cast::var(marks), cast::var(w)), ValueType::UInt64);
            ctx.emit(cast::assign(cast::at(cast::var(marks), cast::var(w)), c_int(0)));
            auto visit = ctx.capture([&] {
                cast::Expr j = ctx.local("j", c_add(cast::bin(BinaryOp::Mul, cast::var(w), c_int(64)),
                                                    cast::call("siskin_ctz_u64", {bits})));
                ctx.emit(cast::Assign::make(bits, cast::AssignOp::BitAnd,
                                            cast::bin(BinaryOp::Sub, bits, cast::Cast::make(cast::Type::of(ValueType::UInt64), c_int(1)))));
                cast::Expr at = ctx.local(index + "_at", cast::bin(BinaryOp::Add, lo, j));
                Extent step{at, c_add(at, 1)};
                lower_step(ctx, index, ext, step, body, cursors, [&](size_t m) {
                    return make_looplet<Run>(CValue::make(slot(j, static_cast<int64_t>(m)), type, lists[m]->tail_finite));
                }, false);
                ctx.emit(refill(j));
            });
            ctx.emit(cast::While::make(cast::bin(BinaryOp::Ne, bits, c_int(0)), cast::Block::make(visit)));
        });
        ctx.emit(cast::For::make(cast::Decl::make(cast::Type::of(ValueType::Int64), w, c_int(0)),
                                 lt(cast::var(w), c_int(width / 64)), cast::Increment::make(cast::var(w)),
                                 cast::Block::make(words)));
        ctx.emit(cast::assign(lo, first()));
    });
    ctx.emit(cast::While::make(lt(lo, merge_hi), cast::Block::make(code)));
}

// The merge loop over ext (lower_merge's, once the operands are cursors).
void merge_loop(LowerCtx& ctx, const std::string& index, const Extent& ext, const LStmt& body,
                const std::vector<Cursor>& cursors) {
    Prover& pr = ctx.prover();
    // Every stepper starts at its phase's first index inside the extent.
    bool last_phases_plain = true;
    for (const auto& c : cursors) {
        for (const auto& part : c.parts) {
            const auto* s = part.looplet->as<Stepper>();
            if (!s) continue;
            auto seek = s->seek(ctx, part.range.lo);
            if (seek.empty() || pr.le(part.range.hi, part.range.lo)) continue;
            std::optional<cast::Expr> when = c.guard;
            if (!pr.lt(part.range.lo, part.range.hi)) {
                cast::Expr nonempty = lt(part.range.lo, part.range.hi);
                when = when ? cast::bin(BinaryOp::LogAnd, *when, nonempty) : nonempty;
            }
            if (when) ctx.emit(cast::If::make(*when, cast::Block::make(seek)));
            else ctx.emit(seek);
        }
        if (c.parts.back().looplet->kind == LoopletKind::Stepper || c.parts.size() < 2)
            last_phases_plain = false;
    }
    // Past the start of every operand's last phase nothing steps any more.
    cast::Expr merge_hi = ext.hi;
    if (last_phases_plain) {
        std::vector<cast::Expr> starts;
        for (const auto& c : cursors) {
            const cast::Expr& lo = c.parts.back().range.lo; // absent: at once
            starts.push_back(c.guard ? cast::Ternary::make(*c.guard, lo, ext.lo) : lo);
        }
        merge_hi = pr.min({pr.max(starts), ext.hi});
        if (merge_hi.kind() != cast::ExprKind::Var && merge_hi.kind() != cast::ExprKind::Literal)
            merge_hi = ctx.local(index + "_merged", merge_hi);
    }

    // Sorted lists: their stop and tail value, across steps (Cursor::list).
    std::vector<std::optional<ListState>> lists(cursors.size());
    for (size_t k = 0; k < cursors.size(); ++k)
        if (cursors[k].list) lists[k] = open_list(ctx, cursors[k], ext.lo);

    if (last_phases_plain && window_applies(ctx, index, ext, body, cursors, lists)) {
        window_merge(ctx, index, ext, body, cursors, lists, merge_hi);
        lower_rest(ctx, index, ext, body, cursors, merge_hi);
        return;
    }

    std::string start_name = ctx.fresh(index + "_start");
    cast::Expr start = cast::var(start_name);
    ctx.emit(cast::Decl::make(cast::Type::of(ValueType::Int64), start_name, ext.lo));

    bool guard = false;
    size_t mark = pr.mark();
    auto code = ctx.capture([&] {
        // Which phase each operand is in, and where its current chunk stops.
        std::vector<std::vector<cast::Expr>> in_phase(cursors.size());
        std::vector<cast::Expr> stops;
        // Per part: a stepper whose chunk the phase's stop may cut (a window's end inside an
        // entry's chunk); its chunk then ends at its own stop, past the step.
        std::vector<std::vector<bool>> cut(cursors.size());
        for (size_t k = 0; k < cursors.size(); ++k) {
            const auto& parts = cursors[k].parts;
            if (lists[k]) {
                stops.push_back(lists[k]->stop);
                continue;
            }
            std::vector<cast::Expr> stop_of;
            for (const auto& part : parts) {
                if (part.stop) {
                    cast::Expr live = lt(start, *part.stop);
                    if (cursors[k].guard) live = cast::bin(BinaryOp::LogAnd, *cursors[k].guard, live);
                    in_phase[k].push_back(ctx.local("live", live, ValueType::Bool));
                }
                if (const auto* s = part.looplet->as<Stepper>()) {
                    guard = guard || s->may_be_empty;
                    bool bounded = !part.stop;
                    for (const auto& b : s->stop_bounds) bounded = bounded || pr.le(b, *part.stop);
                    stop_of.push_back(bounded ? s->stop : pr.min({s->stop, *part.stop}));
                    cut[k].push_back(!bounded);
                    continue;
                } else if (part.looplet->kind == LoopletKind::Lookup) {
                    stop_of.push_back(c_add(start, 1));
                } else {
                    stop_of.push_back(part.stop ? *part.stop : merge_hi);
                }
                cut[k].push_back(false);
            }
            cast::Expr stop = stop_of.back();
            for (size_t j = parts.size() - 1; j-- > 0;) stop = cast::Ternary::make(in_phase[k][j], stop_of[j], stop);
            stops.push_back(ctx.local("stop", stop));
        }
        std::vector<cast::Expr> all = stops;
        all.push_back(merge_hi);
        cast::Expr end = pr.min(all);
        if (end.kind() != cast::ExprKind::Var) end = ctx.local(index + "_end", end);
        if (!guard) pr.assume_le(c_add(start, 1), end); // else a chunk may be empty
        Extent step{start, end};
        cast::Expr last = c_add(end, -1);

        Folder folder(ctx);
        lower_step(ctx, index, ext, step, body, cursors, [&](size_t k) {
            const auto& parts = cursors[k].parts;
            if (lists[k]) return list_looplet(ctx, folder, *lists[k], end);
            std::vector<Switch::Case> cases;
            for (size_t j = 0; j < parts.size(); ++j) {
                const LoopletPtr& l = parts[j].looplet;
                LoopletPtr here;
                if (const auto* s = l->as<Stepper>()) {
                    cast::Expr own = cut[k][j] ? s->stop : stops[k];
                    here = truncate(ctx, s->chunk(ctx, own), Extent{start, own}, step);
                }
                else if (l->kind == LoopletKind::Lookup)
                    here = l;
                else
                    here = truncate(ctx, l, parts[j].range, step);
                std::optional<cast::Expr> cond;
                if (j + 1 < parts.size()) cond = in_phase[k][j];
                cases.push_back({cond, here});
            }
            LoopletPtr over = cases.size() == 1 ? cases.front().body : make_looplet<Switch>(std::move(cases));
            auto leaves = folder.fold(over, last, true);
            SISKIN_ASSERT(leaves, "a merged operand stopped being a value looplet");
            return value_looplet(*leaves);
        }, guard);

        // Steppers whose chunk ended move on (only the one of the current phase).
        for (size_t k = 0; k < cursors.size(); ++k) {
            const auto& parts = cursors[k].parts;
            if (lists[k]) {
                auto move = ctx.capture([&] { advance_list(ctx, *lists[k], end); });
                ctx.emit(cast::If::make(cast::bin(BinaryOp::Eq, end, lists[k]->stop), cast::Block::make(move)));
                continue;
            }
            std::vector<std::pair<std::optional<cast::Expr>, std::vector<cast::Stmt>>> moves;
            bool any = false;
            for (size_t j = 0; j < parts.size(); ++j) {
                const auto* s = parts[j].looplet->as<Stepper>();
                any = any || (s && !s->next.empty());
                std::optional<cast::Expr> cond;
                if (j + 1 < parts.size()) cond = in_phase[k][j];
                moves.emplace_back(cond, s ? s->next : std::vector<cast::Stmt>{});
            }
            if (!any) continue;
            auto chain = ctx.capture([&] { emit_chain(ctx, moves); });
            ctx.emit(cast::If::make(cast::bin(BinaryOp::Eq, end, stops[k]), cast::Block::make(chain)));
        }
        ctx.emit(cast::assign(start, end));
    });
    pr.rollback(mark);
    ctx.emit(cast::While::make(lt(start, merge_hi), cast::Block::make(code)));

    if (last_phases_plain) lower_rest(ctx, index, ext, body, cursors, merge_hi);
}

} // namespace

bool lower_merge(LowerCtx& ctx, const std::string& index, const Extent& ext, const LStmt& body) {
    std::vector<Cursor> cursors;
    std::map<const Node*, LExpr> lookups;          // guarded Lookups, replaced
    std::vector<std::pair<cast::Expr, std::vector<cast::Stmt>>> pre, post; // of guarded operands
    std::vector<std::pair<std::string, cast::Expr>> presence;
    for (const auto* u : unfurled_of(body, index)) {
        LoopletKind k = u->looplet->kind;
        if (k == LoopletKind::Jumper) return false;
        if (k != LoopletKind::Sequence && k != LoopletKind::Stepper && k != LoopletKind::Switch) continue;
        if (u->write) return false;
        std::optional<Guarded> g;
        LoopletPtr l = u->looplet;
        if (k == LoopletKind::Switch) {
            g = guarded_of(l);
            if (!g) return false;
            // The condition is read once, before the loop (as lower_switch does).
            std::string name = ctx.fresh("present");
            presence.emplace_back(name, g->cond);
            g->cond = cast::var(name);
            l = g->body;
            pre.emplace_back(g->cond, g->pre);
            post.emplace_back(g->cond, g->post);
        }
        std::optional<Cursor> c;
        std::optional<LoopletPtr> look;
        ctx.capture([&] {
            c = cursor_of(ctx, u, l, ext, g);
            if (!c && g) look = guarded_lookup(ctx, *g);
        });
        if (look) lookups.emplace(u, u->with(*look));
        else if (!c) return false;
        else cursors.push_back(std::move(*c));
    }
    bool rows = !lookups.empty(); // guarded lookups: operands of a merge outside
    for (const auto& c : cursors) rows = rows || c.rows;
    if (cursors.size() + lookups.size() <= (rows ? kRowsMergeAbove : kMergeAbove)) return false;

    for (const auto& [name, cond] : presence)
        ctx.emit(cast::Decl::make(cast::Type::of(ValueType::Bool), name, cond));
    for (const auto& [cond, stmts] : pre) ctx.emit(only_where(cond, stmts));
    auto where_present = [&](const Cursor& c, const std::vector<cast::Stmt>& stmts) {
        ctx.emit(c.guard ? only_where(*c.guard, stmts) : stmts);
    };
    for (const auto& c : cursors) where_present(c, c.pre);
    LStmt merged = replace_unfurled(body, lookups);
    if (cursors.empty()) lower_extent(ctx, index, ext, merged);
    else merge_loop(ctx, index, ext, merged, cursors);
    for (size_t k = cursors.size(); k-- > 0;) where_present(cursors[k], cursors[k].post);
    for (size_t k = post.size(); k-- > 0;) ctx.emit(only_where(post[k].first, post[k].second));
    return true;
}

} // namespace siskin::compiler
