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
//     looplet, Spike(head, tail), whose leaves are `ifelse` chains: the operand contributes
//     `(its stop == end) ? its value : fill` at end - 1, and no subset of operands is enumerated.
//
// The steps then lower as usual (lower_spike splits each at end - 1, where the fill head
// simplifies away). Where every operand ends in a phase without a stepper (the fill after a
// list's last entry), the loop stops at the largest start of those last phases and the rest of
// the extent is lowered once with every operand in its last phase.
//
// It applies only when every chunk and phase is a value looplet (Run, Spike, a Switch of them,
// or a Lookup phase) with value leaves: an operand whose entries are fibres of a further level
// keeps the specialised lowering.
#include <optional>

#include "compiler/lower.hpp"
#include "looplets/truncate.hpp"
#include "simplify/simplify.hpp"
#include "siskin/error.hpp"
#include "siskin/operators.hpp"
#include "compiler/vocabulary.hpp"

namespace siskin::compiler {

namespace {

/// Operands of the index (sequences and steppers) up to which the specialised lowering stays.
/// (The threshold is a first guess, to be measured with bench/many_operands.sh.)
constexpr size_t kMergeAbove = 3;

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
            if (!is_value(v)) return std::nullopt;
            return Leaves{v, v};
        }
        case LoopletKind::Spike: {
            const auto& s = *l->as<Spike>();
            if (!is_value(s.body) || !is_value(s.tail)) return std::nullopt;
            return Leaves{s.body, s.tail};
        }
        case LoopletKind::Lookup: {
            if (!unit) return std::nullopt;
            LExpr v = l->as<Lookup>()->body(ctx_, last);
            if (!is_value(v)) return std::nullopt;
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
                out.tail = choose(cond, leaves[k].tail, out.tail);
                if (!leaves[k].head) continue; // never over more than one index: any head will do
                out.head = out.head ? choose(cond, *leaves[k].head, *out.head) : leaves[k].head;
            }
            return out;
        }
        default: return std::nullopt;
        }
    }

private:
    struct Choice {
        cast::Expr cond;
        LExpr a, b;
    };

    // cond ? a : b; (c1 ? (c2 ? v : f) : f) is (c1 && c2 ? v : f).
    LExpr choose(cast::Expr cond, LExpr a, const LExpr& b) {
        if (same_value(a, b)) return a;
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
        chosen_.emplace(out.get(), Choice{cond, a, b});
        return out;
    }

    LowerCtx& ctx_;
    std::map<const Node*, Choice> chosen_;
};

LoopletPtr value_looplet(const Leaves& f) {
    LExpr head = f.head ? *f.head : f.tail;
    if (same_value(head, f.tail)) return make_looplet<Run>(head);
    return make_looplet<Spike>(head, f.tail);
}

struct Cursor {
    const Unfurled* node;
    struct Part {
        std::optional<cast::Expr> stop; // none: the last phase
        LoopletPtr looplet;             // the phase's looplet over its range
        Extent range;                   // the phase within the extent
    };
    std::vector<Part> parts;
};

// An operand as cursor phases, or none when it is not a Sequence or Stepper of value looplets.
std::optional<Cursor> cursor_of(LowerCtx& ctx, const Unfurled* u, const Extent& ext) {
    Prover& pr = ctx.prover();
    Cursor c{u, {}};
    if (u->looplet->kind == LoopletKind::Stepper) {
        c.parts.push_back({std::nullopt, u->looplet, ext});
    } else if (const auto* seq = u->looplet->as<Sequence>()) {
        cast::Expr from = ext.lo;
        for (const auto& ph : seq->phases) {
            Extent range{from, ph.stop ? pr.min({*ph.stop, ext.hi}) : ext.hi};
            c.parts.push_back({ph.stop, ph.body(ctx, range), range});
            if (ph.stop) from = pr.max({*ph.stop, ext.lo});
        }
    } else {
        return std::nullopt;
    }
    cast::Expr probe = cast::var("siskin_probe");
    for (const auto& part : c.parts) {
        const LoopletPtr& l = part.looplet;
        if (const auto* s = l->as<Stepper>()) {
            if (!Folder(ctx).fold(s->chunk(ctx, s->stop), probe, false)) return std::nullopt;
        } else if (l->kind == LoopletKind::Lookup) {
            if (!Folder(ctx).fold(l, probe, true)) return std::nullopt;
        } else if (!Folder(ctx).fold(l, probe, false)) {
            return std::nullopt;
        }
    }
    return c;
}

cast::Expr lt(const cast::Expr& a, const cast::Expr& b) { return cast::bin(BinaryOp::Lt, a, b); }

} // namespace

bool lower_merge(LowerCtx& ctx, const std::string& index, const Extent& ext, const LStmt& body) {
    std::vector<Cursor> cursors;
    for (const auto* u : unfurled_of(body, index)) {
        LoopletKind k = u->looplet->kind;
        if (k == LoopletKind::Jumper) return false;
        if (k != LoopletKind::Sequence && k != LoopletKind::Stepper) continue;
        if (u->write) return false;
        std::optional<Cursor> c;
        ctx.capture([&] { c = cursor_of(ctx, u, ext); });
        if (!c) return false;
        cursors.push_back(std::move(*c));
    }
    if (cursors.size() <= kMergeAbove) return false;
    Prover& pr = ctx.prover();

    // Every stepper starts at its phase's first index inside the extent.
    bool last_phases_plain = true;
    for (const auto& c : cursors) {
        for (const auto& part : c.parts) {
            const auto* s = part.looplet->as<Stepper>();
            if (!s) continue;
            auto seek = s->seek(ctx, part.range.lo);
            if (seek.empty() || pr.lt(part.range.lo, part.range.hi)) ctx.emit(seek);
            else if (!pr.le(part.range.hi, part.range.lo))
                ctx.emit(cast::If::make(lt(part.range.lo, part.range.hi), cast::Block::make(seek)));
        }
        if (c.parts.back().looplet->kind == LoopletKind::Stepper || c.parts.size() < 2)
            last_phases_plain = false;
    }
    // Past the start of every operand's last phase nothing steps any more.
    cast::Expr merge_hi = ext.hi;
    if (last_phases_plain) {
        std::vector<cast::Expr> starts;
        for (const auto& c : cursors) starts.push_back(c.parts.back().range.lo);
        merge_hi = pr.min({pr.max(starts), ext.hi});
        if (merge_hi.kind() != cast::ExprKind::Var && merge_hi.kind() != cast::ExprKind::Literal)
            merge_hi = ctx.local(index + "_merged", merge_hi);
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
        for (size_t k = 0; k < cursors.size(); ++k) {
            const auto& parts = cursors[k].parts;
            std::vector<cast::Expr> stop_of;
            for (const auto& part : parts) {
                if (part.stop) in_phase[k].push_back(ctx.local("live", lt(start, *part.stop), ValueType::Bool));
                if (const auto* s = part.looplet->as<Stepper>()) {
                    guard = guard || s->may_be_empty;
                    bool bounded = !part.stop;
                    for (const auto& b : s->stop_bounds) bounded = bounded || pr.le(b, *part.stop);
                    stop_of.push_back(bounded ? s->stop : pr.min({s->stop, *part.stop}));
                } else if (part.looplet->kind == LoopletKind::Lookup) {
                    stop_of.push_back(c_add(start, 1));
                } else {
                    stop_of.push_back(part.stop ? *part.stop : merge_hi);
                }
            }
            cast::Expr stop = stop_of.back();
            for (size_t j = parts.size() - 1; j-- > 0;) stop = cast::Ternary::make(in_phase[k][j], stop_of[j], stop);
            stops.push_back(ctx.local("stop", stop));
        }
        std::vector<cast::Expr> all = stops;
        all.push_back(merge_hi);
        cast::Expr end = pr.min(all);
        if (end.kind() != cast::ExprKind::Var) end = ctx.local(index + "_end", end);
        pr.assume_le(c_add(start, 1), end);
        Extent step{start, end};
        cast::Expr last = c_add(end, -1);

        std::set<const Node*> skip;
        for (const auto& c : cursors) skip.insert(c.node);
        LStmt part = truncate_all(ctx, body, index, ext, step, skip);
        std::map<const Node*, LExpr> by;
        Folder folder(ctx);
        for (size_t k = 0; k < cursors.size(); ++k) {
            const auto& parts = cursors[k].parts;
            std::vector<Switch::Case> cases;
            for (size_t j = 0; j < parts.size(); ++j) {
                const LoopletPtr& l = parts[j].looplet;
                LoopletPtr here;
                if (const auto* s = l->as<Stepper>())
                    here = truncate(ctx, s->chunk(ctx, stops[k]), Extent{start, stops[k]}, step);
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
            by.emplace(cursors[k].node, cursors[k].node->with(value_looplet(*leaves)));
        }
        LStmt step_code = replace_unfurled(part, by);
        if (guard) lower_range(ctx, index, step, step_code);
        else lower_extent(ctx, index, step, step_code);

        // Steppers whose chunk ended move on (only the one of the current phase).
        for (size_t k = 0; k < cursors.size(); ++k) {
            const auto& parts = cursors[k].parts;
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

    if (!last_phases_plain) return true;
    // The rest of the extent: every operand in its last phase.
    Extent rest{merge_hi, ext.hi};
    std::set<const Node*> skip;
    std::map<const Node*, LExpr> by;
    for (const auto& c : cursors) {
        skip.insert(c.node);
        const auto& part = c.parts.back();
        by.emplace(c.node, c.node->with(truncate(ctx, part.looplet, part.range, rest)));
    }
    lower_range(ctx, index, rest, replace_unfurled(truncate_all(ctx, body, index, ext, rest, skip), by));
    return true;
}

} // namespace siskin::compiler
