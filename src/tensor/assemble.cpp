// Sorting, duplicate merging and level building for Tensor construction.
#include "tensor/assemble.hpp"

#include <algorithm>
#include <new>
#include <numeric>

#include <unistd.h>

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

// The memory of this machine, in bytes (0 when it cannot be told). Asked once: sysconf makes
// a sysinfo call (about a microsecond), and every kernel's outputs are checked against it.
uint64_t physical_memory() {
    static const uint64_t bytes = [] {
        long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
        return pages > 0 && page > 0 ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(page) : uint64_t{0};
    }();
    return bytes;
}

std::string bytes_text(double bytes) {
    const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    int u = 0;
    while (bytes >= 1024 && u < 6) {
        bytes /= 1024;
        ++u;
    }
    return u == 0 ? fmt::format("{:.0f} bytes", bytes) : fmt::format("{:.1f} {}", bytes, units[u]);
}

} // namespace

// Some storage follows the shape, not the stored entries: a level with a positions array holds
// one per parent position (a csr's pos, one per row), and the values one per leaf position (all
// of them under dense levels). Where that is more than the machine's memory, the tensor cannot
// be built in this format: say so, with the shape and the memory, before allocating, instead of
// a bad_alloc (or the OOM killer) later.
void check_shape_storage(std::span<const int64_t> shape, const Format& format, int level,
                         int64_t positions, size_t bytes_each, const std::string& what) {
    uint64_t memory = physical_memory();
    double need = (static_cast<double>(positions) + 1) * static_cast<double>(bytes_each);
    if (memory == 0 || need <= static_cast<double>(memory)) return;
    throw Error(fmt::format(
        "a tensor of shape {} stored {} needs {} for {} (level {}: {} positions, which follow the "
        "shape, not the stored entries), more than this machine's {} of memory; store it in a "
        "format that grows with the entries (coo, dcsr)",
        shape_text(shape), format.to_string(), bytes_text(need), what, level, positions,
        bytes_text(static_cast<double>(memory))));
}

namespace {

// The entries a level kept (positions not kDropped), and their positions.
void drop_entries(Entries& entries, std::vector<int64_t>& positions) {
    size_t out = 0, nd = static_cast<size_t>(entries.ndims);
    for (size_t e = 0; e < positions.size(); ++e) {
        if (positions[e] == levels::kDropped) continue;
        std::copy_n(entries.coords.begin() + static_cast<std::ptrdiff_t>(e * nd), nd,
                    entries.coords.begin() + static_cast<std::ptrdiff_t>(out * nd));
        entries.values[out] = entries.values[e];
        positions[out++] = positions[e];
    }
    entries.coords.resize(out * nd);
    entries.values.resize(out);
    positions.resize(out);
}

Assembled assemble_levels_unchecked(std::span<const int64_t> shape, ValueType type, const Scalar& fill,
                                    const Format& format, const Entries& all, int64_t root_parents) {
    Assembled out;
    // A level may drop entries (runlist: a sub-fibre equal to the one before it); the levels
    // below then see a copy without them.
    const Entries* entries = &all;
    Entries kept;
    std::vector<int64_t> parents(static_cast<size_t>(all.size()), 0);
    int64_t num_parents = root_parents;
    std::vector<LevelSpec> chosen;
    int level = 0;
    for (const LevelSpec& spec : format.levels()) {
        LevelSpec wide = spec; // buffers() asks for a width; which one does not matter here
        wide.index_bits = 64;
        for (const auto& b : levels::level_format(spec.kind).buffers(wide))
            if (b.role == levels::BufferRole::Positions) {
                check_shape_storage(shape, format, level, num_parents, sizeof(int64_t),
                                    fmt::format("the {} array of its {} level", b.name, spec.kind));
                break;
            }
        ++level;
        levels::LevelInput in;
        in.num_parents = num_parents;
        in.parents = parents;
        in.coords = entries->coords;
        in.ndims = entries->ndims;
        in.values = entries->values; // runs merge equal values and equal sub-fibres
        in.fill = &fill;
        in.last = &spec == &format.levels().back();
        levels::LevelBuild b = levels::level_format(spec.kind).build(spec, shape, in);
        chosen.push_back(b.storage.spec);
        out.levels.push_back(std::move(b.storage));
        parents = std::move(b.positions);
        num_parents = b.num_positions;
        if (std::find(parents.begin(), parents.end(), levels::kDropped) != parents.end()) {
            if (entries != &kept) kept = *entries;
            drop_entries(kept, parents);
            entries = &kept;
        }
    }
    if (format.leaf() == Leaf::Element)
        check_shape_storage(shape, format, level, num_parents, type_size(type), "its values");
    out.values = levels::leaf_format(format.leaf())
                     .build(type, fill, num_parents, parents, entries->values);
    out.format = Format(std::move(chosen), format.leaf());
    return out;
}


// root_parents: 1 for a tensor (the root's parent is one position), 0 for unbuilt storage.
Assembled assemble_levels(std::span<const int64_t> shape, ValueType type, const Scalar& fill,
                          const Format& format, const Entries& sorted, int64_t root_parents) {
    try {
        return assemble_levels_unchecked(shape, type, fill, format, sorted, root_parents);
    } catch (const std::bad_alloc&) {
        throw Error(fmt::format("out of memory building a tensor of shape {} stored {} with {} "
                                "entries",
                                shape_text(shape), format.to_string(), sorted.size()));
    }
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
