// Row ranges (include/siskin/distributed.hpp, RowPartition).
#include <algorithm>

#include <fmt/format.h>

#include "siskin/distributed.hpp"
#include "siskin/error.hpp"

namespace siskin::distributed {

RowPartition::RowPartition(MPI_Comm comm, std::vector<int64_t> starts)
    : comm_(comm), starts_(std::move(starts)) {
    MPI_Comm_rank(comm, &rank_);
}

RowPartition RowPartition::even(int64_t n, MPI_Comm comm) {
    if (n < 0) throw Error(fmt::format("a partition of {} rows", n));
    int p = 0;
    MPI_Comm_size(comm, &p);
    std::vector<int64_t> starts(static_cast<size_t>(p) + 1, 0);
    int64_t share = n / p, extra = n % p;
    for (int r = 0; r < p; ++r)
        starts[static_cast<size_t>(r) + 1] = starts[static_cast<size_t>(r)] + share + (r < extra ? 1 : 0);
    return RowPartition(comm, std::move(starts));
}

RowPartition RowPartition::from_local_sizes(int64_t local_rows, MPI_Comm comm) {
    int p = 0;
    MPI_Comm_size(comm, &p);
    std::vector<int64_t> sizes(static_cast<size_t>(p));
    long long mine = local_rows;
    MPI_Allgather(&mine, 1, MPI_LONG_LONG, sizes.data(), 1, MPI_LONG_LONG, comm);
    std::vector<int64_t> starts(static_cast<size_t>(p) + 1, 0);
    for (int r = 0; r < p; ++r) {
        if (sizes[static_cast<size_t>(r)] < 0)
            throw Error(fmt::format("rank {} gave {} rows for its part", r, sizes[static_cast<size_t>(r)]));
        starts[static_cast<size_t>(r) + 1] = starts[static_cast<size_t>(r)] + sizes[static_cast<size_t>(r)];
    }
    return RowPartition(comm, std::move(starts));
}

RowPartition RowPartition::balanced(const std::vector<int64_t>& row_entries) const {
    SISKIN_ASSERT(static_cast<int64_t>(row_entries.size()) == local_size(),
                  "one entry count per local row");
    long long mine = 0, before = 0, total = 0;
    for (int64_t e : row_entries) mine += e;
    MPI_Exscan(&mine, &before, 1, MPI_LONG_LONG, MPI_SUM, comm_);
    if (rank_ == 0) before = 0; // MPI_Exscan leaves rank 0's result undefined
    MPI_Allreduce(&mine, &total, 1, MPI_LONG_LONG, MPI_SUM, comm_);
    int p = ranks();
    if (total == 0) return even(size(), comm_);
    // Boundary k (1 <= k < p) is the first row with at least k * total / p entries before it.
    // Each rank proposes, for every k, its first row with that many entries before it; the
    // smallest proposal is the first such row of all.
    std::vector<long long> found(static_cast<size_t>(p) + 1, size()), bounds(found.size());
    int k = 1;
    long long seen = before;
    auto target = [&](int k) {
        return static_cast<long long>((static_cast<__int128>(total) * k + p - 1) / p);
    };
    for (int64_t local = 0; local < local_size() && k < p; ++local) {
        while (k < p && seen >= target(k)) found[static_cast<size_t>(k++)] = begin() + local;
        seen += row_entries[static_cast<size_t>(local)];
    }
    found[0] = 0;
    MPI_Allreduce(found.data(), bounds.data(), p + 1, MPI_LONG_LONG, MPI_MIN, comm_);
    std::vector<int64_t> starts(bounds.begin(), bounds.end());
    starts[0] = 0;
    starts.back() = size();
    for (size_t r = 1; r < starts.size(); ++r) starts[r] = std::max(starts[r], starts[r - 1]);
    return RowPartition(comm_, std::move(starts));
}

int RowPartition::owner(int64_t row) const {
    SISKIN_ASSERT(row >= 0 && row < size(), "a row inside the partition");
    // The last start <= row whose range is not empty.
    auto it = std::upper_bound(starts_.begin(), starts_.end(), row);
    return static_cast<int>(it - starts_.begin()) - 1;
}

} // namespace siskin::distributed
