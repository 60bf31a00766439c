// BFS and Bellman-Ford as siskin programs (siskin/graph.hpp) against plain C++ implementations:
// small graphs checked by hand, random graphs in several formats, and real matrices.
#include <algorithm>
#include <cmath>
#include <deque>
#include <filesystem>
#include <iostream>
#include <limits>
#include <random>

#include "compiler_test_util.hpp"
#include "siskin/graph.hpp"
#include "siskin/io.hpp"

namespace siskin::testing {
namespace {

const double kInf = std::numeric_limits<double>::infinity();

struct Edge {
    int64_t from, to;
    double weight;
};

std::vector<Edge> edges_of(const Tensor& a) {
    std::vector<Edge> out;
    a.for_each_stored([&](std::span<const int64_t> c, const Scalar& v) {
        if (!v.same(a.fill())) out.push_back({c[0], c[1], v.as_double()});
    });
    return out;
}

// The plain implementations the programs are checked against.
std::vector<int64_t> reference_bfs(int64_t n, const std::vector<Edge>& edges, int64_t source) {
    std::vector<std::vector<int64_t>> out(static_cast<size_t>(n));
    for (const auto& e : edges) out[static_cast<size_t>(e.from)].push_back(e.to);
    std::vector<int64_t> level(static_cast<size_t>(n), -1);
    std::deque<int64_t> queue{source};
    level[static_cast<size_t>(source)] = 0;
    while (!queue.empty()) {
        int64_t v = queue.front();
        queue.pop_front();
        for (int64_t w : out[static_cast<size_t>(v)])
            if (level[static_cast<size_t>(w)] < 0) {
                level[static_cast<size_t>(w)] = level[static_cast<size_t>(v)] + 1;
                queue.push_back(w);
            }
    }
    return level;
}

std::vector<double> reference_bellman_ford(int64_t n, const std::vector<Edge>& edges,
                                           int64_t source) {
    std::vector<double> d(static_cast<size_t>(n), kInf);
    d[static_cast<size_t>(source)] = 0;
    for (int64_t round = 0; round < n; ++round) {
        bool changed = false;
        for (const auto& e : edges) {
            double via = d[static_cast<size_t>(e.from)] + e.weight;
            if (via < d[static_cast<size_t>(e.to)]) {
                d[static_cast<size_t>(e.to)] = via;
                changed = true;
            }
        }
        if (!changed) break;
    }
    return d;
}

Tensor graph_of(int64_t n, const std::vector<Edge>& edges, const std::string& format,
                double fill = 0) {
    CoordinateList c;
    c.ndims = 2;
    for (const auto& e : edges) c.add(std::vector<int64_t>{e.from, e.to}, Scalar::of(e.weight));
    return Tensor::from_coordinates({n, n}, ValueType::Float64, Scalar::of(fill),
                                    Format::parse(format, 2), c);
}

std::vector<Edge> random_edges(int64_t n, double density, uint64_t seed, bool negative) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    // Weights b + p[j] - p[i] with b >= 1: around any cycle the potentials p cancel, so no
    // cycle is negative, while single weights are (for b < p[i] - p[j]). No weight is 0, a fill.
    std::vector<double> p(static_cast<size_t>(n), 0.0);
    if (negative)
        for (auto& v : p) v = std::floor(u(rng) * 8);
    std::vector<Edge> out;
    for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j < n; ++j)
            if (i != j && u(rng) < density) {
                double w = std::floor(u(rng) * 9) + 1 + p[static_cast<size_t>(j)] -
                           p[static_cast<size_t>(i)];
                out.push_back({i, j, w == 0 ? 0.5 : w});
            }
    return out;
}

CompileOptions options() { return test_options(); }

// 0 -> 1 -> 2 -> 3, 0 -> 4 -> 3, 3 -> 0, 5 alone. With fill +inf a zero weight is an edge
// (4 -> 3); a stored entry equal to the fill is none (5 -> 0).
TEST(GraphAlgorithms, BfsByHand) {
    std::vector<Edge> edges{{0, 1, 1}, {1, 2, 1}, {2, 3, 1}, {0, 4, 1},
                            {4, 3, 0}, {3, 0, 1}, {5, 0, kInf}};
    Tensor g = graph_of(6, edges, "csr", kInf);
    EXPECT_EQ(graph::bfs_levels(g, 0, options()), (std::vector<int64_t>{0, 1, 2, 2, 1, -1}));
    EXPECT_EQ(graph::bfs_levels(g, 2, options()), (std::vector<int64_t>{2, 3, 0, 1, 3, -1}));
    EXPECT_EQ(graph::bfs_levels(g, 5, options()), (std::vector<int64_t>{-1, -1, -1, -1, -1, 0}));
}

// 0 -> 1 (4), 0 -> 2 (1), 2 -> 1 (2), 1 -> 3 (-3), 3 -> 4 (0): 0 1 -> 3, 2 -> 1, 3 -> 0, 4 -> 0.
TEST(GraphAlgorithms, BellmanFordByHand) {
    std::vector<Edge> edges{{0, 1, 4}, {0, 2, 1}, {2, 1, 2}, {1, 3, -3}, {3, 4, 0}};
    Tensor g = graph_of(6, edges, "csr", kInf);
    EXPECT_EQ(graph::bellman_ford(g, 0, options()),
              (std::vector<double>{0, 3, 1, 0, 0, kInf}));
    EXPECT_EQ(graph::bellman_ford(g, 3, options()),
              (std::vector<double>{kInf, kInf, kInf, 0, 0, kInf}));
}

TEST(GraphAlgorithms, ErrorsNameTheProblem) {
    std::vector<Edge> cycle{{0, 1, 1}, {1, 2, -2}, {2, 0, 0}};
    Tensor g = graph_of(3, cycle, "csr", kInf);
    EXPECT_TRUE(throws_error([&] { graph::bellman_ford(g, 0, options()); },
                             {"negative cycle is reachable from vertex 0"}));
    EXPECT_TRUE(throws_error([&] { graph::bfs_levels(g, 3, options()); },
                             {"bfs_levels: source vertex 3 is out of range", "0 to 2"}));
    Tensor rect = make({2, 3}, "csr", {{{0, 1}, 1.0}});
    EXPECT_TRUE(throws_error([&] { graph::bfs_levels(rect, 0, options()); },
                             {"bfs_levels needs a square matrix", "2 x 3"}));
    Tensor nan_weight = graph_of(2, {{0, 1, std::nan("")}}, "csr");
    EXPECT_TRUE(throws_error([&] { graph::bellman_ford(nan_weight, 0, options()); },
                             {"the weight of edge 0 -> 1 is nan", "must be finite"}));
}

TEST(GraphAlgorithms, RandomGraphsInEveryFormatAgreeWithThePlainImplementations) {
    const int64_t n = 40;
    int runs = 0;
    for (uint64_t seed = 1; seed <= 3; ++seed)
        for (double density : {0.03, 0.1}) {
            auto edges = random_edges(n, density, seed, true);
            for (const char* format : {"csr", "dense", "coo", "dcsr", "csc"})
                for (double fill : {0.0, kInf}) {
                    Tensor g = graph_of(n, edges, format, fill);
                    for (int64_t source : {int64_t{0}, int64_t{17}}) {
                        SCOPED_TRACE(::testing::Message() << format << " fill " << fill << " seed "
                                                          << seed << " density " << density
                                                          << " source " << source);
                        EXPECT_EQ(graph::bfs_levels(g, source, options()),
                                  reference_bfs(n, edges, source))
                            << format << " seed " << seed;
                        std::vector<double> distances;
                        EXPECT_NO_THROW(distances = graph::bellman_ford(g, source, options()));
                        EXPECT_EQ(distances, reference_bellman_ford(n, edges, source));
                        ++runs;
                    }
                }
        }
    EXPECT_EQ(runs, 3 * 2 * 5 * 2 * 2);
}

// Real graphs: Zachary's karate club and the 1138-bus power network (bundled), weighted by the
// absolute values of the matrix for Bellman-Ford; ca-GrQc from the shared matrix set when it is
// there.
TEST(GraphAlgorithms, RealMatrices) {
    std::vector<std::string> files{std::string(SISKIN_REPO_DATA_DIR) + "/karate.mtx",
                                   std::string(SISKIN_REPO_DATA_DIR) + "/1138_bus.mtx"};
    // The shared set beside the main checkout or beside a worktree's parent.
    std::vector<std::string> dirs{SISKIN_REPO_DATA_DIR "/../../shared/data/matrices",
                                  SISKIN_REPO_DATA_DIR "/../../../shared/data/matrices"};
    if (const char* dir = std::getenv("SISKIN_MATRIX_DIR")) dirs.insert(dirs.begin(), dir);
    for (const auto& dir : dirs)
        if (std::filesystem::exists(dir + "/ca-GrQc.mtx")) {
            files.push_back(dir + "/ca-GrQc.mtx");
            break;
        }
    for (const auto& file : files) {
        Tensor a = read_matrix_market(file);
        std::vector<Edge> edges = edges_of(a);
        int64_t n = a.shape()[0];
        for (auto& e : edges) e.weight = std::abs(e.weight);
        CoordinateList c;
        c.ndims = 2;
        for (const auto& e : edges) c.add(std::vector<int64_t>{e.from, e.to}, Scalar::of(e.weight));
        Tensor w = Tensor::from_coordinates({n, n}, ValueType::Float64, Scalar::of(0.0),
                                            Format::csr(), c);
        // From the vertex of most edges (in the largest component of ca-GrQc).
        std::vector<int64_t> degree(static_cast<size_t>(n), 0);
        for (const auto& e : edges) ++degree[static_cast<size_t>(e.from)];
        int64_t source = std::max_element(degree.begin(), degree.end()) - degree.begin();
        auto levels = graph::bfs_levels(a, source, options());
        EXPECT_EQ(levels, reference_bfs(n, edges, source)) << file;
        int64_t reached = 0, deepest = 0;
        for (int64_t l : levels) {
            reached += l >= 0;
            deepest = std::max(deepest, l);
        }
        EXPECT_GT(reached, 1) << file;
        EXPECT_GT(deepest, 1) << file;
        std::cout << file << ": " << n << " vertices, " << reached << " reached from " << source
                  << ", depth " << deepest << "\n";
        EXPECT_EQ(graph::bellman_ford(w, source, options()),
                  reference_bellman_ford(n, edges, source))
            << file;
    }
    EXPECT_GE(files.size(), 2u);
}

// Karate: vertex 0's neighbours (from the file, 1-based 2..9, 11..14, 18, 20, 22, 32) are at
// level 1.
TEST(GraphAlgorithms, KarateByHand) {
    Tensor a = read_matrix_market(std::string(SISKIN_REPO_DATA_DIR) + "/karate.mtx");
    auto levels = graph::bfs_levels(a, 0, options());
    for (int64_t v : {2, 3, 4, 5, 6, 7, 8, 9, 11, 12, 13, 14, 18, 20, 22, 32})
        EXPECT_EQ(levels[static_cast<size_t>(v - 1)], 1) << v;
    EXPECT_EQ(levels[0], 0);
}

} // namespace
} // namespace siskin::testing
