// The intersection of two sorted lists whose body needs both (lower_intersection.cpp): merged
// when their lengths are alike, the shorter walked and the longer galloped when one is more
// than kGallopRatio times the other, chosen at run time. Values against the reference
// evaluator; work counts (loop bodies of the generated C) for the skewed case.
#include <cmath>
#include <limits>
#include <set>

#include "compiler_test_util.hpp"
#include "masked_vector_operands.hpp"

namespace siskin::testing {
namespace {

const double kInf = std::numeric_limits<double>::infinity();

bool has(const std::string& c, const std::string& what) { return c.find(what) != std::string::npos; }

// A sparse vector of n storing `at`, small integer values (sums are exact in any order).
Tensor list_of(int64_t n, const std::vector<int64_t>& at, double fill, int bits) {
    CoordinateList c;
    c.ndims = 1;
    for (int64_t k : at) c.add(std::vector<int64_t>{k}, Scalar::of(static_cast<double>(k % 7) + 1.0));
    return Tensor::from_coordinates({n}, ValueType::Float64, Scalar::of(fill),
                                    Format::parse("sparselist(0)", 1).with_index_bits(bits), c);
}

std::vector<int64_t> every(int64_t from, int64_t step, int64_t count) {
    std::vector<int64_t> out;
    for (int64_t k = 0; k < count; ++k) out.push_back(from + k * step);
    return out;
}

// Pairs of lists: one of 1-3 entries against one of thousands (each way round, hits and
// misses, entries before, inside and past the long one's range), equal lengths, empty lists.
TEST(CompilerIntersection, SkewedEqualAndEmptyListsMatchTheReference) {
    const int64_t n = 9000;
    const std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> pairs{
        {{4000}, every(0, 1, 8000)},
        {{0, 2500, 8998}, every(0, 2, 4500)},
        {{1, 3, 8999}, every(0, 2, 4500)},          // no coordinate in common
        {every(100, 3, 2000), {5, 300, 4102}},      // the long one first
        {{8500}, every(0, 3, 2000)},                // past the long one's last entry
        {every(0, 3, 2500), every(1, 3, 2500)},     // equal lengths, disjoint
        {every(0, 3, 2500), every(0, 5, 1500)},     // alike lengths, merged
        {{}, every(0, 1, 3000)},
        {every(0, 1, 3000), {}},
        {{}, {}},
    };
    for (int bits : {32, 64})
        for (double fill : {0.0, kInf})
            for (size_t k = 0; k < pairs.size(); ++k) {
                SCOPED_TRACE("pair " + std::to_string(k) + ", @" + std::to_string(bits) + ", fill " +
                             std::to_string(fill));
                Tensor a = list_of(n, pairs[k].first, fill, bits), b = list_of(n, pairs[k].second, fill, bits);
                std::string text = fill == 0.0 ? "s[] += a[i] * b[i]" : kTropicalPlus + "s[] min= tplus(a[i], b[i])";
                std::string c;
                counted(text, {{"a", &a}, {"b", &b}}, {}, &c);
                // Both ways of the choice are in the kernel: the gallop and the merge's steps.
                EXPECT_TRUE(has(c, bits == 32 ? "siskin_gallop_i32(" : "siskin_gallop_i64(")) << c;
                EXPECT_TRUE(has(c, "i_len")) << c;
            }
}

// One list of 3 entries against one of 200000: the loop runs over the short list only (the
// merge would step through the long one).
TEST(CompilerIntersection, SkewedListsCostTheShortOneTimesALogarithm) {
    const int64_t n = 200000;
    for (double fill : {0.0, kInf}) {
        Tensor a = list_of(n, {17, 99991, 150000}, fill, 32), b = list_of(n, every(0, 1, n), fill, 32);
        std::string text = fill == 0.0 ? "s[] += a[i] * b[i]" : kTropicalPlus + "s[] min= tplus(a[i], b[i])";
        for (auto order : {std::pair{"a", "b"}, std::pair{"b", "a"}}) {
            auto [out, work] = counted(text, {{order.first, &a}, {order.second, &b}});
            EXPECT_GT(work, 0);
            EXPECT_LE(work, static_cast<int64_t>(3 * (std::log2(static_cast<double>(n)) + 2)));
        }
        // Alike lengths still merge: at most both lists.
        Tensor c = list_of(n, every(0, 2, 5000), fill, 32), d = list_of(n, every(0, 3, 4000), fill, 32);
        auto [out, work] = counted(text, {{"a", &c}, {"b", &d}});
        EXPECT_LE(work, c.stored() + d.stored());
    }
}

// The masked (min, +) and (or, and) mxm of a star graph (every vertex next to the hub 0, and a
// ring): each masked entry (i, 0) meets row i's 3 entries with the hub's column of n. The
// values are the reference's, and the work grows with the mask's entries, not with n per entry.
TEST(CompilerIntersection, MaskedMxmOnAHubGallopsTheHubsColumn) {
    const int64_t n = 600;
    CoordinateList w, pattern;
    w.ndims = pattern.ndims = 2;
    for (int64_t i = 0; i < n; ++i) {
        std::set<int64_t> nbrs{(i + 1) % n, (i + n - 1) % n};
        if (i == 0) for (int64_t j = 1; j < n; ++j) nbrs.insert(j);
        else nbrs.insert(0);
        for (int64_t j : nbrs) {
            w.add(std::vector<int64_t>{i, j}, Scalar::of(static_cast<double>((i + j) % 5) + 1.0));
            pattern.add(std::vector<int64_t>{i, j}, Scalar::of(true));
        }
    }
    Tensor A = Tensor::from_coordinates({n, n}, ValueType::Float64, Scalar::of(kInf), Format::csr(), w);
    Tensor B = Tensor::from_coordinates({n, n}, ValueType::Float64, Scalar::of(kInf),
                                        Format::parse("dense(1)/sparselist(0)", 2), w);
    Tensor M = Tensor::from_coordinates({n, n}, ValueType::Bool, Scalar::of(false), Format::csr(), pattern);
    Tensor Ab = Tensor::from_coordinates({n, n}, ValueType::Bool, Scalar::of(false), Format::csr(), pattern);
    Tensor Bb = Tensor::from_coordinates({n, n}, ValueType::Bool, Scalar::of(false),
                                         Format::parse("dense(1)/sparselist(0)", 2), pattern);
    OutputSpec csr;
    csr.format = Format::csr();
    auto [min_out, min_work] = counted(kTropicalPlus + "for i, j { if M[i,j] { C[i,j] min= tplus(A[i,k], B[k,j]) } }",
                                       {{"A", &A}, {"B", &B}, {"M", &M}}, {{"C", csr}});
    auto [or_out, or_work] = counted("for i, j { if M[i,j] { C[i,j] |= A[i,k] && B[k,j] } }",
                                     {{"A", &Ab}, {"B", &Bb}, {"M", &M}}, {{"C", csr}});
    EXPECT_GT(min_out.at("C").stored(), 0);
    EXPECT_GT(or_out.at("C").stored(), 0);
    // The mask holds ~4n entries; the merge would take ~n steps for each of the 2n that meet
    // the hub (~2 n^2 = 720000).
    for (int64_t work : {min_work, or_work}) {
        EXPECT_GT(work, 0);
        EXPECT_LE(work, 40 * M.stored());
    }
}

} // namespace
} // namespace siskin::testing
