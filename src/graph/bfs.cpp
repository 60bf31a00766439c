// Level-synchronous breadth-first search: per level one masked (or, and) vector-matrix product
// (kBfsStep) and one update of the levels (kBfsUpdate), until the frontier is empty.
#include "graph/edges.hpp"
#include "graph/step.hpp"
#include "siskin/graph.hpp"

namespace siskin::graph {

namespace {

Tensor frontier_of(int64_t n, const std::vector<int64_t>& at) {
    CoordinateList list;
    list.ndims = 1;
    for (int64_t v : at) list.add(std::vector<int64_t>{v}, Scalar::of(true));
    return Tensor::from_coordinates({n}, ValueType::Bool, Scalar::of(false),
                                    Format::parse("bytemap(0)", 1), list);
}

bool any_true(const Tensor& t) {
    bool found = false;
    t.for_each_stored([&](std::span<const int64_t>, const Scalar& v) { found = found || v.as_bool(); });
    return found;
}

} // namespace

std::vector<int64_t> bfs_levels(const Tensor& adjacency, int64_t source,
                                const CompileOptions& options) {
    int64_t n = vertex_count(adjacency, source, "bfs_levels");
    Tensor a = pattern_of(adjacency);

    std::vector<Scalar> initial(static_cast<size_t>(n), Scalar::of(int64_t{-1}));
    initial[static_cast<size_t>(source)] = Scalar::of(int64_t{0});
    Tensor levels = Tensor::from_dense({n}, ValueType::Int64, Scalar::of(int64_t{-1}),
                                       Format::dense(1), initial);
    Tensor frontier = frontier_of(n, {source});

    OutputSpec next_spec;
    next_spec.format = Format::parse("bytemap(0)", 1);
    next_spec.fill = Scalar::of(false);
    OutputSpec levels_spec;
    levels_spec.format = Format::dense(1);
    levels_spec.fill = Scalar::of(int64_t{-1});

    Step step(kBfsStep, {{"n", next_spec}}, options);
    Step update(kBfsUpdate, {{"L2", levels_spec}}, options);
    for (int64_t d = 1;; ++d) {
        Tensor next = step.run({{"f", &frontier}, {"A", &a}, {"L", &levels}}).at("n");
        if (!any_true(next)) break;
        Tensor depth = Tensor::from_dense({}, ValueType::Int64, Scalar::of(int64_t{0}),
                                          Format::dense(0), std::vector<Scalar>{Scalar::of(d)});
        levels = update.run({{"n", &next}, {"d", &depth}, {"L", &levels}}).at("L2");
        frontier = std::move(next);
    }
    std::vector<int64_t> out;
    out.reserve(static_cast<size_t>(n));
    for (const Scalar& s : levels.to_dense()) out.push_back(s.as_int());
    return out;
}

} // namespace siskin::graph
