// Sorting, duplicate merging and level building for Tensor construction.
#include "tensor/assemble.hpp"

#include <algorithm>
#include <numeric>

#include <fmt/format.h>

#include "levels/leaf_format.hpp"
#include "levels/level_format.hpp"
#include "siskin/error.hpp"
#include "tensor/describe.hpp"

namespace siskin::detail {

namespace {

// a + b in type t with C semantics: integers wrap, bool is "or", floats add in double and round.
Scalar add(const Scalar& a, const Scalar& b, ValueType t) {
    if (t == ValueType::Bool) return Scalar::of(a.as_bool() || b.as_bool());
    if (is_float(t)) return Scalar::of(a.as_double() + b.as_double()).cast(t);
    return Scalar::of(a.as_uint() + b.as_uint()).cast(t);
}

// Stable sort of perm by one coordinate: counting sort when the extent is small, else a
// comparison sort.
void sort_by_mode(std::vector<int64_t>& perm, std::vector<int64_t>& scratch,
                  const std::vector<int64_t>& coords, int ndims, int mode, int64_t extent) {
    auto key = [&](int64_t e) { return coords[static_cast<size_t>(e * ndims + mode)]; };
    int64_t n = static_cast<int64_t>(perm.size());
    if (extent <= 2 * n + 4096) {
        std::vector<int64_t> start(static_cast<size_t>(extent) + 1, 0);
        for (int64_t e : perm) ++start[static_cast<size_t>(key(e)) + 1];
        std::partial_sum(start.begin(), start.end(), start.begin());
        scratch.resize(perm.size());
        for (int64_t e : perm) scratch[static_cast<size_t>(start[static_cast<size_t>(key(e))]++)] = e;
        perm.swap(scratch);
    } else {
        std::stable_sort(perm.begin(), perm.end(),
                         [&](int64_t a, int64_t b) { return key(a) < key(b); });
    }
}

} // namespace

void sort_and_merge(Entries& entries, std::span<const int> mode_order,
                    std::span<const int64_t> shape, ValueType type, Duplicates duplicates) {
    const int nd = entries.ndims;
    const int64_t n = entries.size();
    const int64_t* c = entries.coords.data();
    // <0, 0, >0 as entry a comes before, with, or after entry b in storage order.
    auto compare = [&](int64_t a, int64_t b) {
        for (int m : mode_order) {
            int64_t x = c[a * nd + m], y = c[b * nd + m];
            if (x != y) return x < y ? -1 : 1;
        }
        return 0;
    };

    bool sorted = true;
    for (int64_t e = 1; e < n && sorted; ++e) sorted = compare(e - 1, e) <= 0;
    if (!sorted) {
        std::vector<int64_t> perm(static_cast<size_t>(n)), scratch;
        std::iota(perm.begin(), perm.end(), 0);
        // Least significant mode first; each pass is stable, so the result is lexicographic.
        for (size_t s = mode_order.size(); s-- > 0;)
            sort_by_mode(perm, scratch, entries.coords, nd, mode_order[s],
                         shape[static_cast<size_t>(mode_order[s])]);
        std::vector<int64_t> coords(entries.coords.size());
        std::vector<Scalar> values(static_cast<size_t>(n));
        for (int64_t i = 0; i < n; ++i) {
            int64_t e = perm[static_cast<size_t>(i)];
            std::copy_n(c + e * nd, nd, coords.begin() + i * nd);
            values[static_cast<size_t>(i)] = entries.values[static_cast<size_t>(e)];
        }
        entries.coords.swap(coords);
        entries.values.swap(values);
        c = entries.coords.data();
    }

    // Merge runs of equal coordinates in place.
    int64_t out = 0;
    for (int64_t e = 0; e < n; ++e) {
        if (e > 0 && compare(out - 1, e) == 0) {
            if (duplicates == Duplicates::Reject)
                throw Error(fmt::format(
                    "duplicate entry at coordinate {}",
                    coord_text(std::span<const int64_t>(c + e * nd, static_cast<size_t>(nd)))));
            auto& v = entries.values[static_cast<size_t>(out - 1)];
            v = add(v, entries.values[static_cast<size_t>(e)], type);
            continue;
        }
        if (out != e) {
            std::copy_n(c + e * nd, nd, entries.coords.begin() + out * nd);
            entries.values[static_cast<size_t>(out)] = entries.values[static_cast<size_t>(e)];
        }
        ++out;
    }
    entries.coords.resize(static_cast<size_t>(out * nd));
    entries.values.resize(static_cast<size_t>(out));
}

namespace {

// root_parents: 1 for a tensor (the root's parent is one position), 0 for unbuilt storage.
Assembled assemble_levels(std::span<const int64_t> shape, ValueType type, const Scalar& fill,
                          const Format& format, const Entries& sorted, int64_t root_parents) {
    Assembled out;
    std::vector<int64_t> parents(static_cast<size_t>(sorted.size()), 0);
    int64_t num_parents = root_parents;
    std::vector<LevelSpec> chosen;
    for (const LevelSpec& spec : format.levels()) {
        levels::LevelInput in;
        in.num_parents = num_parents;
        in.parents = parents;
        in.coords = sorted.coords;
        in.ndims = sorted.ndims;
        if (&spec == &format.levels().back()) { // the last level sees values (runs merge them)
            in.values = sorted.values;
            in.fill = &fill;
        }
        levels::LevelBuild b = levels::level_format(spec.kind).build(spec, shape, in);
        chosen.push_back(b.storage.spec);
        out.levels.push_back(std::move(b.storage));
        parents = std::move(b.positions);
        num_parents = b.num_positions;
    }
    out.values = levels::leaf_format(format.leaf())
                     .build(type, fill, num_parents, parents, sorted.values);
    out.format = Format(std::move(chosen), format.leaf());
    return out;
}

} // namespace

Assembled assemble(std::span<const int64_t> shape, ValueType type, const Scalar& fill,
                   const Format& format, const Entries& sorted) {
    return assemble_levels(shape, type, fill, format, sorted, 1);
}

Assembled assemble_unbuilt(std::span<const int64_t> shape, ValueType type, const Scalar& fill,
                           const Format& format) {
    Entries none;
    none.ndims = static_cast<int>(shape.size());
    Assembled a = assemble_levels(shape, type, fill, format, none, 0);
    for (auto& level : a.levels)
        for (auto& b : level.buffers) b = Buffer(b.type(), 0);
    a.values = Buffer(a.values.type(), 0);
    return a;
}

} // namespace siskin::detail
