// SparseRunList: exact stored arrays on Finch's representation examples (T1; 0-based, exclusive
// right ends), the run-length image format, and the places it refuses.
#include <gtest/gtest.h>

#include "siskin/tensor.hpp"
#include "storage_helpers.hpp"

using namespace siskin;
using siskin::testing::doubles;
using siskin::testing::ints;
using siskin::testing::throws_error;
using V = std::vector<int64_t>;
using D = std::vector<double>;

namespace {

Tensor bits(const std::vector<int>& b, const std::string& format) {
    std::vector<Scalar> dense;
    for (int x : b) dense.push_back(Scalar::of(x != 0));
    return Tensor::from_dense({static_cast<int64_t>(b.size())}, ValueType::Bool, Scalar::of(false),
                              Format::parse(format, 1), dense);
}

} // namespace

// [F,T,T,F,F,T]: Finch's ptr=[1,3], left=[2,6], right=[3,6] (1-based, inclusive).
TEST(LevelsSparseRunList, PatternRunsOfABooleanVector) {
    Tensor t = bits({0, 1, 1, 0, 0, 1}, "sparserunlist(0)/pattern");
    EXPECT_EQ(t.level(0).names, (std::vector<std::string>{"pos", "left", "right"}));
    EXPECT_EQ(ints(t.level(0).buffer("pos")), (V{0, 2}));
    EXPECT_EQ(ints(t.level(0).buffer("left")), (V{1, 5}));
    EXPECT_EQ(ints(t.level(0).buffer("right")), (V{3, 6}));
    EXPECT_EQ(t.stored(), 2);
    EXPECT_TRUE(t.at({2}).as_bool());
    EXPECT_FALSE(t.at({3}).as_bool());
    // The 1111-long mix of Finch's T1: runs [2:3], [555:999], [1001:1001] (1-based).
    std::vector<int> mix(1111, 0);
    for (int i : {2, 3, 1001}) mix[size_t(i - 1)] = 1;
    for (int i = 555; i <= 999; ++i) mix[size_t(i - 1)] = 1;
    Tensor m = bits(mix, "sparserle(0)/pattern");
    EXPECT_EQ(ints(m.level(0).buffer("left")), (V{1, 554, 1000}));
    EXPECT_EQ(ints(m.level(0).buffer("right")), (V{3, 999, 1001}));
    EXPECT_EQ(m.format().to_string(), "sparserunlist(0)@32/pattern");
}

// Values: equal neighbours share a run, touching runs of different values stay apart, and the
// fill between them is a gap.
TEST(LevelsSparseRunList, RunsOfValues) {
    std::vector<Scalar> v;
    for (double x : {0.0, 2.0, 2.0, 0.0, 3.0, 3.0, 4.0, 0.0}) v.push_back(Scalar::of(x));
    Tensor t = Tensor::from_dense({8}, ValueType::Float64, Scalar::of(0.0), Format::parse("sparserunlist(0)", 1), v);
    EXPECT_EQ(ints(t.level(0).buffer("left")), (V{1, 4, 6}));
    EXPECT_EQ(ints(t.level(0).buffer("right")), (V{3, 6, 7}));
    EXPECT_EQ(doubles(t.values()), (D{2, 3, 4}));
    EXPECT_EQ(t.stored(), 3);
    int64_t visits = 0;
    t.for_each_stored([&](std::span<const int64_t>, const Scalar&) { ++visits; });
    EXPECT_EQ(visits, 5);
}

// The run-length image: rows dense, runs of each row; an empty row has no runs.
TEST(LevelsSparseRunList, RunLengthImage) {
    std::vector<Scalar> img;
    for (int x : {0, 1, 1, 1, 0, 0, 0, 0, 1, 0, 1, 1}) img.push_back(Scalar::of(x != 0));
    Tensor t = Tensor::from_dense({3, 4}, ValueType::Bool, Scalar::of(false),
                                  Format::parse("dense(0)/sparserunlist(1)/pattern", 2), img);
    EXPECT_EQ(ints(t.level(1).buffer("pos")), (V{0, 1, 1, 3}));
    EXPECT_EQ(ints(t.level(1).buffer("left")), (V{1, 0, 2}));
    EXPECT_EQ(ints(t.level(1).buffer("right")), (V{4, 1, 4}));
    EXPECT_EQ(t.stored(), 3);
    Tensor none(std::vector<int64_t>{2, 5}, ValueType::Int32, Scalar::of(int32_t{7}),
                Format::parse("dense(0)/sparserunlist(1)@64", 2));
    EXPECT_EQ(ints(none.level(1).buffer("pos")), (V{0, 0, 0}));
    EXPECT_EQ(none.level(1).buffer("left").type(), ValueType::Int64);
    EXPECT_EQ(none.at({1, 4}).as_int(), 7);
}

TEST(LevelsSparseRunList, RefusedPlaces) {
    EXPECT_TRUE(throws_error([] { Format::parse("sparserunlist(0)/dense(1)", 2); },
                             {"sparserunlist level must be the last level"}));
    EXPECT_TRUE(throws_error([] { Format::parse("sparserunlist(0,1)", 2); },
                             {"sparserunlist level stores exactly 1 mode, not 2"}));
}
