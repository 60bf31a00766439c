// SparseHash: exact stored arrays built from entries (positions in storage order) and written by
// a kernel in random order (Finch case 16's scatter: positions in the order first written, the
// sorted lists built at freeze), nested as the 2-D workspace, lookups through the table, and
// conversions to and from other formats.
#include <gtest/gtest.h>

#include "compiler_test_util.hpp"

namespace siskin::testing {
namespace {

using V = std::vector<int64_t>;
using D = std::vector<double>;

// Integers 2 to 5, none equal to the fill.
Tensor random_of(int64_t m, int64_t n, double density, const std::string& format, uint64_t seed, double fill = 0.0) {
    return random_matrix_of(m, n, density, format, seed, fill, [](double u) { return std::floor(u * 4) + 2; });
}

TEST(LevelsSparseHash, AVectorBuiltFromEntries) {
    Tensor t = make({10}, "sparsehash(0)", {{{5}, 1.5}, {{2}, 2.5}});
    EXPECT_EQ(t.level(0).names, (std::vector<std::string>{"pos", "idx", "srt", "par", "crd", "flg", "tbl"}));
    EXPECT_EQ(ints(t.level(0).buffer("pos")), (V{0, 2}));
    EXPECT_EQ(ints(t.level(0).buffer("idx")), (V{2, 5}));
    EXPECT_EQ(ints(t.level(0).buffer("srt")), (V{0, 1}));
    EXPECT_EQ(ints(t.level(0).buffer("par")), (V{0, 0}));
    EXPECT_EQ(ints(t.level(0).buffer("crd")), (V{2, 5}));
    EXPECT_EQ(doubles(t.values()), (D{2.5, 1.5}));
    // 16 slots, two of them used (q + 1), none else.
    std::vector<int64_t> tbl = ints(t.level(0).buffer("tbl"));
    EXPECT_EQ(tbl.size(), 16u);
    std::sort(tbl.begin(), tbl.end());
    EXPECT_EQ(V(tbl.end() - 2, tbl.end()), (V{1, 2}));
    EXPECT_EQ(std::count(tbl.begin(), tbl.end(), 0), 14);
    EXPECT_EQ(t.at({5}).as_double(), 1.5);
    EXPECT_EQ(t.at({2}).as_double(), 2.5);
    EXPECT_EQ(t.at({3}).as_double(), 0.0);
    EXPECT_EQ(t.stored(), 2);
    EXPECT_EQ(t.format().to_string(), "sparsehash(0)@32");
    EXPECT_EQ(Format::parse("hash(0)/hash(1)", 2).to_string(), "sparsehash(0)/sparsehash(1)");
}

// Nested: (parent position, coordinate) keys; the inner level's parents are the outer's
// positions. A table larger than its minimum holds every entry once.
TEST(LevelsSparseHash, NestedAndConverted) {
    Tensor a = random_of(40, 30, 0.2, "csr", 3, 1.0);
    for (const std::string format : {"sparsehash(0)/sparsehash(1)", "dense(0)/sparsehash(1)@64",
                                     "sparsehash(1)/sparsehash(0)", "sparsehash(0)/sparselist(1)"}) {
        Tensor h = a.convert(Format::parse(format, 2));
        EXPECT_TRUE(h.equals(a)) << format;
        EXPECT_EQ(h.stored(), a.stored()) << format;
        EXPECT_EQ(h.fill().as_double(), 1.0);
        // Every coordinate found by lookup, stored or not.
        for (int64_t i = 0; i < 40; i += 3)
            for (int64_t j = 0; j < 30; ++j) EXPECT_EQ(h.at({i, j}).as_double(), a.at({i, j}).as_double()) << format;
        Tensor back = h.convert(Format::parse("csr", 2));
        EXPECT_EQ(stored_coordinates(back), stored_coordinates(a)) << format;
    }
    Tensor h = a.convert(Format::parse("sparsehash(0)/sparsehash(1)", 2));
    std::vector<int64_t> tbl = ints(h.level(1).buffer("tbl"));
    EXPECT_GE(static_cast<int64_t>(tbl.size()), 2 * a.stored());
    std::vector<int64_t> used;
    for (int64_t s : tbl)
        if (s != 0) used.push_back(s - 1);
    std::sort(used.begin(), used.end());
    V all(static_cast<size_t>(a.stored()));
    for (size_t q = 0; q < all.size(); ++q) all[q] = static_cast<int64_t>(q);
    EXPECT_EQ(used, all);
}

// Finch case 16: I = [3,1,3,2,3] (1-based), bins[I[i]] += 1 into a SparseHash stores
// {1:1, 2:1, 3:3}. Written in the order 2, 0, 2, 1, 2 (0-based), the entries take positions in
// that order of first writes, and freeze lists them sorted.
TEST(LevelsSparseHash, FinchCase16ScatterStoresInWriteOrderAndListsSorted) {
    CoordinateList list;
    list.ndims = 1;
    V order = {2, 0, 2, 1, 2};
    for (size_t k = 0; k < order.size(); ++k) list.add(V{static_cast<int64_t>(k)}, Scalar::of(order[k]));
    Tensor in = Tensor::from_coordinates({5}, ValueType::Int64, Scalar::of(int64_t{-1}), Format::parse("dense", 1), list);
    for (const std::string format : {"sparsehash(0)", "sparsehash(0)@64"}) {
        OutputSpec spec;
        spec.shape = V{3};
        spec.format = Format::parse(format, 1);
        Tensor bins = compiled_matching_reference("bins[I[i]] += 1", {{"I", &in}}, {{"bins", spec}}).at("bins");
        EXPECT_EQ(ints(bins.level(0).buffer("crd")), (V{2, 0, 1})) << format;
        EXPECT_EQ(ints(bins.level(0).buffer("par")), (V{0, 0, 0}));
        EXPECT_EQ(ints(bins.level(0).buffer("pos")), (V{0, 3}));
        EXPECT_EQ(ints(bins.level(0).buffer("idx")), (V{0, 1, 2}));
        EXPECT_EQ(ints(bins.level(0).buffer("srt")), (V{1, 2, 0}));
        EXPECT_EQ(ints(bins.values()), (V{3, 1, 1}));
        EXPECT_EQ(stored_coordinates(bins), (std::vector<V>{{0}, {1}, {2}}));
    }
}

} // namespace
} // namespace siskin::testing
