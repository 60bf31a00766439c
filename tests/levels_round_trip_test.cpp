// The structural levels against csr on seeded random inputs: building from coordinates
// and from dense arrays, at, to_dense, equals, conversion both ways, Format spellings, and the
// stored-array invariants (runs merged, bands spanning their entries, bytemaps' sorted lists).
#include <cmath>
#include <limits>
#include <random>

#include <gtest/gtest.h>

#include "levels/level_format.hpp"
#include "siskin/tensor.hpp"
#include "storage_helpers.hpp"

using namespace siskin;
using siskin::testing::ints;

namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

const char* const kMatrixFormats[] = {
    "dense(0)/sparseband(1)",       "dense(0)/runlist(1)",          "dense(0)/sparsebytemap(1)",
    "dense(1)/runlist(0)",          "sparselist(0)/sparseband(1)",  "sparselist(0)/runlist(1)",
    "sparseband(0)/sparselist(1)",  "sparseband(0)/dense(1)",       "sparseband(0)/runlist(1)",
    "sparsebytemap(0)/sparselist(1)", "sparsebytemap(0)/dense(1)",  "sparsebytemap(0)/runlist(1)",
    "sparsebytemap(1)/sparseband(0)", "sparseband(0)@64/sparsebytemap(1)@64",
    "dense(0)@64/runlist(1)@32",    "dense(0)/sparserunlist(1)",    "dense(1)/sparserunlist(0)@64",
    "sparselist(0)/sparserunlist(1)", "sparseband(0)/sparserunlist(1)", "sparsebytemap(0)/sparserunlist(1)",
    "dense(0)/sparseblocklist(1)",  "sparseblocklist(0)/sparselist(1)", "sparseblocklist(1)/dense(0)@64",
    "sparselist(0)/sparseblocklist(1)@32", "sparseblocklist(0)/sparseblocklist(1)",
    "dense(0)/packbits(1)",         "sparselist(0)/packbits(1)@64", "sparsebytemap(0)/packbits(1)",
    "runlist(0)/dense(1)",          "runlist(0)/sparselist(1)@64",  "runlist(1)/sparsebytemap(0)",
    "runlist(0)/runlist(1)",        "runlist(0)/sparseband(1)",     "runlist(1)/sparseblocklist(0)",
};

const char* const kVectorFormats[] = {"sparseband(0)", "runlist(0)", "sparsebytemap(0)",
                                      "runlist(0)@64", "sparserunlist(0)", "sparseblocklist(0)", "packbits(0)"};

// A random dense array drawn from few values (the fill among them) so runs, explicit fills and
// bands with gaps all occur. density: the share of elements that are not the fill.
std::vector<Scalar> random_dense(std::mt19937_64& rng, int64_t total, double fill, double density) {
    const double others[] = {1.0, 2.0, -3.5, kNaN, kInf, 0.0};
    std::uniform_real_distribution<double> u(0, 1);
    std::uniform_int_distribution<int> pick(0, 5);
    std::vector<Scalar> out;
    for (int64_t i = 0; i < total; ++i)
        out.push_back(Scalar::of(u(rng) < density ? others[pick(rng)] : fill));
    return out;
}

// The coordinate list of the non-fill elements, in a shuffled order.
CoordinateList shuffled_entries(std::mt19937_64& rng, const std::vector<int64_t>& shape,
                                const std::vector<Scalar>& dense, double fill) {
    std::vector<std::pair<std::vector<int64_t>, Scalar>> list;
    std::vector<int64_t> coord(shape.size(), 0);
    for (const Scalar& v : dense) {
        if (!v.same(Scalar::of(fill))) list.push_back({coord, v});
        for (size_t m = shape.size(); m-- > 0;) {
            if (++coord[m] < shape[m]) break;
            coord[m] = 0;
        }
    }
    std::shuffle(list.begin(), list.end(), rng);
    CoordinateList out;
    out.ndims = static_cast<int>(shape.size());
    for (const auto& [c, v] : list) out.add(c, v);
    return out;
}

::testing::AssertionResult same_dense(const std::vector<Scalar>& a, const std::vector<Scalar>& b) {
    if (a.size() != b.size()) return ::testing::AssertionFailure() << "sizes differ";
    for (size_t i = 0; i < a.size(); ++i)
        if (!a[i].same(b[i]))
            return ::testing::AssertionFailure()
                   << "element " << i << ": " << a[i].to_string() << " vs " << b[i].to_string();
    return ::testing::AssertionSuccess();
}

// Checks the invariants of the structural levels' buffers.
void check_buffers(const Tensor& t) {
    for (int k = 0; k < t.num_levels(); ++k) {
        const LevelStorage& s = t.level(k);
        int64_t n = t.shape()[static_cast<size_t>(s.spec.modes[0])];
        if (s.spec.kind == "runlist") {
            std::vector<int64_t> pos = ints(s.buffer("pos")), right = ints(s.buffer("right"));
            for (size_t p = 0; p + 1 < pos.size(); ++p) {
                int64_t start = 0;
                for (int64_t q = pos[p]; q < pos[p + 1]; ++q) {
                    ASSERT_GT(right[size_t(q)], start) << "run " << q << " is empty";
                    // Runs are maximal: neighbours in a fibre hold different values (runs of
                    // sub-fibres are checked against csr like any other format).
                    if (q > pos[p] && k + 1 == t.num_levels()) {
                        ASSERT_FALSE(t.values().get(q).same(t.values().get(q - 1)))
                            << "runs " << q - 1 << " and " << q << " were not merged";
                    }
                    start = right[size_t(q)];
                }
                ASSERT_EQ(start, n) << "fibre " << p << " is not covered";
            }
        } else if (s.spec.kind == "sparserunlist") {
            std::vector<int64_t> pos = ints(s.buffer("pos")), left = ints(s.buffer("left")),
                                 right = ints(s.buffer("right"));
            for (size_t p = 0; p + 1 < pos.size(); ++p)
                for (int64_t q = pos[p]; q < pos[p + 1]; ++q) {
                    ASSERT_LT(left[size_t(q)], right[size_t(q)]) << "run " << q << " is empty";
                    ASSERT_LE(right[size_t(q)], n);
                    // Sorted, apart, and touching neighbours hold different values.
                    if (q > pos[p]) {
                        ASSERT_LE(right[size_t(q - 1)], left[size_t(q)]);
                        if (right[size_t(q - 1)] == left[size_t(q)]) {
                            ASSERT_FALSE(t.values().get(q).same(t.values().get(q - 1)))
                                << "runs " << q - 1 << " and " << q << " were not merged";
                        }
                    }
                }
        } else if (s.spec.kind == "packbits") {
            std::vector<int64_t> pos = ints(s.buffer("pos")), right = ints(s.buffer("right")),
                                 ofs = ints(s.buffer("ofs"));
            for (size_t p = 0; p + 1 < pos.size(); ++p) {
                int64_t start = 0;
                for (int64_t q = pos[p]; q < pos[p + 1]; ++q) {
                    int64_t len = right[size_t(q)] - start, count = ofs[size_t(q) + 1] - ofs[size_t(q)];
                    ASSERT_GT(len, 0) << "segment " << q << " is empty";
                    ASSERT_TRUE(count == 1 || count == len) << "segment " << q << " is neither run nor literal";
                    // Canonical: no two neighbouring values are equal unless they are one run.
                    for (int64_t v = ofs[size_t(q)] + (q > pos[p] ? 0 : 1); v < ofs[size_t(q) + 1]; ++v) {
                        ASSERT_FALSE(t.values().get(v).same(t.values().get(v - 1)))
                            << "positions " << v - 1 << " and " << v << " were not one run";
                    }
                    start = right[size_t(q)];
                }
                ASSERT_EQ(start, n) << "fibre " << p << " is not covered";
            }
        } else if (s.spec.kind == "sparseblocklist") {
            std::vector<int64_t> pos = ints(s.buffer("pos")), idx = ints(s.buffer("idx")),
                                 ofs = ints(s.buffer("ofs"));
            for (size_t p = 0; p + 1 < pos.size(); ++p)
                for (int64_t b = pos[p]; b < pos[p + 1]; ++b) {
                    int64_t len = ofs[size_t(b) + 1] - ofs[size_t(b)];
                    ASSERT_GE(len, 1) << "block " << b << " is empty";
                    ASSERT_LE(idx[size_t(b)], n);
                    // Sorted, and apart: touching blocks are one block.
                    if (b > pos[p]) {
                        ASSERT_LT(idx[size_t(b) - 1], idx[size_t(b)] - len);
                    }
                }
        } else if (s.spec.kind == "sparseband") {
            std::vector<int64_t> ofs = ints(s.buffer("ofs")), idx = ints(s.buffer("idx"));
            for (size_t p = 0; p < idx.size(); ++p) {
                int64_t len = ofs[p + 1] - ofs[p];
                ASSERT_GE(idx[p] - len, 0);
                ASSERT_LE(idx[p], n);
                // The block's ends hold entries when it is the last level (spans first..last).
                if (len > 0 && k + 1 == t.num_levels()) {
                    ASSERT_FALSE(t.values().get(ofs[p]).same(t.fill()));
                    ASSERT_FALSE(t.values().get(ofs[p + 1] - 1).same(t.fill()));
                }
            }
        } else if (s.spec.kind == "sparsebytemap") {
            std::vector<int64_t> pos = ints(s.buffer("pos")), srt = ints(s.buffer("srt")),
                                 tbl = ints(s.buffer("tbl"));
            int64_t set = 0;
            for (int64_t b : tbl) set += b;
            ASSERT_EQ(set, static_cast<int64_t>(srt.size()));
            for (size_t p = 0; p + 1 < pos.size(); ++p)
                for (int64_t e = pos[p]; e < pos[p + 1]; ++e) {
                    ASSERT_EQ(tbl[p * size_t(n) + size_t(srt[size_t(e)])], 1);
                    if (e > pos[p]) {
                        ASSERT_LT(srt[size_t(e - 1)], srt[size_t(e)]);
                    }
                }
        }
    }
}

// Walks the level tree through the runtime interface: every fibre entry's position has the
// entry's coordinates, locate() finds it from each coordinate it covers, and stored() counts
// the entries (runs once each).
void check_interface(const Tensor& t) {
    int64_t entries = 0;
    std::vector<int64_t> coords(8), again(8);
    auto walk = [&](auto& self, int k, int64_t parent) -> void {
        if (k == t.num_levels()) {
            ++entries;
            return;
        }
        const LevelStorage& s = t.level(k);
        const levels::LevelFormat& f = levels::level_format(s.spec.kind);
        size_t nk = s.spec.modes.size();
        levels::FibreRange r = f.fibre(s, t.shape(), parent);
        for (int64_t e = r.begin; e < r.end; ++e) {
            levels::FibreEntry entry = f.fibre_entry(s, t.shape(), parent, e, {coords.data(), nk});
            f.coordinates(s, t.shape(), entry.position, {again.data(), nk});
            ASSERT_EQ(std::vector<int64_t>(coords.begin(), coords.begin() + long(nk)),
                      std::vector<int64_t>(again.begin(), again.begin() + long(nk)))
                << s.spec.kind << " position " << entry.position;
            ASSERT_GE(entry.length, 1);
            std::vector<int64_t> c(coords.begin(), coords.begin() + long(nk));
            for (int64_t i = 0; i < entry.length; ++i, ++c.back())
                ASSERT_EQ(f.locate(s, t.shape(), parent, c), entry.position) << s.spec.kind;
            // Runs are counted once, so they are walked below once.
            self(self, k + 1, entry.position);
        }
    };
    walk(walk, 0, 0);
    if (t.num_levels() > 0) {
        EXPECT_EQ(t.stored(), entries);
    }
}

void check_against_csr(const std::vector<int64_t>& shape, const std::string& spelling,
                       const Format& reference, double fill, uint64_t seed, double density) {
    SCOPED_TRACE(::testing::Message() << spelling << ", fill " << fill << ", seed " << seed
                                      << ", density " << density);
    std::mt19937_64 rng(seed);
    int64_t total = 1;
    for (int64_t n : shape) total *= n;
    std::vector<Scalar> dense = random_dense(rng, total, fill, density);
    CoordinateList list = shuffled_entries(rng, shape, dense, fill);
    Format format = Format::parse(spelling, static_cast<int>(shape.size()));
    EXPECT_EQ(Format::parse(format.to_string(), format.ndims()), format);

    Tensor ref = Tensor::from_coordinates(shape, ValueType::Float64, Scalar::of(fill), reference, list);
    Tensor t = Tensor::from_coordinates(shape, ValueType::Float64, Scalar::of(fill), format, list);
    EXPECT_EQ(Format::parse(t.format().to_string(), t.ndims()), t.format());
    check_buffers(t);
    check_interface(t);
    EXPECT_TRUE(same_dense(t.to_dense(), dense));
    EXPECT_TRUE(t.equals(ref));
    EXPECT_TRUE(ref.equals(t));

    Tensor from_dense = Tensor::from_dense(shape, ValueType::Float64, Scalar::of(fill), format, dense);
    EXPECT_TRUE(from_dense.equals(ref));
    check_buffers(from_dense);

    // Every element by random access.
    std::vector<int64_t> coord(shape.size(), 0);
    for (int64_t i = 0; i < total; ++i) {
        ASSERT_TRUE(t.at(coord).same(dense[size_t(i)])) << "at element " << i;
        for (size_t m = shape.size(); m-- > 0;) {
            if (++coord[m] < shape[m]) break;
            coord[m] = 0;
        }
    }

    Tensor back = t.convert(reference);
    EXPECT_TRUE(back.equals(ref));
    EXPECT_EQ(back.stored(), ref.stored()); // explicit fills do not carry over
    Tensor there = ref.convert(format);
    EXPECT_TRUE(there.equals(t));
    check_buffers(there);
    check_interface(there);

    // A tensor differing in one element is not equal.
    if (total > 0) {
        std::vector<Scalar> changed = dense;
        size_t at = size_t(rng() % uint64_t(total));
        changed[at] = changed[at].same(Scalar::of(7.0)) ? Scalar::of(8.0) : Scalar::of(7.0);
        Tensor other = Tensor::from_dense(shape, ValueType::Float64, Scalar::of(fill), format, changed);
        EXPECT_FALSE(other.equals(t));
        EXPECT_FALSE(t.equals(other));
        EXPECT_FALSE(ref.equals(other));
    }
}

} // namespace

TEST(LevelsRoundTrip, MatricesAgainstCsr) {
    uint64_t seed = 1;
    for (double fill : {0.0, 1.0, kInf, kNaN})
        for (const char* f : kMatrixFormats)
            for (double density : {0.0, 0.15, 0.6, 1.0})
                for (std::vector<int64_t> shape : {std::vector<int64_t>{7, 9},
                                                   std::vector<int64_t>{1, 13},
                                                   std::vector<int64_t>{5, 1},
                                                   std::vector<int64_t>{0, 4}})
                    check_against_csr(shape, f, Format::csr(), fill, seed++, density);
}

TEST(LevelsRoundTrip, VectorsAgainstSparseList) {
    uint64_t seed = 1000;
    Format list = Format::parse("sparselist(0)", 1);
    for (double fill : {0.0, 1.0, kInf, kNaN})
        for (const char* f : kVectorFormats)
            for (double density : {0.0, 0.05, 0.5, 1.0})
                for (int64_t n : {0, 1, 40})
                    check_against_csr({n}, f, list, fill, seed++, density);
}

TEST(LevelsRoundTrip, ThreeDimensions) {
    uint64_t seed = 2000;
    for (double fill : {0.0, kNaN})
        for (const char* f : {"dense(0)/sparsebytemap(1)/runlist(2)", "sparselist(2)/dense(0)/sparserunlist(1)",
                              "sparseblocklist(0)/sparseblocklist(1)/sparselist(2)",
                              "sparseband(2)/sparsebytemap(0)/sparseband(1)",
                              "sparsebytemap(1)/dense(0)/sparselist(2)",
                              "sparselist(0)/sparseband(1)/dense(2)", "runlist(0)/dense(1)/sparselist(2)",
                              "sparselist(1)/runlist(0)/runlist(2)"})
            for (double density : {0.05, 0.4})
                check_against_csr({4, 5, 6}, f, Format::csf(3), fill, seed++, density);
}

// Runs built from coordinates with duplicates (summed first) and integer values.
TEST(LevelsRoundTrip, DuplicatesAndIntegers) {
    CoordinateList list;
    list.ndims = 1;
    for (int64_t i : {3, 1, 3, 2}) list.add(std::vector<int64_t>{i}, Scalar::of(int64_t{2}));
    Tensor t = Tensor::from_coordinates({6}, ValueType::Int16, Scalar::of(int64_t{0}),
                                        Format::parse("runlist(0)", 1), list);
    // [0 2 2 4 0 0]: runs [0,1) [1,3) [3,4) [4,6).
    EXPECT_EQ(ints(t.level(0).buffer("right")), (std::vector<int64_t>{1, 3, 4, 6}));
    EXPECT_EQ(ints(t.values()), (std::vector<int64_t>{0, 2, 4, 0}));
    EXPECT_EQ(t.values().type(), ValueType::Int16);
}
