// PackBits: exact stored arrays (Looplets case 17, 0-based with exclusive segment ends), the
// canonical encoding whatever order the values come in, random round trips, and its spelling.
#include <random>

#include <gtest/gtest.h>

#include "siskin/tensor.hpp"
#include "storage_helpers.hpp"

using namespace siskin;
using siskin::testing::doubles;
using siskin::testing::entries;
using siskin::testing::ints;
using V = std::vector<int64_t>;
using D = std::vector<double>;

namespace {

Tensor dense_vector(const D& values, double fill = 0.0) {
    std::vector<Scalar> v;
    for (double x : values) v.push_back(Scalar::of(x));
    return Tensor::from_dense({static_cast<int64_t>(values.size())}, ValueType::Float64, Scalar::of(fill),
                              Format::dense(1), v);
}

} // namespace

// Case 17: run(7, ends 3), literal [1,2,3] (ends 6), run(0, ends 8) decode to [7,7,7,1,2,3,0,0].
TEST(LevelsPackBits, Case17Segments) {
    Tensor t = Tensor::from_coordinates({8}, ValueType::Float64, Scalar::of(0.0), Format::parse("packbits(0)", 1),
                                        entries(1, {{{4}, 2}, {{0}, 7}, {{1}, 7}, {{2}, 7}, {{3}, 1}, {{5}, 3}}));
    EXPECT_EQ(t.level(0).names, (std::vector<std::string>{"pos", "right", "ofs"}));
    EXPECT_EQ(ints(t.level(0).buffer("pos")), (V{0, 3}));
    EXPECT_EQ(ints(t.level(0).buffer("right")), (V{3, 6, 8}));
    EXPECT_EQ(ints(t.level(0).buffer("ofs")), (V{0, 1, 4, 5}));
    EXPECT_EQ(doubles(t.values()), (D{7, 1, 2, 3, 0}));
    EXPECT_EQ(t.stored(), 5);
    EXPECT_EQ(t.at({1}).as_double(), 7);
    EXPECT_EQ(t.at({4}).as_double(), 2);
    EXPECT_EQ(t.at({7}).as_double(), 0);
    EXPECT_TRUE(t.equals(dense_vector({7, 7, 7, 1, 2, 3, 0, 0})));
    EXPECT_EQ(t.format().to_string(), "packbits(0)@32");
}

// A value equal to the literal's last takes it into a run; a lone value after a run of two or
// more starts a segment; a lone fill between entries joins a literal.
TEST(LevelsPackBits, CanonicalEncoding) {
    Tensor a = dense_vector({1, 2, 2, 3}).convert(Format::parse("packbits(0)", 1));
    EXPECT_EQ(ints(a.level(0).buffer("right")), (V{1, 3, 4}));
    EXPECT_EQ(ints(a.level(0).buffer("ofs")), (V{0, 1, 2, 3}));
    EXPECT_EQ(doubles(a.values()), (D{1, 2, 3}));
    Tensor b = dense_vector({5, 0, 5, 5, 5, 4, 0, 0}).convert(Format::parse("packbits(0)", 1));
    EXPECT_EQ(ints(b.level(0).buffer("right")), (V{2, 5, 6, 8}));
    EXPECT_EQ(ints(b.level(0).buffer("ofs")), (V{0, 2, 3, 4, 5}));
    EXPECT_EQ(doubles(b.values()), (D{5, 0, 5, 4, 0}));
    // An empty fibre of extent n is one run of the fill; of extent 0, nothing.
    Tensor e = Tensor::from_coordinates({3, 4}, ValueType::Float64, Scalar::of(1.0),
                                        Format::parse("dense(0)/packbits(1)", 2), entries(2, {{{1, 2}, 5}}));
    EXPECT_EQ(ints(e.level(1).buffer("pos")), (V{0, 1, 3, 4}));
    EXPECT_EQ(ints(e.level(1).buffer("right")), (V{4, 2, 4, 4})); // row 1: run(1), literal [5, 1]
    EXPECT_EQ(ints(e.level(1).buffer("ofs")), (V{0, 1, 2, 4, 5}));
    EXPECT_EQ(doubles(e.values()), (D{1, 1, 5, 1, 1}));
    EXPECT_EQ(e.at({1, 3}).as_double(), 1);
    EXPECT_EQ(e.at({1, 2}).as_double(), 5);
}

// Random vectors and matrices with few distinct values (runs, literals, NaN and inf): the level
// reads back what it was built from, in every place and width, and converts both ways.
TEST(LevelsPackBits, RandomRoundTrips) {
    std::mt19937_64 rng(17);
    const double choices[] = {0.0, 1.0, 2.0, -3.5, std::numeric_limits<double>::quiet_NaN(),
                              std::numeric_limits<double>::infinity()};
    std::uniform_int_distribution<int> pick(0, 5);
    std::uniform_real_distribution<double> u(0, 1);
    for (const char* format : {"packbits(0)", "dense(0)/packbits(1)", "dense(1)/packbits(0)@64",
                               "sparselist(0)/packbits(1)", "sparsebytemap(0)/packbits(1)"}) {
        for (int round = 0; round < 6; ++round) {
            bool vector = std::string(format) == "packbits(0)";
            std::vector<int64_t> shape = vector ? std::vector<int64_t>{int64_t(1 + round * 5)}
                                                : std::vector<int64_t>{int64_t(1 + round), 7};
            int64_t total = shape.size() == 1 ? shape[0] : shape[0] * shape[1];
            double fill = round % 2 ? 1.0 : 0.0;
            double repeat = u(rng); // how often a value repeats the one before it
            std::vector<Scalar> dense;
            for (int64_t i = 0; i < total; ++i)
                dense.push_back(i > 0 && u(rng) < repeat ? dense.back() : Scalar::of(choices[pick(rng)]));
            Tensor want = Tensor::from_dense(shape, ValueType::Float64, Scalar::of(fill),
                                             Format::dense(static_cast<int>(shape.size())), dense);
            Tensor t = want.convert(Format::parse(format, static_cast<int>(shape.size())));
            EXPECT_TRUE(t.equals(want)) << format << " round " << round;
            Tensor back = t.convert(Format::parse(vector ? "sparselist(0)" : "csr", static_cast<int>(shape.size())));
            EXPECT_TRUE(back.equals(want)) << format << " round " << round;
            for (int64_t i = 0; i < total; ++i) {
                std::vector<int64_t> c = shape.size() == 1 ? std::vector<int64_t>{i}
                                                           : std::vector<int64_t>{i / shape[1], i % shape[1]};
                ASSERT_TRUE(t.at(c).same(dense[size_t(i)])) << format << " element " << i;
            }
        }
    }
}

TEST(LevelsPackBits, Spelling) {
    EXPECT_EQ(Format::parse("dense(0)/packbits(1)@64", 2).to_string(), "dense(0)/packbits(1)@64");
    EXPECT_THROW(Format::parse("packbits(0)/dense(1)", 2), Error);              // runs hold leaf values
    EXPECT_THROW(Tensor::from_coordinates({3, 3}, ValueType::Bool, Scalar::of(false),
                                          Format::parse("dense(0)/packbits(1)/pattern", 2), entries(2, {})),
                 Error); // every position would read as true
}
