// The reference evaluator on programs whose results are computed by hand.
#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "siskin/error.hpp"
#include "siskin/ir/text.hpp"
#include "siskin/reference.hpp"

using namespace siskin;

namespace {

const double kInf = std::numeric_limits<double>::infinity();

// A float64 tensor from a row-major list, stored in `format`, with fill `fill`: entries equal to
// the fill are left unstored, which is exactly what the evaluator must see through.
Tensor make(std::vector<int64_t> shape, std::vector<double> values, const Format& format,
            double fill = 0.0) {
    std::vector<Scalar> scalars;
    for (double v : values) scalars.push_back(Scalar::of(v));
    return Tensor::from_dense(std::move(shape), ValueType::Float64, Scalar::of(fill), format, scalars);
}

std::vector<double> dense(const Tensor& t) {
    std::vector<double> out;
    for (const auto& s : t.to_dense()) out.push_back(s.as_double());
    return out;
}

std::map<std::string, Tensor> run(const std::string& text,
                                  std::map<std::string, const Tensor*> inputs,
                                  std::map<std::string, OutputSpec> outputs = {}) {
    return evaluate_reference(ir::parse_program(text), inputs, outputs);
}

OutputSpec as(const Format& f) {
    OutputSpec spec;
    spec.format = f;
    return spec;
}

// 3x4 matrix used by most tests:
//   [1 0 2 0]
//   [0 0 0 3]
//   [4 5 0 0]
const std::vector<double> kA = {1, 0, 2, 0, 0, 0, 0, 3, 4, 5, 0, 0};

} // namespace

TEST(ReferenceEvaluator, SpMV) {
    Tensor A = make({3, 4}, kA, Format::csr());
    Tensor x = make({4}, {1, 2, 3, 4}, Format::dense(1));
    auto out = run("y[i] += A[i,j] * x[j]", {{"A", &A}, {"x", &x}});
    EXPECT_EQ(dense(out.at("y")), (std::vector<double>{7, 12, 14}));
    EXPECT_EQ(out.at("y").shape(), (std::vector<int64_t>{3}));
}

TEST(ReferenceEvaluator, SpMVGivesTheSameResultForEveryInputFormat) {
    Tensor x = make({4}, {1, 2, 3, 4}, Format::dense(1));
    for (const Format& f : {Format::csr(), Format::csc(), Format::dcsr(), Format::coo(2), Format::dense(2)}) {
        Tensor A = make({3, 4}, kA, f);
        auto out = run("y[i] += A[i,j] * x[j]", {{"A", &A}, {"x", &x}});
        EXPECT_EQ(dense(out.at("y")), (std::vector<double>{7, 12, 14})) << f.to_string();
    }
}

TEST(ReferenceEvaluator, SpGEMM) {
    Tensor A = make({3, 4}, kA, Format::csr());
    // B (4x2) = [[1 0][0 1][1 1][2 0]]
    Tensor B = make({4, 2}, {1, 0, 0, 1, 1, 1, 2, 0}, Format::csr());
    auto out = run("C[i,j] += A[i,k] * B[k,j]", {{"A", &A}, {"B", &B}}, {{"C", as(Format::csr())}});
    // Row 0: [1+2, 2] ; row 1: [6, 0] ; row 2: [4, 5]
    EXPECT_EQ(dense(out.at("C")), (std::vector<double>{3, 2, 6, 0, 4, 5}));
    EXPECT_EQ(out.at("C").stored(), 5);
}

TEST(ReferenceEvaluator, SparseAddStoresTheUnion) {
    Tensor A = make({2, 3}, {1, 0, 2, 0, 0, 0}, Format::csr());
    Tensor B = make({2, 3}, {0, 0, -2, 0, 5, 0}, Format::csr());
    auto out = run("C[i,j] = A[i,j] + B[i,j]", {{"A", &A}, {"B", &B}}, {{"C", as(Format::csr())}});
    EXPECT_EQ(dense(out.at("C")), (std::vector<double>{1, 0, 0, 0, 5, 0}));
    // 2 + -2 cancels to the fill: the oracle stores exactly the non-fill entries.
    EXPECT_EQ(out.at("C").stored(), 2);
}

TEST(ReferenceEvaluator, SparseMultiplyStoresTheIntersection) {
    Tensor A = make({2, 3}, {1, 0, 2, 0, 3, 0}, Format::csr());
    Tensor B = make({2, 3}, {4, 1, 0, 0, 2, 0}, Format::coo(2));
    auto out = run("C[i,j] = A[i,j] * B[i,j]", {{"A", &A}, {"B", &B}}, {{"C", as(Format::csr())}});
    EXPECT_EQ(dense(out.at("C")), (std::vector<double>{4, 0, 0, 0, 6, 0}));
    EXPECT_EQ(out.at("C").stored(), 2);
}

TEST(ReferenceEvaluator, RowAndColumnSums) {
    Tensor A = make({3, 4}, kA, Format::csr());
    auto rows = run("r[i] += A[i,j]", {{"A", &A}});
    EXPECT_EQ(dense(rows.at("r")), (std::vector<double>{3, 3, 9}));
    auto cols = run("c[j] += A[i,j]", {{"A", &A}});
    EXPECT_EQ(dense(cols.at("c")), (std::vector<double>{5, 5, 2, 3}));
}

TEST(ReferenceEvaluator, MinAndMaxReductionsWithFillZero) {
    // The fill takes part: unstored zeros are smaller than every stored entry here.
    Tensor A = make({3, 4}, kA, Format::csr());
    auto mx = run("s[] max= A[i,j]", {{"A", &A}});
    EXPECT_EQ(mx.at("s").at({}).as_double(), 5);
    auto mn = run("s[] min= A[i,j]", {{"A", &A}});
    EXPECT_EQ(mn.at("s").at({}).as_double(), 0);
    auto rowmax = run("m[i] max= A[i,j]", {{"A", &A}});
    EXPECT_EQ(dense(rowmax.at("m")), (std::vector<double>{2, 3, 5}));
}

TEST(ReferenceEvaluator, MinReductionWithFillInfinity) {
    // Distances: unstored means infinitely far, so the minimum ignores them.
    std::vector<double> d = {kInf, 4, kInf, 7, kInf, 2, kInf, kInf, kInf};
    Tensor D = make({3, 3}, d, Format::csr(), kInf);
    EXPECT_EQ(D.stored(), 3);
    auto mn = run("m[i] min= D[i,j]", {{"D", &D}});
    EXPECT_EQ(dense(mn.at("m")), (std::vector<double>{4, 2, kInf}));
    EXPECT_EQ(mn.at("m").fill().as_double(), kInf); // min's identity
    auto all = run("s[] min= D[i,j]", {{"D", &D}});
    EXPECT_EQ(all.at("s").at({}).as_double(), 2);
    auto mx = run("s[] max= D[i,j]", {{"D", &D}});
    EXPECT_EQ(mx.at("s").at({}).as_double(), kInf);
}

TEST(ReferenceEvaluator, ElementwiseMinInfersTheOutputFill) {
    Tensor A = make({2, 2}, {1, kInf, kInf, 3}, Format::csr(), kInf);
    Tensor B = make({2, 2}, {2, 5, kInf, kInf}, Format::csr(), kInf);
    auto out = run("C[i,j] = min(A[i,j], B[i,j])", {{"A", &A}, {"B", &B}}, {{"C", as(Format::csr())}});
    EXPECT_EQ(dense(out.at("C")), (std::vector<double>{1, 5, kInf, 3}));
    EXPECT_EQ(out.at("C").fill().as_double(), kInf);
    EXPECT_EQ(out.at("C").stored(), 3);
}

TEST(ReferenceEvaluator, MaskedAssignmentWithIf) {
    // Keep A's entries strictly above the diagonal.
    Tensor A = make({3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9}, Format::dense(2));
    auto out = run("for i, j { if j > i { U[i,j] = A[i,j] } }", {{"A", &A}}, {{"U", as(Format::csr())}});
    EXPECT_EQ(dense(out.at("U")), (std::vector<double>{0, 2, 3, 0, 0, 6, 0, 0, 0}));
    EXPECT_EQ(out.at("U").stored(), 3);
}

TEST(ReferenceEvaluator, ProgramWithTwoOutputs) {
    Tensor A = make({3, 4}, kA, Format::csr());
    auto out = run("for i { for j { r[i] += A[i,j]; c[j] max= A[i,j] } }", {{"A", &A}});
    EXPECT_EQ(dense(out.at("r")), (std::vector<double>{3, 3, 9}));
    EXPECT_EQ(dense(out.at("c")), (std::vector<double>{4, 5, 2, 3}));
}

TEST(ReferenceEvaluator, LetBindsAScalar) {
    Tensor x = make({3}, {1, 2, 3}, Format::dense(1));
    auto out = run("for i { let t = x[i] * 2 { y[i] = t + 1 } }", {{"x", &x}});
    EXPECT_EQ(dense(out.at("y")), (std::vector<double>{3, 5, 7}));
}

TEST(ReferenceEvaluator, LaterStatementsReadEarlierOutputs) {
    Tensor A = make({3, 4}, kA, Format::csr());
    auto out = run("r[i] += A[i,j]\ns[] += r[i] * r[i]", {{"A", &A}});
    EXPECT_EQ(out.at("s").at({}).as_double(), 9 + 9 + 81);
}

TEST(ReferenceEvaluator, IntegerAndBoolTypesArePromoted) {
    std::vector<Scalar> ints = {Scalar::of(int64_t{2}), Scalar::of(int64_t{0}), Scalar::of(int64_t{5})};
    Tensor a = Tensor::from_dense({3}, ValueType::Int64, Scalar::of(int64_t{0}), Format::csf(1), ints);
    auto out = run("s[] += a[i]", {{"a", &a}});
    EXPECT_EQ(out.at("s").type(), ValueType::Int64);
    EXPECT_EQ(out.at("s").at({}).as_int(), 7);
    auto half = run("y[i] = a[i] * 0.5", {{"a", &a}});
    EXPECT_EQ(half.at("y").type(), ValueType::Float64);
    EXPECT_EQ(dense(half.at("y")), (std::vector<double>{1, 0, 2.5}));
}

TEST(ReferenceEvaluator, ShapeMismatchIsAnError) {
    Tensor A = make({3, 4}, kA, Format::csr());
    Tensor x = make({3}, {1, 2, 3}, Format::dense(1));
    EXPECT_THROW(run("y[i] += A[i,j] * x[j]", {{"A", &A}, {"x", &x}}), Error);
}

TEST(ReferenceEvaluator, OutOfRangeAffineSubscriptIsAnError) {
    Tensor x = make({3}, {1, 2, 3}, Format::dense(1));
    try {
        run("for i in 0:3 { y[i] = x[i + 1] }", {{"x", &x}}, {{"y", [] {
                OutputSpec s;
                s.shape = std::vector<int64_t>{3};
                s.type = ValueType::Float64;
                return s;
            }()}});
        FAIL() << "expected an error";
    } catch (const Error& e) {
        // The verifier sees it before anything runs, with the range that leaves x.
        EXPECT_NE(std::string(e.what()).find("the subscript i + 1 of x reads coordinates 1..3 of "
                                             "its dimension 0 (size 3) when i over 0:3"),
                  std::string::npos)
            << e.what();
    }
}
