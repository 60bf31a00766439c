// Intersection: two sorted lists (steppers over positions p .. end, each chunk Spike(fill, entry))
// whose body does nothing unless both hold an entry, e.g. a dot product of the masked mxm or of
// triangle counting. The two-finger merge costs len(a) + len(b); on power-law data one list is
// often a hub's thousands of entries and the other a handful, where walking the shorter and
// galloping the longer to each of its coordinates costs short * log(long). The choice is made
// at run time, per intersection, on the lengths left after the seek to the extent's start:
//
//   if (len_a * kGallopRatio < len_b)      walk a, gallop b
//   else if (len_b * kGallopRatio < len_a) walk b, gallop a
//   else                                   the merge (lower_steps)
//
// where "walk s, gallop l" is
//
//   while (p_s < end_s [&& stop_s <= hi]) {
//       stop = s.stop;              // its coordinate + 1
//       l.seek(stop - 1);           // siskin_gallop_*: the first entry of l at or past it
//       if (p_l < end_l && l.stop == stop) { body at stop - 1 with both entries; l.next }
//       s.next;
//   }
//
// so the loop runs short times (a work count sees that), whatever the longer list holds. Like
// the merge it visits common coordinates in increasing order. It applies by default where the
// body vanishes (simplifies to nothing) with either list, or both, at its fill, the entries are
// leaf values (the innermost loop: the body is lowered three times), and the lists are read, not
// written; anything else of the index must be a Lookup (read at the common coordinates only).
// A `gallop(k)` subscript still asks for the leapfrog Jumpers (lower_jumper.cpp) instead.
#include "compiler/lower.hpp"
#include "looplets/truncate.hpp"
#include "simplify/simplify.hpp"
#include "compiler/vocabulary.hpp"

namespace siskin::compiler {

namespace {

/// How many times longer one list must be than the other for the walk-and-gallop to replace the
/// merge, as GraphBLAS's dot3. On email-Enron's masked (min, +) mxm with distinct weights, 32
/// measured the same within noise (docs/compiler.md, "Intersections").
constexpr int64_t kGallopRatio = 8;

using cast::BinaryOp;

struct List {
    const Unfurled* node;
    const Stepper* stepper;
    const Spike* entry; // the chunk: fill, then the entry
    LoopletPtr chunk;   // keeps `entry` alive
};

cast::Expr lt(const cast::Expr& a, const cast::Expr& b) { return cast::bin(BinaryOp::Lt, a, b); }
cast::Expr both(const cast::Expr& a, const cast::Expr& b) { return cast::bin(BinaryOp::LogAnd, a, b); }

/// Whether the body does nothing where the lists hold `a` and `b` (each a fill or an entry).
bool vanishes(LowerCtx& ctx, const LStmt& body, const List& x, const LExpr& a, const List& y, const LExpr& b) {
    LStmt at = replace_unfurled(body, {{x.node, a}, {y.node, b}});
    return is_nothing(simplify_stmt(ctx, at));
}

/// "walk s, gallop l" over ext (see the top of the file).
void walk_and_gallop(LowerCtx& ctx, const std::string& index, const Extent& ext, const LStmt& body,
                     const List& s, const List& l) {
    Prover& pr = ctx.prover();
    const PositionLoop& sp = *s.stepper->positions;
    const PositionLoop& lp = *l.stepper->positions;
    cast::Expr more = lt(sp.p, sp.end);
    if (!pr.le(sp.last_stop, ext.hi)) more = both(more, cast::bin(BinaryOp::Le, s.stepper->stop, ext.hi));
    size_t mark = pr.mark();
    auto code = ctx.capture([&] {
        cast::Expr stop = ctx.local("stop", s.stepper->stop);
        for (const auto& b : s.stepper->stop_bounds) pr.assume_le(stop, b);
        pr.assume_le(stop, ext.hi);
        pr.assume_le(c_add(ext.lo, 1), stop); // s starts at ext.lo: its entries lie past it
        cast::Expr at = c_add(stop, -1);
        ctx.emit(l.stepper->seek(ctx, at));
        cast::Expr match = both(lt(lp.p, lp.end), cast::bin(BinaryOp::Eq, l.stepper->stop, stop));
        auto hit = ctx.capture([&] {
            Extent step{at, stop};
            std::set<const Node*> skip{s.node, l.node};
            LStmt part = truncate_all(ctx, body, index, ext, step, skip);
            LoopletPtr sc = s.stepper->chunk(ctx, stop), lc = l.stepper->chunk(ctx, stop);
            part = replace_unfurled(part, {{s.node, sc->as<Spike>()->tail}, {l.node, lc->as<Spike>()->tail}});
            lower_extent(ctx, index, step, part);
            ctx.emit(l.stepper->next);
        });
        if (!hit.empty()) ctx.emit(cast::If::make(match, cast::Block::make(hit)));
        ctx.emit(s.stepper->next);
    });
    pr.rollback(mark);
    ctx.emit(cast::While::make(more, cast::Block::make(code)));
}

} // namespace

bool lower_intersection(LowerCtx& ctx, const std::string& index, const Extent& ext, const LStmt& body) {
    Prover& pr = ctx.prover();
    if (pr.difference(ext.lo, ext.hi) == 1) return false; // one coordinate: nothing to choose
    std::vector<List> lists;
    for (const auto* u : unfurled_of(body, index)) {
        if (u->looplet->kind == LoopletKind::Lookup) continue;
        const auto* s = u->looplet->as<Stepper>();
        if (!s || u->write || !s->positions || s->may_be_empty || lists.size() == 2) return false;
        LoopletPtr chunk = s->chunk(ctx, s->stop);
        const auto* spike = chunk->as<Spike>();
        if (!spike || spike->tail->kind == NodeKind::Fiber) return false; // entries are leaf values
        lists.push_back({u, s, spike, chunk});
    }
    if (lists.size() != 2) return false;
    const List& a = lists[0];
    const List& b = lists[1];
    // The seek must leap (a binary or galloping search), not walk.
    cast::Expr probe = cast::var(ctx.fresh(index + "_probe"));
    if (a.stepper->seek(ctx, probe).empty() || b.stepper->seek(ctx, probe).empty()) return false;
    const LExpr &fa = a.entry->body, &ea = a.entry->tail, &fb = b.entry->body, &eb = b.entry->tail;
    if (!vanishes(ctx, body, a, fa, b, eb) || !vanishes(ctx, body, a, ea, b, fb) ||
        !vanishes(ctx, body, a, fa, b, fb))
        return false;

    for (const auto& x : lists) ctx.emit(x.stepper->seek(ctx, ext.lo));
    auto length = [&](const List& x) {
        const PositionLoop& pl = *x.stepper->positions;
        return ctx.local(index + "_len", c_sub(pl.end, pl.p));
    };
    cast::Expr na = length(a), nb = length(b);
    auto longer = [&](const cast::Expr& n, const cast::Expr& m) {
        return lt(cast::bin(BinaryOp::Mul, n, c_int(kGallopRatio)), m);
    };
    auto claims = ctx.claims(); // the three branches exclude each other
    std::vector<std::pair<std::optional<cast::Expr>, std::vector<cast::Stmt>>> branches;
    branches.emplace_back(longer(na, nb), ctx.capture([&] { walk_and_gallop(ctx, index, ext, body, a, b); }));
    ctx.restore_claims(claims);
    branches.emplace_back(longer(nb, na), ctx.capture([&] { walk_and_gallop(ctx, index, ext, body, b, a); }));
    ctx.restore_claims(claims);
    branches.emplace_back(std::nullopt, ctx.capture([&] { lower_steps(ctx, index, ext, body, true); }));
    emit_chain(ctx, branches);
    return true;
}

} // namespace siskin::compiler
