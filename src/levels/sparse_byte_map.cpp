// SparseByteMap (Finch's SparseByteMap; the Gustavson workspace): like dense, coordinate i of
// fibre p has the position p*n + i, but only some of those slots are used. tbl (bool, one per
// slot) says which; srt lists the used coordinates of fibre p in increasing order at
// srt[pos[p]] .. srt[pos[p+1]-1]. Random-order writes set tbl and append to srt, which is
// sorted when the level is frozen; a lookup is one read of tbl.
//
// The level has n positions per parent, so the level below it (and the leaf) has storage for
// unused slots too: empty fibres, or fill. An element leaf holds the fill in every unused slot
// (build, init_slots and freeze keep it so; a tensor filled by hand must too), which lets a
// lookup read the leaf without testing tbl. Fibre iteration walks srt, not the slots, and
// Tensor::stored() counts the used slots (pos[num_parents]).
#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "lowering/tensor_binding.hpp"
#include "levels/level_codegen.hpp"
#include "levels/level_format.hpp"
#include "levels/sorted_walk.hpp"
#include "siskin/error.hpp"

namespace siskin::levels {

namespace {


// SparseByteMap, codegen face. Slot q = r*n + i of fibre r is used when tbl[q].
// Reading: walk and gallop are the sorted-list looplets of sorted_walk.hpp over srt[pos[r] ..
// pos[r+1]-1], child position r*n + srt[p]; follow (and random access) is
//   Lookup(i -> Select(tbl[r*n+i]: child(r*n+i), else fill)).
// Writing is random access. For an output, writing below slot q sets tbl[q] (tbl[q] is the
// child's dirty flag); freeze scans the slots once, in order: a used slot is dropped when the
// leaf right below holds the fill, the others' coordinates go to srt, so srt comes out sorted and
// pos counts them. Above another level the slot's flag alone decides (the child set it only when
// it kept something other than the fill), and positions are the slots themselves, so nothing
// below moves: a dropped slot's fibre is empty (a sparse child) or holds the fill (a full one),
// as under any unused slot. A child written in order (sparselist) sees its fibres r*n+i in
// order because the loops that write it are concordant with the whole output.
//
// As a workspace (the Gustavson row of the workspaces pass: one fibre, written, then read once,
// again and again) the level keeps a touched list instead: srt[0 .. used-1] lists the coordinates
// written since the last read, in the order first written. A write marks a slot on first touch
//   if (!tbl[q]) { tbl[q] = 1; srt[used++] = i; leaf[q] = fill; }     then the leaf op= value
// and a walk (or gallop) drains it: it sorts the list (runtime/siskin_touched.h: insertion,
// radix through the scratch srt[n .. 2n), or a scan of the bytes when the list is long), walks
// it, and then resets only the touched bytes, so each round costs O(touched), not O(n):
//   Thunk(sort srt[0..used), sorted walk over srt[0..used), for p < used: tbl[srt[p]] = 0; used = 0)
//
// A vector output (sparsebytemap(0) over an element leaf, built anew: a BFS frontier) keeps a
// touched list too, so that a kernel that writes few of its n slots costs O(written), not O(n):
// writes list the first touch of a slot as a workspace's do; freeze sorts the list and keeps the
// slots that hold something other than the fill; and declare, given the vector the output held
// before (the program driver hands it back: KernelPlan::recycled_outputs), clears only the slots
// that vector lists instead of all n. A vector of other sizes (a fresh one has none) is cleared
// whole.
class SparseByteMapCodegen final : public LevelCodegen {
public:
    std::vector<std::string_view> protocols() const override { return {"walk", "gallop", "follow"}; }

    LoopletPtr unfurl(LowerCtx& ctx, const Fiber& f, std::string_view protocol) const override {
        if (protocol == "follow") return lookup_each(f, locate_at);
        const TensorBinding& t = *f.tensor;
        if (t.workspace) return drain(ctx, f, protocol == "gallop");
        return pos_bounded_fibre(ctx, f, "srt", sorted_order(protocol),
                                 c_mul(f.pos.front(), t.level_dim(f.level)));
    }

    LoopletPtr unfurl_reversed(LowerCtx& ctx, const Fiber& f) const override {
        const TensorBinding& t = *f.tensor;
        if (t.workspace) return nullptr; // its list is sorted only when drained
        return pos_bounded_fibre(ctx, f, "srt", SortedOrder::Reversed, c_mul(f.pos.front(), t.level_dim(f.level)));
    }

    LExpr locate(LowerCtx& ctx, const Fiber& f) const override {
        return at_subscript(ctx, f, locate_at);
    }


    void declare(LowerCtx& ctx, const TensorBinding& t, int level) const override {
        if (!t.workspace && !lists_touched(t, level)) return;
        SISKIN_ASSERT(level == 0, "a sparsebytemap workspace has one level");
        std::string used = ctx.fresh(t.name + "_touched");
        ctx.emit(cast::Decl::make(cast::Type::of(ValueType::Int64), used, c_int(0)));
        ctx.set_level_var(t, level, "touched", cast::var(used));
    }

    void init_slots(LowerCtx& ctx, const TensorBinding& t, int level, const cast::Expr& lo,
                    const cast::Expr& hi) const override {
        cast::Expr n = t.level_dim(level);
        const BufferBinding& tbl = t.buffer(level, "tbl");
        if (lists_touched(t, level)) return clear_listed(ctx, t, n);
        ctx.emit(ctx.reserve(tbl, c_mul(hi, n)));
        emit_range_loop(ctx, c_mul(lo, n), c_mul(hi, n), [&](const cast::Expr& k) {
            return std::vector<cast::Stmt>{
                cast::assign(cast::at(tbl.data_var(), k), cast::lit(Scalar::of(false)))};
        });
        if (t.workspace) {
            // The touched list holds each slot at most once, so it never grows while writing; a
            // value is set to the fill when its slot is first touched, not here. The second half
            // of srt is the sort's scratch (srt + n).
            ctx.emit(ctx.reserve(t.buffer(level, "srt"), c_mul(c_int(2), c_mul(hi, n))));
            SISKIN_ASSERT(t.values, "a sparsebytemap workspace has an element leaf");
            ctx.emit(ctx.reserve(*t.values, c_mul(hi, n)));
            return;
        }
        init_child_slots(ctx, t, level, c_mul(lo, n), c_mul(hi, n));
    }

    LoopletPtr unfurl_write(LowerCtx&, const Fiber& f) const override { return lookup_each(f, write_at); }

    LExpr locate_write(LowerCtx& ctx, const Fiber& f) const override {
        return at_subscript(ctx, f, write_at);
    }

    // Slot q holds an entry when tbl[q] is set and, right above an element leaf, the value is
    // not the fill (freeze drops the others).

    cast::Expr same_fibres(LowerCtx& ctx, const TensorBinding& t, int level, const cast::Expr& p,
                           const cast::Expr& q) const override {
        cast::Expr n = t.level_dim(level);
        cast::Expr tbl = t.buffer(level, "tbl").data_var();
        auto used = [&](const cast::Expr& slot) {
            cast::Expr set = cast::at(tbl, slot);
            if (level + 1 != t.num_levels()) return set;
            return cast::bin(cast::BinaryOp::LogAnd, set, t.leaf().holds_value(ctx, t, slot));
        };
        return all_below(ctx, n, [&](const cast::Expr& i) {
            cast::Expr a = c_add(c_mul(p, n), i), b = c_add(c_mul(q, n), i);
            cast::Expr in_a = ctx.local("used", used(a), ValueType::Bool);
            cast::Expr below = same_child_fibres(ctx, t, level, a, b);
            return cast::bin(cast::BinaryOp::LogAnd, cast::bin(cast::BinaryOp::Eq, in_a, used(b)),
                             cast::bin(cast::BinaryOp::LogOr, cast::un(cast::UnaryOp::Not, in_a), below));
        });
    }

    // A reopened slot's flag is cleared by init_slots; the level below forgets its fibres.
    void discard_fibres(LowerCtx& ctx, const TensorBinding& t, int level, const cast::Expr& r) const override {
        discard_child_fibres(ctx, t, level, c_mul(r, t.level_dim(level)));
    }

    cast::Expr freeze(LowerCtx& ctx, const TensorBinding& t, int level,
                      const cast::Expr& parents) const override {
        cast::Expr n = t.level_dim(level);
        const BufferBinding& pos = t.buffer(level, "pos");
        const BufferBinding& tbl = t.buffer(level, "tbl");
        const BufferBinding& srt = t.buffer(level, "srt");
        ValueType itype = t.index_type(level);
        if (t.workspace) {
            // Every read drained it: nothing is left to scan, and the kernel never returns it.
            ctx.emit(ctx.reserve(pos, c_int(2)));
            ctx.emit(cast::assign(cast::at(pos.data_var(), c_int(0)), c_int(0)));
            ctx.emit(cast::assign(cast::at(pos.data_var(), c_int(1)), c_int(0)));
            ctx.emit(cast::assign(cast::Field::make(pos.raw_var(), "size"), c_int(2)));
            ctx.emit(cast::assign(cast::Field::make(tbl.raw_var(), "size"), c_mul(parents, n)));
            ctx.emit(cast::assign(cast::Field::make(srt.raw_var(), "size"), c_int(0)));
            return c_mul(parents, n);
        }
        if (lists_touched(t, level)) return freeze_listed(ctx, t, n);
        cast::Expr count = ctx.local(t.name + "_used" + std::to_string(level), c_int(0));
        ctx.emit(ctx.reserve(pos, c_add(parents, 1)));
        ctx.emit(cast::assign(cast::at(pos.data_var(), c_int(0)), c_int(0)));
        emit_range_loop(ctx, c_int(0), parents, [&](const cast::Expr& r) {
            std::vector<cast::Stmt> row = ctx.capture([&] {
                emit_range_loop(ctx, c_int(0), n, [&](const cast::Expr& i) {
                    cast::Expr q = c_add(c_mul(r, n), i);
                    cast::Expr used = cast::at(tbl.data_var(), q);
                    std::vector<cast::Stmt> keep = ctx.reserve(srt, c_add(count, 1));
                    keep.push_back(cast::assign(cast::at(srt.data_var(), count),
                                                cast::Cast::make(cast::Type::of(itype), i)));
                    keep.push_back(cast::Increment::make(count));
                    if (level + 1 != t.num_levels())
                        return std::vector<cast::Stmt>{cast::If::make(used, cast::Block::make(keep))};
                    cast::Stmt drop = cast::assign(used, cast::lit(Scalar::of(false)));
                    return std::vector<cast::Stmt>{cast::If::make(
                        used, cast::If::make(t.leaf().holds_value(ctx, t, q),
                                             cast::Block::make(keep), drop))};
                });
            });
            row.push_back(cast::assign(cast::at(pos.data_var(), c_add(r, 1)), count));
            return row;
        });
        cast::Expr slots = c_mul(parents, n);
        ctx.emit(cast::assign(cast::Field::make(pos.raw_var(), "size"), c_add(parents, 1)));
        ctx.emit(cast::assign(cast::Field::make(tbl.raw_var(), "size"), slots));
        ctx.emit(cast::assign(cast::Field::make(srt.raw_var(), "size"), count));
        return slots;
    }

private:
    // A vector output that lists its touched slots (see the comment above the class).
    static bool lists_touched(const TensorBinding& t, int level) {
        return t.output && !t.workspace && !t.keep_contents && level == 0 && t.num_levels() == 1 &&
               t.values && t.format.leaf() == Leaf::Element;
    }

    // Declare: every slot unused and holding the fill. A vector this output held before, with its
    // buffers whole (pos [0, m], srt m coordinates, tbl and values n each), has used slots only
    // at srt[0 .. m); any other start (an unbuilt tensor's empty buffers) clears all n slots.
    static void clear_listed(LowerCtx& ctx, const TensorBinding& t, const cast::Expr& n) {
        const BufferBinding& pos = t.buffer(0, "pos");
        const BufferBinding& tbl = t.buffer(0, "tbl");
        const BufferBinding& srt = t.buffer(0, "srt");
        const BufferBinding& values = *t.values;
        auto size = [](const BufferBinding& b) { return cast::Field::make(b.raw_var(), "size"); };
        auto eq = [](cast::Expr a, cast::Expr b) { return cast::bin(cast::BinaryOp::Eq, std::move(a), std::move(b)); };
        auto both = [](cast::Expr a, cast::Expr b) { return cast::bin(cast::BinaryOp::LogAnd, std::move(a), std::move(b)); };
        cast::Expr whole = both(both(eq(size(pos), c_int(2)), eq(size(tbl), n)),
                                both(eq(size(values), n), eq(size(srt), cast::at(pos.data_var(), c_int(1)))));
        cast::Expr fill = cast::lit(t.fill);
        std::vector<cast::Stmt> listed = ctx.capture([&] {
            emit_range_loop(ctx, c_int(0), size(srt), [&](const cast::Expr& k) {
                cast::Expr c = cast::at(srt.data_var(), k);
                return std::vector<cast::Stmt>{cast::assign(cast::at(tbl.data_var(), c), cast::lit(Scalar::of(false))),
                                               cast::assign(cast::at(values.data_var(), c), fill)};
            });
        });
        std::vector<cast::Stmt> all = ctx.capture([&] {
            ctx.emit(ctx.reserve(tbl, n));
            emit_range_loop(ctx, c_int(0), n, [&](const cast::Expr& k) {
                return std::vector<cast::Stmt>{cast::assign(cast::at(tbl.data_var(), k), cast::lit(Scalar::of(false)))};
            });
            init_child_slots(ctx, t, 0, c_int(0), n);
        });
        ctx.emit(cast::If::make(whole, cast::Block::make(listed), cast::Block::make(all)));
        // The list holds each slot at most once; its second half is the sort's scratch.
        ctx.emit(ctx.reserve(srt, c_mul(c_int(2), n)));
        ctx.note_recycled(t.name);
    }

    // Freeze: the list sorted (runtime/siskin_touched.h), the slots left holding the fill
    // dropped from it, and pos [0, kept].
    static cast::Expr freeze_listed(LowerCtx& ctx, const TensorBinding& t, const cast::Expr& n) {
        const BufferBinding& pos = t.buffer(0, "pos");
        const BufferBinding& tbl = t.buffer(0, "tbl");
        const BufferBinding& srt = t.buffer(0, "srt");
        cast::Expr touched = ctx.level_var(t, 0, "touched");
        ValueType itype = t.index_type(0);
        std::string sort = "siskin_sort_touched_" + std::string(search_suffix(itype));
        ctx.emit(cast::Eval::make(cast::call(sort, {srt.data_var(), touched, tbl.data_var(), n,
                                                    c_add(srt.data_var(), n)})));
        cast::Expr kept = ctx.local(t.name + "_kept", c_int(0));
        emit_range_loop(ctx, c_int(0), touched, [&](const cast::Expr& k) {
            cast::Expr c = cast::at(srt.data_var(), k);
            std::vector<cast::Stmt> keep{cast::assign(cast::at(srt.data_var(), kept),
                                                      cast::Cast::make(cast::Type::of(itype), c)),
                                         cast::Increment::make(kept)};
            return std::vector<cast::Stmt>{
                cast::If::make(t.leaf().holds_value(ctx, t, c), cast::Block::make(keep),
                               cast::assign(cast::at(tbl.data_var(), c), cast::lit(Scalar::of(false))))};
        });
        ctx.emit(ctx.reserve(pos, c_int(2)));
        ctx.emit(cast::assign(cast::at(pos.data_var(), c_int(0)), c_int(0)));
        ctx.emit(cast::assign(cast::at(pos.data_var(), c_int(1)), kept));
        ctx.emit(cast::assign(cast::Field::make(pos.raw_var(), "size"), c_int(2)));
        ctx.emit(cast::assign(cast::Field::make(tbl.raw_var(), "size"), n));
        ctx.emit(cast::assign(cast::Field::make(srt.raw_var(), "size"), kept));
        return n;
    }

    // The touched list of a workspace, sorted, walked, and emptied (see the comment above).
    static LoopletPtr drain(LowerCtx& ctx, const Fiber& f, bool gallop) {
        const TensorBinding& t = *f.tensor;
        SISKIN_ASSERT(f.level == 0, "a sparsebytemap workspace has one level");
        cast::Expr n = t.level_dim(f.level);
        cast::Expr base = c_mul(f.pos.front(), n);
        cast::Expr count = ctx.level_var(t, f.level, "touched");
        cast::Expr tbl = t.buffer(f.level, "tbl").data_var();
        cast::Expr srt = t.buffer(f.level, "srt").data_var();
        ValueType itype = t.index_type(f.level);
        std::string sort = "siskin_sort_touched_" + std::string(search_suffix(itype));
        std::vector<cast::Stmt> pre{cast::Eval::make(
            cast::call(sort, {srt, count, c_add(tbl, base), n, c_add(srt, n)}))};
        std::vector<cast::Stmt> post = ctx.capture([&] {
            emit_range_loop(ctx, c_int(0), count, [&](const cast::Expr& p) {
                return std::vector<cast::Stmt>{cast::assign(
                    cast::at(tbl, c_add(base, cast::at(srt, p))), cast::lit(Scalar::of(false)))};
            });
        });
        post.push_back(cast::assign(count, c_int(0)));
        LoopletPtr walk = sorted_fibre(ctx, f, srt, c_int(0), count, gallop, base);
        return make_looplet<Thunk>(std::move(pre), walk, std::move(post));
    }

    static LExpr locate_at(LowerCtx& ctx, const Fiber& f, const cast::Expr& c) {
        const TensorBinding& t = *f.tensor;
        cast::Expr q = c_add(c_mul(f.pos.front(), t.level_dim(f.level)), c);
        cast::Expr used = cast::at(t.buffer(f.level, "tbl").data_var(), q);
        // An element leaf right below holds the fill in every unused slot, so reading it
        // needs no test of tbl (the lowerer drops the test where that is cheaper).
        bool total = !t.workspace && f.level + 1 == t.num_levels() && t.format.leaf() == Leaf::Element;
        return std::make_shared<Select>(
            std::vector<Select::Case>{{used, child_fiber(ctx, f, {q}, f.dirty)},
                                      {std::nullopt, fill_leaf(f)}},
            f.type, total);
    }

    // The child's dirty flag is tbl[q]; a write also marks the parent's flag. A workspace marks
    // the slot on first touch instead, and lists it.
    static LExpr write_at(LowerCtx& ctx, const Fiber& f, const cast::Expr& c) {
        const TensorBinding& t = *f.tensor;
        cast::Expr q = c_add(c_mul(f.pos.front(), t.level_dim(f.level)), c);
        cast::Expr used = cast::at(t.buffer(f.level, "tbl").data_var(), q);
        if (lists_touched(t, f.level)) {
            // Unused slots hold the fill, so the leaf needs no reset on first touch.
            cast::Expr count = ctx.level_var(t, f.level, "touched");
            std::vector<cast::Stmt> touch{
                cast::assign(used, cast::lit(Scalar::of(true))),
                cast::assign(cast::at(t.buffer(f.level, "srt").data_var(), count),
                             cast::Cast::make(cast::Type::of(t.index_type(f.level)), c)),
                cast::Increment::make(count),
            };
            std::vector<cast::Stmt> pre{
                cast::If::make(cast::un(cast::UnaryOp::Not, used), cast::Block::make(touch))};
            return Hoist::make(std::move(pre), child_fiber(ctx, f, {q}, f.dirty), {});
        }
        if (t.workspace) {
            cast::Expr count = ctx.level_var(t, f.level, "touched");
            const BufferBinding& srt = t.buffer(f.level, "srt");
            LExpr slot = child_fiber(ctx, f, {q}, std::nullopt);
            const auto* leaf = slot->as<Slot>();
            SISKIN_ASSERT(leaf, "a sparsebytemap workspace has an element leaf");
            std::vector<cast::Stmt> touch{
                cast::assign(used, cast::lit(Scalar::of(true))),
                cast::assign(cast::at(srt.data_var(), count),
                             cast::Cast::make(cast::Type::of(t.index_type(f.level)), c)),
                cast::Increment::make(count),
                // A drained slot still holds its old value.
                cast::assign(leaf->target, cast::lit(t.fill)),
            };
            std::vector<cast::Stmt> pre{
                cast::If::make(cast::un(cast::UnaryOp::Not, used), cast::Block::make(touch))};
            return Hoist::make(std::move(pre), child_fiber(ctx, f, {q}, f.dirty), {});
        }
        LExpr inner = child_fiber(ctx, f, {q}, used);
        if (!f.dirty) return inner;
        std::vector<cast::Stmt> post{
            cast::If::make(used, cast::assign(*f.dirty, cast::lit(Scalar::of(true))))};
        return Hoist::make(std::vector<cast::Stmt>{}, inner, std::move(post));
    }
};

int64_t checked_slots(int64_t num_parents, int64_t n) {
    if (n != 0 && num_parents > std::numeric_limits<int64_t>::max() / n)
        throw Error(fmt::format("a sparsebytemap level of extent {} under {} fibres has more than "
                                "2^63 positions",
                                n, num_parents));
    return num_parents * n;
}

class SparseByteMapLevel final : public LevelFormat {
public:
    std::string_view name() const override { return "sparsebytemap"; }
    std::vector<std::string_view> aliases() const override { return {"bytemap"}; }
    LevelProperties properties() const override {
        return {.min_modes = 1, .max_modes = 1, .full = false, .ordered = true, .unique = true,
                .runs = false, .stores_fill = false};
    }
    std::vector<BufferSpec> buffers(const LevelSpec& spec) const override {
        return {{"pos", index_type(spec.index_bits), BufferRole::Positions},
                {"tbl", ValueType::Bool, BufferRole::Flags},
                {"srt", index_type(spec.index_bits), BufferRole::Coordinates}};
    }

    LevelBuild build(const LevelSpec& spec, std::span<const int64_t> shape,
                     const LevelInput& in) const override {
        const int mode = spec.modes[0];
        const int64_t n = mode_extent(spec, shape, 0);
        LevelBuild out;
        out.num_positions = checked_slots(in.num_parents, n);
        Buffer tbl(ValueType::Bool, out.num_positions);
        bool* used = tbl.data<bool>();
        std::vector<int64_t> pos(static_cast<size_t>(in.num_parents) + 1, 0), srt;
        out.positions.resize(static_cast<size_t>(in.size()));
        for (int64_t e = 0; e < in.size(); ++e) {
            int64_t p = in.parents[static_cast<size_t>(e)], c = in.coord(e, mode);
            int64_t q = p * n + c;
            // Entries arrive sorted, so srt comes out sorted; entries sharing a slot share it.
            if (!used[q]) {
                used[q] = true;
                srt.push_back(c);
                ++pos[static_cast<size_t>(p) + 1];
            }
            out.positions[static_cast<size_t>(e)] = q;
        }
        prefix_sums(pos);

        int bits = choose_index_bits(spec.index_bits, std::max(out.num_positions, n),
                                     "sparsebytemap");
        out.storage.spec = spec;
        out.storage.spec.index_bits = bits;
        out.storage.names = {"pos", "tbl", "srt"};
        out.storage.buffers.push_back(make_index_buffer(bits, pos));
        out.storage.buffers.push_back(std::move(tbl));
        out.storage.buffers.push_back(make_index_buffer(bits, srt));
        return out;
    }

    int64_t num_positions(const LevelStorage& s, std::span<const int64_t> shape,
                          int64_t num_parents) const override {
        return checked_slots(num_parents, mode_extent(s.spec, shape, 0));
    }

    int64_t num_stored(const LevelStorage& s, std::span<const int64_t>, int64_t num_parents,
                       int64_t) const override {
        return IndexReader(s.buffer("pos"))[num_parents];
    }

    // The entries of a fibre index srt; fibre_entry maps them to slots.
    FibreRange fibre(const LevelStorage& s, std::span<const int64_t>,
                     int64_t parent) const override {
        return pos_fibre(s, parent);
    }

    FibreEntry fibre_entry(const LevelStorage& s, std::span<const int64_t> shape, int64_t parent,
                           int64_t k, std::span<int64_t> coords) const override {
        coords[0] = IndexReader(s.buffer("srt"))[k];
        return {parent * mode_extent(s.spec, shape, 0) + coords[0], 1};
    }

    void coordinates(const LevelStorage& s, std::span<const int64_t> shape, int64_t position,
                     std::span<int64_t> out) const override {
        out[0] = position % mode_extent(s.spec, shape, 0);
    }

    std::optional<int64_t> locate(const LevelStorage& s, std::span<const int64_t> shape,
                                  int64_t parent, std::span<const int64_t> coords) const override {
        int64_t q = parent * mode_extent(s.spec, shape, 0) + coords[0];
        if (s.buffer("tbl").data<bool>()[q]) return q;
        return std::nullopt;
    }

    const LevelCodegen* codegen() const override {
        static const SparseByteMapCodegen face;
        return &face;
    }
};

} // namespace

const LevelFormat& sparsebytemap_level() {
    static const SparseByteMapLevel level;
    return level;
}

} // namespace siskin::levels
