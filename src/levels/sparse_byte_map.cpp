// SparseByteMap (Finch's SparseByteMap; the Gustavson workspace): like dense, coordinate i of
// fibre p has the position p*n + i, but only some of those slots are used. tbl (bool, one per
// slot) says which; srt lists the used coordinates of fibre p in increasing order at
// srt[pos[p]] .. srt[pos[p+1]-1]. Random-order writes set tbl and append to srt, which is
// sorted when the level is frozen; a lookup is one read of tbl.
//
// The level has n positions per parent, so the level below it (and the leaf) has storage for
// unused slots too: empty fibres, or fill. Fibre iteration walks srt, not the slots, and
// Tensor::stored() counts the used slots (pos[num_parents]).
#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "levels/level_format.hpp"
#include "siskin/error.hpp"

namespace siskin::levels {

namespace {

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
        return {{"pos", index_type(spec.index_bits)},
                {"tbl", ValueType::Bool},
                {"srt", index_type(spec.index_bits)}};
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
        for (size_t p = 1; p < pos.size(); ++p) pos[p] += pos[p - 1];

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
        IndexReader pos(s.buffer("pos"));
        return {pos[parent], pos[parent + 1]};
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
};

} // namespace

const LevelFormat& sparsebytemap_level() {
    static const SparseByteMapLevel level;
    return level;
}

} // namespace siskin::levels
