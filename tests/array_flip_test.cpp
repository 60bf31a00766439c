// Backward reads (flip, negative slice steps) compiled as views: a sorted list walked from its
// end, a dense level (or any level that locates) read at dim-1-r, coo copied densely first.
// Checked against the NumPy model and the reference evaluator across formats and fills.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "array_numpy_model.hpp"
#include "array_test_util.hpp"
#include "compiler_test_util.hpp"
#include "siskin/array.hpp"
#include "siskin/error.hpp"

namespace siskin::testing {
namespace {

/// The 5x7 matrix whose stored entries (the others are `fill`) sit at the ends of rows and
/// columns too, so that a backward walk's first and last entries are both exercised.
Tensor sample(const std::string& format, double fill) {
    std::vector<Scalar> v(35, Scalar::of(fill));
    const int at[][2] = {{0, 0}, {0, 6}, {1, 3}, {2, 1}, {2, 2}, {2, 5}, {4, 0}, {4, 4}, {4, 6}};
    double x = 1.0;
    for (auto [i, j] : at) v[static_cast<size_t>(i * 7 + j)] = Scalar::of(x++);
    return Tensor::from_dense({5, 7}, ValueType::Float64, Scalar::of(fill), Format::parse(format, 2), v);
}

void expect_equal(const Tensor& got, const NdArray& want, const std::string& what) {
    ASSERT_EQ(got.shape(), want.shape) << what;
    std::vector<Scalar> g = got.to_dense();
    for (size_t k = 0; k < g.size(); ++k)
        ASSERT_TRUE(g[k].same_value(want.data[k]))
            << what << ": element " << k << " is " << g[k].to_string() << ", NumPy gives "
            << want.data[k].to_string();
}

TEST(ArrayFlip, NegativeStepsAndFlipCompiledAcrossFormatsAndFills) {
    // Each format runs the expressions `picks` names (kernels compile per format: few).
    struct Operand {
        std::string format;
        double fill;
        std::vector<int> picks;
    };
    const std::vector<Operand> cases = {
        {"csr", 0.0, {0, 1, 2, 3}}, {"csr", 1.5, {1, 3}}, {"csc", 0.0, {0, 2}},
        {"dcsr", -2.0, {3}},        {"dense", 1.5, {1, 3}}, {"coo", 0.0, {3}},
        {"dense(0)/sparsebytemap(1)", 0.0, {2}}, {"dense(0)/runlist(1)", 0.0, {1}},
        {"dense(0)/sparsehash(1)", 0.5, {2}}};
    int checked = 0;
    for (const auto& [format, fill, picks] : cases) {
        Array A(sample(format, fill), "A");
        NdArray m = NdArray::of(sample("dense", fill));
        struct Case {
            Array lazy;
            NdArray want;
            std::string text;
        };
        const std::vector<Case> exprs = {
            {A[{IndexItem::slice({}, {}, -1)}], np_slice(m, 0, 4, -6, -1), "A[::-1]"},
            {A[{IndexItem::all(), IndexItem::slice(5, 1, -2)}], np_slice(m, 1, 5, 1, -2),
             "A[:, 5:1:-2]"},
            {flip(A, 1), np_slice(m, 1, 6, -8, -1), "flip(A, axis=1)"},
            {flip(A) * 2.0 + A, np_ufunc("add", {np_ufunc("mul", {np_slice(np_slice(m, 0, 4, -6, -1),
                                                                             1, 6, -8, -1),
                                                                    NdArray{{}, ValueType::Float64,
                                                                            {Scalar::of(2.0)}}}),
                                                 m}),
             "flip(A) * 2 + A"},
        };
        for (int k : picks) {
            const Case& c = exprs[static_cast<size_t>(k)];
            std::string what = fmt::format("{} with A {} fill {}", c.text, format, fill);
            SCOPED_TRACE(what + "\n" + c.lazy.program_text());
            Tensor got = c.lazy.compute(compiled());
            expect_equal(got, c.want, what + " (compiled)");
            expect_equal(c.lazy.compute(interpreted()), c.want, what + " (reference)");
            ++checked;
        }
    }
    EXPECT_EQ(checked, 15);
}

TEST(ArrayFlip, SparseResultsOfBackwardReadsStoreTheSameEntries) {
    // A reversed CSR into CSR: the backward walk emits the row's entries in increasing output
    // coordinate, so the output is appended in order (sorted, no duplicates).
    Array A(sample("csr", 0.0), "A");
    ComputeOptions csr = compiled();
    csr.format = Format::csr();
    Tensor r = flip(A, 1).compute(csr);
    const LevelStorage& l = r.level(1);
    EXPECT_EQ(ints(l.buffer("pos")), (std::vector<int64_t>{0, 2, 3, 6, 6, 9}));
    EXPECT_EQ(ints(l.buffer("crd")), (std::vector<int64_t>{0, 6, 3, 1, 4, 5, 0, 2, 6}));
    EXPECT_EQ(doubles(r.values()), (std::vector<double>{2, 1, 3, 6, 5, 4, 9, 8, 7}));
    // A compressed vector read from its end through a strided window: b[8:0:-3] reads 8, 5, 2.
    std::vector<Scalar> v(10, Scalar::of(0.0));
    v[2] = Scalar::of(1.0);
    v[5] = Scalar::of(2.0);
    v[6] = Scalar::of(3.0);
    v[9] = Scalar::of(4.0);
    Array b(Tensor::from_dense({10}, ValueType::Float64, Scalar::of(0.0),
                               Format::parse("sparselist(0)", 1), v), "b");
    ComputeOptions vec = compiled();
    vec.format = Format::parse("sparselist(0)", 1);
    Tensor s = b[{IndexItem::slice(8, 0, -3)}].compute(vec);
    EXPECT_EQ(s.shape(), std::vector<int64_t>{3});
    EXPECT_EQ(ints(s.level(0).buffer("crd")), (std::vector<int64_t>{1, 2}));
    EXPECT_EQ(doubles(s.values()), (std::vector<double>{2, 1}));
    // The kernel walks the list downwards (q--), seeking the window's start and, past each
    // chunk, the next coordinate on the stride by galloping down from where it is, not with a
    // search of the whole list per coordinate as a located read would.
    ArrayProgram ap = b[{IndexItem::slice(8, 0, -3)}].lower(vec.format);
    std::string c = compile_for(ap.program, ap.input_pointers(), ap.outputs, test_options())
                        .kernel->c_source();
    EXPECT_NE(c.find("siskin_gallop_down_i"), std::string::npos) << c;
    EXPECT_EQ(c.find("siskin_lower_bound_i"), std::string::npos) << c;
    EXPECT_NE(c.find(" - 1LL;"), std::string::npos) << c; // q = q - 1
}

TEST(ArrayFlip, EvalSpellsNegativeSteps) {
    Array A(sample("csr", 0.0), "A");
    NdArray m = NdArray::of(sample("dense", 0.0));
    std::map<std::string, Array> names{{"A", A}};
    expect_equal(parse_array_expression("A[::-1]", names).compute(compiled()),
                 np_slice(m, 0, 4, -6, -1), "A[::-1]");
    expect_equal(parse_array_expression("A[:, 5:1:-2]", names).compute(compiled()),
                 np_slice(m, 1, 5, 1, -2), "A[:, 5:1:-2]");
    expect_equal(parse_array_expression("flip(A, axis=1)", names).compute(compiled()),
                 np_slice(m, 1, 6, -8, -1), "flip(A, axis=1)");
}

} // namespace
} // namespace siskin::testing
