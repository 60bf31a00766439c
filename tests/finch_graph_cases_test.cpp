// The Finch paper's graph cases (../shared/papers/notes/finch.md §6, cases 29 and 30): BFS by
// push and by pull through the program files of examples/, equal to the reference evaluator, and
// the pull step's early break (choose stops at the first parent it meets: compiler/early_exit.hpp);
// Bellman-Ford, whose relaxation evaluates no d + inf on the weights' fill regions (a run-time
// test on d[i]: compiler/value_specialisation.hpp).
#include <algorithm>
#include <fstream>
#include <limits>
#include <random>
#include <set>
#include <sstream>

#include "compiler_test_util.hpp"

namespace siskin::testing {
namespace {

std::string example(const std::string& name) {
    std::ifstream in(std::string(SISKIN_REPO_DATA_DIR) + "/../examples/" + name);
    std::stringstream text;
    text << in.rdbuf();
    EXPECT_FALSE(text.str().empty()) << name;
    return text.str();
}

// Case 29's graph: edges 1->2, 1->3, 2->4, 3->4, 3->5, 4->6, 5->6 (0-based here), as a bool
// matrix of `format`; `by_target` stores each edge at [target, source] (the in-edges).
Tensor case29_edges(const std::string& format, bool by_target) {
    const int64_t edges[][2] = {{0, 1}, {0, 2}, {1, 3}, {2, 3}, {2, 4}, {3, 5}, {4, 5}};
    CoordinateList list;
    list.ndims = 2;
    for (const auto& e : edges)
        list.add(std::vector<int64_t>{by_target ? e[1] : e[0], by_target ? e[0] : e[1]}, Scalar::of(true));
    return Tensor::from_coordinates({6, 6}, ValueType::Bool, Scalar::of(false), Format::parse(format, 2), list);
}

Tensor bools(const std::vector<bool>& v) {
    std::vector<Scalar> s;
    for (bool b : v) s.push_back(Scalar::of(b));
    return Tensor::from_dense({static_cast<int64_t>(v.size())}, ValueType::Bool, Scalar::of(false), Format::dense(1), s);
}

TEST(FinchGraphCases, Case29PushAndPullGiveTheLevelsAndTheReferenceParents) {
    Tensor A = case29_edges("csr", false), AT = case29_edges("csr", true);
    Tensor s = bools({true, false, false, false, false, false});
    const std::vector<int64_t> levels{0, 1, 1, 2, 2, 3};
    for (const std::string program : {"bfs.siskin", "bfs_direction.siskin"}) {
        SCOPED_TRACE(program);
        std::map<std::string, const Tensor*> inputs{{"A", &A}, {"s", &s}};
        if (program == "bfs_direction.siskin") inputs["AT"] = &AT;
        auto out = compiled_matching_reference(example(program), inputs);
        for (int64_t j = 0; j < 6; ++j) EXPECT_EQ(out.at("L").at({j}).as_int(), levels[static_cast<size_t>(j)]);
        // choose keeps the first parent in the loops' order: 1 reaches 4 before 3 does.
        EXPECT_EQ(out.at("parent").at({3}).as_int(), 1);
    }
}

// One pull step after level 1 (frontier {2, 3}, 1-based): each unreached vertex walks its
// in-edges (dense here, so every source is a step) until the first one in the frontier.
TEST(FinchGraphCases, Case29PullStopsAtTheFirstFrontierHit) {
    Tensor AT = case29_edges("dense", true);
    Tensor F = bools({false, true, true, false, false, false});
    std::vector<Scalar> l;
    for (int64_t v : {0, 1, 1, -1, -1, -1}) l.push_back(Scalar::of(v));
    Tensor L = Tensor::from_dense({6}, ValueType::Int64, Scalar::of(int64_t{0}), Format::dense(1), l);
    std::string text = "for j { if L[j] == -1 { for i { P[j] <<choose>>= ifelse(AT[j, i] & F[i], i + 1, 0) } } }";
    ir::Program program = ir::parse_program(text);
    std::map<std::string, const Tensor*> inputs{{"AT", &AT}, {"F", &F}, {"L", &L}};
    CompileOptions options = test_options();
    options.count_work = true;
    CompiledProgram compiled = compile_for(program, inputs, {}, options);
    Tensor P = compiled.run(inputs).at("P");
    EXPECT_TRUE(P.equals(evaluate_reference(program, inputs).at("P"))) << P.to_string();
    EXPECT_EQ(P.at({3}).as_int(), 2); // vertex 4's first parent: 2 (1-based); 3 is not read
    EXPECT_EQ(P.at({4}).as_int(), 3);
    EXPECT_EQ(P.at({5}).as_int(), 0); // 6's sources 4 and 5 are not in the frontier
    // P set to its fill (6), the j loop (6), and the in-edge walks of vertices 4, 5 and 6 up to
    // their first frontier hit: 2 and 3 sources, and all 6 for vertex 6 (a sum would walk 18).
    EXPECT_EQ(compiled.kernel->last_work(), 6 + 6 + 2 + 3 + 6);
}

// The frontiers F and G as sparsebytemap vectors (bench/run-finch's "bytemap frontier" rows), on
// a random graph with a long path, so the while loop runs many levels and each G kernel is
// handed the vector G held two levels before (KernelPlan::recycled_outputs) to clear.
TEST(FinchGraphCases, BytemapFrontiersGiveTheReferenceLevelsAndParents) {
    const int64_t n = 90;
    std::mt19937_64 rng(29);
    CoordinateList out_edges, in_edges;
    out_edges.ndims = in_edges.ndims = 2;
    std::set<std::pair<int64_t, int64_t>> edges;
    for (int64_t v = 0; v + 1 < n; v += 1 + static_cast<int64_t>(rng() % 2)) edges.insert({v, v + 1});
    for (int k = 0; k < 2 * n; ++k) {
        int64_t a = static_cast<int64_t>(rng() % n), b = static_cast<int64_t>(rng() % n);
        if (a != b && (a - b > 2 || b - a > 2)) edges.insert({a, b}); // short hops keep the path long
    }
    for (const auto& [a, b] : edges) {
        out_edges.add(std::vector<int64_t>{a, b}, Scalar::of(true));
        in_edges.add(std::vector<int64_t>{b, a}, Scalar::of(true));
    }
    Tensor A = Tensor::from_coordinates({n, n}, ValueType::Bool, Scalar::of(false), Format::parse("csr", 2), out_edges);
    Tensor AT = Tensor::from_coordinates({n, n}, ValueType::Bool, Scalar::of(false), Format::parse("csr", 2), in_edges);
    std::vector<bool> source(static_cast<size_t>(n), false);
    source[0] = true;
    Tensor s = bools(source);
    OutputSpec frontier;
    frontier.format = Format::parse("sparsebytemap(0)", 1);
    for (const std::string program : {"bfs.siskin", "bfs_direction.siskin"}) {
        SCOPED_TRACE(program);
        std::map<std::string, const Tensor*> inputs{{"A", &A}, {"s", &s}};
        if (program == "bfs_direction.siskin") inputs["AT"] = &AT;
        auto out = compiled_matching_reference(example(program), inputs, {{"F", frontier}, {"G", frontier}});
        int64_t deepest = 0;
        for (int64_t j = 0; j < n; ++j) deepest = std::max(deepest, out.at("L").at({j}).as_int());
        EXPECT_GE(deepest, 5); // several levels, each recycling a frontier
    }
}

constexpr double kInf = std::numeric_limits<double>::infinity();

// Case 30's graph: weights 1->2:4, 1->3:1, 3->2:2, 2->4:1, 3->4:5 (0-based here) at [source,
// target] in csr, unstored: no edge (fill inf).
Tensor case30_weights() {
    const std::pair<std::pair<int64_t, int64_t>, double> edges[] = {
        {{0, 1}, 4}, {{0, 2}, 1}, {{2, 1}, 2}, {{1, 3}, 1}, {{2, 3}, 5}};
    CoordinateList list;
    list.ndims = 2;
    for (const auto& [e, w] : edges) list.add(std::vector<int64_t>{e.first, e.second}, Scalar::of(w));
    return Tensor::from_coordinates({4, 4}, ValueType::Float64, Scalar::of(kInf), Format::parse("csr", 2), list);
}

TEST(FinchGraphCases, Case30BellmanFordGivesTheDistancesAndParents) {
    Tensor W = case30_weights();
    Tensor s = bools({true, false, false, false});
    auto out = compiled_matching_reference(example("bellman_ford.siskin"), {{"W", &W}, {"s", &s}});
    const std::vector<double> d{0, 3, 1, 4};
    const std::vector<int64_t> parent{0, 2, 0, 1};
    for (int64_t j = 0; j < 4; ++j) {
        EXPECT_EQ(out.at("d").at({j}).as_double(), d[static_cast<size_t>(j)]);
        EXPECT_EQ(out.at("p").at({j}).as_int(), parent[static_cast<size_t>(j)]);
    }
}

// One relaxation pass, written without a guard on W: where W holds its fill, d[i] + inf is inf
// (min's identity) for every d[i] but -inf and NaN, so a row whose d[i] is neither visits only
// its stored edges, inf included (unreached vertices). A row with d[i] -inf or NaN still walks
// every j, as the dense semantics ask.
TEST(FinchGraphCases, Case30RelaxationEvaluatesNoInfinityOnFillRegions) {
    const int64_t n = 300;
    std::mt19937_64 rng(30);
    CoordinateList list;
    list.ndims = 2;
    for (int64_t i = 0; i < n; ++i)
        for (int k = 0; k < 3; ++k)
            list.add(std::vector<int64_t>{i, static_cast<int64_t>(rng() % n)}, Scalar::of(static_cast<double>(1 + rng() % 9)));
    Tensor W = Tensor::from_coordinates({n, n}, ValueType::Float64, Scalar::of(kInf), Format::parse("csr", 2), list);
    ir::Program program = ir::parse_program("fill e = inf\nfor i { for j { e[j] min= d[i] + W[i, j] } }");
    CompileOptions options = test_options();
    options.count_work = true;
    options.threads = 1;
    auto distances = [&](double odd) {
        std::vector<Scalar> v;
        for (int64_t i = 0; i < n; ++i) v.push_back(Scalar::of(i % 2 ? odd : static_cast<double>(i)));
        return Tensor::from_dense({n}, ValueType::Float64, Scalar::of(kInf), Format::dense(1), v);
    };
    Tensor unreached = distances(kInf);
    CompiledProgram compiled = compile_for(program, {{"d", &unreached}, {"W", &W}}, {}, options);
    const int64_t stored = W.stored();
    for (double odd : {kInf, -kInf, std::numeric_limits<double>::quiet_NaN()}) {
        SCOPED_TRACE(odd);
        Tensor d = distances(odd);
        std::map<std::string, const Tensor*> inputs{{"d", &d}, {"W", &W}};
        Tensor e = compiled.run(inputs).at("e");
        EXPECT_TRUE(same_output(evaluate_reference(program, inputs).at("e"), e)) << e.to_string();
        int64_t work = compiled.kernel->last_work();
        if (odd == kInf) // e set to its fill, the i loop and the stored edges: no fill region
            EXPECT_LE(work, n + n + stored);
        else // the odd rows walk all n coordinates
            EXPECT_GE(work, n + (n / 2) * n);
    }
}

} // namespace
} // namespace siskin::testing
