#pragma once
// The entries of a square matrix that differ from its fill as the edges of a graph, in the CSR
// matrix the graph kernels read.
#include <cstdint>
#include <string_view>

#include "siskin/tensor.hpp"

namespace siskin::graph {

/// The number of vertices of `a`; throws Error unless it is a square matrix and 0 <= source < n.
int64_t vertex_count(const Tensor& a, int64_t source, std::string_view algorithm);

/// A bool CSR matrix, true at every edge of `a`.
Tensor pattern_of(const Tensor& a);

/// A float64 CSR matrix with fill +inf holding the weights of `a`'s edges; throws Error for a
/// weight that is not finite.
Tensor weights_of(const Tensor& a);

} // namespace siskin::graph
