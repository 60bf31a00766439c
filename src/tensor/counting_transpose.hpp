#pragma once
// The counting-sort transpose of a compressed matrix over its raw arrays, on the OpenMP team
// (thread_team.hpp). transpose.cpp adapts it to tensors; it needs nothing else of the library
// but thread_team.cpp, so scripts/tsan.sh builds it alone under ThreadSanitizer
// (scripts/tsan/transpose_driver.cpp).
#ifndef _OPENMP
#error "counting_transpose.hpp runs its phases in an OpenMP region: compile this file with -fopenmp"
#endif
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

#include "tensor/thread_team.hpp"

namespace siskin::detail {

template <class T> bool equals_fill(T v, T fill) {
    if constexpr (std::is_floating_point_v<T>) return v == fill || (std::isnan(v) && std::isnan(fill));
    else return v == fill;
}

/// The first row of share t of n over rows [0, rows): rows weigh 1 plus their entries, as the
/// chunks of a parallel kernel loop do (runtime/siskin_parallel.h).
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

/// The first of `total` items in share t of n when they are cut evenly.
inline int64_t even_share_first(int64_t total, int t, int n) {
    return static_cast<int64_t>(static_cast<__int128>(total) * t / n);
}

/// A compressed matrix as the transpose reads it: old row i holds entries pos[i] .. pos[i+1]-1,
/// at new fibres crd[p] (each below n_new), with values[p]; entries equal to `fill` are dropped.
template <class In, class T> struct CompressedSource {
    const In* pos;
    const In* crd;
    const T* values;
    T fill;
    int64_t n_old, n_new;
};

/// Where the transpose writes its nnz entries: crd of 32-bit (narrow) or 64-bit indices.
template <class T> struct TransposeTarget {
    void* crd;
    T* values;
    bool narrow;
};

/// Counting sort over shares of the old rows (one share per thread of a team, balanced by
/// entries), in four phases with a barrier between them: share t counts its entries per new
/// fibre; each thread sums the counts of a slice of the new fibres; each turns its slice into
/// the fibres' bounds and each share's count into where its first entry of that fibre goes,
/// after those of the shares before it, while thread 0 asks for the result's arrays; each share
/// scatters its rows. So each new fibre is filled in old-row order, as one pass would fill it,
/// whatever the number of threads.
template <class In, class T> class CountingTranspose {
public:
    /// Makes the result's arrays for nnz entries; runs on one thread of the team, and what it
    /// throws is rethrown by run().
    using Allocate = std::function<TransposeTarget<T>(int64_t nnz)>;

    explicit CountingTranspose(const CompressedSource<In, T>& source) : src_(source) {}

    /// Transposes on up to `threads` threads into what `allocate` made; returns the new fibres'
    /// bounds (n_new + 1 of them). team() is then the number of threads it ran on.
    std::vector<int64_t> run(int threads, const Allocate& allocate) {
        std::vector<int64_t> new_pos(static_cast<size_t>(src_.n_new) + 1, 0);
        TransposeTarget<T> target{};
        std::exception_ptr failed;
        auto plan = [&](int n) {
            rows_.clear(); // a second run plans anew
            counts_.clear();
            for (int t = 0; t <= n; ++t) rows_.push_back(first_row(src_.pos, src_.n_old, t, n));
            for (int t = 0; t < n; ++t)
                counts_.push_back(std::make_unique_for_overwrite<int64_t[]>(static_cast<size_t>(src_.n_new)));
            slice_totals_.assign(static_cast<size_t>(n), 0);
        };
        team_ = run_team(threads, plan, [&](int t, int n, const auto& sync) {
            count(t);
            sync();
            int64_t c_from = even_share_first(src_.n_new, t, n), c_to = even_share_first(src_.n_new, t + 1, n);
            sum_slice(t, n, c_from, c_to, new_pos);
            sync();
            place_slice(t, n, c_from, c_to, new_pos);
            if (t == 0) {
                try {
                    int64_t nnz = 0;
                    for (int64_t s : slice_totals_) nnz += s;
                    target = allocate(nnz);
                } catch (...) {
                    failed = std::current_exception();
                }
            }
            sync();
            if (failed) return;
            if (target.narrow) scatter(t, static_cast<int32_t*>(target.crd), target.values);
            else scatter(t, static_cast<int64_t*>(target.crd), target.values);
        });
        if (failed) std::rethrow_exception(failed);
        return new_pos;
    }

    int team() const { return team_; }

private:
    void count(int t) {
        int64_t* mine = counts_[static_cast<size_t>(t)].get();
        std::fill(mine, mine + src_.n_new, int64_t{0});
        const In* crd = src_.crd;
        const T* val = src_.values;
        const T fill = src_.fill;
        int64_t from = src_.pos[rows_[static_cast<size_t>(t)]], to = src_.pos[rows_[static_cast<size_t>(t) + 1]];
        for (int64_t p = from; p < to; ++p)
            if (!equals_fill<T>(val[p], fill)) ++mine[crd[p]];
    }

    // new_pos[c + 1] = the entries of new fibre c, for c in [c_from, c_to); their sum in
    // slice_totals_[t].
    void sum_slice(int t, int n, int64_t c_from, int64_t c_to, std::vector<int64_t>& new_pos) {
        int64_t slice = 0;
        for (int64_t c = c_from; c < c_to; ++c) {
            int64_t total = 0;
            for (int s = 0; s < n; ++s) total += counts_[static_cast<size_t>(s)][c];
            new_pos[static_cast<size_t>(c) + 1] = total;
            slice += total;
        }
        slice_totals_[static_cast<size_t>(t)] = slice;
    }

    // The prefix sum over the slice, starting after the slices before it; each share's count
    // becomes its first position in the fibre.
    void place_slice(int t, int n, int64_t c_from, int64_t c_to, std::vector<int64_t>& new_pos) {
        int64_t next = 0;
        for (int s = 0; s < t; ++s) next += slice_totals_[static_cast<size_t>(s)];
        for (int64_t c = c_from; c < c_to; ++c) {
            for (int s = 0; s < n; ++s) next += std::exchange(counts_[static_cast<size_t>(s)][c], next);
            new_pos[static_cast<size_t>(c) + 1] = next;
        }
    }

    // Each entry of share t's rows to its new fibre, its old row as an `Out` index.
    template <class Out> void scatter(int t, Out* out_crd, T* out) {
        int64_t* next = counts_[static_cast<size_t>(t)].get();
        const In* pos = src_.pos;
        const In* crd = src_.crd;
        const T* val = src_.values;
        const T fill = src_.fill;
        for (int64_t i = rows_[static_cast<size_t>(t)]; i < rows_[static_cast<size_t>(t) + 1]; ++i) {
            int64_t p_end = static_cast<int64_t>(pos[i + 1]);
            for (int64_t p = static_cast<int64_t>(pos[i]); p < p_end; ++p) {
                T v = val[p];
                if (equals_fill<T>(v, fill)) continue;
                int64_t q = next[crd[p]]++;
                out_crd[q] = static_cast<Out>(i);
                out[q] = v;
            }
        }
    }

    CompressedSource<In, T> src_;
    std::vector<int64_t> rows_;                      // share t holds old rows [rows_[t], rows_[t + 1])
    std::vector<std::unique_ptr<int64_t[]>> counts_; // per share, per new fibre
    std::vector<int64_t> slice_totals_;              // entries of each thread's slice of new fibres
    int team_ = 0;                                   // threads of the last run
};

} // namespace siskin::detail
