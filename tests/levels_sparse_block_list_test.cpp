// SparseBlockList (VBL): exact stored arrays (Finch case 25, 0-based with exclusive block ends),
// as an outer level, and its spellings.
#include <gtest/gtest.h>

#include "siskin/tensor.hpp"
#include "storage_helpers.hpp"

using namespace siskin;
using siskin::testing::doubles;
using siskin::testing::entries;
using siskin::testing::ints;
using V = std::vector<int64_t>;
using D = std::vector<double>;

TEST(LevelsSparseBlockList, BlocksOfAVector) {
    Tensor t = Tensor::from_coordinates({12}, ValueType::Float64, Scalar::of(0.0), Format::parse("vbl(0)", 1),
                                        entries(1, {{{9}, 5}, {{1}, 1}, {{2}, 2}, {{3}, 3}, {{8}, 4}}));
    EXPECT_EQ(t.level(0).names, (std::vector<std::string>{"pos", "idx", "ofs"}));
    EXPECT_EQ(ints(t.level(0).buffer("pos")), (V{0, 2}));
    EXPECT_EQ(ints(t.level(0).buffer("idx")), (V{4, 10}));
    EXPECT_EQ(ints(t.level(0).buffer("ofs")), (V{0, 3, 5}));
    EXPECT_EQ(doubles(t.values()), (D{1, 2, 3, 4, 5}));
    EXPECT_EQ(t.stored(), 5);
    EXPECT_EQ(t.at({8}).as_double(), 4);
    EXPECT_EQ(t.at({4}).as_double(), 0);
    EXPECT_EQ(t.at({0}).as_double(), 0);
    EXPECT_EQ(t.format().to_string(), "sparseblocklist(0)@32");
}

// Above another level: rows 1, 2 and 4 stored, in two blocks; the entries of a row share its
// position.
TEST(LevelsSparseBlockList, AsAnOuterLevel) {
    Tensor t = Tensor::from_coordinates({5, 3}, ValueType::Float64, Scalar::of(1.0),
                                        Format::parse("sparseblocklist(0)/sparselist(1)", 2),
                                        entries(2, {{{1, 0}, 2}, {{1, 2}, 3}, {{2, 1}, 4}, {{4, 2}, 5}}));
    EXPECT_EQ(ints(t.level(0).buffer("idx")), (V{3, 5}));
    EXPECT_EQ(ints(t.level(0).buffer("ofs")), (V{0, 2, 3}));
    EXPECT_EQ(ints(t.level(1).buffer("pos")), (V{0, 2, 3, 4}));
    EXPECT_EQ(t.stored(), 4);
    EXPECT_EQ(t.at({1, 2}).as_double(), 3);
    EXPECT_EQ(t.at({3, 2}).as_double(), 1);
    EXPECT_EQ(Format::parse("blocklist(0)/vbl(1)", 2).to_string(), "sparseblocklist(0)/sparseblocklist(1)");
}
