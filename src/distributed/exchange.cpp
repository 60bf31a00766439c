#include "distributed/exchange.hpp"

#include <climits>

#include <fmt/format.h>

#include "distributed/comm_count.hpp"
#include "siskin/error.hpp"

namespace siskin::distributed {

namespace {
// The tag of exchange_sparse's messages; the non-blocking barrier keeps consecutive calls
// apart (no rank leaves a call before every message of it was received).
constexpr int kSparseTag = 7411;
} // namespace

int mpi_count(int64_t n) {
    if (n < 0 || n > INT_MAX)
        throw Error(fmt::format("a message of {} words is more than one MPI call sends ({})", n, INT_MAX),
                    Error::Kind::Unsupported);
    return static_cast<int>(n);
}

std::vector<Message> exchange_sparse(MPI_Comm comm, const std::vector<Message>& outgoing,
                                     const std::string& operation) {
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    std::vector<MPI_Request> sends;
    sends.reserve(outgoing.size());
    for (const Message& m : outgoing) {
        SISKIN_ASSERT(m.rank != rank, "no message to oneself");
        sends.emplace_back();
        MPI_Issend(m.words.data(), mpi_count(static_cast<int64_t>(m.words.size())), MPI_INT64_T,
                   m.rank, kSparseTag, comm, &sends.back());
        count_sent(operation, static_cast<int64_t>(m.words.size() * sizeof(int64_t)));
    }
    std::vector<Message> incoming;
    MPI_Request barrier = MPI_REQUEST_NULL;
    bool in_barrier = false;
    for (;;) {
        int arrived = 0;
        MPI_Status status;
        MPI_Iprobe(MPI_ANY_SOURCE, kSparseTag, comm, &arrived, &status);
        if (arrived) {
            int words = 0;
            MPI_Get_count(&status, MPI_INT64_T, &words);
            Message m{status.MPI_SOURCE, std::vector<int64_t>(static_cast<size_t>(words))};
            MPI_Recv(m.words.data(), words, MPI_INT64_T, status.MPI_SOURCE, kSparseTag, comm,
                     MPI_STATUS_IGNORE);
            count_received(operation, static_cast<int64_t>(words) * 8);
            incoming.push_back(std::move(m));
            continue;
        }
        if (!in_barrier) {
            int sent = 0;
            MPI_Testall(static_cast<int>(sends.size()), sends.data(), &sent, MPI_STATUSES_IGNORE);
            if (sent) {
                MPI_Ibarrier(comm, &barrier);
                in_barrier = true;
            }
        } else {
            int done = 0;
            MPI_Test(&barrier, &done, MPI_STATUS_IGNORE);
            if (done) break;
        }
    }
    return incoming;
}

std::vector<int64_t> exchange_all(MPI_Comm comm, const std::vector<std::vector<int64_t>>& outgoing,
                                  const std::string& operation) {
    int p = 0, rank = 0;
    MPI_Comm_size(comm, &p);
    MPI_Comm_rank(comm, &rank);
    SISKIN_ASSERT(static_cast<int>(outgoing.size()) == p, "one block per rank");
    std::vector<int> send_counts(static_cast<size_t>(p)), recv_counts(static_cast<size_t>(p)),
        send_offsets(static_cast<size_t>(p)), recv_offsets(static_cast<size_t>(p));
    std::vector<int64_t> send;
    int64_t total = 0;
    for (int r = 0; r < p; ++r) total += static_cast<int64_t>(outgoing[static_cast<size_t>(r)].size());
    send.reserve(static_cast<size_t>(total));
    for (int r = 0; r < p; ++r) {
        const auto& block = outgoing[static_cast<size_t>(r)];
        send_offsets[static_cast<size_t>(r)] = mpi_count(static_cast<int64_t>(send.size()));
        send_counts[static_cast<size_t>(r)] = mpi_count(static_cast<int64_t>(block.size()));
        send.insert(send.end(), block.begin(), block.end());
        if (r != rank && !block.empty()) count_sent(operation, static_cast<int64_t>(block.size()) * 8);
    }
    MPI_Alltoall(send_counts.data(), 1, MPI_INT, recv_counts.data(), 1, MPI_INT, comm);
    int64_t received = 0;
    for (int r = 0; r < p; ++r) {
        recv_offsets[static_cast<size_t>(r)] = mpi_count(received);
        received += recv_counts[static_cast<size_t>(r)];
        if (r != rank && recv_counts[static_cast<size_t>(r)] > 0)
            count_received(operation, int64_t{recv_counts[static_cast<size_t>(r)]} * 8);
    }
    std::vector<int64_t> incoming(static_cast<size_t>(received));
    MPI_Alltoallv(send.data(), send_counts.data(), send_offsets.data(), MPI_INT64_T,
                  incoming.data(), recv_counts.data(), recv_offsets.data(), MPI_INT64_T, comm);
    return incoming;
}

} // namespace siskin::distributed
