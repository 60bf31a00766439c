// SparseCOO: one level for k dimensions. Fibre p holds positions pos[p] .. pos[p+1]-1; position q
// stores the coordinates crd0[q] .. crd{k-1}[q], lexicographically increasing within a fibre.
#include <algorithm>

#include <fmt/format.h>

#include "levels/level_format.hpp"
#include "siskin/error.hpp"

namespace siskin::levels {

namespace {

std::string crd_name(size_t k) { return fmt::format("crd{}", k); }

class CooLevel final : public LevelFormat {
public:
    std::string_view name() const override { return "coo"; }
    LevelProperties properties() const override {
        return {.min_modes = 1, .max_modes = 1 << 20, .full = false, .ordered = true,
                .unique = true};
    }
    std::vector<BufferSpec> buffers(const LevelSpec& spec) const override {
        std::vector<BufferSpec> out{{"pos", index_type(spec.index_bits)}};
        for (size_t k = 0; k < spec.modes.size(); ++k)
            out.push_back({crd_name(k), index_type(spec.index_bits)});
        return out;
    }

    LevelBuild build(const LevelSpec& spec, std::span<const int64_t> shape,
                     const LevelInput& in) const override {
        size_t k = spec.modes.size();
        std::vector<int64_t> pos(static_cast<size_t>(in.num_parents) + 1, 0);
        std::vector<std::vector<int64_t>> crd(k);
        LevelBuild out;
        out.positions.resize(static_cast<size_t>(in.size()));
        auto same_prefix = [&](int64_t e) {
            if (in.parents[static_cast<size_t>(e)] != in.parents[static_cast<size_t>(e - 1)])
                return false;
            for (int m : spec.modes)
                if (in.coord(e, m) != in.coord(e - 1, m)) return false;
            return true;
        };
        int64_t stored = 0;
        for (int64_t e = 0; e < in.size(); ++e) {
            if (e == 0 || !same_prefix(e)) {
                for (size_t j = 0; j < k; ++j) crd[j].push_back(in.coord(e, spec.modes[j]));
                ++pos[static_cast<size_t>(in.parents[static_cast<size_t>(e)]) + 1];
                ++stored;
            }
            out.positions[static_cast<size_t>(e)] = stored - 1;
        }
        for (size_t p = 1; p < pos.size(); ++p) pos[p] += pos[p - 1];
        out.num_positions = stored;
        int64_t largest = stored;
        for (size_t j = 0; j < k; ++j)
            largest = std::max(largest, mode_extent(spec, shape, static_cast<int>(j)));
        int bits = choose_index_bits(spec.index_bits, largest, "coo");
        out.storage.spec = spec;
        out.storage.spec.index_bits = bits;
        out.storage.names.push_back("pos");
        out.storage.buffers.push_back(make_index_buffer(bits, pos));
        for (size_t j = 0; j < k; ++j) {
            out.storage.names.push_back(crd_name(j));
            out.storage.buffers.push_back(make_index_buffer(bits, crd[j]));
        }
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
        for (size_t j = 0; j < out.size(); ++j) out[j] = IndexReader(s.buffers[j + 1])[position];
    }

    std::optional<int64_t> locate(const LevelStorage& s, std::span<const int64_t>,
                                  int64_t parent, std::span<const int64_t> coords) const override {
        IndexReader pos(s.buffer("pos"));
        // Compares the coordinates at position q with coords: <0, 0 or >0.
        auto compare = [&](int64_t q) {
            for (size_t j = 0; j < coords.size(); ++j) {
                int64_t c = IndexReader(s.buffers[j + 1])[q]; // buffers: pos, crd0, crd1, ...
                if (c != coords[j]) return c < coords[j] ? -1 : 1;
            }
            return 0;
        };
        int64_t lo = pos[parent], hi = pos[parent + 1];
        while (lo < hi) {
            int64_t mid = lo + (hi - lo) / 2;
            if (compare(mid) < 0) lo = mid + 1;
            else hi = mid;
        }
        if (lo < pos[parent + 1] && compare(lo) == 0) return lo;
        return std::nullopt;
    }
};

} // namespace

const LevelFormat& coo_level() {
    static const CooLevel level;
    return level;
}

} // namespace siskin::levels
