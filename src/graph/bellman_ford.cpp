// Bellman-Ford: (min, +) relaxation rounds (kBellmanFordStep) until the distances stop
// changing; a change in round n means a negative cycle.
#include <limits>

#include <fmt/format.h>

#include "graph/edges.hpp"
#include "graph/step.hpp"
#include "siskin/error.hpp"
#include "siskin/graph.hpp"

namespace siskin::graph {

std::vector<double> bellman_ford(const Tensor& weights, int64_t source,
                                 const CompileOptions& options) {
    int64_t n = vertex_count(weights, source, "bellman_ford");
    const double inf = std::numeric_limits<double>::infinity();
    Tensor w = weights_of(weights);
    const Format bytemap = Format::parse("bytemap(0)", 1);

    CoordinateList start;
    start.ndims = 1;
    start.add(std::vector<int64_t>{source}, Scalar::of(0.0));
    Tensor d = Tensor::from_coordinates({n}, ValueType::Float64, Scalar::of(inf), bytemap, start);

    OutputSpec spec;
    spec.format = bytemap;
    spec.fill = Scalar::of(inf);
    // The kernel may assume finite stored distances and weights (weights_of checks the
    // weights; a sum of finite weights stays finite), which lets the infinite fills fold away.
    Step step(kBellmanFordStep, {{"d2", spec}}, options);
    for (int64_t round = 1; round <= n; ++round) {
        Tensor next = step.run({{"d", &d}, {"W", &w}}).at("d2");
        if (next.equals(d)) {
            std::vector<double> out;
            out.reserve(static_cast<size_t>(n));
            for (const Scalar& s : d.to_dense()) out.push_back(s.as_double());
            return out;
        }
        d = std::move(next);
    }
    throw Error(fmt::format("bellman_ford: a negative cycle is reachable from vertex {} (the "
                            "distances still change after {} rounds)",
                            source, n));
}

} // namespace siskin::graph
