// SparseList (compressed): fibre p holds positions pos[p] .. pos[p+1]-1, whose coordinates are
// crd[q], strictly increasing within a fibre.
#include <algorithm>

#include "levels/level_format.hpp"
#include "siskin/error.hpp"

namespace siskin::levels {

namespace {

class SparseListLevel final : public LevelFormat {
public:
    std::string_view name() const override { return "sparselist"; }
    std::vector<std::string_view> aliases() const override { return {"s", "compressed"}; }
    LevelProperties properties() const override {
        return {.min_modes = 1, .max_modes = 1, .full = false, .ordered = true, .unique = true};
    }
    std::vector<BufferSpec> buffers(const LevelSpec& spec) const override {
        return {{"pos", index_type(spec.index_bits)}, {"crd", index_type(spec.index_bits)}};
    }

    LevelBuild build(const LevelSpec& spec, std::span<const int64_t> shape,
                     const LevelInput& in) const override {
        int mode = spec.modes[0];
        std::vector<int64_t> pos(static_cast<size_t>(in.num_parents) + 1, 0), crd;
        LevelBuild out;
        out.positions.resize(static_cast<size_t>(in.size()));
        for (int64_t e = 0; e < in.size(); ++e) {
            int64_t parent = in.parents[static_cast<size_t>(e)], c = in.coord(e, mode);
            // Entries sharing parent and coordinate share this level's position.
            if (e == 0 || parent != in.parents[static_cast<size_t>(e - 1)] ||
                c != in.coord(e - 1, mode)) {
                crd.push_back(c);
                ++pos[static_cast<size_t>(parent) + 1];
            }
            out.positions[static_cast<size_t>(e)] = static_cast<int64_t>(crd.size()) - 1;
        }
        for (size_t p = 1; p < pos.size(); ++p) pos[p] += pos[p - 1];
        out.num_positions = static_cast<int64_t>(crd.size());
        int bits = choose_index_bits(
            spec.index_bits, std::max(out.num_positions, mode_extent(spec, shape, 0)),
            "sparselist");
        out.storage.spec = spec;
        out.storage.spec.index_bits = bits;
        out.storage.names = {"pos", "crd"};
        out.storage.buffers.push_back(make_index_buffer(bits, pos));
        out.storage.buffers.push_back(make_index_buffer(bits, crd));
        return out;
    }

    int64_t num_positions(const LevelStorage& s, std::span<const int64_t>,
                          int64_t num_parents) const override {
        return IndexReader(s.buffer("pos"))[num_parents];
    }

    FibreRange fibre(const LevelStorage& s, std::span<const int64_t>,
                     int64_t parent) const override {
        IndexReader pos(s.buffer("pos"));
        return {pos[parent], pos[parent + 1]};
    }

    void coordinates(const LevelStorage& s, std::span<const int64_t>, int64_t position,
                     std::span<int64_t> out) const override {
        out[0] = IndexReader(s.buffer("crd"))[position];
    }

    std::optional<int64_t> locate(const LevelStorage& s, std::span<const int64_t>,
                                  int64_t parent, std::span<const int64_t> coords) const override {
        IndexReader pos(s.buffer("pos")), crd(s.buffer("crd"));
        int64_t lo = pos[parent], hi = pos[parent + 1];
        while (lo < hi) { // first position whose coordinate is not below coords[0]
            int64_t mid = lo + (hi - lo) / 2;
            if (crd[mid] < coords[0]) lo = mid + 1;
            else hi = mid;
        }
        if (lo < pos[parent + 1] && crd[lo] == coords[0]) return lo;
        return std::nullopt;
    }
};

} // namespace

const LevelFormat& sparselist_level() {
    static const SparseListLevel level;
    return level;
}

} // namespace siskin::levels
