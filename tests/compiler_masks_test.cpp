// Masks as structure (compiler/mask.hpp): comparisons of a loop index with a bound value split the
// loop into runs of false and true. Every condition and offset against the reference across
// formats and fills, and work counts showing that a triangle walks only its part of each fibre
// and a diagonal visits one entry per fibre.
#include "compiler_test_util.hpp"

namespace siskin::testing {
namespace {

const std::vector<std::string> kFormats = {"dense", "csr", "dcsr", "csc", "coo", "dense(0)/runlist(1)",
                                           "dense(0)/sparseband(1)", "dense(0)/sparsebytemap(1)"};

TEST(MasksCompiled, TrianglesDiagonalsAndOffsetsAgreeWithTheReference) {
    const std::vector<std::string> conditions = {"i <= j", "i < j", "j <= i", "i == j", "i != j", "i <= j + 2",
                                                 "j < i - 1", "j >= i + 3", "2 + j > i"};
    for (const auto& format : kFormats)
        for (double fill : {0.0, 1.0}) {
            if (fill != 0.0 && format != "csr" && format != "dense(0)/runlist(1)") continue; // kept short
            Tensor a = random_matrix_of(13, 11, 0.3, format, 5, fill, [](double u) { return std::floor(u * 9) - 4; });
            for (size_t k = 0; k < conditions.size(); ++k) {
                const std::string& cond = conditions[k];
                SCOPED_TRACE(cond + " on " + format);
                compiled_matching_reference("for i, j { if " + cond + " { s[] += A[i,j] } }", {{"A", &a}});
                if (k % 3 == 0)
                    compiled_matching_reference("for i, j { if " + cond + " { B[i,j] = A[i,j] } }", {{"A", &a}});
            }
        }
}


TEST(MasksCompiled, ATriangleWalksOnlyItsPartOfEachFibre) {
    // Every row full: the upper triangle holds n(n+1)/2 of the n^2 entries.
    const int64_t n = 200;
    Tensor a = random_matrix_of(n, n, 1.0, "csr", 3, 0.0, [](double u) { return u + 1; });
    int64_t all = scalar_work_of("for i, j { s[] += A[i,j] }", {{"A", &a}});
    int64_t upper = scalar_work_of("for i, j { if i <= j { s[] += A[i,j] } }", {{"A", &a}});
    EXPECT_LT(upper, all * 6 / 10) << "all " << all << ", upper " << upper;
    // The diagonal: one located entry per row, whatever the row's length.
    int64_t diagonal = scalar_work_of("for i, j { if i == j { s[] += A[i,j] } }", {{"A", &a}});
    EXPECT_LE(diagonal, 3 * n) << diagonal;
}

} // namespace
} // namespace siskin::testing
