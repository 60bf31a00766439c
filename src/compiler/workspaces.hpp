#pragma once
// workspaces: a reduction into a sparse output through a nest of loops (an einsum statement, or
// loops written around one assignment) is reordered so that every read is concordant when the
// written order is not, and when a reduction loop then runs between the output's outer indices
// and its last one (Gustavson's SpGEMM: C[i,j] += A[i,k] * B[k,j] in order i, k, j), the sums
// go into a row workspace W first, then one ordered copy appends C's row once:
//
//   for i { for k, j { W[j] op= A[i,k] * B[k,j] }
//           for j { C[i,j] = W[j] } }                   // W a sparsebytemap
//           for j { C[i,j] = W[j]; W[j] = fill } }      // W dense
//
// When the output's last level appends in order (sparselist), W is a sparsebytemap: a write
// marks its coordinate on first touch and lists it, and the copy's read sorts that list, walks
// only the touched coordinates and resets only their bytes (the level's workspace face,
// src/levels/sparse_byte_map.cpp): O(touched) per row, not O(n). When that level is written by
// random access anyway (dense), W is a dense vector and the copy scans the row.
// W is a temporary output of the kernel (one vector, the output's fill, its value type),
// allocated once per call by Kernel::run and never returned.
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "compiler/bind.hpp"
#include "siskin/compiler.hpp"
#include "siskin/ir/program.hpp"
#include "compiler/vocabulary.hpp"

namespace siskin::compiler {

/// A temporary output: a vector (dense or sparsebytemap) as long as dimension `like.mode` of `like.tensor`.
struct Workspace {
    std::string name;
    DimRef like;
};

struct Workspaced {
    ir::Program program;
    std::map<std::string, TensorSignature> signatures; // the workspaces' added
    std::vector<Workspace> workspaces;
};

/// Where the first loop of `order` that is not one of the `written` indices runs, and how many
/// written indices run inside it.
std::pair<size_t, size_t> written_split(const std::vector<std::string>& order,
                                        const std::vector<std::string>& written);
/// The written indices run in that order, at most one of them inside a loop that is not one of
/// them (the row workspace holds one dimension).
bool writes_in_order(const std::vector<std::string>& order, const std::vector<std::string>& written);

/// Whether a nest running `order` inside the loops `outer` reads every access of `reads`
/// (inputs, with their signatures) in its level order (concordize's reads_discordantly).
bool reads_in_order(const std::vector<std::string>& outer, const std::vector<std::string>& order,
                    const std::vector<const ir::Access*>& reads,
                    const std::map<std::string, TensorSignature>& signatures);

/// The order of a nest's `loops` (inside `outer`) that a reduction into an output whose indices
/// in storage order are `written` can take: the written indices in that order, at most one of
/// them inside a loop that is not one of them (the row workspace), and every read in order.
/// The loops as given when they qualify, else the first such permutation in lexicographic
/// order of positions; nothing when none qualifies.
std::optional<std::vector<std::string>> concordant_order(
    const std::vector<std::string>& outer, const std::vector<std::string>& loops,
    const std::vector<std::string>& written, const std::vector<const ir::Access*>& reads,
    const std::map<std::string, TensorSignature>& signatures);

Workspaced add_workspaces(const ir::Program& program,
                          const std::map<std::string, TensorSignature>& signatures);

} // namespace siskin::compiler
