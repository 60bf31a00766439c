#pragma once
// workspaces: a reduction into a sparse output through a nest of loops (an einsum statement, or
// loops written around one assignment) is reordered so that every read is concordant when the
// written order is not, and when a reduction loop then runs between the output's outer indices
// and its last one (Gustavson's SpGEMM: C[i,j] += A[i,k] * B[k,j] in order i, k, j), the sums
// go into a dense row workspace W first:
//
//   for i { for k, j { W[j] op= A[i,k] * B[k,j] }
//           for j { C[i,j] = W[j]; W[j] = fill } }      // in order; appends C's row once
//
// W is a temporary output of the kernel (one dense vector, the output's fill, its value type),
// allocated by Kernel::run and never returned. The copy scans the whole row: a list of touched
// coordinates (a SparseByteMap workspace) would make it proportional to the row's entries.
#include <map>
#include <string>
#include <vector>

#include "compiler/bind.hpp"
#include "siskin/compiler.hpp"
#include "siskin/ir/program.hpp"

namespace siskin::compiler {

/// A temporary output: a dense vector as long as dimension `like.mode` of `like.tensor`.
struct Workspace {
    std::string name;
    DimRef like;
};

struct Workspaced {
    ir::Program program;
    std::map<std::string, TensorSignature> signatures; // the workspaces' added
    std::vector<Workspace> workspaces;
};

Workspaced add_workspaces(const ir::Program& program,
                          const std::map<std::string, TensorSignature>& signatures);

} // namespace siskin::compiler
