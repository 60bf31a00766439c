// Every plan of a handful of programs (SpMV, SpMM, add, transposed add, SDDMM), forced in turn
// through evaluate_planned, over combinations of input and output formats (dense, csr, csc,
// coo, dcsr) and fills (0 and not 0), against the reference evaluator. Inputs hold small whole
// numbers, so every plan's summation order gives the same bits. Kernels do not depend on shapes:
// the sizes are small, and the cost is compiling one kernel per plan and combination.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "compiler_test_util.hpp"
#include "siskin/planner.hpp"

namespace siskin::testing {
namespace {

struct Operand {
    std::string name;
    std::vector<int64_t> shape;
};

struct Workload {
    std::string text;
    std::vector<Operand> operands;
    std::string output;
    int output_ndims;
};

// One combination: a format per operand, the output's format and the inputs' fill.
struct Combination {
    std::vector<std::string> formats;
    std::string output_format;
    double fill;
};

// A format's levels and their modes, index widths aside.
std::string layout(const Format& f) {
    std::string out;
    for (const auto& level : f.levels()) out += fmt::format("{}({})/", level.kind, fmt::join(level.modes, ","));
    return out;
}

// Forces every plan of `p` on each combination; counts the plans run and those with temporaries.
struct Swept {
    int forced = 0, with_temporaries = 0;
};

Swept sweep(const Workload& p, const std::vector<Combination>& combinations, uint64_t seed) {
    Swept swept;
    const ir::Program program = ir::parse_program(p.text);
    for (const auto& c : combinations) {
        std::map<std::string, Tensor> tensors;
        std::map<std::string, const Tensor*> inputs;
        std::string where = fmt::format("{} with fill {}:", p.text, c.fill);
        for (size_t k = 0; k < p.operands.size(); ++k) {
            const Operand& o = p.operands[k];
            tensors.emplace(o.name, random_tensor_of(o.shape, c.formats[k], 0.3, Scalar::of(c.fill), ++seed,
                                                     [](auto& rng) { return Scalar::of(double(rng() % 5) + 1); }));
            where += fmt::format(" {}={}", o.name, c.formats[k]);
        }
        for (const auto& [name, t] : tensors) inputs.emplace(name, &t);
        where += fmt::format(" {}={}", p.output, c.output_format);
        const std::map<std::string, OutputSpec> specs{{p.output, with_format(c.output_format, p.output_ndims)}};
        const Tensor want = evaluate_reference(program, inputs, specs).at(p.output);
        const Plan plan = plan_program(program, inputs, specs);
        EXPECT_GE(plan.candidates.size(), 1u) << where;
        for (size_t k = 0; k < plan.candidates.size(); ++k) {
            const std::string what = fmt::format("{}, plan {}: {}", where, k, plan.candidates[k].description);
            PlanChoice choice;
            choice.candidate = k;
            std::map<std::string, Tensor> got;
            try {
                got = evaluate_planned(program, inputs, specs, test_options(), choice);
            } catch (const Error& e) {
                ADD_FAILURE() << what << ": " << e.what();
                continue;
            }
            ++swept.forced;
            if (!plan.candidates[k].temporaries.empty()) ++swept.with_temporaries;
            EXPECT_EQ(got.size(), 1u) << what; // a plan's temporaries stay inside
            const Tensor& g = got.at(p.output);
            EXPECT_TRUE(g.equals(want) && g.fill().same(want.fill()))
                << what << "\nwant " << want.to_string() << "\ngot  " << g.to_string();
            EXPECT_EQ(layout(g.format()), layout(Format::parse(c.output_format, p.output_ndims))) << what;
        }
    }
    return swept;
}

TEST(PlannerFormatSweep, SpmvOverEveryFormatAndFill) {
    const Workload spmv{"y[i] += A[i,j] * x[j]", {{"A", {7, 6}}, {"x", {6}}}, "y", 1};
    std::vector<Combination> combinations;
    for (const std::string a : {"dense", "csr", "csc", "coo", "dcsr"})
        for (double fill : {0.0, 2.0}) combinations.push_back({{a, "dense"}, "dense", fill});
    combinations.push_back({{"csc", "sparselist(0)"}, "sparselist(0)", 0.0}); // a sparse x and y
    EXPECT_GE(sweep(spmv, combinations, 1000).forced, 20);
}

TEST(PlannerFormatSweep, SpmmOverFormatPairs) {
    const Workload spmm{"C[i,j] += A[i,k] * B[k,j]", {{"A", {6, 5}}, {"B", {5, 7}}}, "C", 2};
    const Swept swept = sweep(spmm,
                              {{{"csr", "csc"}, "csr", 0.0}, {{"coo", "dense"}, "csc", 2.0}, {{"dcsr", "csr"}, "dense", 0.0}},
                              2000);
    EXPECT_GE(swept.forced, 12);
    EXPECT_GT(swept.with_temporaries, 0); // plans through a dense C or a transposed copy, hidden
}

TEST(PlannerFormatSweep, AddAndTransposedAddOverFormatPairs) {
    const Workload add{"C[i,j] = A[i,j] + B[i,j]", {{"A", {6, 7}}, {"B", {6, 7}}}, "C", 2};
    const Workload transposed{"C[i,j] = A[i,j] + B[j,i]", {{"A", {6, 7}}, {"B", {7, 6}}}, "C", 2};
    const std::vector<Combination> pairs{{{"dense", "csc"}, "csr", 0.0},
                                         {{"csr", "coo"}, "csc", 2.0},
                                         {{"dcsr", "csc"}, "coo", 0.0},
                                         {{"coo", "dcsr"}, "dense", 2.0}};
    EXPECT_GE(sweep(add, pairs, 3000).forced + sweep(transposed, pairs, 4000).forced, 12);
}

TEST(PlannerFormatSweep, SddmmOverSampleFormats) {
    const Workload sddmm{"C[i,j] += S[i,j] * A[i,k] * B[j,k]", {{"S", {6, 7}}, {"A", {6, 4}}, {"B", {7, 4}}}, "C", 2};
    EXPECT_GE(sweep(sddmm,
                    {{{"csr", "dense", "dense"}, "csr", 0.0},
                     {{"coo", "dense", "csc"}, "csc", 2.0}},
                    5000)
                  .forced,
              6);
}

} // namespace
} // namespace siskin::testing
