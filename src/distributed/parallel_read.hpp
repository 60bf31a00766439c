#pragma once
// Reading one file on every rank at once: each rank parses its own byte range of the entries
// (whole lines: a range starts at the first line that begins inside it) with the serial
// reader's line parser, so errors name the file's line numbers (each rank learns the number of
// its first line from an MPI_Exscan of the line counts before it).
#include <mpi.h>

#include <string>

#include "distributed/entries.hpp"
#include "siskin/io.hpp"

namespace siskin::distributed {

/// The entries of this rank's part of a Matrix Market (.mtx) or FROSTT (.tns) file, in global
/// coordinates, as a serial read with `options` (ndims 2, or 1 for a vector: column 0) reads
/// them; shape, type and fill are the whole file's. Collective; errors are agreed on.
EntryWords read_my_part(const std::string& path, MPI_Comm comm, const ReadOptions& options);

} // namespace siskin::distributed
