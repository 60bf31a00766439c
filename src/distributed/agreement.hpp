#pragma once
// Agreeing on failure: local work that may throw siskin::Error on one rank (a bad line in the
// part of a file it parses) must not leave the other ranks waiting in the next collective. Every
// rank runs the work, then all learn whether any failed (an MPI_Allreduce of the lowest failing
// rank), and all throw the Error of the lowest failing rank, its message broadcast, so the
// message is the same everywhere and the command prints it once. `collectively` and
// `every_rank_has` are declared in include/siskin/distributed.hpp.
#include "siskin/distributed.hpp"
