// Tensor construction, element access, dense round trips, equality and printing.
#include <cmath>
#include <limits>
#include <random>

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
const double kInf = std::numeric_limits<double>::infinity();

std::vector<Scalar> scalars(std::initializer_list<double> values) {
    std::vector<Scalar> out;
    for (double v : values) out.push_back(Scalar::of(v));
    return out;
}

// Every preset and a few general spellings that fit `ndims` dimensions.
std::vector<std::string> formats_for(int ndims) {
    std::vector<std::string> out = {"dense", "coo", "csf", "dense@64", "coo@32"};
    if (ndims == 2) {
        for (const char* f : {"csr", "csc", "dcsr", "dcsc", "csf(1,0)", "coo(1,0)",
                              "sparselist(0)/dense(1)", "csr@64", "dcsc@32"})
            out.push_back(f);
    }
    if (ndims == 3) {
        for (const char* f : {"csf(2,0,1)", "csf(1,2,0)", "dense(1)/coo(2,0)",
                              "coo(0,1)/dense(2)", "s(2)/d(0)/s(1)@64"})
            out.push_back(f);
    }
    return out;
}

} // namespace

TEST(StorageTensor, DuplicatesAreSummedInInputOrder) {
    CoordinateList list = entries(2, {{{1, 1}, 1}, {{0, 0}, 2}, {{1, 1}, 10}, {{1, 1}, 100}});
    for (const char* f : {"csr", "coo", "dense", "dcsc"}) {
        Tensor t = Tensor::from_coordinates({2, 2}, ValueType::Float64, Scalar::of(0.0),
                                            Format::parse(f, 2), list);
        EXPECT_EQ(t.at({1, 1}).as_double(), 111) << f;
        EXPECT_EQ(t.at({0, 0}).as_double(), 2) << f;
    }
    Tensor csr = Tensor::from_coordinates({2, 2}, ValueType::Float64, Scalar::of(0.0),
                                          Format::csr(), list);
    EXPECT_EQ(doubles(csr.values()), (D{2, 111}));
    // Integers wrap as C does; bools or.
    CoordinateList small;
    small.ndims = 1;
    small.add(V{0}, Scalar::of(int64_t{200}));
    small.add(V{0}, Scalar::of(int64_t{100}));
    Tensor wrapped = Tensor::from_coordinates({1}, ValueType::UInt8, Scalar::of(uint8_t{0}),
                                              Format::dense(1), small);
    EXPECT_EQ(wrapped.at({0}).as_int(), 44);
    Tensor ored = Tensor::from_coordinates({1}, ValueType::Bool, Scalar::of(false),
                                           Format::csf(1), small);
    EXPECT_TRUE(ored.at({0}).as_bool());
}

TEST(StorageTensor, DuplicatesCanBeRejected) {
    CoordinateList list = entries(2, {{{1, 0}, 1}, {{0, 1}, 2}, {{1, 0}, 3}});
    EXPECT_TRUE(throws_error(
        [&] {
            Tensor::from_coordinates({2, 2}, ValueType::Float64, Scalar::of(0.0), Format::csr(),
                                     list, Duplicates::Reject);
        },
        {"duplicate entry at coordinate (1, 0)"}));
    CoordinateList unique = entries(2, {{{1, 0}, 1}, {{0, 1}, 2}});
    EXPECT_EQ(Tensor::from_coordinates({2, 2}, ValueType::Float64, Scalar::of(0.0),
                                       Format::csr(), unique, Duplicates::Reject)
                  .stored(),
              2);
}

TEST(StorageTensor, OutOfRangeCoordinatesAreRejected) {
    auto build = [](CoordinateList list) {
        return [list] {
            Tensor::from_coordinates({3, 4}, ValueType::Float64, Scalar::of(0.0), Format::csr(),
                                     list);
        };
    };
    EXPECT_TRUE(throws_error(build(entries(2, {{{0, 0}, 1}, {{3, 0}, 1}})),
                             {"coordinate (3, 0) is out of range for shape [3, 4]"}));
    EXPECT_TRUE(throws_error(build(entries(2, {{{1, 4}, 1}})), {"(1, 4)", "[3, 4]"}));
    EXPECT_TRUE(throws_error(build(entries(2, {{{-1, 2}, 1}})), {"(-1, 2)", "out of range"}));
    EXPECT_TRUE(throws_error(build(entries(3, {{{0, 0, 0}, 1}})), {"3-dimensional entries"}));
    CoordinateList bad;
    bad.ndims = 2;
    EXPECT_TRUE(throws_error([&] { bad.add(V{1}, Scalar::of(1.0)); }, {"(1)", "1 indices"}));
    bad.coords = {0, 0, 1};
    bad.values = scalars({1});
    EXPECT_TRUE(throws_error(build(bad), {"3 coordinates for 1 values"}));
}

TEST(StorageTensor, ShapeTypeAndFillAreChecked) {
    EXPECT_TRUE(throws_error(
        [] { Tensor({3, -1}, ValueType::Float64, Scalar::of(0.0), Format::csr()); },
        {"negative extent", "[3, -1]"}));
    EXPECT_TRUE(throws_error(
        [] { Tensor({3, 4, 5}, ValueType::Float64, Scalar::of(0.0), Format::csr()); },
        {"stores 2 dimensions", "[3, 4, 5]"}));
    EXPECT_TRUE(throws_error(
        [] { Tensor({3}, ValueType::Int32, Scalar::of(kInf), Format::dense(1)); },
        {"fill value inf is not a value of type int32"}));
    EXPECT_TRUE(throws_error(
        [] { Tensor({3}, ValueType::UInt8, Scalar::of(int64_t{300}), Format::dense(1)); },
        {"fill value 300"}));
    // A fill of another type that the tensor's type holds exactly is converted.
    Tensor t({2}, ValueType::Int16, Scalar::of(3.0), Format::dense(1));
    EXPECT_TRUE(t.fill().same(Scalar::of(int16_t{3})));
    Tensor f({2}, ValueType::Float32, Scalar::of(0.1), Format::dense(1));
    EXPECT_TRUE(f.fill().same(Scalar::of(0.1f)));
}

TEST(StorageTensor, ValuesAreConvertedToTheTensorType) {
    CoordinateList list = entries(1, {{{0}, 2.75}, {{2}, -1.5}});
    Tensor t = Tensor::from_coordinates({3}, ValueType::Int32, Scalar::of(int32_t{0}),
                                        Format::csf(1), list);
    EXPECT_EQ(t.values().type(), ValueType::Int32);
    EXPECT_EQ(ints(t.values()), (V{2, -1})); // C truncation
    EXPECT_TRUE(t.at({0}).same(Scalar::of(int32_t{2})));
}

TEST(StorageTensor, AtChecksArityAndRange) {
    Tensor t = Tensor::from_coordinates({3, 4}, ValueType::Float64, Scalar::of(0.5), Format::csr(),
                                        entries(2, {{{1, 2}, 3}}));
    EXPECT_EQ(t.at({1, 2}).as_double(), 3);
    EXPECT_EQ(t.at({2, 3}).as_double(), 0.5);
    EXPECT_TRUE(throws_error([&] { t.at({1}); }, {"coordinate (1) has 1 indices", "2 dimensions"}));
    EXPECT_TRUE(throws_error([&] { t.at({1, 2, 0}); }, {"3 indices"}));
    EXPECT_TRUE(throws_error([&] { t.at({3, 0}); }, {"(3, 0) is out of range for shape [3, 4]"}));
    EXPECT_TRUE(throws_error([&] { t.at({0, -1}); }, {"(0, -1) is out of range"}));
}

TEST(StorageTensor, FromDenseStoresOnlyElementsOtherThanTheFill) {
    std::vector<Scalar> values = scalars({0, 1, 0, 2, kNaN, 0});
    Tensor csr = Tensor::from_dense({2, 3}, ValueType::Float64, Scalar::of(0.0), Format::csr(),
                                    values);
    EXPECT_EQ(ints(csr.level(1).buffer("pos")), (V{0, 1, 3}));
    EXPECT_EQ(ints(csr.level(1).buffer("crd")), (V{1, 0, 1}));
    EXPECT_TRUE(std::isnan(csr.values().get(2).as_double()));
    // With a NaN fill the NaN is not stored, and the zeros are.
    Tensor nan_fill = Tensor::from_dense({2, 3}, ValueType::Float64, Scalar::of(kNaN),
                                         Format::coo(2), values);
    EXPECT_EQ(nan_fill.stored(), 5);
    EXPECT_EQ(ints(nan_fill.level(0).buffer("crd0")), (V{0, 0, 0, 1, 1}));
    EXPECT_EQ(ints(nan_fill.level(0).buffer("crd1")), (V{0, 1, 2, 0, 2}));
    EXPECT_TRUE(throws_error(
        [&] {
            Tensor::from_dense({2, 2}, ValueType::Float64, Scalar::of(0.0), Format::csr(), values);
        },
        {"shape [2, 2] has 4 elements, not 6"}));
}

TEST(StorageTensor, DenseRoundTripsAcrossFormatsOnRandomInputs) {
    std::mt19937_64 rng(20240611);
    for (int ndims = 1; ndims <= 3; ++ndims) {
        for (int trial = 0; trial < 6; ++trial) {
            std::vector<int64_t> shape;
            int64_t total = 1;
            for (int m = 0; m < ndims; ++m) {
                shape.push_back(static_cast<int64_t>(rng() % 5));
                total *= shape.back();
            }
            double density = (trial % 3) / 2.0; // 0, 0.5, 1
            double fill = trial % 2 ? 0.0 : -2.0;
            std::vector<Scalar> dense;
            for (int64_t i = 0; i < total; ++i) {
                bool set = std::uniform_real_distribution<>(0, 1)(rng) < density;
                dense.push_back(Scalar::of(set ? static_cast<double>(rng() % 7) - 3 : fill));
            }
            int64_t nonfill = 0;
            for (const Scalar& v : dense) nonfill += !v.same(Scalar::of(fill));
            Tensor reference = Tensor::from_dense(shape, ValueType::Float64, Scalar::of(fill),
                                                  Format::dense(ndims), dense);
            for (const std::string& f : formats_for(ndims)) {
                SCOPED_TRACE(f + " trial " + std::to_string(trial) + " ndims " +
                             std::to_string(ndims));
                Format format = Format::parse(f, ndims);
                Tensor t = Tensor::from_dense(shape, ValueType::Float64, Scalar::of(fill), format,
                                              dense);
                std::vector<Scalar> back = t.to_dense();
                ASSERT_EQ(back.size(), dense.size());
                for (size_t i = 0; i < back.size(); ++i) EXPECT_TRUE(back[i].same(dense[i])) << i;
                bool all_sparse = f.find("dense") == std::string::npos;
                if (all_sparse) {
                    EXPECT_EQ(t.stored(), nonfill);
                }
                EXPECT_TRUE(t.equals(reference));
                EXPECT_TRUE(reference.equals(t));
                // Stored entries come in storage order: strictly increasing in mode order.
                std::vector<int> order = t.format().mode_order();
                std::vector<int64_t> previous;
                t.for_each_stored([&](std::span<const int64_t> c, const Scalar& v) {
                    std::vector<int64_t> key;
                    for (int m : order) key.push_back(c[static_cast<size_t>(m)]);
                    EXPECT_TRUE(previous.empty() || previous < key);
                    previous = key;
                    EXPECT_TRUE(t.at(c).same(v));
                });
                Tensor converted = t.convert(Format::coo(ndims));
                EXPECT_TRUE(converted.equals(t));
                EXPECT_EQ(converted.stored(), nonfill);
            }
        }
    }
}

TEST(StorageTensor, EqualsFollowsDenseSemantics) {
    Tensor a = Tensor::from_coordinates({2, 3}, ValueType::Float64, Scalar::of(0.0), Format::csr(),
                                        entries(2, {{{0, 1}, 5}, {{1, 2}, 0}}));
    Tensor b = Tensor::from_coordinates({2, 3}, ValueType::Float64, Scalar::of(0.0),
                                        Format::dcsc(), entries(2, {{{0, 1}, 5}}));
    EXPECT_EQ(a.stored(), 2);
    EXPECT_EQ(b.stored(), 1);
    EXPECT_TRUE(a.equals(b)); // an explicit fill entry equals an unstored one
    EXPECT_TRUE(b.equals(a));
    Tensor c = Tensor::from_coordinates({2, 3}, ValueType::Float64, Scalar::of(0.0),
                                        Format::coo(2), entries(2, {{{0, 1}, 5}, {{1, 2}, 1}}));
    EXPECT_FALSE(a.equals(c));
    EXPECT_FALSE(c.equals(a));
    // Type and shape must match.
    Tensor ints32 = Tensor::from_coordinates({2, 3}, ValueType::Int32, Scalar::of(int32_t{0}),
                                             Format::csr(), entries(2, {{{0, 1}, 5}}));
    EXPECT_FALSE(a.equals(ints32));
    Tensor wider({2, 4}, ValueType::Float64, Scalar::of(0.0), Format::csr());
    EXPECT_FALSE(wider.equals(Tensor({2, 3}, ValueType::Float64, Scalar::of(0.0), Format::csr())));

    // NaN equals NaN, stored or as the fill.
    Tensor nan1 = Tensor::from_coordinates({3}, ValueType::Float64, Scalar::of(kNaN),
                                           Format::csf(1), entries(1, {{{1}, 2}, {{2}, kNaN}}));
    Tensor nan2 = Tensor::from_dense({3}, ValueType::Float64, Scalar::of(kNaN), Format::dense(1),
                                     scalars({kNaN, 2, kNaN}));
    EXPECT_TRUE(nan1.equals(nan2));
    EXPECT_TRUE(nan2.equals(nan1));

    // Different fills: compared element by element.
    Tensor zero_fill = Tensor::from_dense({3}, ValueType::Float64, Scalar::of(0.0), Format::csf(1),
                                          scalars({1, 1, 0}));
    Tensor one_fill = Tensor::from_dense({3}, ValueType::Float64, Scalar::of(1.0), Format::csf(1),
                                         scalars({1, 1, 0}));
    EXPECT_EQ(zero_fill.stored(), 2);
    EXPECT_EQ(one_fill.stored(), 1);
    EXPECT_TRUE(zero_fill.equals(one_fill));
    Tensor other = Tensor::from_dense({3}, ValueType::Float64, Scalar::of(1.0), Format::csf(1),
                                      scalars({1, 1, 1}));
    EXPECT_FALSE(zero_fill.equals(other));
    EXPECT_FALSE(other.equals(zero_fill));
}

TEST(StorageTensor, ConvertKeepsValuesAndDropsExplicitFills) {
    Tensor a = Tensor::from_coordinates({2, 3}, ValueType::Float64, Scalar::of(0.0), Format::csr(),
                                        entries(2, {{{0, 1}, 5}, {{1, 2}, 0}, {{1, 0}, -1}}));
    Tensor c = a.convert(Format::csc());
    EXPECT_EQ(c.format().to_string(), "dense(1)@32/sparselist(0)@32");
    EXPECT_EQ(ints(c.level(1).buffer("pos")), (V{0, 1, 2, 2}));
    EXPECT_EQ(ints(c.level(1).buffer("crd")), (V{1, 0}));
    EXPECT_EQ(doubles(c.values()), (D{-1, 5}));
    EXPECT_TRUE(c.equals(a));
    Tensor pattern_source = Tensor::from_coordinates(
        {2, 3}, ValueType::Bool, Scalar::of(false), Format::parse("coo/pattern", 2),
        [] {
            CoordinateList l;
            l.ndims = 2;
            l.add(V{1, 1}, Scalar::of(true));
            return l;
        }());
    Tensor as_values = pattern_source.convert(Format::dense(2));
    EXPECT_EQ(ints(as_values.values()), (V{0, 0, 0, 0, 1, 0}));
    EXPECT_TRUE(as_values.convert(Format::parse("dcsr/pattern", 2)).equals(pattern_source));
}

TEST(StorageTensor, ToStringShowsHeaderAndGrid) {
    Tensor a = Tensor::from_coordinates({2, 3}, ValueType::Float64, Scalar::of(0.0), Format::csr(),
                                        entries(2, {{{0, 1}, 2.5}, {{1, 2}, -1}}));
    EXPECT_EQ(a.to_string(), "Tensor [2, 3] float64, fill 0, format dense(0)@32/sparselist(1)@32, "
                             "2 stored\n"
                             "[[  0 2.5   0]\n"
                             " [  0   0  -1]]\n");
    EXPECT_EQ(a.to_string(4), "Tensor [2, 3] float64, fill 0, format dense(0)@32/sparselist(1)@32, "
                              "2 stored\n"
                              "  (0, 1): 2.5\n"
                              "  (1, 2): -1\n");
    EXPECT_EQ(a.to_string(1).substr(a.to_string(1).find('\n') + 1),
              "  (0, 1): 2.5\n  ... (1 more stored)\n");
    Tensor v = Tensor::from_dense({3}, ValueType::Int32, Scalar::of(int32_t{0}), Format::dense(1),
                                  std::vector{Scalar::of(1), Scalar::of(-20), Scalar::of(3)});
    EXPECT_EQ(v.to_string(), "Tensor [3] int32, fill 0, format dense(0)@32, 3 stored\n"
                             "[  1 -20   3]\n");
    Tensor s({}, ValueType::Bool, Scalar::of(true), Format::dense(0));
    EXPECT_EQ(s.to_string(), "Tensor [] bool, fill true, format element, 1 stored\ntrue\n");
    Tensor cube = Tensor::from_coordinates({2, 1, 2}, ValueType::Float64, Scalar::of(0.0),
                                           Format::coo(3), entries(3, {{{1, 0, 1}, 7}}));
    EXPECT_EQ(cube.to_string().substr(cube.to_string().find('\n') + 1),
              "[0, :, :] =\n[[0 0]]\n[1, :, :] =\n[[0 7]]\n");
    // A huge shape never densifies.
    Tensor huge = Tensor::from_coordinates({int64_t{1} << 40, int64_t{1} << 40}, ValueType::Float64,
                                           Scalar::of(0.0), Format::dcsr(),
                                           entries(2, {{{5, 6}, 1}}));
    EXPECT_NE(huge.to_string().find("(5, 6): 1"), std::string::npos);
    EXPECT_TRUE(throws_error([&] { huge.to_dense(); }, {"too large"}));
}

TEST(StorageTensor, UnsortedLargeInputsSort) {
    // Many entries in reverse order, with extents large enough for both sorting strategies.
    for (int64_t cols : {int64_t{50}, int64_t{1} << 40}) {
        CoordinateList list;
        list.ndims = 2;
        for (int64_t k = 999; k >= 0; --k)
            list.add(V{k % 37, (k * 7919) % cols}, Scalar::of(static_cast<double>(k)));
        Tensor t = Tensor::from_coordinates({37, cols}, ValueType::Float64, Scalar::of(0.0),
                                            Format::csr(), list);
        Tensor d = t.convert(Format::dcsc());
        for (int64_t k = 0; k < 1000; ++k) {
            int64_t i = k % 37, j = (k * 7919) % cols;
            double expected = 0;
            for (int64_t o = 0; o < 1000; ++o)
                if (o % 37 == i && (o * 7919) % cols == j) expected += static_cast<double>(o);
            ASSERT_EQ(t.at({i, j}).as_double(), expected) << cols << " " << k;
            ASSERT_EQ(d.at({i, j}).as_double(), expected);
        }
    }
}

TEST(StorageTensor, BuffersCopyDeeplyAndGrow) {
    Buffer b(ValueType::Int32, 3);
    EXPECT_EQ(ints(b), (V{0, 0, 0}));
    b.set(1, Scalar::of(int64_t{7}));
    Buffer copy = b;
    copy.set(1, Scalar::of(int64_t{9}));
    EXPECT_EQ(b.get(1).as_int(), 7);
    for (int i = 0; i < 100; ++i) copy.push_back(Scalar::of(i));
    EXPECT_EQ(copy.size(), 103);
    EXPECT_GE(copy.raw().capacity, 103);
    EXPECT_EQ(copy.get(102).as_int(), 99);
    copy.resize(2);
    copy.resize(4);
    EXPECT_EQ(ints(copy), (V{0, 9, 0, 0}));
    Buffer moved = std::move(copy);
    EXPECT_EQ(moved.size(), 4);
    b = moved;
    EXPECT_EQ(ints(b), (V{0, 9, 0, 0}));
    EXPECT_TRUE(throws_error([&] { b.get(4); }, {"buffer index 4 of 4"}));
    Tensor t({2}, ValueType::Float64, Scalar::of(0.0), Format::csf(1));
    EXPECT_TRUE(throws_error([&] { t.level(0).buffer("val"); }, {"no buffer 'val'"}));
}
