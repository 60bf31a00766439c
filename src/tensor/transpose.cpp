// Compressed transposes (CSR <-> CSC, and any dense(a)/sparselist(b) to dense(b)/sparselist(a))
// by counting sort: one pass counts each new fibre's entries, a prefix sum places the fibres,
// a second pass scatters. Entries come out sorted because the old outer coordinate is visited
// in order. This is what the concordize temporaries of a kernel and `convert` to the other
// orientation cost: O(nnz + n), typed, with no per-entry Scalar. With threads, each counts and
// scatters a share of the old rows (CountingTranspose), into the same result.
#include "tensor/transpose.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <system_error>
#include <thread>
#include <type_traits>
#include <utility>

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

// Runs f(0) .. f(n - 1) at once, f(0) on the calling thread. A thread that cannot be started
// leaves its share to the calling thread: the shares are independent, so nothing changes but
// the time.
template <class F> void run_shares(int n, const F& f) {
    std::vector<std::thread> others;
    std::vector<int> inline_shares;
    for (int t = 1; t < n; ++t) {
        try {
            others.emplace_back([&f, t] { f(t); });
        } catch (const std::system_error&) {
            inline_shares.push_back(t);
        }
    }
    f(0);
    for (int t : inline_shares) f(t);
    for (auto& th : others) th.join();
}

// The first row of share t of n over rows [0, rows): rows weigh 1 plus their entries, as the
// chunks of a parallel kernel loop do (runtime/siskin_parallel.h).
template <class In> int64_t first_row(const In* pos, int64_t rows, int t, int n) {
    auto weight = [&](int64_t r) { return r + static_cast<int64_t>(pos[r]); };
    int64_t goal = static_cast<int64_t>(static_cast<__int128>(weight(rows)) * t / n);
    int64_t a = 0, b = rows;
    while (a < b) {
        int64_t m = a + (b - a) / 2;
        if (weight(m) < goal) a = m + 1;
        else b = m;
    }
    return a;
}

// Counting sort over shares of the old rows (one share per thread, balanced by entries). Share
// t counts its entries per new fibre in counts[t]; the fibres' bounds are the prefix sums of the
// totals; counts[t][c] then becomes where share t's first entry of fibre c goes, after those of
// the shares before it, so the scatter fills each new fibre in old-row order, as one pass would.
// `In` is the source's index type, `T` the value type; entries equal to the fill are dropped.
template <class In, class T> class CountingTranspose {
public:
    CountingTranspose(const LevelStorage& inner, const Buffer& values, int64_t n_old, int64_t n_new,
                      const Scalar& fill, int shares)
        : pos_(inner.buffer("pos").data<In>()), crd_(inner.buffer("crd").data<In>()),
          val_(values.data<T>()), fill_(fill_as<T>(fill)), n_new_(n_new),
          shares_(shares), counts_(static_cast<size_t>(shares), std::vector<int64_t>(static_cast<size_t>(n_new), 0)) {
        for (int t = 0; t <= shares; ++t) rows_.push_back(first_row(pos_, n_old, t, shares));
    }

    // The new fibres' bounds (n_new + 1 of them).
    std::vector<int64_t> count() {
        run_shares(shares_, [&](int t) {
            std::vector<int64_t>& mine = counts_[static_cast<size_t>(t)];
            int64_t from = pos_[rows_[static_cast<size_t>(t)]], to = pos_[rows_[static_cast<size_t>(t) + 1]];
            for (int64_t p = from; p < to; ++p)
                if (!equals_fill<T>(val_[p], fill_)) ++mine[static_cast<size_t>(crd_[p])];
        });
        std::vector<int64_t> new_pos(static_cast<size_t>(n_new_) + 1, 0);
        run_shares(shares_, [&](int t) {
            for (int64_t c = column(t); c < column(t + 1); ++c) {
                int64_t total = 0;
                for (const auto& share : counts_) total += share[static_cast<size_t>(c)];
                new_pos[static_cast<size_t>(c) + 1] = total;
            }
        });
        for (size_t k = 1; k < new_pos.size(); ++k) new_pos[k] += new_pos[k - 1];
        run_shares(shares_, [&](int t) {
            for (int64_t c = column(t); c < column(t + 1); ++c) {
                int64_t next = new_pos[static_cast<size_t>(c)];
                for (auto& share : counts_) next += std::exchange(share[static_cast<size_t>(c)], next);
            }
        });
        return new_pos;
    }

    // Each entry to its new fibre, straight into the target's index type `Out`.
    template <class Out> void scatter(Buffer& new_crd, Buffer& new_values) {
        Out* out_crd = new_crd.data<Out>();
        T* out = new_values.data<T>();
        run_shares(shares_, [&](int t) {
            std::vector<int64_t>& next = counts_[static_cast<size_t>(t)];
            for (int64_t i = rows_[static_cast<size_t>(t)]; i < rows_[static_cast<size_t>(t) + 1]; ++i) {
                for (int64_t p = static_cast<int64_t>(pos_[i]); p < static_cast<int64_t>(pos_[i + 1]); ++p) {
                    if (equals_fill<T>(val_[p], fill_)) continue;
                    int64_t q = next[static_cast<size_t>(crd_[p])]++;
                    out_crd[q] = static_cast<Out>(i);
                    out[q] = val_[p];
                }
            }
        });
    }

private:
    // The first new fibre of share t when the fibres are cut evenly.
    int64_t column(int t) const { return static_cast<int64_t>(static_cast<__int128>(n_new_) * t / shares_); }

    const In* pos_;
    const In* crd_;
    const T* val_;
    T fill_;
    int64_t n_new_;
    int shares_;
    std::vector<int64_t> rows_;                // share t holds old rows [rows_[t], rows_[t + 1])
    std::vector<std::vector<int64_t>> counts_; // per share, per new fibre
};

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
                                              int64_t work_per_thread) {
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
    // One share per thread when there is enough to share: each costs a counts array as long as
    // the new pos array, and a thread's start.
    int64_t work = n_old + source.stored();
    int shares = std::max(1, static_cast<int>(std::min<int64_t>(threads, work / std::max<int64_t>(work_per_thread, 1))));
    auto transpose = [&](auto in_tag, auto value_tag) {
        using In = decltype(in_tag);
        using T = decltype(value_tag);
        CountingTranspose<In, T> sort(inner, source.values(), n_old, n_new, source.fill(), shares);
        pos = sort.count();
        int64_t nnz = pos.back();
        list.index_bits = levels::choose_index_bits(list.index_bits, std::max(nnz, n_old), "sparselist");
        bool narrow_out = list.index_bits == 32;
        crd = Buffer(narrow_out ? ValueType::Int32 : ValueType::Int64, nnz);
        values = Buffer(source.type(), nnz);
        if (narrow_out) sort.template scatter<int32_t>(crd, values);
        else sort.template scatter<int64_t>(crd, values);
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

Tensor convert_on_threads(const Tensor& source, const Format& target, int threads) {
    auto flipped = threads > 1 ? transpose_compressed(source, target, threads) : std::nullopt;
    if (!flipped) return source.convert(target);
    Tensor out = unbuilt_tensor(source.shape(), source.type(), source.fill(), flipped->format);
    for (int k = 0; k < out.num_levels(); ++k) out.level(k) = std::move(flipped->levels[static_cast<size_t>(k)]);
    out.values() = std::move(flipped->values);
    return out;
}

} // namespace siskin::detail
