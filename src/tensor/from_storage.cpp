// Tensor::from_storage: a tensor over buffers built elsewhere (borrowed from NumPy and SciPy
// arrays by the Python package), checked once so that kernels can trust them as they trust
// storage siskin built: sizes, monotone positions, coordinates in range, sorted and unique.
#include <algorithm>
#include <cstdint>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "io/checked.hpp"
#include "levels/leaf_format.hpp"
#include "levels/level_format.hpp"
#include "siskin/error.hpp"
#include "siskin/tensor.hpp"
#include "tensor/assemble.hpp"
#include "tensor/describe.hpp"

namespace siskin {

namespace {

// The buffers of a level that has one positions array and one coordinate array per mode
// (sparselist, coo): the layout whose invariants this file checks.
struct Compressed {
    const Buffer* pos = nullptr;
    std::vector<const Buffer*> crd; // in the level's mode order
};

template <class I> struct Reader {
    const I* data;
    int64_t operator[](int64_t i) const { return static_cast<int64_t>(data[i]); }
};

// Positions: num_parents + 1 of them, from 0, never decreasing. Returns the last (the entries).
template <class I>
int64_t check_positions(const I* pos, int64_t size, int64_t num_parents, const std::string& where) {
    auto want = io::checked_add(num_parents, 1);
    if (!want || size != *want)
        throw Error(fmt::format("{}: pos holds {} positions, but its parent level has {} fibres, "
                                "so it needs {}",
                                where, size, num_parents, num_parents + 1));
    if (pos[0] != 0) throw Error(fmt::format("{}: pos[0] is {}, not 0", where, static_cast<int64_t>(pos[0])));
    for (int64_t p = 0; p < num_parents; ++p)
        if (pos[p + 1] < pos[p])
            throw Error(fmt::format("{}: pos decreases from {} to {} at fibre {}", where,
                                    static_cast<int64_t>(pos[p]), static_cast<int64_t>(pos[p + 1]), p));
    return static_cast<int64_t>(pos[num_parents]);
}

// Each fibre's coordinates: inside their dimensions and lexicographically increasing.
template <class I>
void check_coordinates(const Compressed& level, const LevelSpec& spec, std::span<const int64_t> shape,
                       int64_t num_parents, const std::string& where) {
    Reader<I> pos{level.pos->data<I>()};
    std::vector<Reader<I>> crd;
    for (const Buffer* b : level.crd) crd.push_back({b->data<I>()});
    const size_t modes = crd.size();
    if (modes == 1) { // sparselist: increasing within each fibre, so only its ends need a range check
        const int64_t extent = shape[static_cast<size_t>(spec.modes[0])];
        const I* c = level.crd[0]->data<I>();
        bool ok = true;
        for (int64_t p = 0; p < num_parents && ok; ++p) {
            const int64_t begin = pos[p], end = pos[p + 1];
            if (begin == end) continue;
            for (int64_t q = begin + 1; q < end; ++q) ok &= c[q] > c[q - 1];
            ok &= c[begin] >= 0 && c[end - 1] < extent;
        }
        if (ok) return; // else the loops below find the entry at fault and name it
    }
    for (size_t m = 0; m < modes; ++m) {
        int64_t extent = shape[static_cast<size_t>(spec.modes[m])];
        for (int64_t q = 0; q < pos[num_parents]; ++q)
            if (crd[m][q] < 0 || crd[m][q] >= extent)
                throw Error(fmt::format("{}: coordinate {} at position {} lies outside dimension {} "
                                        "(size {})",
                                        where, crd[m][q], q, spec.modes[m], extent));
    }
    for (int64_t p = 0; p < num_parents; ++p)
        for (int64_t q = pos[p] + 1; q < pos[p + 1]; ++q) {
            size_t m = 0;
            while (m < modes && crd[m][q] == crd[m][q - 1]) ++m;
            if (m == modes || crd[m][q] < crd[m][q - 1]) {
                std::vector<int64_t> before, at;
                for (size_t k = 0; k < modes; ++k) {
                    before.push_back(crd[k][q - 1]);
                    at.push_back(crd[k][q]);
                }
                throw Error(fmt::format("{}: fibre {} holds ({}) at position {} after ({}); the "
                                        "coordinates of a fibre must be sorted and unique",
                                        where, p, fmt::join(at, ", "), q, fmt::join(before, ", ")));
            }
        }
}

// The buffer `name` of level k, of the index type its width asks for.
const Buffer& index_buffer(std::map<std::string, Buffer>& given, const levels::BufferSpec& spec,
                           const std::string& where) {
    auto it = given.find(spec.name);
    if (it == given.end()) throw Error(fmt::format("{}: the buffer {} is missing", where, spec.name));
    if (it->second.type() != spec.type)
        throw Error(fmt::format("{}: {} holds {}, but the level's indices are {}", where, spec.name,
                                type_name(it->second.type()), type_name(spec.type)));
    return it->second;
}

// The width of a level's indices: the one its format gives, else that of its buffers' type.
int index_bits_of(const LevelSpec& spec, const std::map<std::string, Buffer>& given,
                  const std::string& where) {
    std::optional<int> found;
    for (const auto& [name, b] : given) {
        if (b.type() != ValueType::Int32 && b.type() != ValueType::Int64)
            throw Error(fmt::format("{}: {} holds {}; index buffers hold int32 or int64", where,
                                    name, type_name(b.type())));
        int bits = b.type() == ValueType::Int32 ? 32 : 64;
        if (found && *found != bits)
            throw Error(fmt::format("{}: its buffers mix int32 and int64 indices", where));
        found = bits;
    }
    if (spec.index_bits != 0 && found && *found != spec.index_bits)
        throw Error(fmt::format("{}: the format asks for {}-bit indices, but the buffers hold "
                                "{}-bit ones",
                                where, spec.index_bits, *found));
    return spec.index_bits != 0 ? spec.index_bits : found.value_or(0);
}

} // namespace

Tensor Tensor::from_storage(std::vector<int64_t> shape, ValueType type, Scalar fill, Format format,
                            std::vector<std::map<std::string, Buffer>> given, Buffer values) {
    Scalar f = detail::check_tensor(shape, type, fill, format);
    const auto& specs = format.levels();
    if (given.size() != specs.size())
        throw Error(fmt::format("format '{}' has {} levels, but buffers were given for {}",
                                format.to_string(), specs.size(), given.size()));
    std::vector<LevelStorage> storage;
    std::vector<LevelSpec> chosen;
    int64_t num_parents = 1;
    for (size_t k = 0; k < specs.size(); ++k) {
        const std::string where = fmt::format("level {} ({})", k, specs[k].kind);
        const levels::LevelFormat& lf = levels::level_format(specs[k].kind);
        const levels::LevelProperties props = lf.properties();
        LevelSpec spec = specs[k];
        auto buffer_specs = lf.buffers(spec.index_bits ? spec : LevelSpec{spec.kind, spec.modes, 64});
        Compressed compressed;
        size_t coordinate_arrays = 0, position_arrays = 0;
        for (const auto& b : buffer_specs) {
            coordinate_arrays += b.role == levels::BufferRole::Coordinates;
            position_arrays += b.role == levels::BufferRole::Positions;
        }
        if (props.runs || props.stores_fill ||
            coordinate_arrays + position_arrays != buffer_specs.size() ||
            (!buffer_specs.empty() && (position_arrays != 1 || coordinate_arrays != spec.modes.size())))
            throw Error(fmt::format("{}: a tensor over given buffers takes dense, sparselist and coo "
                                    "levels only",
                                    where),
                        Error::Kind::Unsupported);
        for (const auto& entry : given[k]) { // not a structured binding: clang 14 cannot capture one
            const std::string& name = entry.first;
            if (std::none_of(buffer_specs.begin(), buffer_specs.end(),
                             [&](const levels::BufferSpec& s) { return s.name == name; }))
                throw Error(fmt::format("{}: a {} level has no buffer '{}'", where, spec.kind, name));
        }

        int64_t num_positions = 0;
        if (buffer_specs.empty()) { // implicit: every coordinate of every fibre
            int64_t n = shape[static_cast<size_t>(spec.modes.at(0))];
            auto product = io::checked_mul(num_parents, n);
            if (!product)
                throw Error(fmt::format("{}: {} fibres of extent {} have more than 2^63 positions",
                                        where, num_parents, n));
            num_positions = *product;
            if (spec.index_bits == 0)
                spec.index_bits = levels::choose_index_bits(0, std::max(num_positions, n), spec.kind);
        } else {
            spec.index_bits = index_bits_of(spec, given[k], where);
            if (spec.index_bits == 0) spec.index_bits = 64; // no buffers given: the error below
            for (const auto& b : lf.buffers(spec)) {
                const Buffer& buffer = index_buffer(given[k], b, where);
                if (b.role == levels::BufferRole::Positions) compressed.pos = &buffer;
                else compressed.crd.push_back(&buffer);
            }
            const bool narrow = spec.index_bits == 32;
            num_positions = narrow ? check_positions(compressed.pos->data<int32_t>(), compressed.pos->size(),
                                                     num_parents, where)
                                   : check_positions(compressed.pos->data<int64_t>(), compressed.pos->size(),
                                                     num_parents, where);
            for (size_t m = 0; m < compressed.crd.size(); ++m)
                if (compressed.crd[m]->size() != num_positions)
                    throw Error(fmt::format("{}: {} holds {} coordinates, but pos says the level "
                                            "stores {}",
                                            where, buffer_specs[position_arrays + m].name,
                                            compressed.crd[m]->size(), num_positions));
            if (narrow) check_coordinates<int32_t>(compressed, spec, shape, num_parents, where);
            else check_coordinates<int64_t>(compressed, spec, shape, num_parents, where);
        }
        LevelStorage level;
        level.spec = spec;
        for (const auto& b : lf.buffers(spec)) {
            level.names.push_back(b.name);
            level.buffers.push_back(std::move(given[k].at(b.name)));
        }
        storage.push_back(std::move(level));
        chosen.push_back(spec);
        num_parents = num_positions;
    }
    if (format.leaf() == Leaf::Element) {
        if (values.type() != type)
            throw Error(fmt::format("the values hold {}, but the tensor's type is {}",
                                    type_name(values.type()), type_name(type)));
        if (values.size() != num_parents)
            throw Error(fmt::format("the values hold {} elements, but the levels of '{}' over "
                                    "shape {} store {}",
                                    values.size(), format.to_string(), detail::shape_text(shape),
                                    num_parents));
    } else if (values.size() != 0) {
        throw Error(fmt::format("a pattern tensor holds no values, but {} were given", values.size()));
    } else {
        values = Buffer(ValueType::Bool, 0);
    }
    return Tensor(std::move(shape), type, std::move(f), Format(std::move(chosen), format.leaf()),
                  std::move(storage), std::move(values));
}

} // namespace siskin
