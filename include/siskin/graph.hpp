#pragma once
// Graph algorithms written as siskin programs over semirings and driven by a loop until nothing
// changes. Each step is program text (the constants below), compiled once for the graph and run
// per level or round:
//   - breadth-first search over (or, and): the next frontier is the frontier times the
//     adjacency matrix, masked by the complement of the visited set;
//   - Bellman-Ford over (min, +) with fill +inf ("no edge", "not reached").
// An edge i -> j is an entry A[i, j] of a square matrix (any format) that differs from the
// matrix's fill; its value is the weight for Bellman-Ford (so with fill +inf, 0 is a weight).
#include <cstdint>
#include <vector>

#include "siskin/compiler.hpp"
#include "siskin/tensor.hpp"

namespace siskin::graph {

/// One BFS level. Inputs: the frontier f (bool, bytemap: the vertices found last level), the
/// adjacency A (bool, csr) and the levels L (int64, dense, -1 where not visited). Output: n
/// (bool, bytemap), the unvisited vertices with an edge from the frontier:
/// n = (f^T A) masked by !visited over (or, and). The `if f[i]` skips rows outside the
/// frontier and the mask skips visited targets before any work.
inline constexpr const char* kBfsStep =
    "for i { if f[i] { for j { if L[j] == -1 { n[j] |= A[i, j] } } } }";
/// The levels after a step: the vertices of n get the depth d (an int64 scalar).
inline constexpr const char* kBfsUpdate = "L2[j] = where(n[j], d[], L[j])";

/// The BFS depth of every vertex from `source` (0 for the source, -1 where unreachable).
/// Throws Error for a non-square matrix or a source out of range.
std::vector<int64_t> bfs_levels(const Tensor& adjacency, int64_t source,
                                const CompileOptions& options = {});

/// One Bellman-Ford round. Inputs: the distances d (float64, bytemap, fill +inf: only reached
/// vertices stored) and the weights W (float64, csr, fill +inf: W[j, i] is the edge j -> i).
/// Output: d2 (float64, bytemap, fill +inf), d2[i] = min(d[i], min_j d[j] + W[j, i]). Unreached
/// rows (d[j] = inf) and absent edges (W = inf) fold away: inf + w is inf for finite w.
inline constexpr const char* kBellmanFordStep =
    "for i { d2[i] min= d[i] }\n"
    "for j { for i { d2[i] min= d[j] + W[j, i] } }";

/// Shortest-path distances from `source` (+inf where unreachable). Weights must be finite (an
/// Error names one that is not); negative weights are fine, but a negative cycle reachable
/// from the source is an Error.
std::vector<double> bellman_ford(const Tensor& weights, int64_t source,
                                 const CompileOptions& options = {});

} // namespace siskin::graph
