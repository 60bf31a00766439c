#pragma once
// `siskin run ... --distributed` under mpirun: the program on a row partition of its matrices
// (src/distributed/), each rank reading its part of every input file; rank 0 writes the
// gathered outputs as a serial run writes them, and --comm-stats the counters of every rank.
#include <string>
#include <vector>

#include "execute.hpp"

namespace siskin::cli {

struct DistributedRunOptions {
    std::string program;
    std::vector<std::string> inputs, outputs, fills, types, prints;
    ExecuteOptions exec;
    std::string comm_stats_path; // empty: no --comm-stats
    bool balanced = false;       // --row-split entries: rows balanced on stored entries
};

/// Runs the program on every rank (MPI_Init here when MPI is not yet initialised). An error on
/// any rank reaches every rank, which all stop; rank 0 alone reports it, then every rank throws
/// DistributedRunFailed (exit status 1, nothing more printed).
void run_distributed(const DistributedRunOptions& o);

/// Thrown on every rank when the run failed, after rank 0 printed the error: main exits with
/// status 1, printing nothing.
struct DistributedRunFailed {};

/// Whether this siskin was built with the distributed layer (CMake option SISKIN_MPI).
bool distributed_available();

} // namespace siskin::cli
