// Graphs from matrices: an edge is an entry that is not the matrix's fill (a dense matrix of fill
// 0 has an edge where it is nonzero; a matrix of fill +inf may have zero-weight edges).
#include "graph/edges.hpp"

#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "siskin/error.hpp"

namespace siskin::graph {

int64_t vertex_count(const Tensor& a, int64_t source, std::string_view algorithm) {
    if (a.ndims() != 2 || a.shape()[0] != a.shape()[1])
        throw Error(fmt::format("{} needs a square matrix (an adjacency matrix), not a tensor of "
                                "{} dimensions{}",
                                algorithm, a.ndims(),
                                a.ndims() == 2 ? fmt::format(" {} x {}", a.shape()[0],
                                                             a.shape()[1])
                                               : ""));
    int64_t n = a.shape()[0];
    if (source < 0 || source >= n)
        throw Error(fmt::format("{}: source vertex {} is out of range (the graph has {} "
                                "vertices, 0 to {})",
                                algorithm, source, n, n - 1));
    return n;
}

Tensor pattern_of(const Tensor& a) {
    CoordinateList edges;
    edges.ndims = 2;
    a.for_each_stored([&](std::span<const int64_t> c, const Scalar& v) {
        if (!v.same(a.fill())) edges.add(c, Scalar::of(true));
    });
    return Tensor::from_coordinates(a.shape(), ValueType::Bool, Scalar::of(false), Format::csr(),
                                    edges, Duplicates::Sum);
}

Tensor weights_of(const Tensor& a) {
    CoordinateList edges;
    edges.ndims = 2;
    a.for_each_stored([&](std::span<const int64_t> c, const Scalar& v) {
        if (v.same(a.fill())) return;
        double w = v.as_double();
        if (!std::isfinite(w))
            throw Error(fmt::format("bellman_ford: the weight of edge {} -> {} is {}; weights "
                                    "must be finite",
                                    c[0], c[1], v.to_string()));
        edges.add(c, Scalar::of(w));
    });
    return Tensor::from_coordinates(a.shape(), ValueType::Float64,
                                    Scalar::of(std::numeric_limits<double>::infinity()),
                                    Format::csr(), edges, Duplicates::Reject);
}

} // namespace siskin::graph
