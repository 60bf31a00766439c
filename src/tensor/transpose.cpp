// Compressed transposes (CSR <-> CSC, and any dense(a)/sparselist(b) to dense(b)/sparselist(a))
// by counting sort: one pass counts each new fibre's entries, a prefix sum places the fibres,
// a second pass scatters. Entries come out sorted because the old outer coordinate is visited
// in order. This is what the concordize temporaries of a kernel and `convert` to the other
// orientation cost: O(nnz + n), typed, with no per-entry Scalar.
#include "tensor/transpose.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <type_traits>

#include "levels/level_format.hpp"

namespace siskin::detail {

namespace {

bool is_compressed_2d(const Format& f) {
    const auto& l = f.levels();
    return f.leaf() == Leaf::Element && l.size() == 2 && l[0].kind == "dense" &&
           l[1].kind == "sparselist" && l[0].modes.size() == 1 && l[1].modes.size() == 1;
}

template <class T> bool equals_fill(T v, T fill) {
    if constexpr (std::is_floating_point_v<T>) return v == fill || (std::isnan(v) && std::isnan(fill));
    else return v == fill;
}

template <class T> T fill_as(const Scalar& s) {
    if constexpr (std::is_floating_point_v<T>) return static_cast<T>(s.as_double());
    else if constexpr (std::is_same_v<T, bool>) return s.as_bool();
    else if constexpr (std::is_unsigned_v<T>) return static_cast<T>(s.as_uint());
    else return static_cast<T>(s.as_int());
}

template <class I> const I* index_data(const Buffer& b) { return b.data<I>(); }

// Counts, places and scatters; `In` is the source's index type, `T` the value type.
template <class In, class T>
void scatter(const LevelStorage& inner, const Buffer& values, int64_t n_old, const Scalar& fill,
             std::vector<int64_t>& new_pos, std::vector<int64_t>& new_crd, Buffer& new_values) {
    const In* pos = index_data<In>(inner.buffer("pos"));
    const In* crd = index_data<In>(inner.buffer("crd"));
    const T* val = values.data<T>();
    const T f = fill_as<T>(fill);
    int64_t end = static_cast<int64_t>(pos[n_old]);
    for (int64_t p = 0; p < end; ++p)
        if (!equals_fill<T>(val[p], f)) ++new_pos[static_cast<size_t>(crd[p]) + 1];
    for (size_t k = 1; k < new_pos.size(); ++k) new_pos[k] += new_pos[k - 1];
    int64_t nnz = new_pos.back();
    new_crd.assign(static_cast<size_t>(nnz), 0);
    new_values.resize(nnz);
    T* out = new_values.data<T>();
    std::vector<int64_t> next(new_pos.begin(), new_pos.end() - 1);
    for (int64_t i = 0; i < n_old; ++i) {
        for (int64_t p = static_cast<int64_t>(pos[i]); p < static_cast<int64_t>(pos[i + 1]); ++p) {
            if (equals_fill<T>(val[p], f)) continue;
            int64_t q = next[static_cast<size_t>(crd[p])]++;
            new_crd[static_cast<size_t>(q)] = i;
            out[q] = val[p];
        }
    }
}

template <class In>
bool scatter_values(ValueType type, const LevelStorage& inner, const Buffer& values, int64_t n_old,
                    const Scalar& fill, std::vector<int64_t>& pos, std::vector<int64_t>& crd,
                    Buffer& out) {
    switch (type) {
    case ValueType::Bool: scatter<In, bool>(inner, values, n_old, fill, pos, crd, out); return true;
    case ValueType::Int8: scatter<In, int8_t>(inner, values, n_old, fill, pos, crd, out); return true;
    case ValueType::Int16: scatter<In, int16_t>(inner, values, n_old, fill, pos, crd, out); return true;
    case ValueType::Int32: scatter<In, int32_t>(inner, values, n_old, fill, pos, crd, out); return true;
    case ValueType::Int64: scatter<In, int64_t>(inner, values, n_old, fill, pos, crd, out); return true;
    case ValueType::UInt8: scatter<In, uint8_t>(inner, values, n_old, fill, pos, crd, out); return true;
    case ValueType::UInt16: scatter<In, uint16_t>(inner, values, n_old, fill, pos, crd, out); return true;
    case ValueType::UInt32: scatter<In, uint32_t>(inner, values, n_old, fill, pos, crd, out); return true;
    case ValueType::UInt64: scatter<In, uint64_t>(inner, values, n_old, fill, pos, crd, out); return true;
    case ValueType::Float32: scatter<In, float>(inner, values, n_old, fill, pos, crd, out); return true;
    case ValueType::Float64: scatter<In, double>(inner, values, n_old, fill, pos, crd, out); return true;
    }
    return false;
}

} // namespace

std::optional<Assembled> transpose_compressed(const Tensor& source, const Format& target) {
    const Format& from = source.format();
    if (!is_compressed_2d(from) || !is_compressed_2d(target)) return std::nullopt;
    int a = from.levels()[0].modes[0], b = from.levels()[1].modes[0];
    if (target.levels()[0].modes[0] != b || target.levels()[1].modes[0] != a) return std::nullopt;
    if (source.values().type() != source.type()) return std::nullopt;

    int64_t n_old = source.shape()[static_cast<size_t>(a)];
    int64_t n_new = source.shape()[static_cast<size_t>(b)];
    const LevelStorage& inner = source.level(1);
    std::vector<int64_t> pos(static_cast<size_t>(n_new) + 1, 0), crd;
    Buffer values(source.type(), 0);
    bool narrow = inner.buffer("crd").type() == ValueType::Int32;
    if (narrow) scatter_values<int32_t>(source.type(), inner, source.values(), n_old, source.fill(), pos, crd, values);
    else scatter_values<int64_t>(source.type(), inner, source.values(), n_old, source.fill(), pos, crd, values);

    Assembled out{target, {}, std::move(values)};
    LevelSpec outer = target.levels()[0], list = target.levels()[1];
    outer.index_bits = levels::choose_index_bits(outer.index_bits, n_new, "dense");
    list.index_bits = levels::choose_index_bits(list.index_bits, std::max(pos.back(), n_old), "sparselist");
    out.format = Format({outer, list}, Leaf::Element);
    out.levels.push_back(LevelStorage{outer, {}, {}});
    out.levels.push_back(LevelStorage{list, {"pos", "crd"},
                                      {levels::make_index_buffer(list.index_bits, pos),
                                       levels::make_index_buffer(list.index_bits, crd)}});
    return out;
}

} // namespace siskin::detail
