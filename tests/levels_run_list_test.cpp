// RunList: exact stored arrays on inputs checked by hand, run merging (of values and of
// sub-fibres), and refused formats.
#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "siskin/tensor.hpp"
#include "storage_helpers.hpp"

using namespace siskin;
using siskin::testing::doubles;
using siskin::testing::entries;
using siskin::testing::ints;
using siskin::testing::throws_error;
using V = std::vector<int64_t>;
using D = std::vector<double>;

namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();

Tensor vector_of(const std::string& format, int64_t n, double fill, const CoordinateList& list) {
    return Tensor::from_coordinates({n}, ValueType::Float64, Scalar::of(fill),
                                    Format::parse(format, 1), list);
}

int64_t visits(const Tensor& t) {
    int64_t count = 0;
    t.for_each_stored([&](std::span<const int64_t>, const Scalar&) { ++count; });
    return count;
}

} // namespace

// Finch's example [F,T,T,F,F,T]: runs [0,1) [1,3) [3,5) [5,6) holding F,T,F,T.
TEST(LevelsRunList, FinchBoolExample) {
    CoordinateList list;
    list.ndims = 1;
    for (int64_t i : {1, 2, 5}) list.add(std::vector<int64_t>{i}, Scalar::of(true));
    Tensor t = Tensor::from_coordinates({6}, ValueType::Bool, Scalar::of(false),
                                        Format::parse("runlist(0)", 1), list);
    ASSERT_EQ(t.num_levels(), 1);
    EXPECT_EQ(t.level(0).names, (std::vector<std::string>{"pos", "right"}));
    EXPECT_EQ(ints(t.level(0).buffer("pos")), (V{0, 4}));
    EXPECT_EQ(ints(t.level(0).buffer("right")), (V{1, 3, 5, 6}));
    EXPECT_EQ(ints(t.values()), (V{0, 1, 0, 1}));
    EXPECT_EQ(t.stored(), 4);     // one value per run
    EXPECT_EQ(visits(t), 6);      // every coordinate of every run
    EXPECT_EQ(t.format().to_string(), "runlist(0)@32");
    bool expected[] = {false, true, true, false, false, true};
    for (int64_t i = 0; i < 6; ++i) EXPECT_EQ(t.at({i}).as_bool(), expected[i]) << i;
}

// Gaps are fill runs; equal neighbours merge, and an explicit fill joins the fill around it.
TEST(LevelsRunList, MergesEqualNeighboursAndExplicitFills) {
    Tensor t = vector_of("rle(0)", 8, 0.0,
                         entries(1, {{{6}, 5}, {{2}, 5}, {{3}, 5}, {{4}, 0}}));
    EXPECT_EQ(ints(t.level(0).buffer("right")), (V{2, 4, 6, 7, 8}));
    EXPECT_EQ(doubles(t.values()), (D{0, 5, 0, 5, 0}));
    EXPECT_EQ(t.stored(), 5);
    EXPECT_EQ(t.to_dense().size(), 8u);
    EXPECT_EQ(t.at({3}).as_double(), 5);
    EXPECT_EQ(t.at({4}).as_double(), 0);
    EXPECT_EQ(t.at({7}).as_double(), 0);
}

TEST(LevelsRunList, NaNRunsMerge) {
    Tensor t = vector_of("runlist(0)", 5, kNaN,
                         entries(1, {{{0}, kNaN}, {{1}, 1}, {{2}, 1}, {{4}, kNaN}}));
    EXPECT_EQ(ints(t.level(0).buffer("right")), (V{1, 3, 5}));
    D v = doubles(t.values());
    ASSERT_EQ(v.size(), 3u);
    EXPECT_TRUE(std::isnan(v[0]));
    EXPECT_EQ(v[1], 1);
    EXPECT_TRUE(std::isnan(v[2]));
}

TEST(LevelsRunList, AllFillVectorIsOneRun) {
    Tensor t(std::vector<int64_t>{7}, ValueType::Float64, Scalar::of(2.5), Format::parse("runlist(0)", 1));
    EXPECT_EQ(ints(t.level(0).buffer("pos")), (V{0, 1}));
    EXPECT_EQ(ints(t.level(0).buffer("right")), (V{7}));
    EXPECT_EQ(doubles(t.values()), (D{2.5}));
    Tensor empty(std::vector<int64_t>{0}, ValueType::Float64, Scalar::of(0.0),
                 Format::parse("runlist(0)", 1));
    EXPECT_EQ(ints(empty.level(0).buffer("pos")), (V{0, 0}));
    EXPECT_EQ(empty.stored(), 0);
}

// Rows  [0 1 0 2] / [0 0 0 0] / [3 4 0 0]: every row's runs cover its 4 columns.
TEST(LevelsRunList, RowsOfAMatrix) {
    Tensor t = Tensor::from_coordinates(
        {3, 4}, ValueType::Float64, Scalar::of(0.0), Format::parse("dense(0)/runlist(1)", 2),
        entries(2, {{{2, 1}, 4}, {{0, 3}, 2}, {{2, 0}, 3}, {{0, 1}, 1}}));
    EXPECT_EQ(ints(t.level(1).buffer("pos")), (V{0, 4, 5, 8}));
    EXPECT_EQ(ints(t.level(1).buffer("right")), (V{1, 2, 3, 4, 4, 1, 2, 4}));
    EXPECT_EQ(doubles(t.values()), (D{0, 1, 0, 2, 0, 3, 4, 0}));
    EXPECT_EQ(t.stored(), 8);
    EXPECT_EQ(visits(t), 12);
    EXPECT_EQ(t.at({2, 3}).as_double(), 0);
    EXPECT_EQ(t.at({2, 1}).as_double(), 4);
    EXPECT_EQ(t.at({1, 2}).as_double(), 0);
}

// Constant columns compress to one run each when the runs go down the rows.
TEST(LevelsRunList, ColumnMajorRuns) {
    std::vector<Scalar> dense;
    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 3; ++j) dense.push_back(Scalar::of(double(j)));
    Tensor t = Tensor::from_dense({4, 3}, ValueType::Float64, Scalar::of(0.0),
                                  Format::parse("dense(1)/runlist(0)", 2), dense);
    EXPECT_EQ(ints(t.level(1).buffer("pos")), (V{0, 1, 2, 3}));
    EXPECT_EQ(ints(t.level(1).buffer("right")), (V{4, 4, 4}));
    EXPECT_EQ(doubles(t.values()), (D{0, 1, 2}));
    EXPECT_EQ(t.at({3, 2}).as_double(), 2);
}

TEST(LevelsRunList, IndexWidths) {
    Tensor t = vector_of("runlist(0)@64", 4, 0.0, entries(1, {{{1}, 3}}));
    EXPECT_EQ(t.level(0).buffer("right").type(), ValueType::Int64);
    EXPECT_EQ(t.format().to_string(), "runlist(0)@64");
    EXPECT_TRUE(throws_error([] { vector_of("runlist(0)@32", int64_t(1) << 40, 0.0, entries(1, {})); },
                             {"runlist@32", "64-bit"}));
}

// Runs of sub-fibres (Finch's case 18): rows [1,2],[1,2],[3,4],[3,4] of a runlist(0)/dense(1)
// matrix are 2 runs, right = [2, 4], with 4 leaves: each run's row stored once.
TEST(LevelsRunList, RunsOfRowsFinchCase18) {
    std::vector<Scalar> rows;
    for (double v : {1, 2, 1, 2, 3, 4, 3, 4}) rows.push_back(Scalar::of(v));
    Tensor t = Tensor::from_dense({4, 2}, ValueType::Float64, Scalar::of(0.0), Format::parse("runlist(0)/dense(1)", 2),
                                  rows);
    EXPECT_EQ(ints(t.level(0).buffer("pos")), (V{0, 2}));
    EXPECT_EQ(ints(t.level(0).buffer("right")), (V{2, 4}));
    EXPECT_EQ(doubles(t.values()), (D{1, 2, 3, 4}));
    EXPECT_EQ(t.stored(), 4);
    EXPECT_EQ(visits(t), 8);
    EXPECT_EQ(t.at({1, 1}).as_double(), 2);
    EXPECT_EQ(t.at({2, 0}).as_double(), 3);
}

// Runs above a sparse level: equal rows share a run and their entries are stored once; empty
// rows (no entry, or only explicit fills) are one run with an empty fibre below.
// Rows: {1: 5}, {1: 5}, {}, {2: 0 (the fill)}, {0: 1, 3: 2}, {}.
TEST(LevelsRunList, RunsOfSparseRows) {
    Tensor t = Tensor::from_coordinates(
        {6, 4}, ValueType::Float64, Scalar::of(0.0), Format::parse("runlist(0)/sparselist(1)", 2),
        entries(2, {{{0, 1}, 5}, {{1, 1}, 5}, {{3, 2}, 0}, {{4, 0}, 1}, {{4, 3}, 2}}));
    EXPECT_EQ(ints(t.level(0).buffer("pos")), (V{0, 4}));
    EXPECT_EQ(ints(t.level(0).buffer("right")), (V{2, 4, 5, 6}));
    EXPECT_EQ(ints(t.level(1).buffer("pos")), (V{0, 1, 1, 3, 3}));
    EXPECT_EQ(ints(t.level(1).buffer("crd")), (V{1, 0, 3}));
    EXPECT_EQ(doubles(t.values()), (D{5, 1, 2}));
    EXPECT_EQ(t.stored(), 3);
    EXPECT_EQ(visits(t), 2 + 2); // rows 0 and 1 visit their one entry each, row 4 its two
    std::vector<Scalar> dense = t.to_dense();
    EXPECT_EQ(dense[1 * 4 + 1].as_double(), 5);
    EXPECT_EQ(dense[4 * 4 + 3].as_double(), 2);
    EXPECT_EQ(t.at({3, 2}).as_double(), 0);
    EXPECT_EQ(t.at({5, 0}).as_double(), 0);
}

// Pattern leaves under a runlist, runlists above runlists, and the sub-fibres of a 3-D tensor:
// each stores its runs once and reads back what it was built from.
TEST(LevelsRunList, RunsAboveOtherLevelsReadBack) {
    CoordinateList bits;
    bits.ndims = 2;
    for (auto [i, j] : std::vector<std::pair<int64_t, int64_t>>{{0, 2}, {1, 2}, {2, 2}, {3, 0}})
        bits.add(std::vector<int64_t>{i, j}, Scalar::of(true));
    Tensor p = Tensor::from_coordinates({4, 3}, ValueType::Bool, Scalar::of(false),
                                        Format::parse("runlist(0)/sparselist(1)/pattern", 2), bits);
    EXPECT_EQ(ints(p.level(0).buffer("right")), (V{3, 4}));
    EXPECT_EQ(ints(p.level(1).buffer("crd")), (V{2, 0}));
    EXPECT_TRUE(p.at({1, 2}).as_bool());
    EXPECT_FALSE(p.at({1, 0}).as_bool());
    EXPECT_EQ(p.stored(), 2);

    // Rows [7,7,0], [7,7,0], [0,0,0]: runs of runs.
    Tensor r = Tensor::from_coordinates({3, 3}, ValueType::Float64, Scalar::of(0.0),
                                        Format::parse("rle(0)/rle(1)", 2),
                                        entries(2, {{{0, 0}, 7}, {{0, 1}, 7}, {{1, 0}, 7}, {{1, 1}, 7}}));
    EXPECT_EQ(ints(r.level(0).buffer("right")), (V{2, 3}));
    EXPECT_EQ(ints(r.level(1).buffer("pos")), (V{0, 2, 3}));
    EXPECT_EQ(ints(r.level(1).buffer("right")), (V{2, 3, 3}));
    EXPECT_EQ(doubles(r.values()), (D{7, 0, 0}));

    // A 2x3x2 tensor whose two slices are equal: one run of a dense(1)/sparselist(2) slice.
    CoordinateList cube;
    cube.ndims = 3;
    for (int64_t k = 0; k < 2; ++k) {
        cube.add(std::vector<int64_t>{k, 0, 1}, Scalar::of(4.0));
        cube.add(std::vector<int64_t>{k, 2, 0}, Scalar::of(-1.0));
    }
    Tensor c = Tensor::from_coordinates({2, 3, 2}, ValueType::Float64, Scalar::of(0.0),
                                        Format::parse("runlist(0)/dense(1)/sparselist(2)", 3), cube);
    EXPECT_EQ(ints(c.level(0).buffer("right")), (V{2}));
    EXPECT_EQ(ints(c.level(2).buffer("pos")), (V{0, 1, 1, 2}));
    EXPECT_EQ(doubles(c.values()), (D{4, -1}));
    EXPECT_EQ(c.at({1, 2, 0}).as_double(), -1);

    // Any fill: rows equal to the fill (inf) merge, explicit infs included.
    const double inf = std::numeric_limits<double>::infinity();
    Tensor f = Tensor::from_coordinates({3, 2}, ValueType::Float64, Scalar::of(inf),
                                        Format::parse("runlist(0)/bytemap(1)", 2),
                                        entries(2, {{{0, 1}, 1}, {{1, 0}, inf}}));
    EXPECT_EQ(ints(f.level(0).buffer("right")), (V{1, 3}));
    EXPECT_EQ(f.at({0, 1}).as_double(), 1);
    EXPECT_EQ(f.at({2, 1}).as_double(), inf);
}

TEST(LevelsRunList, RefusedPlaces) {
    // Every coordinate is covered by a run, so a pattern leaf right below would read true
    // everywhere.
    EXPECT_TRUE(throws_error(
        [] {
            Tensor(std::vector<int64_t>{4}, ValueType::Bool, Scalar::of(false),
                   Format::parse("runlist(0)/pattern", 1));
        },
        {"pattern leaf cannot follow a runlist level"}));
    EXPECT_TRUE(throws_error(
        [] {
            Tensor(std::vector<int64_t>{4, 2}, ValueType::Bool, Scalar::of(false),
                   Format::parse("sparselist(0)/runlist(1)/pattern", 2));
        },
        {"pattern leaf cannot follow a runlist level"}));
}
