// SparsePoint and SparseInterval (one entry, or one run of one value, per fibre; no pos array):
// exact stored arrays on inputs checked by hand (Finch §2.4, cases 22 and 23), the runtime face
// against csr on random inputs that fit, and the inputs and places they refuse.
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

const double kInf = std::numeric_limits<double>::infinity();

Tensor build(std::vector<int64_t> shape, const std::string& format,
             std::initializer_list<std::pair<std::vector<int64_t>, double>> list, double fill = 0.0) {
    int nd = static_cast<int>(shape.size());
    return Tensor::from_coordinates(std::move(shape), ValueType::Float64, Scalar::of(fill),
                                    Format::parse(format, nd), entries(nd, list));
}

std::vector<std::vector<int64_t>> visited(const Tensor& t) {
    std::vector<std::vector<int64_t>> out;
    t.for_each_stored([&](std::span<const int64_t> c, const Scalar&) { out.emplace_back(c.begin(), c.end()); });
    return out;
}

// A random m x n matrix with at most one entry per line (point) or one run of one value per line
// (interval), the rest `fill`, some lines empty. Lines are rows, or columns when `by_columns`;
// with `one_line` only the first non-empty line is kept (for a sparsepoint outer level).
Tensor random_singular(std::mt19937_64& rng, int64_t m, int64_t n, bool runs, bool by_columns,
                       bool one_line, double fill) {
    CoordinateList list;
    list.ndims = 2;
    const double values[] = {1.0, -2.5, 4.0, kInf, 0.0, 1.0};
    int64_t lines = by_columns ? n : m, len = by_columns ? m : n;
    for (int64_t i = 0; i < lines; ++i) {
        if (len == 0 || rng() % 4 == 0) continue;
        double v = values[rng() % 6];
        if (Scalar::of(v).same(Scalar::of(fill))) continue;
        int64_t lo = static_cast<int64_t>(rng() % static_cast<uint64_t>(len));
        int64_t hi = runs ? lo + 1 + static_cast<int64_t>(rng() % static_cast<uint64_t>(len - lo)) : lo + 1;
        for (int64_t j = lo; j < hi; ++j)
            list.add(by_columns ? std::vector<int64_t>{j, i} : std::vector<int64_t>{i, j}, Scalar::of(v));
        if (one_line) break;
    }
    return Tensor::from_coordinates({m, n}, ValueType::Float64, Scalar::of(fill), Format::csr(), list);
}

} // namespace

// Finch case 23: the reverse permutation of 5 (A[4-j, j] = 1) as dense(0)/sparsepoint(1): one
// coordinate per row and the values, no pos array.
TEST(LevelsSingular, PermutationMatrixHasNoPosArray) {
    Tensor p = build({5, 5}, "dense(0)/sparsepoint(1)",
                     {{{4, 0}, 1}, {{3, 1}, 1}, {{2, 2}, 1}, {{1, 3}, 1}, {{0, 4}, 1}});
    EXPECT_EQ(p.level(1).names, (std::vector<std::string>{"idx"}));
    EXPECT_EQ(ints(p.level(1).buffer("idx")), (V{4, 3, 2, 1, 0}));
    EXPECT_EQ(doubles(p.values()), (D{1, 1, 1, 1, 1}));
    EXPECT_EQ(p.stored(), 5);
    EXPECT_EQ(p.at({1, 3}).as_double(), 1);
    EXPECT_EQ(p.at({1, 2}).as_double(), 0);
    EXPECT_EQ(p.format().to_string(), "dense(0)@32/sparsepoint(1)@32");
}

// An empty fibre's coordinate is the extent (past every coordinate); its slot holds the fill.
TEST(LevelsSingular, EmptyPointFibres) {
    Tensor p = build({3, 4}, "dense(0)/point(1)", {{{0, 2}, 5}, {{2, 0}, -1}}, 7.0);
    EXPECT_EQ(ints(p.level(1).buffer("idx")), (V{2, 4, 0}));
    EXPECT_EQ(doubles(p.values()), (D{5, 7, -1}));
    EXPECT_EQ(p.stored(), 2);
    EXPECT_EQ(visited(p), (std::vector<V>{{0, 2}, {2, 0}}));
    EXPECT_EQ(p.at({1, 3}).as_double(), 7);
    EXPECT_TRUE(p.equals(build({3, 4}, "csr", {{{0, 2}, 5}, {{2, 0}, -1}}, 7.0)));

    // Above another level: one row, its columns below.
    Tensor row = build({3, 4}, "sparsepoint(0)/sparselist(1)", {{{1, 3}, 2}, {{1, 0}, 1}});
    EXPECT_EQ(ints(row.level(0).buffer("idx")), (V{1}));
    EXPECT_EQ(ints(row.level(1).buffer("pos")), (V{0, 2}));
    EXPECT_EQ(ints(row.level(1).buffer("crd")), (V{0, 3}));
    EXPECT_EQ(row.stored(), 2);
    Tensor none(std::vector<int64_t>{3, 4}, ValueType::Float64, Scalar::of(0.0),
                Format::parse("sparsepoint(0)@64/dense(1)", 2));
    EXPECT_EQ(ints(none.level(0).buffer("idx")), (V{3}));
    EXPECT_EQ(none.level(0).buffer("idx").type(), ValueType::Int64);
    EXPECT_EQ(none.stored(), 0);

    // A pattern leaf: a permutation's structure alone.
    Tensor pat = Tensor::from_coordinates({2, 2}, ValueType::Bool, Scalar::of(false),
                                          Format::parse("dense(0)/sparsepoint(1)/pattern", 2),
                                          entries(2, {{{0, 1}, 1}, {{1, 0}, 1}}));
    EXPECT_TRUE(pat.at({0, 1}).as_bool());
    EXPECT_FALSE(pat.at({0, 0}).as_bool());
    EXPECT_EQ(pat.stored(), 2);
}

TEST(LevelsSingular, SecondPointIsRefused) {
    EXPECT_TRUE(throws_error([] { build({2, 5}, "dense(0)/sparsepoint(1)", {{{1, 1}, 1}, {{1, 4}, 2}}); },
                             {"sparsepoint level holds at most one coordinate per fibre",
                              "coordinates 1 and 4", "(1, 4)"}));
}

// Finch case 22: one run [3:6] (1-based) of n = 10, so left = 2 and right = 6 (exclusive), and
// one value; stored() counts the run once, for_each_stored visits its coordinates.
TEST(LevelsSingular, IntervalOfAVector) {
    Tensor v = build({10}, "sparseinterval(0)", {{{2}, 1}, {{3}, 1}, {{4}, 1}, {{5}, 1}});
    EXPECT_EQ(v.level(0).names, (std::vector<std::string>{"left", "right"}));
    EXPECT_EQ(ints(v.level(0).buffer("left")), (V{2}));
    EXPECT_EQ(ints(v.level(0).buffer("right")), (V{6}));
    EXPECT_EQ(doubles(v.values()), (D{1}));
    EXPECT_EQ(v.stored(), 1);
    EXPECT_EQ(visited(v), (std::vector<V>{{2}, {3}, {4}, {5}}));
    EXPECT_EQ(v.at({6}).as_double(), 0);
    EXPECT_EQ(v.at({5}).as_double(), 1);

    Tensor m = build({3, 5}, "dense(0)/interval(1)", {{{0, 1}, kInf}, {{0, 2}, kInf}, {{2, 4}, -3}}, 1.0);
    EXPECT_EQ(ints(m.level(1).buffer("left")), (V{1, 0, 4}));
    EXPECT_EQ(ints(m.level(1).buffer("right")), (V{3, 0, 5}));
    EXPECT_EQ(doubles(m.values()), (D{kInf, 1, -3}));
    EXPECT_EQ(m.stored(), 2);
    EXPECT_EQ(m.format().to_string(), "dense(0)@32/sparseinterval(1)@32");
}

TEST(LevelsSingular, IntervalRefusesASecondRunAndInnerPlaces) {
    EXPECT_TRUE(throws_error([] { build({10}, "sparseinterval(0)", {{{2}, 1}, {{5}, 1}}); },
                             {"one run of one value per fibre", "(5)", "does not continue the run 2..2"}));
    EXPECT_TRUE(throws_error([] { build({10}, "sparseinterval(0)", {{{2}, 1}, {{3}, 2}}); },
                             {"(3) (2) differs from the run 2..2 of 1"}));
    EXPECT_TRUE(throws_error([] { Format::parse("sparseinterval(0)/dense(1)", 2); },
                             {"sparseinterval level must be the last level"}));
    EXPECT_TRUE(throws_error([] { Format::parse("point(0,1)", 2); },
                             {"sparsepoint level stores exactly 1 mode, not 2"}));
}

// Random matrices that fit, in every place the levels take, both widths, fills 0, 1 and inf:
// the same elements as csr, and conversion both ways keeps them.
TEST(LevelsSingular, AgainstCsr) {
    std::mt19937_64 rng(18);
    struct Place {
        const char* format;
        bool runs, by_columns, one_line;
    };
    const Place places[] = {
        {"dense(0)/sparsepoint(1)", false, false, false},
        {"sparselist(0)/sparsepoint(1)@64", false, false, false},
        {"dense(1)/sparsepoint(0)@32", false, true, false},
        {"sparsebytemap(0)/sparsepoint(1)", false, false, false},
        {"sparseband(0)/sparsepoint(1)", false, false, false},
        {"sparsepoint(1)/dense(0)", false, true, true},
        {"sparsepoint(0)/sparselist(1)", true, false, true},
        {"sparsepoint(0)/sparsepoint(1)", false, false, true},
        {"dense(0)/sparseinterval(1)", true, false, false},
        {"sparselist(0)/sparseinterval(1)@64", true, false, false},
        {"dense(1)/sparseinterval(0)@32", true, true, false},
        {"sparsepoint(0)/sparseinterval(1)", true, false, true},
        {"sparsebytemap(0)/sparseinterval(1)@32", true, false, false},
    };
    for (double fill : {0.0, 1.0, kInf})
        for (const Place& place : places)
            for (std::vector<int64_t> shape : {std::vector<int64_t>{6, 7}, {1, 9}, {4, 1}, {0, 3}}) {
                SCOPED_TRACE(std::string(place.format) + " fill " + std::to_string(fill));
                Tensor csr = random_singular(rng, shape[0], shape[1], place.runs, place.by_columns,
                                             place.one_line, fill);
                Tensor t = csr.convert(Format::parse(place.format, 2));
                EXPECT_TRUE(t.equals(csr));
                EXPECT_TRUE(csr.equals(t));
                EXPECT_TRUE(t.convert(Format::csr()).equals(csr));
                for (int64_t i = 0; i < shape[0]; ++i)
                    for (int64_t j = 0; j < shape[1]; ++j)
                        ASSERT_TRUE(t.at({i, j}).same(csr.at({i, j}))) << i << "," << j;
                // Every non-fill element is visited once (dense levels below visit fills too).
                int64_t count = 0;
                t.for_each_stored([&](std::span<const int64_t>, const Scalar& v) { count += !v.same(t.fill()); });
                EXPECT_EQ(count, csr.stored());
            }
}
