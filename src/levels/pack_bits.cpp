// PackBits (Looplets §3; TIFF's PackBits): a fibre is a sequence of segments that covers all of
// [0, n): runs of one repeated value, and literal segments holding a value per coordinate. The
// segments of fibre p are pos[p] .. pos[p+1]-1; segment q ends (exclusive) at right[q], starts
// where the one before it in the fibre ends (0 for the first), and owns the positions
// ofs[q] .. ofs[q+1]-1: one for a run, one per coordinate for a literal, so coordinate i of a
// literal is at ofs[q+1] - right[q] + i. A segment holding one value is a run (a literal of
// length 1 is the same thing), so the kind needs no flag of its own.
//
// The encoding is canonical, whatever pieces the values come in: a value equal to the one before
// it joins it in a run (taking it out of a literal when it was the literal's last), a lone value
// after a literal or a run of length 1 joins it as a literal, anything else starts a segment. So
// [7,7,7,1,2,3,0,0] is run(7, ends 3), literal [1,2,3] (ends 6), run(0, ends 8): right [3,6,8],
// ofs [0,1,4,5], values [7,1,2,3,0]. Like runlist, fill stretches are segments too, and the level
// is the last one: its runs hold leaf values.
#include <algorithm>

#include <fmt/format.h>

#include "levels/level_codegen.hpp"
#include "levels/level_format.hpp"
#include "levels/sorted_walk.hpp"
#include "lowering/tensor_binding.hpp"
#include "siskin/error.hpp"

namespace siskin::levels {

namespace {

cast::Expr lt(const cast::Expr& a, const cast::Expr& b) { return cast::bin(cast::BinaryOp::Lt, a, b); }
cast::Expr eq(const cast::Expr& a, const cast::Expr& b) { return cast::bin(cast::BinaryOp::Eq, a, b); }
cast::Expr both(const cast::Expr& a, const cast::Expr& b) { return cast::bin(cast::BinaryOp::LogAnd, a, b); }

// The canonical encoder of the header, shared by building (on int64 arrays) and documented for
// the generated writer, which follows the same four cases.
struct Encoder {
    std::vector<int64_t>& right;
    std::vector<int64_t>& ofs;   // ofs.back() is the number of values so far
    std::vector<Scalar>& values; // one per position
    size_t fibre_start = 0;      // first segment of the current fibre
    int64_t covered = 0;

    size_t segments() const { return right.size(); }
    int64_t seg_start(size_t q) const { return q > fibre_start ? right[q - 1] : 0; }
    int64_t seg_values(size_t q) const { return ofs[q + 1] - ofs[q]; }

    // Appends [covered, hi) holding v.
    void place(int64_t hi, const Scalar& v) {
        int64_t len = hi - covered;
        bool has = segments() > fibre_start;
        size_t q = segments() - 1;
        if (has && seg_values(q) == 1 && values.back().same(v)) { // extends a run
            right[q] = hi;
        } else if (has && seg_values(q) >= 2 && values.back().same(v)) { // the literal's last joins a run
            right[q] -= 1;
            ofs.back() -= 1;
            right.push_back(hi);
            ofs.push_back(ofs.back() + 1);
        } else if (has && len == 1 && right[q] - seg_start(q) == seg_values(q)) { // joins a literal
            right[q] = hi;
            values.push_back(v);
            ofs.back() += 1;
        } else {
            right.push_back(hi);
            values.push_back(v);
            ofs.push_back(ofs.back() + 1);
        }
        covered = hi;
    }
};

// PackBits, codegen face. Every protocol but follow reads fibre r as the ended segments of
// sorted_walk.hpp that cover it (Stepper(stop = right[q], next = q++)), each read through a
// Switch on its kind:
//   Switch(ofs[q+1] - ofs[q] == 1: Run(child(ofs[q])),
//          otherwise:              Lookup(i -> child(ofs[q+1] - right[q] + i)))
// follow binary-searches right for the segment holding i.
//
// Writing: in coordinate order, each fibre once, as runlist: a fibre covers any gap with the
// fill, each write of [lo, hi) with one value opens a leaf slot at the next position (`slots`)
// and, once written, places it by the encoder's four cases (the slot is dropped when it joins
// a run). Fibres no loop reached get one fill run when a later fibre opens, or at freeze, and a
// fibre written again (its sparse parent dropped the slot above it) starts over.
class PackBitsCodegen final : public LevelCodegen {
public:
    std::vector<std::string_view> protocols() const override { return {"walk", "gallop", "follow"}; }

    LoopletPtr unfurl(LowerCtx& ctx, const Fiber& f, std::string_view protocol) const override {
        if (protocol == "follow") return lookup_each(f, locate_at);
        cast::Expr right = f.tensor->buffer(f.level, "right").data_var();
        cast::Expr ofs = f.tensor->buffer(f.level, "ofs").data_var();
        return ended_fibre(ctx, f, right, /*covers=*/true,
                           [right, ofs](LowerCtx& c, const Fiber& fb, const cast::Expr& q) -> LoopletPtr {
                               auto fiber = std::make_shared<const Fiber>(fb);
                               cast::Expr end = cast::at(ofs, c_add(q, 1));
                               cast::Expr base = c_sub(end, cast::at(right, q));
                               LoopletPtr run = make_looplet<Run>(child_fiber(c, fb, {cast::at(ofs, q)}, fb.dirty));
                               LoopletPtr literal = make_looplet<Lookup>([fiber, base](LowerCtx& c2, const cast::Expr& i) {
                                   return child_fiber(c2, *fiber, {c_add(base, i)}, fiber->dirty);
                               });
                               return make_looplet<Switch>(std::vector<Switch::Case>{
                                   {eq(c_sub(end, cast::at(ofs, q)), c_int(1)), run}, {std::nullopt, literal}});
                           });
    }

    LExpr locate(LowerCtx& ctx, const Fiber& f) const override {
        return at_subscript(ctx, f, locate_at);
    }

    // `count` numbers the segments, `slots` the positions (values), `next` the first fibre
    // without segments; ofs[count] == slots between writes.
    void declare(LowerCtx& ctx, const TensorBinding& t, int level) const override {
        auto i64 = cast::Type::of(ValueType::Int64);
        for (const char* var : {"count", "slots", "next"}) {
            std::string name = ctx.fresh(t.name + "_" + var + std::to_string(level));
            ctx.emit(cast::Decl::make(i64, name, c_int(0)));
            ctx.set_level_var(t, level, var, cast::var(name));
        }
        for (const char* buffer : {"pos", "ofs"}) {
            const BufferBinding& b = t.buffer(level, buffer);
            ctx.emit(ctx.reserve(b, c_int(1)));
            ctx.emit(cast::assign(cast::at(b.data_var(), c_int(0)), c_int(0)));
        }
    }

    // Fibres get their segments when they are written, or when a later fibre (or freeze) passes them.
    void init_slots(LowerCtx&, const TensorBinding&, int, const cast::Expr&, const cast::Expr&) const override {}

    LoopletPtr unfurl_write(LowerCtx& ctx, const Fiber& f) const override {
        const TensorBinding& t = *f.tensor;
        const int level = f.level;
        const cast::Expr& r = f.pos.front();
        cast::Expr count = ctx.level_var(t, level, "count"), next = ctx.level_var(t, level, "next");
        cast::Expr slots = ctx.level_var(t, level, "slots");
        cast::Expr pos = t.buffer(level, "pos").data_var(), ofs = t.buffer(level, "ofs").data_var();
        auto i64 = cast::Type::of(ValueType::Int64);
        std::vector<cast::Stmt> pre = ctx.reserve(t.buffer(level, "pos"), c_add(r, 2));
        // A fibre before `next` is written again only when its parent dropped the slot it was
        // written under: what was written from it on is discarded. (Fibre 0 is written once.)
        if (c_constant(r) != 0) {
            pre.push_back(cast::If::make(lt(r, next), cast::Block::make(rewind(ctx, t, level, r))));
            pre.push_back(skip_fibres(ctx, t, level, r));
        }
        auto w = std::make_shared<Writer>(Writer{std::make_shared<const Fiber>(f), cast::var(ctx.fresh("f_start")),
                                                 cast::var(ctx.fresh("covered"))});
        pre.push_back(cast::Decl::make(i64, w->start.as<cast::Var>().name, count));
        pre.push_back(cast::Decl::make(i64, w->covered.as<cast::Var>().name, c_int(0)));

        cast::Expr n = t.level_dim(level);
        std::vector<cast::Stmt> post{cast::If::make(lt(w->covered, n), cast::Block::make(fill_to(ctx, *w, n)))};
        post.push_back(cast::assign(cast::at(pos, c_add(r, 1)), count));
        post.push_back(cast::assign(next, c_add(r, 1)));
        if (f.dirty) {
            // Something other than the fill: two segments or more (neighbours differ), a literal,
            // or one run that is not the fill.
            cast::Expr segs = c_sub(count, w->start);
            cast::Expr one_value = eq(c_sub(slots, cast::at(ofs, w->start)), c_int(1));
            cast::Expr non_fill = cast::bin(
                cast::BinaryOp::LogOr, cast::bin(cast::BinaryOp::Gt, segs, c_int(1)),
                both(eq(segs, c_int(1)),
                     cast::bin(cast::BinaryOp::LogOr, cast::un(cast::UnaryOp::Not, one_value),
                               t.leaf().holds_value(ctx, t, cast::at(ofs, w->start)))));
            post.push_back(cast::If::make(non_fill, cast::assign(*f.dirty, cast::lit(Scalar::of(true)))));
        }
        LoopletPtr values = make_looplet<Lookup>(
            [w](LowerCtx& c, const cast::Expr& i) { return write_piece(c, *w, i, c_add(i, 1)); },
            [w](LowerCtx& c, const Extent& e) { return write_piece(c, *w, e.lo, e.hi); });
        return make_looplet<Thunk>(std::move(pre), values, std::move(post));
    }

    LExpr locate_write(LowerCtx&, const Fiber& f) const override { refuse_random_write(f, "packbits"); }

    // The encoding is canonical, so two fibres hold the same when their segments end alike, are
    // as long, and hold the same values. A fibre no loop wrote gets its fill run first.

    cast::Expr same_fibres(LowerCtx& ctx, const TensorBinding& t, int level, const cast::Expr& p,
                           const cast::Expr& q) const override {
        for (const cast::Expr& r : {p, q}) {
            ctx.emit(ctx.reserve(t.buffer(level, "pos"), c_add(r, 2)));
            ctx.emit(skip_fibres(ctx, t, level, c_add(r, 1)));
        }
        return same_segmented_fibres(ctx, t, level, "right", p, q);
    }

    // Segments and values go back to where fibre r starts (only fibres before `next` hold any).
    void discard_fibres(LowerCtx& ctx, const TensorBinding& t, int level, const cast::Expr& r) const override {
        ctx.emit(cast::If::make(lt(r, ctx.level_var(t, level, "next")), cast::Block::make(rewind(ctx, t, level, r))));
    }

    cast::Expr freeze(LowerCtx& ctx, const TensorBinding& t, int level, const cast::Expr& parents) const override {
        const BufferBinding& pos = t.buffer(level, "pos");
        cast::Expr count = ctx.level_var(t, level, "count"), slots = ctx.level_var(t, level, "slots");
        ctx.emit(ctx.reserve(pos, c_add(parents, 1)));
        ctx.emit(skip_fibres(ctx, t, level, parents));
        // Past `parents` lie only fibres of a slot the parent dropped.
        ctx.emit(cast::assign(count, cast::at(pos.data_var(), parents)));
        ctx.emit(cast::assign(slots, cast::at(t.buffer(level, "ofs").data_var(), count)));
        set_buffer_size(ctx, pos, c_add(parents, 1));
        set_buffer_size(ctx, t.buffer(level, "right"), count);
        set_buffer_size(ctx, t.buffer(level, "ofs"), c_add(count, 1));
        return slots;
    }

private:
    // The fibre being written: its first segment, and how far its segments reach.
    struct Writer {
        std::shared_ptr<const Fiber> fiber;
        cast::Expr start, covered;
    };

    // Statements going back to where fibre r (before `next`) starts: its first segment and value.
    static std::vector<cast::Stmt> rewind(LowerCtx& ctx, const TensorBinding& t, int level, const cast::Expr& r) {
        cast::Expr count = ctx.level_var(t, level, "count"), next = ctx.level_var(t, level, "next");
        cast::Expr slots = ctx.level_var(t, level, "slots");
        return {cast::assign(count, cast::at(t.buffer(level, "pos").data_var(), r)),
                cast::assign(slots, cast::at(t.buffer(level, "ofs").data_var(), count)), cast::assign(next, r)};
    }

    // Room for one more segment and one more value, and the value's slot readied (the fill).
    static std::vector<cast::Stmt> open_slot(LowerCtx& ctx, const TensorBinding& t, int level) {
        cast::Expr count = ctx.level_var(t, level, "count"), slots = ctx.level_var(t, level, "slots");
        return ctx.capture([&] {
            ctx.emit(ctx.reserve(t.buffer(level, "right"), c_add(count, 1)));
            ctx.emit(ctx.reserve(t.buffer(level, "ofs"), c_add(count, 2)));
            init_child_slots(ctx, t, level, slots, c_add(slots, 1));
        });
    }

    // Statements appending a segment [.., end) whose value is the slot at `slots`.
    static std::vector<cast::Stmt> new_segment(LowerCtx& ctx, const TensorBinding& t, int level, const cast::Expr& end) {
        cast::Expr count = ctx.level_var(t, level, "count"), slots = ctx.level_var(t, level, "slots");
        cast::Expr right = t.buffer(level, "right").data_var(), ofs = t.buffer(level, "ofs").data_var();
        auto itype = cast::Type::of(t.index_type(level));
        return {cast::assign(cast::at(right, count), cast::Cast::make(itype, end)), cast::Increment::make(slots),
                cast::assign(cast::at(ofs, c_add(count, 1)), cast::Cast::make(itype, slots)),
                cast::Increment::make(count)};
    }

    // Places the value written into the slot at `slots` over [w.covered, hi) by the encoder's
    // four cases (see Encoder::place).
    static std::vector<cast::Stmt> place(LowerCtx& ctx, const Writer& w, const cast::Expr& hi) {
        const TensorBinding& t = *w.fiber->tensor;
        int level = w.fiber->level;
        cast::Expr count = ctx.level_var(t, level, "count"), slots = ctx.level_var(t, level, "slots");
        cast::Expr right = t.buffer(level, "right").data_var(), ofs = t.buffer(level, "ofs").data_var();
        auto itype = cast::Type::of(t.index_type(level));
        cast::Expr q = c_add(count, -1);
        cast::Expr has = lt(w.start, count);
        cast::Expr values = c_sub(slots, cast::at(ofs, q));
        cast::Expr same_last = t.leaf().same_values(ctx, t, slots, c_add(slots, -1));
        cast::Expr start = cast::Ternary::make(lt(w.start, q), cast::at(right, c_add(q, -1)), c_int(0));
        cast::Expr joins_run = both(has, both(eq(values, c_int(1)), same_last));
        cast::Expr leaves_literal = both(has, both(cast::bin(cast::BinaryOp::Ge, values, c_int(2)), same_last));
        cast::Expr joins_literal = both(has, both(eq(c_sub(hi, w.covered), c_int(1)),
                                                  eq(c_sub(cast::at(right, q), start), values)));
        cast::Expr hi_idx = cast::Cast::make(itype, hi);
        std::vector<cast::Stmt> split{
            cast::assign(cast::at(right, q), c_add(cast::at(right, q), -1)),
            cast::assign(cast::at(ofs, count), cast::Cast::make(itype, c_add(slots, -1))),
            cast::assign(cast::at(right, count), hi_idx),
            cast::assign(cast::at(ofs, c_add(count, 1)), cast::Cast::make(itype, slots)),
            cast::Increment::make(count)};
        std::vector<cast::Stmt> join_literal{cast::assign(cast::at(right, q), hi_idx), cast::Increment::make(slots),
                                             cast::assign(cast::at(ofs, count), cast::Cast::make(itype, slots))};
        cast::Stmt otherwise = cast::If::make(joins_literal, cast::Block::make(join_literal),
                                              cast::Block::make(new_segment(ctx, t, level, hi)));
        otherwise = cast::If::make(leaves_literal, cast::Block::make(split), cast::Block::make({otherwise}));
        cast::Stmt chain = cast::If::make(joins_run, cast::assign(cast::at(right, q), hi_idx),
                                          cast::Block::make({otherwise}));
        return {chain, cast::assign(w.covered, hi)};
    }

    // Covers the fibre up to `end` with the fill.
    static std::vector<cast::Stmt> fill_to(LowerCtx& ctx, const Writer& w, const cast::Expr& end) {
        std::vector<cast::Stmt> out = open_slot(ctx, *w.fiber->tensor, w.fiber->level);
        std::vector<cast::Stmt> placed = place(ctx, w, end);
        out.insert(out.end(), placed.begin(), placed.end());
        return out;
    }

    // Gives every fibre from `next` up to `upto` (exclusive) one run of the fill (none when the
    // extent is 0): fibres no loop wrote.
    static cast::Stmt skip_fibres(LowerCtx& ctx, const TensorBinding& t, int level, const cast::Expr& upto) {
        cast::Expr count = ctx.level_var(t, level, "count"), next = ctx.level_var(t, level, "next");
        cast::Expr n = t.level_dim(level);
        std::vector<cast::Stmt> run = open_slot(ctx, t, level);
        std::vector<cast::Stmt> seg = new_segment(ctx, t, level, n);
        run.insert(run.end(), seg.begin(), seg.end());
        std::vector<cast::Stmt> body{cast::If::make(cast::bin(cast::BinaryOp::Gt, n, c_int(0)), cast::Block::make(run)),
                                     cast::Increment::make(next),
                                     cast::assign(cast::at(t.buffer(level, "pos").data_var(), next), count)};
        return cast::While::make(lt(next, upto), cast::Block::make(body));
    }

    // The leaf slot for coordinates [lo, hi) of the fibre, all given one value, after a fill
    // segment over any gap since the last write; placed once written.
    static LExpr write_piece(LowerCtx& ctx, const Writer& w, const cast::Expr& lo, const cast::Expr& hi) {
        const TensorBinding& t = *w.fiber->tensor;
        int level = w.fiber->level;
        std::vector<cast::Stmt> pre{cast::If::make(lt(w.covered, lo), cast::Block::make(fill_to(ctx, w, lo)))};
        std::vector<cast::Stmt> open = open_slot(ctx, t, level);
        pre.insert(pre.end(), open.begin(), open.end());
        LExpr slot = child_fiber(ctx, *w.fiber, {ctx.level_var(t, level, "slots")}, std::nullopt);
        return Hoist::make(std::move(pre), slot, place(ctx, w, hi));
    }

    // The segment holding coordinate c: the first of the fibre whose end is past c (the
    // segments cover the fibre, so it exists), and c's position in it.
    static LExpr locate_at(LowerCtx& ctx, const Fiber& f, const cast::Expr& c) {
        cast::Expr ofs = f.tensor->buffer(f.level, "ofs").data_var();
        cast::Expr right = f.tensor->buffer(f.level, "right").data_var();
        FibreSearch s = search_fibre(ctx, f, right, c_add(c, 1));
        cast::Expr end = cast::at(ofs, c_add(s.q, 1));
        cast::Expr position = cast::Ternary::make(eq(c_sub(end, cast::at(ofs, s.q)), c_int(1)), cast::at(ofs, s.q),
                                                  c_add(c_sub(end, cast::at(right, s.q)), c));
        return Hoist::make(std::move(s.pre), child_fiber(ctx, f, {position}, f.dirty), {});
    }
};

class PackBitsLevel final : public LevelFormat {
public:
    std::string_view name() const override { return "packbits"; }
    LevelProperties properties() const override {
        return {.min_modes = 1, .max_modes = 1, .full = true, .ordered = true, .unique = true,
                .runs = true, .stores_fill = true, .append_only = true};
    }
    std::vector<BufferSpec> buffers(const LevelSpec& spec) const override {
        return {{"pos", index_type(spec.index_bits), BufferRole::Positions},
                {"right", index_type(spec.index_bits), BufferRole::Coordinates},
                {"ofs", index_type(spec.index_bits), BufferRole::Positions}};
    }

    void check_place(const Format& format, size_t k) const override {
        require_last_level(format, k, name(), "its runs hold leaf values");
    }

    // Each fibre's values, the fill between entries included, go through the encoder; an entry's
    // position is the one its coordinate has once the fibre is encoded.
    LevelBuild build(const LevelSpec& spec, std::span<const int64_t> shape, const LevelInput& in) const override {
        SISKIN_ASSERT(in.last && in.fill != nullptr, "a packbits level is built as the last level");
        const int mode = spec.modes[0];
        const int64_t n = mode_extent(spec, shape, 0);
        std::vector<int64_t> pos{0}, right, ofs{0};
        std::vector<Scalar> values;
        pos.reserve(static_cast<size_t>(in.num_parents) + 1);
        LevelBuild out;
        out.positions.resize(static_cast<size_t>(in.size()));
        Encoder enc{right, ofs, values};
        int64_t e = 0;
        for (int64_t p = 0; p < in.num_parents; ++p) {
            enc.fibre_start = right.size();
            enc.covered = 0;
            int64_t first = e;
            for (; e < in.size() && in.parents[static_cast<size_t>(e)] == p; ++e) {
                int64_t c = in.coord(e, mode);
                if (c > enc.covered) enc.place(c, *in.fill);
                enc.place(c + 1, in.values[static_cast<size_t>(e)]);
            }
            if (enc.covered < n) enc.place(n, *in.fill);
            // Positions once the fibre is final: a later value may have taken a literal's last
            // into a run, so they are found afterwards, segment by segment.
            size_t q = enc.fibre_start;
            for (int64_t k = first; k < e; ++k) {
                int64_t c = in.coord(k, mode);
                while (right[q] <= c) ++q;
                int64_t count = ofs[q + 1] - ofs[q];
                out.positions[static_cast<size_t>(k)] = count == 1 ? ofs[q] : ofs[q + 1] - right[q] + c;
            }
            pos.push_back(static_cast<int64_t>(right.size()));
        }
        SISKIN_ASSERT(e == in.size(), "packbits entries come with parents in order");
        out.num_positions = ofs.back();
        store_index_buffers(out, spec, std::max(out.num_positions, n), "packbits",
                            {{"pos", pos}, {"right", right}, {"ofs", ofs}});
        return out;
    }

    int64_t num_positions(const LevelStorage& s, std::span<const int64_t>, int64_t num_parents) const override {
        return IndexReader(s.buffer("ofs"))[IndexReader(s.buffer("pos"))[num_parents]];
    }

    // Fibres under unused parent slots (below a sparsebytemap) are one fill run each.
    int64_t num_stored(const LevelStorage& s, std::span<const int64_t> shape, int64_t num_parents,
                       int64_t used_parents) const override {
        int64_t unused_runs = mode_extent(s.spec, shape, 0) > 0 ? num_parents - used_parents : 0;
        return num_positions(s, shape, num_parents) - unused_runs;
    }

    // The entries of a fibre are its positions: a run's one, a literal's one per coordinate.
    FibreRange fibre(const LevelStorage& s, std::span<const int64_t>, int64_t parent) const override {
        IndexReader pos(s.buffer("pos")), ofs(s.buffer("ofs"));
        return {ofs[pos[parent]], ofs[pos[parent + 1]]};
    }

    FibreEntry fibre_entry(const LevelStorage& s, std::span<const int64_t>, int64_t parent, int64_t k,
                           std::span<int64_t> coords) const override {
        IndexReader pos(s.buffer("pos")), ofs(s.buffer("ofs")), right(s.buffer("right"));
        // The segment owning position k: the last of the fibre whose first position is not past k.
        int64_t q = first_at_least(ofs, pos[parent], pos[parent + 1], k + 1) - 1;
        int64_t count = ofs[q + 1] - ofs[q];
        if (count > 1) {
            coords[0] = right[q] - (ofs[q + 1] - k);
            return {k, 1};
        }
        int64_t start = q == pos[parent] ? 0 : right[q - 1];
        coords[0] = start;
        return {k, right[q] - start};
    }

    // The first coordinate at a position: in the segment owning it (the last whose first
    // position is not past it; a run's start is where the one before ends, unless that one
    // ended its fibre, at n).
    void coordinates(const LevelStorage& s, std::span<const int64_t> shape, int64_t position,
                     std::span<int64_t> out) const override {
        IndexReader ofs(s.buffer("ofs")), right(s.buffer("right"));
        int64_t q = first_at_least(ofs, 0, right.size(), position + 1) - 1;
        if (ofs[q + 1] - ofs[q] > 1) {
            out[0] = right[q] - (ofs[q + 1] - position);
            return;
        }
        int64_t previous = q == 0 ? 0 : right[q - 1];
        out[0] = previous == mode_extent(s.spec, shape, 0) ? 0 : previous;
    }

    std::optional<int64_t> locate(const LevelStorage& s, std::span<const int64_t>, int64_t parent,
                                  std::span<const int64_t> coords) const override {
        IndexReader ofs(s.buffer("ofs")), right(s.buffer("right"));
        FibreRange segs = pos_fibre(s, parent);
        int64_t q = first_at_least(right, segs.begin, segs.end, coords[0] + 1);
        if (q == segs.end) return std::nullopt;
        if (ofs[q + 1] - ofs[q] == 1) return ofs[q];
        return ofs[q + 1] - right[q] + coords[0];
    }

    const LevelCodegen* codegen() const override {
        static const PackBitsCodegen face;
        return &face;
    }
};

} // namespace

const LevelFormat& packbits_level() {
    static const PackBitsLevel level;
    return level;
}

} // namespace siskin::levels
