// SparseHash (Finch's SparseHash/SparseDict): entries written in any order, found in expected
// O(1) through an open-addressing hash table, and listed in coordinate order at freeze.
//
// Position q is the q-th entry first written (the host's build numbers them in storage order);
// par[q] and crd[q] are its parent position and coordinate, flg[q] whether it is stored, and
// tbl (runtime/siskin_hash_key.h) maps (par, crd) to q. Freeze lists the stored entries of fibre
// p in increasing coordinate order: entries k = pos[p] .. pos[p+1]-1, coordinate idx[k], at
// position srt[k]. Positions are never moved, so the levels below a hash level (another hash
// level: the 2-D workspace of outer-product SpGEMM) keep theirs.
#include <algorithm>
#include <bit>
#include <functional>
#include <limits>

#include <fmt/format.h>

#include "levels/level_codegen.hpp"
#include "levels/level_format.hpp"
#include "levels/sorted_walk.hpp"
#include "lowering/tensor_binding.hpp"
#include "siskin/error.hpp"
#include "siskin_hash_key.h" // runtime/: the hash and probe the kernels use

namespace siskin::levels {

namespace {

const ValueType kFlag = ValueType::Bool;


cast::Expr as_i64(const cast::Expr& e) { return cast::Cast::make(cast::Type::of(ValueType::Int64), e); }

// Points a buffer's data variable at its memory again, after a runtime helper grew it.
cast::Stmt refresh(const BufferBinding& b) {
    return cast::assign(b.data_var(), cast::Cast::make(cast::Type::of(b.type).pointer(),
                                                       cast::Field::make(b.raw_var(), "data")));
}

// SparseHash, codegen face.
// Reading: walk and gallop are the sorted-list looplets of sorted_walk.hpp over idx[pos[r] ..
// pos[r+1]-1], child position srt[p] (a backward read walks it from its end); follow (and
// random access) probes the table:
//   Lookup(i -> q = siskin_hash_find(tbl, r, i); Select(q >= 0: child(q), else fill))
// Writing is random access, at any level of an output: a write below (r, i) finds or inserts its
// entry (siskin_hash_insert: the table doubles before it is half full) and, when new, opens the
// child's slot and clears flg[q]. flg[q] is the child's dirty flag (a pattern leaf's value); a
// write sets the parent's flag when flg[q] is set and, right above an element leaf, the value
// differs from the fill. Freeze keeps an entry when flg[q] (and, above an element leaf, when its
// value differs from the fill), and lists them (siskin_hash_freeze: a counting sort by parent, a
// merge sort by coordinate). An entry dropped there stays in the table holding the fill (or an
// empty fibre), so a probe reads what a walk does.
class SparseHashCodegen final : public LevelCodegen {
public:
    std::vector<std::string_view> protocols() const override { return {"walk", "gallop", "follow"}; }

    LoopletPtr unfurl(LowerCtx& ctx, const Fiber& f, std::string_view protocol) const override {
        if (protocol == "follow") return lookup_each(f, locate_at);
        return pos_bounded_fibre(ctx, f, "idx", sorted_order(protocol),
                                 std::nullopt, f.tensor->buffer(f.level, "srt").data_var());
    }

    // flip and negative slice steps: the frozen list idx walked from its end.
    LoopletPtr unfurl_reversed(LowerCtx& ctx, const Fiber& f) const override {
        return pos_bounded_fibre(ctx, f, "idx", SortedOrder::Reversed, std::nullopt,
                                 f.tensor->buffer(f.level, "srt").data_var());
    }

    LExpr locate(LowerCtx& ctx, const Fiber& f) const override {
        return at_subscript(ctx, f, locate_at);
    }

    // The level starts empty (compile() keeps the contents of dense outputs only); the first
    // insert makes the table.
    void declare(LowerCtx& ctx, const TensorBinding& t, int level) const override {
        ctx.set_level_var(t, level, "count", ctx.local(t.name + "_entries" + std::to_string(level), c_int(0)));
        for (const char* name : {"tbl", "par", "crd"})
            ctx.emit(cast::assign(t.buffer(level, name).size_var(), c_int(0)));
    }

    // Entries open when first written, not with their parent. Below runs of sub-fibres, the
    // opened fibres' lists start empty (see below).
    void init_slots(LowerCtx& ctx, const TensorBinding& t, int level, const cast::Expr& lo,
                    const cast::Expr& hi) const override {
        if (!listed(t, level)) return;
        const BufferBinding& head = t.buffer(level, "pos");
        ctx.emit(ctx.reserve(head, hi, /*written_first=*/true));
        emit_range_loop(ctx, lo, hi, [&](const cast::Expr& k) {
            return std::vector<cast::Stmt>{cast::assign(cast::at(head.data_var(), k), c_int(-1))};
        });
    }

    LoopletPtr unfurl_write(LowerCtx&, const Fiber& f) const override { return lookup_each(f, write_at); }

    LExpr locate_write(LowerCtx& ctx, const Fiber& f) const override {
        return at_subscript(ctx, f, write_at);
    }

    // Runs of sub-fibres: under a runlist the fibres are written one after the other, so the
    // entries of the fibres from r on are the latest inserted, and each fibre lists its entries
    // while it is written (`listed`). Two fibres hold the same when every stored entry of one is
    // found stored in the other with the same below, and they store as many.

    cast::Expr same_fibres(LowerCtx& ctx, const TensorBinding& t, int level, const cast::Expr& p,
                           const cast::Expr& q) const override {
        for (const char* name : {"tbl", "par", "crd"}) ctx.emit(refresh(t.buffer(level, name)));
        const BufferBinding& tbl = t.buffer(level, "tbl");
        cast::Expr head = t.buffer(level, "pos").data_var(), link = t.buffer(level, "idx").data_var();
        cast::Expr crd = t.buffer(level, "crd").data_var();
        cast::Expr same = ctx.local("same", cast::lit(Scalar::of(true)), ValueType::Bool);
        cast::Expr stored_p = ctx.local("stored_p", c_int(0)), stored_q = ctx.local("stored_q", c_int(0));
        std::string fn = "siskin_hash_find_" + std::string(search_suffix(t.index_type(level)));
        // Walks fibre r's list; body(k) runs for each stored entry k.
        auto walk = [&](const cast::Expr& r, const cast::Expr& running,
                        const std::function<std::vector<cast::Stmt>(const cast::Expr&)>& body) {
            cast::Expr first = ctx.local("first", as_i64(cast::at(head, r)));
            std::string k = ctx.fresh("k");
            cast::Expr kv = cast::var(k);
            std::vector<cast::Stmt> each = ctx.capture([&] {
                cast::Expr stored = ctx.local("stored", stored_at(ctx, t, level, kv), ValueType::Bool);
                ctx.emit(cast::If::make(stored, cast::Block::make(body(kv))));
            });
            ctx.emit(cast::For::make(cast::Decl::make(cast::Type::of(ValueType::Int64), k, first),
                                     cast::bin(cast::BinaryOp::LogAnd, running,
                                               cast::bin(cast::BinaryOp::Ge, kv, c_int(0))),
                                     cast::assign(kv, as_i64(cast::at(link, kv))), cast::Block::make(each)));
        };
        walk(p, same, [&](const cast::Expr& k) {
            return ctx.capture([&] {
                ctx.emit(cast::Increment::make(stored_p));
                cast::Expr other = ctx.local("other", cast::call(fn, {tbl.data_var(), tbl.size_var(),
                                                                      t.buffer(level, "par").data_var(), crd,
                                                                      as_i64(q), as_i64(cast::at(crd, k))}));
                cast::Expr found = cast::bin(cast::BinaryOp::Ge, other, c_int(0));
                ctx.emit(cast::assign(same, found));
                std::vector<cast::Stmt> below = ctx.capture([&] {
                    cast::Expr stored = stored_at(ctx, t, level, other);
                    ctx.emit(cast::assign(same, stored));
                    std::vector<cast::Stmt> child = ctx.capture([&] {
                        cast::Expr equal = same_child_fibres(ctx, t, level, k, other);
                        ctx.emit(cast::assign(same, equal));
                    });
                    ctx.emit(cast::If::make(same, cast::Block::make(child)));
                });
                ctx.emit(cast::If::make(same, cast::Block::make(below)));
            });
        });
        walk(q, same, [&](const cast::Expr&) { return std::vector<cast::Stmt>{cast::Increment::make(stored_q)}; });
        return cast::bin(cast::BinaryOp::LogAnd, same, cast::bin(cast::BinaryOp::Eq, stored_p, stored_q));
    }

    // The entries of fibres r, r+1, ... (the latest inserted) leave the table, and the level
    // below forgets the fibres they owned.
    void discard_fibres(LowerCtx& ctx, const TensorBinding& t, int level, const cast::Expr& r) const override {
        for (const char* name : {"tbl", "par", "crd"}) ctx.emit(refresh(t.buffer(level, name)));
        cast::Expr count = ctx.level_var(t, level, "count");
        cast::Expr par = t.buffer(level, "par").data_var();
        cast::Expr from = ctx.local("from", count);
        ctx.emit(cast::While::make(
            cast::bin(cast::BinaryOp::LogAnd, cast::bin(cast::BinaryOp::Gt, from, c_int(0)),
                      cast::bin(cast::BinaryOp::Ge, as_i64(cast::at(par, c_add(from, -1))), r)),
            cast::Block::make({cast::Increment::make(from, /*decrement=*/true)})));
        std::string fn = "siskin_hash_forget_" + std::string(search_suffix(t.index_type(level)));
        ctx.emit(cast::Eval::make(cast::call(fn, {t.buffer(level, "tbl").raw_var(), par,
                                                      t.buffer(level, "crd").data_var(),
                                                      cast::un(cast::UnaryOp::AddressOf, count), from})));
        for (const char* name : {"par", "crd"}) set_buffer_size(ctx, t.buffer(level, name), count);
        discard_child_fibres(ctx, t, level, count);
    }

    cast::Expr freeze(LowerCtx& ctx, const TensorBinding& t, int level,
                      const cast::Expr& parents) const override {
        cast::Expr count = ctx.level_var(t, level, "count");
        const BufferBinding& flg = t.buffer(level, "flg");
        for (const char* name : {"tbl", "par", "crd"}) ctx.emit(refresh(t.buffer(level, name)));
        ctx.emit(ctx.reserve(flg, count));
        if (keeps_by_value(t, level))
            emit_range_loop(ctx, c_int(0), count, [&](const cast::Expr& q) {
                cast::Expr flag = at(flg.data_var(), q);
                return std::vector<cast::Stmt>{cast::assign(
                    flag, cast::bin(cast::BinaryOp::LogAnd, flag, t.leaf().holds_value(ctx, t, q)))};
            });
        std::string fn = "siskin_hash_freeze_" + std::string(search_suffix(t.index_type(level)));
        cast::Expr status = ctx.local(t.name + "_frozen" + std::to_string(level),
                                      cast::call(fn, {t.buffer(level, "par").data_var(),
                                                      t.buffer(level, "crd").data_var(), flg.data_var(),
                                                      count, parents, t.buffer(level, "pos").raw_var(),
                                                      t.buffer(level, "srt").raw_var(),
                                                      t.buffer(level, "idx").raw_var()}));
        ctx.emit(cast::If::make(cast::bin(cast::BinaryOp::Ne, status, cast::var("SISKIN_OK")),
                                cast::Return::make(status)));
        for (const char* name : {"pos", "srt", "idx"}) ctx.emit(refresh(t.buffer(level, name)));
        set_buffer_size(ctx, flg, count);
        return count;
    }

private:
    // Whether an entry is kept for its value (an element leaf right below) besides its flag.
    static bool keeps_by_value(const TensorBinding& t, int level) {
        return level + 1 == t.num_levels() && t.format.leaf() == Leaf::Element;
    }

    // Whether entry k is stored (what freeze keeps).
    static cast::Expr stored_at(LowerCtx& ctx, const TensorBinding& t, int level, const cast::Expr& k) {
        cast::Expr flag = at(t.buffer(level, "flg").data_var(), k);
        if (!keeps_by_value(t, level)) return flag;
        return cast::bin(cast::BinaryOp::LogAnd, flag, t.leaf().holds_value(ctx, t, k));
    }

    // Below runs of sub-fibres (a level above holds runs, which only a runlist does above
    // another level), each fibre lists its entries while it is written: pos[r] is the latest
    // entry of fibre r (-1: none) and idx[q] the one before q, in the buffers freeze fills.
    static bool listed(const TensorBinding& t, int level) {
        for (int k = 0; k < level; ++k)
            if (level_format(t.format.levels()[static_cast<size_t>(k)].kind).properties().runs) return true;
        return false;
    }

    static LExpr locate_at(LowerCtx& ctx, const Fiber& f, const cast::Expr& c) {
        const TensorBinding& t = *f.tensor;
        const BufferBinding& tbl = t.buffer(f.level, "tbl");
        std::string fn = "siskin_hash_find_" + std::string(search_suffix(t.index_type(f.level)));
        std::string q = ctx.fresh("q");
        std::vector<cast::Stmt> pre{cast::Decl::make(
            cast::Type::of(ValueType::Int64), q,
            cast::call(fn, {tbl.data_var(), tbl.size_var(), t.buffer(f.level, "par").data_var(),
                            t.buffer(f.level, "crd").data_var(), as_i64(f.pos.front()), as_i64(c)}))};
        return child_or_fill(ctx, f, std::move(pre), cast::bin(cast::BinaryOp::Ge, cast::var(q), c_int(0)),
                             cast::var(q));
    }

    static LExpr write_at(LowerCtx& ctx, const Fiber& f, const cast::Expr& c) {
        const TensorBinding& t = *f.tensor;
        cast::Expr count = ctx.level_var(t, f.level, "count");
        const BufferBinding& flg = t.buffer(f.level, "flg");
        std::string fn = "siskin_hash_insert_" + std::string(search_suffix(t.index_type(f.level)));
        auto i64 = cast::Type::of(ValueType::Int64);
        std::string before = ctx.fresh("entries"), q = ctx.fresh("q");
        cast::Expr qv = cast::var(q);
        std::vector<cast::Stmt> pre{
            cast::Decl::make(i64, before, count),
            cast::Decl::make(i64, q, cast::call(fn, {t.buffer(f.level, "tbl").raw_var(),
                                                     t.buffer(f.level, "par").raw_var(),
                                                     t.buffer(f.level, "crd").raw_var(),
                                                     cast::un(cast::UnaryOp::AddressOf, count),
                                                     as_i64(f.pos.front()), as_i64(c)})),
            cast::If::make(cast::bin(cast::BinaryOp::Lt, qv, c_int(0)),
                           cast::Return::make(cast::Cast::make(cast::Type::named("int"),
                                                               cast::un(cast::UnaryOp::Neg, qv)))),
        };
        std::vector<cast::Stmt> open = ctx.capture([&] {
            ctx.emit(ctx.reserve(flg, c_add(qv, 1), /*written_first=*/true));
            ctx.emit(cast::assign(at(flg.data_var(), qv), cast::lit(Scalar::of(false))));
            if (listed(t, f.level)) {
                const BufferBinding& link = t.buffer(f.level, "idx");
                cast::Expr head = cast::at(t.buffer(f.level, "pos").data_var(), f.pos.front());
                auto itype = cast::Type::of(t.index_type(f.level));
                ctx.emit(ctx.reserve(link, c_add(qv, 1), /*written_first=*/true));
                ctx.emit(cast::assign(cast::at(link.data_var(), qv), head));
                ctx.emit(cast::assign(head, cast::Cast::make(itype, qv)));
            }
            init_child_slots(ctx, t, f.level, qv, c_add(qv, 1));
        });
        pre.push_back(cast::If::make(cast::bin(cast::BinaryOp::Ne, count, cast::var(before)),
                                     cast::Block::make(open)));
        cast::Expr flag = at(flg.data_var(), qv);
        LExpr inner = child_fiber(ctx, f, {qv}, flag);
        if (!f.dirty) return Hoist::make(std::move(pre), inner, {});
        cast::Expr stored = keeps_by_value(t, f.level)
                                ? cast::bin(cast::BinaryOp::LogAnd, flag, t.leaf().holds_value(ctx, t, qv))
                                : flag;
        std::vector<cast::Stmt> post{cast::If::make(stored, cast::assign(*f.dirty, cast::lit(Scalar::of(true))))};
        return Hoist::make(std::move(pre), inner, std::move(post));
    }
};

// The slots of a table holding `entries` positions: a power of two, at least twice as many.
int64_t table_slots(int64_t entries) {
    uint64_t want = std::max<uint64_t>(16, 2 * static_cast<uint64_t>(entries));
    if (want > (uint64_t{1} << 62))
        throw Error(fmt::format("a sparsehash level of {} entries needs a table of more than 2^62 slots", entries));
    return static_cast<int64_t>(std::bit_ceil(want));
}

template <class T>
Buffer build_table(const std::vector<int64_t>& par, const std::vector<int64_t>& crd, ValueType type) {
    int64_t slots = table_slots(static_cast<int64_t>(par.size()));
    Buffer tbl(type, slots); // zeroed: every slot free
    for (size_t q = 0; q < par.size(); ++q) {
        if constexpr (sizeof(T) == 4)
            siskin_hash_place_i32(tbl.data<int32_t>(), slots, par[q], crd[q], static_cast<int64_t>(q));
        else
            siskin_hash_place_i64(tbl.data<int64_t>(), slots, par[q], crd[q], static_cast<int64_t>(q));
    }
    return tbl;
}

class SparseHashLevel final : public LevelFormat {
public:
    std::string_view name() const override { return "sparsehash"; }
    std::vector<std::string_view> aliases() const override { return {"hash"}; }
    LevelProperties properties() const override {
        return {.min_modes = 1, .max_modes = 1, .full = false, .ordered = true, .unique = true};
    }
    std::vector<BufferSpec> buffers(const LevelSpec& spec) const override {
        ValueType it = index_type(spec.index_bits);
        return {{"pos", it, BufferRole::Positions},   {"idx", it, BufferRole::Coordinates},
                {"srt", it, BufferRole::Coordinates}, {"par", it, BufferRole::Coordinates},
                {"crd", it, BufferRole::Coordinates}, {"flg", kFlag, BufferRole::Flags},
                {"tbl", it, BufferRole::Coordinates}};
    }

    // Entries arrive sorted, so position q is the q-th stored entry and srt is the identity.
    LevelBuild build(const LevelSpec& spec, std::span<const int64_t> shape,
                     const LevelInput& in) const override {
        const int mode = spec.modes[0];
        std::vector<int64_t> pos(static_cast<size_t>(in.num_parents) + 1, 0), par, crd;
        LevelBuild out;
        out.positions.resize(static_cast<size_t>(in.size()));
        for (int64_t e = 0; e < in.size(); ++e) {
            int64_t parent = in.parents[static_cast<size_t>(e)], c = in.coord(e, mode);
            // Entries sharing parent and coordinate share this level's position.
            if (e == 0 || parent != in.parents[static_cast<size_t>(e - 1)] || c != in.coord(e - 1, mode)) {
                par.push_back(parent);
                crd.push_back(c);
                ++pos[static_cast<size_t>(parent) + 1];
            }
            out.positions[static_cast<size_t>(e)] = static_cast<int64_t>(crd.size()) - 1;
        }
        prefix_sums(pos);
        out.num_positions = static_cast<int64_t>(crd.size());
        std::vector<int64_t> srt(crd.size());
        for (size_t q = 0; q < srt.size(); ++q) srt[q] = static_cast<int64_t>(q);
        // The table holds q + 1, and par the parents' positions.
        store_index_buffers(out, spec, std::max({out.num_positions + 1, mode_extent(spec, shape, 0), in.num_parents}),
                            "sparsehash", {{"pos", pos}, {"idx", crd}, {"srt", srt}, {"par", par}, {"crd", crd}});
        Buffer flg(kFlag, out.num_positions);
        std::fill_n(flg.data<bool>(), out.num_positions, true);
        out.storage.names.insert(out.storage.names.end(), {"flg", "tbl"});
        out.storage.buffers.push_back(std::move(flg));
        int bits = out.storage.spec.index_bits;
        out.storage.buffers.push_back(bits == 32 ? build_table<int32_t>(par, crd, index_type(bits))
                                                 : build_table<int64_t>(par, crd, index_type(bits)));
        return out;
    }

    int64_t num_positions(const LevelStorage& s, std::span<const int64_t>, int64_t) const override {
        return s.buffer("crd").size();
    }

    int64_t num_stored(const LevelStorage& s, std::span<const int64_t>, int64_t num_parents,
                       int64_t) const override {
        return IndexReader(s.buffer("pos"))[num_parents];
    }

    // The entries of a fibre index the sorted lists; fibre_entry maps them to positions.
    FibreRange fibre(const LevelStorage& s, std::span<const int64_t>, int64_t parent) const override {
        return pos_fibre(s, parent);
    }

    FibreEntry fibre_entry(const LevelStorage& s, std::span<const int64_t>, int64_t, int64_t k,
                           std::span<int64_t> coords) const override {
        coords[0] = IndexReader(s.buffer("idx"))[k];
        return {IndexReader(s.buffer("srt"))[k], 1};
    }

    void coordinates(const LevelStorage& s, std::span<const int64_t>, int64_t position,
                     std::span<int64_t> out) const override {
        out[0] = IndexReader(s.buffer("crd"))[position];
    }

    std::optional<int64_t> locate(const LevelStorage& s, std::span<const int64_t>, int64_t parent,
                                  std::span<const int64_t> coords) const override {
        const Buffer& tbl = s.buffer("tbl");
        int64_t q = tbl.type() == ValueType::Int32
                        ? siskin_hash_find_i32(tbl.data<int32_t>(), tbl.size(), s.buffer("par").data<int32_t>(),
                                               s.buffer("crd").data<int32_t>(), parent, coords[0])
                        : siskin_hash_find_i64(tbl.data<int64_t>(), tbl.size(), s.buffer("par").data<int64_t>(),
                                               s.buffer("crd").data<int64_t>(), parent, coords[0]);
        // An entry freeze dropped is in the table but not stored.
        if (q < 0 || !s.buffer("flg").data<bool>()[q]) return std::nullopt;
        return q;
    }

    const LevelCodegen* codegen() const override {
        static const SparseHashCodegen face;
        return &face;
    }
};

} // namespace

const LevelFormat& sparsehash_level() {
    static const SparseHashLevel level;
    return level;
}

} // namespace siskin::levels
