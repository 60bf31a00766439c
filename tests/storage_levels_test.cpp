// Exact stored arrays of every level format on small inputs checked by hand.
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

// A 3 x 4 matrix:  [0 1 0 2]
//                  [0 0 0 0]
//                  [3 4 0 0]   given out of order.
CoordinateList matrix_entries() {
    return entries(2, {{{2, 1}, 4}, {{0, 3}, 2}, {{2, 0}, 3}, {{0, 1}, 1}});
}

Tensor matrix(const std::string& format) {
    return Tensor::from_coordinates({3, 4}, ValueType::Float64, Scalar::of(0.0),
                                    Format::parse(format, 2), matrix_entries());
}

} // namespace

TEST(StorageLevels, Csr) {
    Tensor t = matrix("csr");
    ASSERT_EQ(t.num_levels(), 2);
    EXPECT_EQ(t.level(0).names, std::vector<std::string>{});
    EXPECT_EQ(ints(t.level(1).buffer("pos")), (V{0, 2, 2, 4}));
    EXPECT_EQ(ints(t.level(1).buffer("crd")), (V{1, 3, 0, 1}));
    EXPECT_EQ(doubles(t.values()), (D{1, 2, 3, 4}));
    EXPECT_EQ(t.stored(), 4);
    EXPECT_EQ(t.format().to_string(), "dense(0)@32/sparselist(1)@32");
}

TEST(StorageLevels, Csc) {
    Tensor t = matrix("csc");
    EXPECT_EQ(ints(t.level(1).buffer("pos")), (V{0, 1, 3, 3, 4}));
    EXPECT_EQ(ints(t.level(1).buffer("crd")), (V{2, 0, 2, 0}));
    EXPECT_EQ(doubles(t.values()), (D{3, 1, 4, 2}));
}

TEST(StorageLevels, Dcsr) {
    Tensor t = matrix("dcsr");
    EXPECT_EQ(ints(t.level(0).buffer("pos")), (V{0, 2}));
    EXPECT_EQ(ints(t.level(0).buffer("crd")), (V{0, 2}));
    EXPECT_EQ(ints(t.level(1).buffer("pos")), (V{0, 2, 4}));
    EXPECT_EQ(ints(t.level(1).buffer("crd")), (V{1, 3, 0, 1}));
    EXPECT_EQ(doubles(t.values()), (D{1, 2, 3, 4}));
}

TEST(StorageLevels, Dcsc) {
    Tensor t = matrix("dcsc");
    EXPECT_EQ(ints(t.level(0).buffer("pos")), (V{0, 3}));
    EXPECT_EQ(ints(t.level(0).buffer("crd")), (V{0, 1, 3}));
    EXPECT_EQ(ints(t.level(1).buffer("pos")), (V{0, 1, 3, 4}));
    EXPECT_EQ(ints(t.level(1).buffer("crd")), (V{2, 0, 2, 0}));
    EXPECT_EQ(doubles(t.values()), (D{3, 1, 4, 2}));
}

TEST(StorageLevels, Coo) {
    Tensor t = matrix("coo");
    ASSERT_EQ(t.num_levels(), 1);
    EXPECT_EQ(t.level(0).names, (std::vector<std::string>{"pos", "crd0", "crd1"}));
    EXPECT_EQ(ints(t.level(0).buffer("pos")), (V{0, 4}));
    EXPECT_EQ(ints(t.level(0).buffer("crd0")), (V{0, 0, 2, 2}));
    EXPECT_EQ(ints(t.level(0).buffer("crd1")), (V{1, 3, 0, 1}));
    EXPECT_EQ(doubles(t.values()), (D{1, 2, 3, 4}));
}

TEST(StorageLevels, CooInColumnMajorOrder) {
    Tensor t = matrix("coo(1,0)");
    EXPECT_EQ(ints(t.level(0).buffer("crd0")), (V{0, 1, 1, 3})); // columns
    EXPECT_EQ(ints(t.level(0).buffer("crd1")), (V{2, 0, 2, 0})); // rows
    EXPECT_EQ(doubles(t.values()), (D{3, 1, 4, 2}));
}

TEST(StorageLevels, DenseEverywhereStoresEveryPositionWithTheFill) {
    Tensor t = Tensor::from_coordinates({3, 4}, ValueType::Float64, Scalar::of(-1.0),
                                        Format::dense(2), matrix_entries());
    EXPECT_EQ(doubles(t.values()), (D{-1, 1, -1, 2, -1, -1, -1, -1, 3, 4, -1, -1}));
    EXPECT_EQ(t.stored(), 12);
}

TEST(StorageLevels, SparseRowsOfDenseColumns) {
    Tensor t = matrix("sparselist(0)/dense(1)");
    EXPECT_EQ(ints(t.level(0).buffer("pos")), (V{0, 2}));
    EXPECT_EQ(ints(t.level(0).buffer("crd")), (V{0, 2}));
    EXPECT_EQ(doubles(t.values()), (D{0, 1, 0, 2, 3, 4, 0, 0}));
    EXPECT_EQ(t.stored(), 8);
}

// A 2 x 3 x 4 tensor stored as CSF in mode order 2, 0, 1.
// Entries (i,j,k): (0,0,1)=1 (1,2,1)=2 (0,2,3)=3 (1,0,1)=4 (0,1,1)=5; in (k,i,j) order:
// (1,0,0)=1 (1,0,1)=5 (1,1,0)=4 (1,1,2)=2 (3,0,2)=3.
TEST(StorageLevels, Csf3dPermuted) {
    CoordinateList list = entries(3, {{{0, 0, 1}, 1}, {{1, 2, 1}, 2}, {{0, 2, 3}, 3},
                                      {{1, 0, 1}, 4}, {{0, 1, 1}, 5}});
    Tensor t = Tensor::from_coordinates({2, 3, 4}, ValueType::Float64, Scalar::of(0.0),
                                        Format::parse("csf(2,0,1)", 3), list);
    EXPECT_EQ(t.format().mode_order(), (std::vector<int>{2, 0, 1}));
    EXPECT_EQ(ints(t.level(0).buffer("pos")), (V{0, 2}));
    EXPECT_EQ(ints(t.level(0).buffer("crd")), (V{1, 3}));
    EXPECT_EQ(ints(t.level(1).buffer("pos")), (V{0, 2, 3}));
    EXPECT_EQ(ints(t.level(1).buffer("crd")), (V{0, 1, 0}));
    EXPECT_EQ(ints(t.level(2).buffer("pos")), (V{0, 2, 4, 5}));
    EXPECT_EQ(ints(t.level(2).buffer("crd")), (V{0, 1, 0, 2, 2}));
    EXPECT_EQ(doubles(t.values()), (D{1, 5, 4, 2, 3}));
    EXPECT_EQ(t.at({1, 2, 1}).as_double(), 2);
    EXPECT_EQ(t.at({1, 2, 2}).as_double(), 0);

    // The same entries under a dense level for mode 2 and one COO level for modes 0 and 1.
    Tensor u = Tensor::from_coordinates({2, 3, 4}, ValueType::Float64, Scalar::of(0.0),
                                        Format::parse("dense(2)/coo(0,1)", 3), list);
    EXPECT_EQ(ints(u.level(1).buffer("pos")), (V{0, 0, 4, 4, 5}));
    EXPECT_EQ(ints(u.level(1).buffer("crd0")), (V{0, 0, 1, 1, 0}));
    EXPECT_EQ(ints(u.level(1).buffer("crd1")), (V{0, 1, 0, 2, 2}));
    EXPECT_EQ(doubles(u.values()), (D{1, 5, 4, 2, 3}));
    EXPECT_TRUE(u.equals(t));
}

TEST(StorageLevels, IndexWidths) {
    Tensor narrow = matrix("csr");
    EXPECT_EQ(narrow.level(1).buffer("pos").type(), ValueType::Int32);
    EXPECT_EQ(narrow.level(1).buffer("crd").type(), ValueType::Int32);
    Tensor wide = matrix("csr@64");
    EXPECT_EQ(wide.level(1).buffer("pos").type(), ValueType::Int64);
    EXPECT_EQ(wide.level(1).buffer("crd").type(), ValueType::Int64);
    EXPECT_EQ(ints(wide.level(1).buffer("crd")), (V{1, 3, 0, 1}));
    EXPECT_EQ(wide.format().to_string(), "dense(0)@64/sparselist(1)@64");
    Tensor mixed = matrix("dense(0)@32/sparselist(1)@64");
    EXPECT_EQ(mixed.level(1).buffer("crd").type(), ValueType::Int64);

    // An extent beyond int32 makes an unspecified width 64 bits, and @32 an error.
    int64_t big = int64_t{5} << 30;
    CoordinateList list = entries(2, {{{1, big - 1}, 7}});
    Tensor chosen = Tensor::from_coordinates({3, big}, ValueType::Float64, Scalar::of(0.0),
                                             Format::csr(), list);
    EXPECT_EQ(chosen.format().to_string(), "dense(0)@32/sparselist(1)@64");
    EXPECT_EQ(ints(chosen.level(1).buffer("crd")), (V{big - 1}));
    EXPECT_EQ(chosen.at({1, big - 1}).as_double(), 7);
    EXPECT_TRUE(throws_error(
        [&] {
            Tensor::from_coordinates({3, big}, ValueType::Float64, Scalar::of(0.0),
                                     Format::parse("csr@32", 2), list);
        },
        {"sparselist@32", "64-bit"}));
}

TEST(StorageLevels, PatternLeafStoresNoValues) {
    CoordinateList list;
    list.ndims = 2;
    for (auto [i, j, v] : std::initializer_list<std::tuple<int64_t, int64_t, bool>>{
             {2, 1, true}, {0, 3, true}, {2, 0, false}, {0, 1, true}})
        list.add(V{i, j}, Scalar::of(v));
    Tensor t = Tensor::from_coordinates({3, 4}, ValueType::Bool, Scalar::of(false),
                                        Format::parse("dense(0)/sparselist(1)/pattern", 2), list);
    EXPECT_EQ(t.values().size(), 0);
    // The false entry is not stored: it reads as the fill anyway.
    EXPECT_EQ(ints(t.level(1).buffer("pos")), (V{0, 2, 2, 3}));
    EXPECT_EQ(ints(t.level(1).buffer("crd")), (V{1, 3, 1}));
    EXPECT_EQ(t.stored(), 3);
    EXPECT_TRUE(t.at({2, 1}).as_bool());
    EXPECT_FALSE(t.at({2, 0}).as_bool());
    EXPECT_EQ(t.at({0, 3}).type(), ValueType::Bool);
}

TEST(StorageLevels, PatternLeafRequirements) {
    Format pattern_csr = Format::parse("csr/pattern", 2);
    EXPECT_TRUE(throws_error(
        [&] { Tensor({3, 4}, ValueType::Float64, Scalar::of(0.0), pattern_csr); },
        {"pattern", "bool"}));
    EXPECT_TRUE(throws_error(
        [&] { Tensor({3, 4}, ValueType::Bool, Scalar::of(true), pattern_csr); },
        {"pattern", "fill false"}));
    EXPECT_TRUE(throws_error(
        [&] { Tensor({3, 4}, ValueType::Bool, Scalar::of(false), Format::parse("dense/pattern", 2)); },
        {"pattern leaf cannot follow a dense level"}));
    EXPECT_TRUE(throws_error(
        [&] { Tensor({}, ValueType::Bool, Scalar::of(false), Format::parse("pattern", 0)); },
        {"0-dimensional"}));
}

TEST(StorageLevels, ZeroDimensional) {
    CoordinateList list;
    list.ndims = 0;
    list.add({}, Scalar::of(1.5));
    list.add({}, Scalar::of(2.0));
    Tensor t = Tensor::from_coordinates({}, ValueType::Float64, Scalar::of(0.0),
                                        Format::parse("element", 0), list);
    EXPECT_EQ(t.num_levels(), 0);
    EXPECT_EQ(doubles(t.values()), (D{3.5}));
    EXPECT_EQ(t.stored(), 1);
    EXPECT_EQ(t.at({}).as_double(), 3.5);
    EXPECT_EQ(t.to_dense().size(), 1u);
    EXPECT_EQ(t.to_dense()[0].as_double(), 3.5);
    int visits = 0;
    t.for_each_stored([&](std::span<const int64_t> c, const Scalar& v) {
        EXPECT_TRUE(c.empty());
        EXPECT_EQ(v.as_double(), 3.5);
        ++visits;
    });
    EXPECT_EQ(visits, 1);

    Tensor empty({}, ValueType::Int32, Scalar::of(int32_t{7}), Format::dense(0));
    EXPECT_EQ(empty.at({}).as_int(), 7);
    EXPECT_EQ(empty.stored(), 1);
    EXPECT_TRUE(empty.equals(Tensor::from_dense({}, ValueType::Int32, Scalar::of(int32_t{0}),
                                                Format::coo(0), std::vector{Scalar::of(7)})));
    EXPECT_FALSE(empty.equals(t));
}

TEST(StorageLevels, EmptyTensors) {
    Tensor csr({3, 4}, ValueType::Float64, Scalar::of(0.0), Format::csr());
    EXPECT_EQ(ints(csr.level(1).buffer("pos")), (V{0, 0, 0, 0}));
    EXPECT_EQ(csr.level(1).buffer("crd").size(), 0);
    EXPECT_EQ(csr.stored(), 0);
    Tensor coo({3, 4}, ValueType::Float64, Scalar::of(0.0), Format::coo(2));
    EXPECT_EQ(ints(coo.level(0).buffer("pos")), (V{0, 0}));
    Tensor dense({2, 2}, ValueType::Int8, Scalar::of(int8_t{5}), Format::dense(2));
    EXPECT_EQ(ints(dense.values()), (V{5, 5, 5, 5}));
    Tensor zero_rows({0, 4}, ValueType::Float64, Scalar::of(0.0), Format::csr());
    EXPECT_EQ(ints(zero_rows.level(1).buffer("pos")), (V{0}));
    EXPECT_EQ(zero_rows.to_dense().size(), 0u);
}
