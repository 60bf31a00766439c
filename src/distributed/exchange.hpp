#pragma once
// The two ways ranks exchange 64-bit words: to every rank at once (MPI_Alltoallv, for routing
// the entries of a file or a gather's worth of data, where most pairs have something to say),
// and to a few ranks that the receivers do not know in advance (the NBX algorithm of Hoefler,
// Siebert and Lumsdaine: synchronous sends, probes, then a non-blocking barrier), which needs no
// array of size p. Both count their messages in comm_stats() under `operation`.
#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

namespace siskin::distributed {

struct Message {
    int rank = 0; // the destination of an outgoing message, the source of an incoming one
    std::vector<int64_t> words;
};

/// Sends each message (to ranks other than this one) and returns every message sent to this
/// rank in the same call, in no particular order. Collective.
std::vector<Message> exchange_sparse(MPI_Comm comm, const std::vector<Message>& outgoing,
                                     const std::string& operation);

/// outgoing[r] goes to rank r; returns what every rank sent here, in rank order. Collective.
/// Each non-empty block to or from another rank counts as one message.
std::vector<int64_t> exchange_all(MPI_Comm comm, const std::vector<std::vector<int64_t>>& outgoing,
                                  const std::string& operation);

/// A count for an MPI call, which takes an int: Error when a block outgrows it.
int mpi_count(int64_t n);

} // namespace siskin::distributed
