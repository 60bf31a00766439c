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

// The new fibres' bounds: entries per old inner coordinate (those equal to the fill dropped),
// prefix-summed. `In` is the source's index type, `T` the value type.
template <class In, class T>
std::vector<int64_t> count(const LevelStorage& inner, const Buffer& values, int64_t n_old, int64_t n_new,
                           const Scalar& fill) {
    const In* pos = inner.buffer("pos").data<In>();
    const In* crd = inner.buffer("crd").data<In>();
    const T* val = values.data<T>();
    const T f = fill_as<T>(fill);
    std::vector<int64_t> new_pos(static_cast<size_t>(n_new) + 1, 0);
    int64_t end = static_cast<int64_t>(pos[n_old]);
    for (int64_t p = 0; p < end; ++p)
        if (!equals_fill<T>(val[p], f)) ++new_pos[static_cast<size_t>(crd[p]) + 1];
    for (size_t k = 1; k < new_pos.size(); ++k) new_pos[k] += new_pos[k - 1];
    return new_pos;
}

// Scatters each entry to its new fibre, straight into the target's index type `Out`.
template <class In, class Out, class T>
void scatter(const LevelStorage& inner, const Buffer& values, int64_t n_old, const Scalar& fill,
             const std::vector<int64_t>& new_pos, Buffer& new_crd, Buffer& new_values) {
    const In* pos = inner.buffer("pos").data<In>();
    const In* crd = inner.buffer("crd").data<In>();
    const T* val = values.data<T>();
    const T f = fill_as<T>(fill);
    Out* out_crd = new_crd.data<Out>();
    T* out = new_values.data<T>();
    std::vector<int64_t> next(new_pos.begin(), new_pos.end() - 1);
    for (int64_t i = 0; i < n_old; ++i) {
        for (int64_t p = static_cast<int64_t>(pos[i]); p < static_cast<int64_t>(pos[i + 1]); ++p) {
            if (equals_fill<T>(val[p], f)) continue;
            int64_t q = next[static_cast<size_t>(crd[p])]++;
            out_crd[q] = static_cast<Out>(i);
            out[q] = val[p];
        }
    }
}

// Calls f with a value of the C type of `type` (its value only selects the type).
template <class F> void with_value_type(ValueType type, F&& f) {
    switch (type) {
    case ValueType::Bool: return f(bool{});
    case ValueType::Int8: return f(int8_t{});
    case ValueType::Int16: return f(int16_t{});
    case ValueType::Int32: return f(int32_t{});
    case ValueType::Int64: return f(int64_t{});
    case ValueType::UInt8: return f(uint8_t{});
    case ValueType::UInt16: return f(uint16_t{});
    case ValueType::UInt32: return f(uint32_t{});
    case ValueType::UInt64: return f(uint64_t{});
    case ValueType::Float32: return f(float{});
    case ValueType::Float64: return f(double{});
    }
}

} // namespace

std::optional<Assembled> transpose_compressed(const Tensor& source, const Format& target) {
    const Format& from = source.format();
    if (!levels::is_compressed_matrix(from) || !levels::is_compressed_matrix(target)) return std::nullopt;
    int a = from.levels()[0].modes[0], b = from.levels()[1].modes[0];
    if (target.levels()[0].modes[0] != b || target.levels()[1].modes[0] != a) return std::nullopt;
    if (source.values().type() != source.type()) return std::nullopt;

    int64_t n_old = source.shape()[static_cast<size_t>(a)];
    int64_t n_new = source.shape()[static_cast<size_t>(b)];
    const LevelStorage& inner = source.level(1);
    bool narrow_in = inner.buffer("crd").type() == ValueType::Int32;
    LevelSpec outer = target.levels()[0], list = target.levels()[1];
    outer.index_bits = levels::choose_index_bits(outer.index_bits, n_new, "dense");
    // The new pos array has one entry per row of the target: it follows the shape, whatever
    // the stored entries (2^40 rows of 3 entries would be 8 TiB).
    check_shape_storage(source.shape(), target, 1, n_new, sizeof(int64_t), "the pos array of its sparselist level");
    Buffer values(source.type(), 0);
    Buffer crd;
    std::vector<int64_t> pos;
    with_value_type(source.type(), [&](auto tag) {
        using T = decltype(tag);
        pos = narrow_in ? count<int32_t, T>(inner, source.values(), n_old, n_new, source.fill())
                        : count<int64_t, T>(inner, source.values(), n_old, n_new, source.fill());
        int64_t nnz = pos.back();
        list.index_bits = levels::choose_index_bits(list.index_bits, std::max(nnz, n_old), "sparselist");
        bool narrow_out = list.index_bits == 32;
        crd = Buffer(narrow_out ? ValueType::Int32 : ValueType::Int64, nnz);
        values = Buffer(source.type(), nnz);
        auto run = [&](auto in_tag, auto out_tag) {
            scatter<decltype(in_tag), decltype(out_tag), T>(inner, source.values(), n_old, source.fill(), pos,
                                                            crd, values);
        };
        if (narrow_in) narrow_out ? run(int32_t{}, int32_t{}) : run(int32_t{}, int64_t{});
        else narrow_out ? run(int64_t{}, int32_t{}) : run(int64_t{}, int64_t{});
    });

    Assembled out{target, {}, std::move(values)};
    out.format = Format({outer, list}, Leaf::Element);
    out.levels.push_back(LevelStorage{outer, {}, {}});
    out.levels.push_back(LevelStorage{list, {"pos", "crd"},
                                      {levels::make_index_buffer(list.index_bits, pos), std::move(crd)}});
    return out;
}

} // namespace siskin::detail
