#pragma once
// Collecting a distributed object's entries on one rank (MPI_Gatherv): the command's outputs,
// and tests comparing with a serial run. The only step besides the scatter constructor where one
// rank holds everything.
#include <mpi.h>

#include <optional>
#include <vector>

#include "distributed/entries.hpp"

namespace siskin::distributed {

/// Every rank's `mine` words, concatenated in rank order on `root` (nothing elsewhere).
/// Collective; counted under "gather".
std::optional<std::vector<int64_t>> gather_words(const std::vector<int64_t>& mine, int root, MPI_Comm comm);

} // namespace siskin::distributed
