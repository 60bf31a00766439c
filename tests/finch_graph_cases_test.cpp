// The Finch paper's graph cases (../shared/papers/notes/finch.md §6, case 29): BFS by push and
// by pull through the program files of examples/, equal to the reference evaluator, and the
// pull step's early break (choose stops at the first parent it meets: compiler/early_exit.hpp).
#include <fstream>
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

} // namespace
} // namespace siskin::testing
