// SparseBand: exact stored arrays on inputs checked by hand, and refused formats.
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

int64_t visits(const Tensor& t) {
    int64_t count = 0;
    t.for_each_stored([&](std::span<const int64_t>, const Scalar&) { ++count; });
    return count;
}

} // namespace

// The band 3..6 of a length-11 vector; coordinate 5 was not given and is stored as the fill.
TEST(LevelsSparseBand, BandOfAVector) {
    Tensor t = Tensor::from_coordinates({11}, ValueType::Float64, Scalar::of(0.0),
                                        Format::parse("sparseband(0)", 1),
                                        entries(1, {{{6}, 3}, {{3}, 1}, {{4}, 2}}));
    ASSERT_EQ(t.num_levels(), 1);
    EXPECT_EQ(t.level(0).names, (std::vector<std::string>{"ofs", "idx"}));
    EXPECT_EQ(ints(t.level(0).buffer("ofs")), (V{0, 4}));
    EXPECT_EQ(ints(t.level(0).buffer("idx")), (V{7}));
    EXPECT_EQ(doubles(t.values()), (D{1, 2, 0, 3}));
    EXPECT_EQ(t.stored(), 4);
    EXPECT_EQ(visits(t), 4);
    D expected = {0, 0, 0, 1, 2, 0, 3, 0, 0, 0, 0};
    for (int64_t i = 0; i < 11; ++i) EXPECT_EQ(t.at({i}).as_double(), expected[size_t(i)]) << i;
    std::vector<int64_t> seen;
    t.for_each_stored([&](std::span<const int64_t> c, const Scalar&) { seen.push_back(c[0]); });
    EXPECT_EQ(seen, (V{3, 4, 5, 6}));
    EXPECT_EQ(t.format().to_string(), "sparseband(0)@32");
}

TEST(LevelsSparseBand, RowsOfAMatrixWithAnEmptyRow) {
    Tensor t = matrix("dense(0)/band(1)");
    EXPECT_EQ(ints(t.level(1).buffer("ofs")), (V{0, 3, 3, 5}));
    EXPECT_EQ(ints(t.level(1).buffer("idx")), (V{4, 0, 2}));
    EXPECT_EQ(doubles(t.values()), (D{1, 0, 2, 3, 4}));
    EXPECT_EQ(t.stored(), 5);
    EXPECT_EQ(t.at({0, 0}).as_double(), 0);
    EXPECT_EQ(t.at({0, 3}).as_double(), 2);
    EXPECT_EQ(t.at({1, 1}).as_double(), 0);
    EXPECT_EQ(t.at({2, 1}).as_double(), 4);
    EXPECT_EQ(t.at({2, 2}).as_double(), 0);
}

// Above another level: the gap row 1 is a stored position whose fibre is empty (or all fill).
TEST(LevelsSparseBand, AsAnOuterLevel) {
    Tensor t = matrix("sparseband(0)/sparselist(1)");
    EXPECT_EQ(ints(t.level(0).buffer("ofs")), (V{0, 3}));
    EXPECT_EQ(ints(t.level(0).buffer("idx")), (V{3}));
    EXPECT_EQ(ints(t.level(1).buffer("pos")), (V{0, 2, 2, 4}));
    EXPECT_EQ(ints(t.level(1).buffer("crd")), (V{1, 3, 0, 1}));
    EXPECT_EQ(doubles(t.values()), (D{1, 2, 3, 4}));
    EXPECT_EQ(t.stored(), 4);

    Tensor d = matrix("sparseband(0)/dense(1)");
    EXPECT_EQ(doubles(d.values()), (D{0, 1, 0, 2, 0, 0, 0, 0, 3, 4, 0, 0}));
    EXPECT_EQ(d.stored(), 12);
    EXPECT_TRUE(d.equals(matrix("csr")));
}

TEST(LevelsSparseBand, EmptyTensor) {
    Tensor t(std::vector<int64_t>{2, 5}, ValueType::Int32, Scalar::of(int32_t{7}),
             Format::parse("dense(0)/sparseband(1)@64", 2));
    EXPECT_EQ(ints(t.level(1).buffer("ofs")), (V{0, 0, 0}));
    EXPECT_EQ(ints(t.level(1).buffer("idx")), (V{0, 0}));
    EXPECT_EQ(t.level(1).buffer("idx").type(), ValueType::Int64);
    EXPECT_EQ(t.stored(), 0);
    EXPECT_EQ(t.at({1, 4}).as_int(), 7);
}

TEST(LevelsSparseBand, RefusedPlaces) {
    // The gap positions would read as true.
    EXPECT_TRUE(throws_error(
        [] {
            Tensor(std::vector<int64_t>{4}, ValueType::Bool, Scalar::of(false),
                   Format::parse("sparseband(0)/pattern", 1));
        },
        {"pattern leaf cannot follow a sparseband level"}));
    EXPECT_TRUE(throws_error([] { Format::parse("sparseband(0,1)", 2); },
                             {"sparseband level stores exactly 1 mode, not 2"}));
}

// The three structural levels' spellings and aliases, and the list of known names.
TEST(LevelsSparseBand, SpellingsAndAliases) {
    EXPECT_EQ(Format::parse("dense(0)/band(1)@64", 2).to_string(), "dense(0)/sparseband(1)@64");
    EXPECT_EQ(Format::parse("rle(0)", 1).to_string(), "runlist(0)");
    EXPECT_EQ(Format::parse("bytemap(1)/sparselist(0)/pattern", 2).to_string(),
              "sparsebytemap(1)/sparselist(0)/pattern");
    for (const char* f : {"sparseband(0)/runlist(1)", "sparsebytemap(0)/dense(1)@32"})
        EXPECT_EQ(Format::parse(Format::parse(f, 2).to_string(), 2), Format::parse(f, 2));
    EXPECT_TRUE(throws_error([] { Format::parse("bnad(0)", 1); },
                             {"unknown level 'bnad'", "sparseband (band)", "runlist (rle)",
                              "sparsebytemap (bytemap)"}));
}
