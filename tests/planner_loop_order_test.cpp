// The planner's loop-order candidates of one einsum statement: every candidate, forced in turn,
// computes what the reference evaluator computes, over a sample of the format sweep's programs
// and formats; and on skewed inputs the cheapest estimate is the plan a hand analysis predicts.
#include <cmath>
#include <limits>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "compiler_test_util.hpp"
#include "siskin/planner.hpp"

namespace siskin::testing {
namespace {

Tensor random_of(const std::vector<int64_t>& shape, const std::string& format, double density, double fill,
                 uint64_t seed) {
    // Small whole numbers: every summation order gives the same bits.
    return random_tensor_of(shape, format, density, Scalar::of(fill), seed,
                            [](auto& rng) { return Scalar::of(static_cast<double>(rng() % 5) + 1.0); });
}

// A format's levels and their modes, index widths aside.
std::string layout(const Format& f) {
    std::string out;
    for (const auto& level : f.levels()) out += fmt::format("{}({})/", level.kind, fmt::join(level.modes, ","));
    return out;
}

struct Case {
    std::string text;
    std::vector<std::tuple<std::string, std::vector<int64_t>, std::string>> inputs; // name, shape, format
    std::string output, output_format;
    int output_ndims;
    double fill = 0;
};

TEST(PlannerLoopOrder, EveryCandidateForcedInTurnMatchesTheReference) {
    const double inf = std::numeric_limits<double>::infinity();
    const std::vector<Case> cases{
        {"C[i,j] += A[i,k] * B[k,j]", {{"A", {7, 6}, "csr"}, {"B", {6, 8}, "csr"}}, "C", "csr", 2},
        {"C[i,j] min= A[i,k] + B[k,j]", {{"A", {5, 6}, "dcsr"}, {"B", {6, 7}, "csc"}}, "C", "csc", 2, inf},
        {"y[i] += A[i,j] * x[j]", {{"A", {8, 7}, "csc"}, {"x", {7}, "dense"}}, "y", "dense", 1},
        {"y[j] += A[i,j] * x[i]", {{"A", {8, 7}, "coo"}, {"x", {8}, "sparselist(0)"}}, "y", "dense", 1},
        {"C[i,j] = A[i,j] + B[i,j]", {{"A", {6, 7}, "csr"}, {"B", {6, 7}, "csc"}}, "C", "csc", 2},
        {"A[i,k] += T[i,j,k]", {{"T", {4, 5, 3}, "sparselist(1)/sparselist(0)/sparselist(2)"}}, "A", "csr", 2},
        {"s[] += A[i,j] * B[i,j]", {{"A", {6, 7}, "csr"}, {"B", {6, 7}, "csc"}}, "s", "dense", 0},
    };
    uint64_t seed = 190;
    int forced = 0, hashed = 0;
    for (const auto& c : cases) {
        std::map<std::string, Tensor> tensors;
        std::map<std::string, const Tensor*> inputs;
        std::string where = c.text;
        for (const auto& [name, shape, format] : c.inputs) {
            tensors.emplace(name, random_of(shape, format, 0.35, c.fill, ++seed));
            where += " " + name + "=" + format;
        }
        for (const auto& [name, t] : tensors) inputs.emplace(name, &t);
        where += " " + c.output + "=" + c.output_format;
        std::map<std::string, OutputSpec> specs{{c.output, with_format(c.output_format, c.output_ndims)}};
        ir::Program program = ir::parse_program(c.text);
        Tensor want = evaluate_reference(program, inputs, specs).at(c.output);
        Plan plan = plan_program(program, inputs, specs);
        EXPECT_GT(plan.candidates.size(), 1u) << where;
        for (size_t k = 1; k < plan.candidates.size(); ++k)
            EXPECT_LE(plan.candidates[k - 1].cost, plan.candidates[k].cost) << where;
        for (const auto& candidate : plan.candidates) {
            auto run_specs = specs;
            for (const auto& [name, spec] : candidate.temporaries) run_specs[name] = spec;
            std::map<std::string, Tensor> got;
            try {
                got = evaluate_compiled(candidate.program, inputs, run_specs, test_options());
            } catch (const Error& e) {
                ADD_FAILURE() << where << ", plan " << candidate.description << ": " << e.what();
                continue;
            }
            const Tensor& g = got.at(c.output);
            EXPECT_TRUE(g.equals(want) && g.fill().same(want.fill()))
                << where << ", plan " << candidate.description << "\nwant " << want.to_string() << "\ngot  "
                << g.to_string();
            EXPECT_EQ(layout(g.format()), layout(Format::parse(c.output_format, c.output_ndims)))
                << where << ", plan " << candidate.description;
            ++forced;
            if (candidate.description.find("through a hashed") != std::string::npos) ++hashed;
        }
    }
    EXPECT_GT(forced, 30);
    EXPECT_GT(hashed, 0); // an output written against its order also goes through sparsehash levels
}

// The first candidate's description and whether it was the only one with that prefix.
std::string chosen(const Plan& plan) { return plan.candidates.front().description; }

TEST(PlannerLoopOrder, SpmvWithACscMatrixReadsItByColumns) {
    // y[i] += A[i,j] * x[j] with A stored by columns: loops j, i walk each column once and
    // scatter into y (about 2 nnz + n steps); loops i, j read A through a transposed copy (4
    // more per entry) or search each column for every row (n^2 log).
    Tensor a = random_of({300, 300}, "csc", 0.02, 0, 1), x = random_of({300}, "dense", 1.0, 0, 2);
    std::map<std::string, const Tensor*> inputs{{"A", &a}, {"x", &x}};
    Plan plan = plan_program(ir::parse_program("y[i] += A[i,j] * x[j]"), inputs);
    ASSERT_EQ(plan.candidates.size(), 3u);
    EXPECT_EQ(chosen(plan), "loops j, i; outer products");
    EXPECT_TRUE(plan.candidates.front().temporaries.empty());
    EXPECT_NE(plan.candidates[1].description.find("A transposed"), std::string::npos);
    EXPECT_NE(plan.candidates[2].description.find("A searched"), std::string::npos);
}

TEST(PlannerLoopOrder, SpgemmWithAVerySparseLeftFactorGoesRowByRow) {
    // A holds about one entry in two rows, B a third of its elements: Gustavson's products are
    // nnz(A) times a row of B (a few thousand) into a row workspace; inner products visit every
    // (i, j) pair of A's few nonempty rows, searching B's column j for each k (the cheapest of
    // them, still twice Gustavson); outer products fill a dense m x n temporary.
    Tensor a = random_of({200, 200}, "csr", 0.0025, 0, 3), b = random_of({200, 200}, "csr", 0.3, 0, 4);
    std::map<std::string, const Tensor*> inputs{{"A", &a}, {"B", &b}};
    std::map<std::string, OutputSpec> specs{{"C", with_format("csr", 2)}};
    Plan plan = plan_program(ir::parse_program("C[i,j] += A[i,k] * B[k,j]"), inputs, specs);
    EXPECT_NE(chosen(plan).find("loops i, k, j; row by row (Gustavson)"), std::string::npos) << chosen(plan);
    double inner = std::numeric_limits<double>::infinity(), outer = 0;
    for (const auto& c : plan.candidates) {
        if (c.description.find("loops i, j, k; inner products") != std::string::npos) inner = std::min(inner, c.cost);
        if (c.description.find("loops k, i, j; outer products; A transposed") != std::string::npos) outer = c.cost;
    }
    EXPECT_GT(inner, 2 * plan.candidates.front().cost);
    EXPECT_GT(outer, plan.candidates.front().cost);

    // Into a dense C there is no workspace or temporary to pay for, and the outer product walks
    // the few columns of A once each: it is the cheapest with a CSC A.
    Tensor a_csc = random_of({200, 200}, "csc", 0.0025, 0, 3);
    std::map<std::string, const Tensor*> by_columns{{"A", &a_csc}, {"B", &b}};
    Plan dense = plan_program(ir::parse_program("C[i,j] += A[i,k] * B[k,j]"), by_columns,
                              {{"C", with_format("dense", 2)}});
    EXPECT_EQ(chosen(dense), "loops k, i, j; outer products") << chosen(dense);
}

TEST(PlannerLoopOrder, TheCandidatesAreProgramsTheCompilerRunsAsWritten) {
    // A candidate's loops are explicit and every read in order or searched: the compiler keeps
    // them, so the inner product's searches and the outer product's dense temporary are what runs.
    Tensor a = random_of({20, 20}, "csr", 0.2, 0, 5), b = random_of({20, 20}, "csr", 0.2, 0, 6);
    std::map<std::string, const Tensor*> inputs{{"A", &a}, {"B", &b}};
    Plan plan = plan_program(ir::parse_program("C[i,j] += A[i,k] * B[k,j]"), inputs, {{"C", with_format("csr", 2)}});
    bool searched = false, temporary = false, hashed = false;
    for (const auto& c : plan.candidates) {
        std::string text = ir::print(c.program);
        if (c.description.find("through a hashed C_hash") != std::string::npos) {
            hashed = true;
            EXPECT_EQ(c.temporaries.at("C_hash").format->levels().front().kind, "sparsehash") << text;
        }
        if (c.description.find("B searched") != std::string::npos) {
            searched = true;
            EXPECT_NE(text.find("follow(j)"), std::string::npos) << text;
        }
        if (c.description.find("through a dense C_dense") != std::string::npos) {
            temporary = true;
            EXPECT_EQ(c.temporaries.count("C_dense"), 1u);
        }
    }
    EXPECT_TRUE(searched);
    EXPECT_TRUE(temporary);
    // The written program, the eight cheapest others, and the cheapest through a hashed
    // temporary (every way of writing the output keeps one candidate).
    EXPECT_TRUE(hashed);
    EXPECT_EQ(plan.candidates.size(), 10u);
}

} // namespace
} // namespace siskin::testing
