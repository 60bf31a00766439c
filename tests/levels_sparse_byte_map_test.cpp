// SparseByteMap: exact stored arrays on inputs checked by hand, as the last and an outer level.
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

// [0 1 0 2] / [0 0 0 0] / [3 4 0 0], given out of order.
Tensor matrix(const std::string& format) {
    return Tensor::from_coordinates({3, 4}, ValueType::Float64, Scalar::of(0.0),
                                    Format::parse(format, 2),
                                    entries(2, {{{2, 1}, 4}, {{0, 3}, 2}, {{2, 0}, 3}, {{0, 1}, 1}}));
}

std::vector<std::pair<V, double>> listed(const Tensor& t) {
    std::vector<std::pair<V, double>> out;
    t.for_each_stored([&](std::span<const int64_t> c, const Scalar& v) {
        out.push_back({V(c.begin(), c.end()), v.as_double()});
    });
    return out;
}

} // namespace

// [0 7 0 0 8] / [9 0 0 0 0]: slots p*5+i; srt lists each row's columns in order.
TEST(LevelsSparseByteMap, TwoByFive) {
    Tensor t = Tensor::from_coordinates({2, 5}, ValueType::Float64, Scalar::of(0.0),
                                        Format::parse("dense(0)/sparsebytemap(1)", 2),
                                        entries(2, {{{0, 4}, 8}, {{1, 0}, 9}, {{0, 1}, 7}}));
    ASSERT_EQ(t.num_levels(), 2);
    EXPECT_EQ(t.level(1).names, (std::vector<std::string>{"pos", "tbl", "srt"}));
    EXPECT_EQ(ints(t.level(1).buffer("pos")), (V{0, 2, 3}));
    EXPECT_EQ(t.level(1).buffer("tbl").type(), ValueType::Bool);
    EXPECT_EQ(ints(t.level(1).buffer("tbl")), (V{0, 1, 0, 0, 1, 1, 0, 0, 0, 0}));
    EXPECT_EQ(ints(t.level(1).buffer("srt")), (V{1, 4, 0}));
    EXPECT_EQ(doubles(t.values()), (D{0, 7, 0, 0, 8, 9, 0, 0, 0, 0}));
    EXPECT_EQ(t.stored(), 3);
    EXPECT_EQ(listed(t), (std::vector<std::pair<V, double>>{{{0, 1}, 7}, {{0, 4}, 8}, {{1, 0}, 9}}));
    EXPECT_EQ(t.at({0, 4}).as_double(), 8);
    EXPECT_EQ(t.at({1, 4}).as_double(), 0);
    EXPECT_EQ(t.format().to_string(), "dense(0)@32/sparsebytemap(1)@32");
}

// As an outer level: the unused slot (row 1) owns an empty fibre below.
TEST(LevelsSparseByteMap, AsAnOuterLevel) {
    Tensor t = matrix("bytemap(0)/sparselist(1)");
    EXPECT_EQ(ints(t.level(0).buffer("pos")), (V{0, 2}));
    EXPECT_EQ(ints(t.level(0).buffer("tbl")), (V{1, 0, 1}));
    EXPECT_EQ(ints(t.level(0).buffer("srt")), (V{0, 2}));
    EXPECT_EQ(ints(t.level(1).buffer("pos")), (V{0, 2, 2, 4}));
    EXPECT_EQ(ints(t.level(1).buffer("crd")), (V{1, 3, 0, 1}));
    EXPECT_EQ(doubles(t.values()), (D{1, 2, 3, 4}));
    EXPECT_EQ(t.stored(), 4);
    EXPECT_TRUE(t.equals(matrix("csr")));
}

// Below an unused slot a dense fibre holds the fill and a runlist fibre is one fill run; neither
// counts as stored.
TEST(LevelsSparseByteMap, FullLevelsBelowUnusedSlots) {
    Tensor d = matrix("sparsebytemap(0)/dense(1)");
    EXPECT_EQ(doubles(d.values()), (D{0, 1, 0, 2, 0, 0, 0, 0, 3, 4, 0, 0}));
    EXPECT_EQ(d.stored(), 8);
    EXPECT_EQ(listed(d).size(), 8u);
    EXPECT_TRUE(d.equals(matrix("csr")));

    Tensor r = matrix("sparsebytemap(0)/runlist(1)");
    EXPECT_EQ(ints(r.level(1).buffer("pos")), (V{0, 4, 5, 8}));
    EXPECT_EQ(ints(r.level(1).buffer("right")), (V{1, 2, 3, 4, 4, 1, 2, 4}));
    EXPECT_EQ(r.stored(), 7);
    EXPECT_EQ(listed(r).size(), 8u);
    EXPECT_TRUE(r.equals(matrix("csr")));
}

TEST(LevelsSparseByteMap, PatternLeaf) {
    CoordinateList list;
    list.ndims = 2;
    list.add(std::vector<int64_t>{1, 2}, Scalar::of(true));
    list.add(std::vector<int64_t>{0, 0}, Scalar::of(true));
    list.add(std::vector<int64_t>{1, 1}, Scalar::of(false)); // a pattern leaf drops false
    Tensor t = Tensor::from_coordinates({2, 3}, ValueType::Bool, Scalar::of(false),
                                        Format::parse("dense(0)/sparsebytemap(1)/pattern", 2), list);
    EXPECT_EQ(ints(t.level(1).buffer("tbl")), (V{1, 0, 0, 0, 0, 1}));
    EXPECT_EQ(t.values().size(), 0);
    EXPECT_EQ(t.stored(), 2);
    EXPECT_TRUE(t.at({1, 2}).as_bool());
    EXPECT_FALSE(t.at({1, 1}).as_bool());
    EXPECT_FALSE(t.at({0, 2}).as_bool());
}

TEST(LevelsSparseByteMap, TooManySlots) {
    EXPECT_TRUE(throws_error(
        [] {
            // Two rows, so that the pos array is small (a large one is refused first, for
            // memory: hardening_io_test Case04) and the slots, 2 * 2^62, wrap.
            Tensor(std::vector<int64_t>{2, int64_t(1) << 62}, ValueType::Float64,
                   Scalar::of(0.0), Format::parse("dense(0)/sparsebytemap(1)", 2));
        },
        {"more than 2^63 positions"}));
    EXPECT_TRUE(throws_error([] { Format::parse("bytemap(0,1)", 2); },
                             {"sparsebytemap level stores exactly 1 mode, not 2"}));
}
