// Compressed transposes (CSR <-> CSC, and any dense(a)/sparselist(b) to dense(b)/sparselist(a))
// by counting sort: one pass counts each new fibre's entries, a prefix sum places the fibres,
// a second pass scatters. Entries come out sorted because the old outer coordinate is visited
// in order. This is what the concordize temporaries of a kernel and `convert` to the other
// orientation cost: O(nnz + n), typed, with no per-entry Scalar. With threads, each counts and
// scatters a share of the old rows (CountingTranspose), into the same result.
#include "tensor/transpose.hpp"

#include <algorithm>
#include <type_traits>
#include <utility>

#include "levels/level_format.hpp"
#include "tensor/buffer_memory.hpp"
#include "tensor/counting_transpose.hpp"

namespace siskin::detail {

namespace {

template <class T> T fill_as(const Scalar& s) {
    if constexpr (std::is_floating_point_v<T>) return static_cast<T>(s.as_double());
    else if constexpr (std::is_same_v<T, bool>) return s.as_bool();
    else if constexpr (std::is_unsigned_v<T>) return static_cast<T>(s.as_uint());
    else return static_cast<T>(s.as_int());
}

// A buffer of n elements whose memory is not cleared first, for a caller that writes them all.
Buffer unzeroed_buffer(ValueType type, int64_t n) {
    Buffer b(type, 0);
    buffer_memory::reserve(b, n, false);
    b.raw().size = n;
    return b;
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

std::optional<Assembled> transpose_compressed(const Tensor& source, const Format& target, int threads,
                                              int64_t least_share_work, int* team) {
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
    // One share per thread when there is enough to share: each costs a thread of the region, and a
    // counts array as long as the new pos array that it fills and sums, so by default each share
    // gets at least that many rows and entries too (which also bounds the counts' memory by the
    // source's: 2^30 columns would otherwise cost 8 GiB a thread).
    int64_t work = n_old + source.stored();
    int64_t least_share = least_share_work > 0 ? least_share_work : std::max(kTransposeWorkPerThread, n_new);
    int shares = static_cast<int>(std::clamp<int64_t>(work / least_share, 1, std::max(threads, 1)));
    // The result's crd and values, not zeroed: the scatter writes every element.
    auto transpose = [&](auto in_tag, auto value_tag) {
        using In = decltype(in_tag);
        using T = decltype(value_tag);
        CompressedSource<In, T> src{inner.buffer("pos").data<In>(), inner.buffer("crd").data<In>(),
                                    source.values().data<T>(), fill_as<T>(source.fill()), n_old, n_new};
        CountingTranspose<In, T> sort(src);
        pos = sort.run(shares, [&](int64_t nnz) {
            list.index_bits = levels::choose_index_bits(list.index_bits, std::max(nnz, n_old), "sparselist");
            bool narrow_out = list.index_bits == 32;
            crd = unzeroed_buffer(narrow_out ? ValueType::Int32 : ValueType::Int64, nnz);
            values = unzeroed_buffer(source.type(), nnz);
            return TransposeTarget<T>{crd.raw().data, values.data<T>(), narrow_out};
        });
        if (team) *team = sort.team();
    };
    with_value_type(source.type(), [&](auto tag) {
        if (narrow_in) transpose(int32_t{}, tag);
        else transpose(int64_t{}, tag);
    });

    Assembled out{target, {}, std::move(values)};
    out.format = Format({outer, list}, Leaf::Element);
    out.levels.push_back(LevelStorage{outer, {}, {}});
    out.levels.push_back(LevelStorage{list, {"pos", "crd"},
                                      {levels::make_index_buffer(list.index_bits, pos), std::move(crd)}});
    return out;
}

Tensor convert_on_threads(const Tensor& source, const Format& target, int threads, int* team) {
    if (team) *team = 1;
    auto flipped = threads > 1 ? transpose_compressed(source, target, threads, 0, team) : std::nullopt;
    if (!flipped) return source.convert(target);
    Tensor out = unbuilt_tensor(source.shape(), source.type(), source.fill(), flipped->format);
    for (int k = 0; k < out.num_levels(); ++k) out.level(k) = std::move(flipped->levels[static_cast<size_t>(k)]);
    out.values() = std::move(flipped->values);
    return out;
}

} // namespace siskin::detail
