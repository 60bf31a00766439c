// The planner on a chain of three matrix products: the order a hand analysis picks on skewed
// inputs (the sparse pair first), and every candidate computing what the program computes.
#include <cmath>
#include <memory>
#include <set>

#include "compiler_test_util.hpp"
#include "siskin/planner.hpp"

namespace siskin::testing {
namespace {

Tensor random_matrix(int64_t m, int64_t n, double density, uint64_t seed) {
    return random_matrix_of(m, n, density, "csr", seed, 0.0, [](double u) { return std::floor(u * 5) + 1; });
}

const char* kChain = "D[i,l] += A[i,j] * B[j,k] * C[k,l]";

// Every candidate's program gives D as the reference does on the original program.
void expect_candidates_agree(const Plan& plan, const std::map<std::string, const Tensor*>& inputs) {
    Tensor want = evaluate_reference(ir::parse_program(kChain), inputs).at("D");
    for (const auto& c : plan.candidates) {
        auto got = evaluate_compiled(c.program, inputs, c.temporaries, test_options());
        EXPECT_TRUE(got.at("D").equals(want)) << c.description;
    }
}

TEST(PlannerChainOrder, TheSparsePairIsMultipliedFirst) {
    // A holds a handful of entries, B about one a row, C half of each row: the fused nest
    // (loops i, j, k, l) meets each product A[i,j] * B[j,k] with C's row k, without a
    // temporary; A*B first meets the same rows of C through T (whose entries, tested finite at
    // run time, skip C's zeros); B*C first fills a temporary of B's rows times C's rows that
    // every row of A then walks.
    Tensor a = random_matrix(40, 40, 0.002, 1), b = random_matrix(40, 40, 0.03, 2), c = random_matrix(40, 40, 0.5, 3);
    std::map<std::string, const Tensor*> inputs{{"A", &a}, {"B", &b}, {"C", &c}};
    Plan plan = plan_program(ir::parse_program(kChain), inputs);
    ASSERT_EQ(plan.candidates.size(), 3u);
    EXPECT_EQ(plan.candidates[0].description.rfind("one fused nest", 0), 0u) << plan.candidates[0].description;
    EXPECT_EQ(plan.candidates[1].description, "T = A*B first, then T*C");
    EXPECT_LT(plan.candidates[0].cost, plan.candidates[1].cost);
    EXPECT_LT(plan.candidates[1].cost, plan.candidates[2].cost);
    expect_candidates_agree(plan, inputs);

    // The mirror image: B and C sparse, A half full. B*C first costs fewer multiply-adds than
    // A*B first, but each row of A walks the temporary where A holds zeros (the temporary is
    // not known finite, and its rows are not one value to test), so the fused nest is the
    // cheapest.
    std::map<std::string, const Tensor*> mirrored{{"A", &c}, {"B", &b}, {"C", &a}};
    Plan other = plan_program(ir::parse_program(kChain), mirrored);
    EXPECT_EQ(other.candidates[0].description.rfind("one fused nest", 0), 0u) << other.candidates[0].description;
    expect_candidates_agree(other, mirrored);
}

TEST(PlannerChainOrder, ATemporaryPaysWhereItSumsManyProducts) {
    // A half full, every entry of B in column 0: A*B is 20 products a row that T sums into one
    // entry, which then meets C's row 0 once; the fused nest meets C's row 0 with each of the
    // 20 products.
    Tensor a = random_matrix(40, 40, 0.5, 7), c = random_matrix(40, 40, 0.5, 8);
    CoordinateList column;
    column.ndims = 2;
    for (int64_t j = 0; j < 40; ++j) column.add(std::vector<int64_t>{j, 0}, Scalar::of(static_cast<double>(j % 3 + 1)));
    Tensor b = Tensor::from_coordinates({40, 40}, ValueType::Float64, Scalar::of(0.0), Format::csr(), column);
    std::map<std::string, const Tensor*> inputs{{"A", &a}, {"B", &b}, {"C", &c}};
    Plan plan = plan_program(ir::parse_program(kChain), inputs);
    ASSERT_EQ(plan.candidates.size(), 3u);
    EXPECT_EQ(plan.candidates[0].description, "T = A*B first, then T*C");
    EXPECT_EQ(plan.candidates[1].description.rfind("one fused nest", 0), 0u) << plan.candidates[1].description;
    expect_candidates_agree(plan, inputs);
}

TEST(PlannerChainOrder, WrittenLoopsKeepTheirOrder) {
    Tensor a = random_matrix(6, 6, 0.3, 4);
    std::map<std::string, const Tensor*> inputs{{"A", &a}, {"B", &a}, {"C", &a}};
    for (const char* text : {"for i, k, j { C[i,j] += A[i,k] * B[k,j] }",
                             "for i, j, k, l { D[i,l] += A[i,j] * B[j,k] * C[k,l] }"}) {
        Plan plan = plan_program(ir::parse_program(text), inputs);
        ASSERT_EQ(plan.candidates.size(), 1u) << text;
        EXPECT_EQ(plan.candidates[0].description, "as written (not weighed)") << text;
    }
}

TEST(PlannerStatistics, RowAndColumnCountsOfTheEntriesThatAreNotTheFill) {
    Tensor a = make({3, 4}, "csr", {{{0, 1}, 1}, {{0, 3}, 2}, {{2, 1}, 3}, {{2, 2}, 0}});
    TensorStatistics s = TensorStatistics::of(a);
    EXPECT_EQ(s.entries, 3); // the stored 0 is the fill
    EXPECT_EQ(s.per_coordinate[0], (std::vector<int64_t>{2, 0, 1}));
    EXPECT_EQ(s.per_coordinate[1], (std::vector<int64_t>{0, 2, 0, 1}));
    // Storage positions of the csr: 2 non-empty rows, 3 entries; the longest row holds 2.
    EXPECT_EQ(s.level_entries, (std::vector<int64_t>{2, 3}));
    EXPECT_EQ(s.max_fibre, (std::vector<int64_t>{2, 2}));
    EXPECT_DOUBLE_EQ(s.mean_fibre(1), 1.5);
}

TEST(PlannerStatistics, AHugeDimensionIsNotCountedAndNoPlanIsWeighed) {
    const int64_t n = int64_t{1} << 40;
    Tensor a = make({n, n}, "dcsr", {{{0, 1}, 1}, {{n - 1, 2}, 2}});
    TensorStatistics s = TensorStatistics::of(a);
    EXPECT_FALSE(s.counted());
    EXPECT_EQ(s.entries, 2);
    EXPECT_EQ(s.level_entries, (std::vector<int64_t>{2, 2}));
    Plan plan = plan_program(ir::parse_program("C[i,j] = A[i,j] + B[i,j]"), {{"A", &a}, {"B", &a}});
    ASSERT_EQ(plan.candidates.size(), 1u);
    EXPECT_EQ(plan.candidates[0].description, "as written (not weighed)");
}

TEST(PlannerStatistics, MeasuredOncePerContent) {
    Tensor a = random_matrix(30, 30, 0.1, 5), b = random_matrix(30, 30, 0.1, 6);
    auto first = statistics_of(a);
    EXPECT_EQ(statistics_of(a).get(), first.get()); // the same object: no second scan
    EXPECT_NE(statistics_of(b).get(), first.get());
    EXPECT_EQ(first->entries, TensorStatistics::of(a).entries);
    Tensor copy = a; // other buffers, the same bytes: the same statistics
    EXPECT_EQ(statistics_of(copy).get(), first.get());
    Tensor csc = a.convert(Format::csc()); // the same entries stored otherwise: measured again
    EXPECT_NE(statistics_of(csc).get(), first.get());
}

TEST(PlannerStatistics, EntriesChangedInPlaceAreMeasuredAgain) {
    // The same buffers at the same addresses and lengths, other contents: a key of addresses
    // would return the first statistics.
    Tensor a = make({3, 4}, "csr", {{{0, 1}, 1}, {{2, 2}, 3}});
    auto before = statistics_of(a);
    EXPECT_EQ(before->per_coordinate[1], (std::vector<int64_t>{0, 1, 1, 0}));
    const void* crd = a.level(1).buffers.back().data<void>();
    a.level(1).buffers.back().set(1, Scalar::of(int64_t{3})); // row 2's entry moves to column 3
    a.values().set(0, Scalar::of(0.0));                       // row 0's entry becomes the fill
    ASSERT_EQ(a.level(1).buffers.back().data<void>(), crd);
    auto after = statistics_of(a);
    EXPECT_NE(after.get(), before.get());
    EXPECT_EQ(after->entries, 1);
    EXPECT_EQ(after->per_coordinate[1], (std::vector<int64_t>{0, 0, 0, 1}));
}

TEST(PlannerStatistics, ATensorAllocatedWhereAFreedOneWasGetsItsOwnStatistics) {
    // Freed and allocated again with the same sizes, the buffers usually land at the same
    // addresses; the statistics must be the new tensor's either way.
    std::vector<int64_t> entries;
    for (uint64_t seed = 20; seed < 26; ++seed) {
        auto t = std::make_unique<Tensor>(random_matrix_of(40, 40, 0.2, "csr", seed, 0.0,
                                                           [&](double u) { return u < 0.5 ? 0.0 : u; }));
        auto s = statistics_of(*t);
        TensorStatistics fresh = TensorStatistics::of(*t);
        EXPECT_EQ(s->entries, fresh.entries) << seed;
        EXPECT_EQ(s->per_coordinate, fresh.per_coordinate) << seed;
        EXPECT_EQ(s->max_fibre, fresh.max_fibre) << seed;
        entries.push_back(s->entries);
    }
    EXPECT_GT(std::set<int64_t>(entries.begin(), entries.end()).size(), 1u); // not all alike
}

} // namespace
} // namespace siskin::testing
