// Default implementations of LevelFormat's runtime-face extension (what dense, sparselist and
// coo need, whose fibres are ranges of positions that each store one coordinate), and helpers
// the level files share.
#include "levels/level_format.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "siskin/error.hpp"

namespace siskin::levels {

std::string LevelInput::entry_text(int64_t entry) const {
    return fmt::format("({})", fmt::join(coords.subspan(static_cast<size_t>(entry * ndims),
                                                        static_cast<size_t>(ndims)),
                                         ", "));
}

void LevelFormat::check_place(const Format&, size_t) const {}

void require_last_level(const Format& format, size_t k, std::string_view level, std::string_view why) {
    if (k + 1 != format.levels().size())
        throw Error(fmt::format("a {} level must be the last level: {}; runs of sub-fibres are "
                                "a runlist's (in '{}')",
                                level, why, format.to_string()));
}

void store_index_buffers(LevelBuild& out, const LevelSpec& spec, int64_t largest, std::string_view level,
                         const std::vector<std::pair<std::string, std::span<const int64_t>>>& arrays) {
    int bits = choose_index_bits(spec.index_bits, largest, level);
    out.storage.spec = spec;
    out.storage.spec.index_bits = bits;
    for (const auto& [name, values] : arrays) {
        out.storage.names.push_back(name);
        out.storage.buffers.push_back(make_index_buffer(bits, values));
    }
}

void prefix_sums(std::vector<int64_t>& pos) {
    for (size_t p = 1; p < pos.size(); ++p) pos[p] += pos[p - 1];
}

FibreRange pos_fibre(const LevelStorage& s, int64_t parent) {
    IndexReader pos(s.buffer("pos"));
    return {pos[parent], pos[parent + 1]};
}

int64_t first_at_least(const IndexReader& sorted, int64_t lo, int64_t hi, int64_t value) {
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (sorted[mid] < value) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

FibreEntry LevelFormat::fibre_entry(const LevelStorage& s, std::span<const int64_t> shape,
                                    int64_t, int64_t k, std::span<int64_t> coords) const {
    coordinates(s, shape, k, coords);
    return {k, 1};
}

int64_t LevelFormat::num_stored(const LevelStorage& s, std::span<const int64_t> shape,
                                int64_t num_parents, int64_t used_parents) const {
    // A full level gives every parent a fibre of the same size, so the used parents' fibres
    // are as many positions as that many parents would have.
    return num_positions(s, shape, properties().full ? used_parents : num_parents);
}

} // namespace siskin::levels
