#include "distributed/gather.hpp"

#include "distributed/comm_count.hpp"
#include "distributed/exchange.hpp"

namespace siskin::distributed {

std::optional<std::vector<int64_t>> gather_words(const std::vector<int64_t>& mine, int root, MPI_Comm comm) {
    int p = 0, rank = 0;
    MPI_Comm_size(comm, &p);
    MPI_Comm_rank(comm, &rank);
    count_call("gather");
    int count = mpi_count(static_cast<int64_t>(mine.size()));
    std::vector<int> counts(rank == root ? static_cast<size_t>(p) : 0), offsets(counts.size());
    MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, root, comm);
    if (rank != root && count > 0) count_sent("gather", int64_t{count} * 8);
    std::optional<std::vector<int64_t>> all;
    if (rank == root) {
        int64_t total = 0;
        for (int r = 0; r < p; ++r) {
            offsets[static_cast<size_t>(r)] = mpi_count(total);
            total += counts[static_cast<size_t>(r)];
            if (r != root && counts[static_cast<size_t>(r)] > 0)
                count_received("gather", int64_t{counts[static_cast<size_t>(r)]} * 8);
        }
        all.emplace(static_cast<size_t>(total));
    }
    MPI_Gatherv(mine.data(), count, MPI_INT64_T, all ? all->data() : nullptr, counts.data(),
                offsets.data(), MPI_INT64_T, root, comm);
    return all;
}

} // namespace siskin::distributed
