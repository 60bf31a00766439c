// Affine subscripts compiled (ir/affine.hpp, compiler/affine_subscript.hpp): the test cases of
// ../shared/papers/notes/sparse-convolutions.md §7 with their expected values, in every input
// format, each also checked against the reference evaluator; work counts showing that the loop
// of a reduced index visits only non-empty windows; random affine programs against the
// reference; and the refusals.
#include <algorithm>
#include <array>
#include <random>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "compiler_test_util.hpp"
#include "ir_test_support.hpp"

namespace siskin::testing {
namespace {

using ir::test::expect_error;

const std::vector<std::string> kVectorFormats = {"dense",         "sparselist(0)", "coo",
                                                 "sparseband(0)", "runlist(0)",    "sparsebytemap(0)"};
const std::vector<std::string> kMatrixFormats = {"dense",
                                                 "csr",
                                                 "dcsr",
                                                 "csc",
                                                 "dcsc",
                                                 "coo",
                                                 "sparselist(0)/dense(1)",
                                                 "dense(0)/runlist(1)",
                                                 "dense(0)/sparseband(1)",
                                                 "dense(0)/sparsebytemap(1)"};

Tensor dense_of(std::vector<int64_t> shape, const std::vector<double>& values, const std::string& format = "dense",
                double fill = 0.0) {
    CoordinateList list;
    list.ndims = static_cast<int>(shape.size());
    std::vector<int64_t> at(shape.size(), 0);
    for (size_t flat = 0; flat < values.size(); ++flat) {
        size_t rest = flat;
        for (size_t d = shape.size(); d-- > 0;) {
            at[d] = static_cast<int64_t>(rest % static_cast<size_t>(shape[d]));
            rest /= static_cast<size_t>(shape[d]);
        }
        if (values[flat] != fill) list.add(at, Scalar::of(values[flat]));
    }
    return Tensor::from_coordinates(shape, ValueType::Float64, Scalar::of(fill),
                                    Format::parse(format, static_cast<int>(shape.size())), list);
}

std::vector<double> values_of(const Tensor& t) {
    std::vector<double> out;
    for (const auto& s : t.to_dense()) out.push_back(s.as_double());
    return out;
}

// Compiled equals the reference and the expected values, for output `name`.
void expect_values(const std::string& program, const std::map<std::string, const Tensor*>& inputs,
                   const std::string& name, const std::vector<int64_t>& shape,
                   const std::vector<double>& want, const std::string& label,
                   const std::map<std::string, OutputSpec>& specs = {}) {
    SCOPED_TRACE(program + " [" + label + "]");
    auto got = compiled_matching_reference(program, inputs, specs);
    ASSERT_TRUE(got.count(name));
    EXPECT_EQ(got.at(name).shape(), shape);
    EXPECT_EQ(values_of(got.at(name)), want);
}

// Case 6's 8x8 input and edge filter.
const std::vector<double> kImage = {1, 2, 3, 4, 0, 6, 7, 8, 2, 2, 4, 4, 0, 0, 6, 8, 2, 2, 4, 4, 0, 0,
                                    6, 8, 2, 2, 3, 4, 0, 0, 7, 8, 1, 3, 3, 4, 0, 0, 6, 8, 3, 2, 3, 4,
                                    0, 0, 7, 8, 1, 3, 3, 4, 3, 6, 6, 8, 1, 3, 3, 4, 3, 0, 7, 8};
const std::vector<double> kEdge = {1, 0, -1, 0, 0, 0, -1, 0, 1};

TEST(AffineCompiled, Case1TheWindowsOfFigure3) {
    for (const auto& format : kVectorFormats) {
        Tensor c = make({10}, format, {{{2}, 1}, {{8}, 2}, {{9}, 3}});
        Tensor b = dense_of({2}, {1, 1});
        expect_values("A[i] += C[i+j] * B[j]", {{"C", &c}, {"B", &b}}, "A", {9},
                      {0, 1, 1, 0, 0, 0, 0, 2, 5}, format);
    }
}

TEST(AffineCompiled, Case2AnEmptyInput) {
    for (const auto& format : kVectorFormats) {
        Tensor c = make({10}, format, {});
        Tensor b = dense_of({2}, {1, 1});
        expect_values("A[i] += C[i+j] * B[j]", {{"C", &c}, {"B", &b}}, "A", {9},
                      std::vector<double>(9, 0.0), format);
    }
}

TEST(AffineCompiled, Case5ADisjunction) {
    for (const auto& bf : kVectorFormats)
        for (const auto& cf : kVectorFormats) {
            Tensor b = make({4}, bf, {{{0}, 5}, {{2}, 7}});
            Tensor c = make({5}, cf, {{{2}, 1}});
            expect_values("A[i,j] = B[i] + C[i+j]", {{"B", &b}, {"C", &c}}, "A", {4, 2},
                          {5, 5, 0, 1, 8, 7, 0, 0}, bf + " + " + cf);
        }
}

TEST(AffineCompiled, Cases6And7TwoDimensionalConvolution) {
    const std::vector<double> want = {0, 0, -1, -6, -1, 6, -1, 0, 1, 0, 1, 0, 0, -1, 1, 0, 0, 0,
                                      -1, 0, 0, 0, 0, 0, 0, 0, 3, 6, -3, -6, 2, -1, 3, 0, -3, 0};
    for (const auto& format : kMatrixFormats) {
        Tensor image = dense_of({8, 8}, kImage, format);
        for (const std::string filter_format : {"dense", "csr", "dcsr", "csc"}) {
            Tensor filter = dense_of({3, 3}, kEdge, filter_format);
            expect_values("O[x,y] += I[x+p, y+q] * F[p,q]", {{"I", &image}, {"F", &filter}}, "O",
                          {6, 6}, want, format + " * " + filter_format);
        }
    }
}

TEST(AffineCompiled, Case6IntoASparseOutput) {
    const std::vector<double> want = {0, 0, -1, -6, -1, 6, -1, 0, 1, 0, 1, 0, 0, -1, 1, 0, 0, 0,
                                      -1, 0, 0, 0, 0, 0, 0, 0, 3, 6, -3, -6, 2, -1, 3, 0, -3, 0};
    for (const std::string format : {"csr", "dcsr"}) {
        Tensor image = dense_of({8, 8}, kImage, format);
        Tensor filter = dense_of({3, 3}, kEdge);
        expect_values("O[x,y] += I[x+p, y+q] * F[p,q]", {{"I", &image}, {"F", &filter}}, "O",
                      {6, 6}, want, format, {{"O", with_format(format, 2)}});
    }
}

// Case 19: a COO input built from coordinates given out of order with duplicates (each value
// split into two entries; from_coordinates sums them, so the level holds unique sorted ones).
TEST(AffineCompiled, Case19CooInputWithDuplicateCoordinates) {
    const std::vector<double> want = {0, 0, -1, -6, -1, 6, -1, 0, 1, 0, 1, 0, 0, -1, 1, 0, 0, 0,
                                      -1, 0, 0, 0, 0, 0, 0, 0, 3, 6, -3, -6, 2, -1, 3, 0, -3, 0};
    CoordinateList list;
    list.ndims = 2;
    for (size_t flat = kImage.size(); flat-- > 0;) {
        if (kImage[flat] == 0) continue;
        std::vector<int64_t> at{static_cast<int64_t>(flat / 8), static_cast<int64_t>(flat % 8)};
        list.add(at, Scalar::of(1.0));
        if (kImage[flat] != 1) list.add(at, Scalar::of(kImage[flat] - 1));
    }
    Tensor image = Tensor::from_coordinates({8, 8}, ValueType::Float64, Scalar::of(0.0), Format::parse("coo", 2), list);
    EXPECT_EQ(values_of(image), kImage);
    for (const std::string filter_format : {"dense", "coo"}) {
        Tensor filter = dense_of({3, 3}, kEdge, filter_format);
        expect_values("O[x,y] += I[x+p, y+q] * F[p,q]", {{"I", &image}, {"F", &filter}}, "O", {6, 6}, want,
                      "coo * " + filter_format);
    }
}

TEST(AffineCompiled, Case8StridedOneDimensional) {
    for (const auto& format : kVectorFormats) {
        Tensor in = make({11}, format, {{{3}, 1}, {{8}, 2}});
        Tensor f = dense_of({3}, {1, 1, 1});
        expect_values("O[i] += I[2*i+p] * F[p]", {{"I", &in}, {"F", &f}}, "O", {5}, {0, 1, 0, 2, 2}, format);
    }
}

TEST(AffineCompiled, Case9StridedTwoDimensional) {
    for (const auto& format : kMatrixFormats) {
        Tensor image = dense_of({8, 8}, kImage, format);
        Tensor filter = dense_of({3, 3}, kEdge);
        expect_values("O[x,y] += I[2*x+p, 2*y+q] * F[p,q]", {{"I", &image}, {"F", &filter}}, "O",
                      {3, 3}, {0, -1, -1, 0, 1, 0, 0, 3, -3}, format);
    }
}

TEST(AffineCompiled, Case10DilatedOneDimensional) {
    for (const auto& format : kVectorFormats) {
        Tensor in = make({12}, format, {{{3}, 1}, {{9}, 2}});
        Tensor f = dense_of({3}, {1, 10, 100});
        expect_values("O[i] += I[i+2*p] * F[p]", {{"I", &in}, {"F", &f}}, "O", {8},
                      {0, 10, 0, 1, 0, 200, 0, 20}, format);
    }
}

TEST(AffineCompiled, Case11DilatedTwoDimensional) {
    for (const auto& format : kMatrixFormats) {
        Tensor image = dense_of({8, 8}, kImage, format);
        Tensor filter = dense_of({3, 3}, kEdge);
        expect_values("O[x,y] += I[x+2*p, y+2*q] * F[p,q]", {{"I", &image}, {"F", &filter}}, "O",
                      {4, 4}, {0, -7, -1, 0, -1, 0, 2, 0, 4, 5, 1, 0, 4, -1, 0, 0}, format);
    }
}

TEST(AffineCompiled, Case12DilatedNHWC) {
    std::vector<double> in(3 * 7 * 7 * 3, 10.0);
    in[(0 * 7 * 7 + 1 * 7 + 1) * 3 + 0] = 0;
    std::vector<double> want(27, 540.0);
    want[(0 * 3 + 1) * 3 + 1] = 520;
    for (const std::string format : {"csf", "sparselist(0)/dense(1)/sparselist(2)/sparselist(3)", "dense"}) {
        Tensor image = dense_of({3, 7, 7, 3}, in, format);
        for (const std::string ff : {"dense", "sparselist(0)/dense(1)/sparselist(2)/sparselist(3)"}) {
            Tensor filter = dense_of({3, 3, 3, 1}, std::vector<double>(27, 2.0), ff);
            expect_values("O[n,h,w,f] += I[n, h+2*r, w+2*q, c] * F[r,q,c,f]",
                          {{"I", &image}, {"F", &filter}}, "O", {3, 3, 3, 1}, want, format + " * " + ff);
        }
    }
}

// Case 18: compound subscripts only on dense levels (NHWC with DDDC input) need no window
// machinery: the generated C has no chunk loop over stored offsets (no `_start` variable, no
// gallop), unlike the CCCC input, and the output equals the dense input's.
TEST(AffineCompiled, Case18CompoundSubscriptsOnDenseLevelsAreDirectIndexing) {
    const std::string program = "O[n,h,w,f] += I[n, h+r, w+q, c] * F[r,q,c,f]";
    std::vector<double> in(3 * 7 * 7 * 3, 10.0);
    in[(1 * 7 + 1) * 3] = 0.0;
    Tensor filter = dense_of({3, 3, 3, 1}, std::vector<double>(27, 2.0));
    auto c_for = [&](const Tensor& image) {
        std::map<std::string, TensorSignature> sigs{{"I", TensorSignature::of(image, true)},
                                                    {"F", TensorSignature::of(filter, true)}};
        return generate_c(ir::parse_program(program), infer_signatures(ir::parse_program(program), sigs));
    };
    Tensor dddc = dense_of({3, 7, 7, 3}, in, "dense(0)/dense(1)/dense(2)/sparselist(3)");
    Tensor cccc = dense_of({3, 7, 7, 3}, in, "csf");
    Tensor dense = dense_of({3, 7, 7, 3}, in);
    std::string direct = c_for(dddc), windowed = c_for(cccc);
    EXPECT_EQ(direct.find("_start"), std::string::npos) << direct;
    EXPECT_EQ(direct.find("gallop"), std::string::npos) << direct;
    EXPECT_NE(windowed.find("_start"), std::string::npos);
    auto got = compiled_matching_reference(program, {{"I", &dddc}, {"F", &filter}});
    auto want = compiled_matching_reference(program, {{"I", &dense}, {"F", &filter}});
    EXPECT_TRUE(got.at("O").equals(want.at("O")));
}

TEST(AffineCompiled, Case13SumPoolingNHWC) {
    std::vector<double> in;
    for (int k = 0; k < 4; ++k) in.insert(in.end(), {1, 2, 1, 2});
    for (const std::string format : {"csf", "dense"}) {
        Tensor image = dense_of({1, 4, 4, 1}, in, format);
        const std::string program = "for n, h, w, c { for p in 0:2 { for q in 0:2 { O[n,h,w,c] += I[n, h+p, w+q, c] } } }";
        expect_values(program, {{"I", &image}}, "O", {1, 3, 3, 1}, std::vector<double>(9, 6.0), format);
        expect_values(program, {{"I", &image}}, "O", {1, 3, 3, 1}, std::vector<double>(9, 6.0),
                      format + " into csf", {{"O", with_format("csf", 4)}});
    }
}

TEST(AffineCompiled, Case14Conv1dNWC) {
    std::vector<double> in(24, 2.0);
    in[3] = 10;
    std::vector<double> want(18, 12.0);
    for (int w = 1; w <= 3; ++w) want[static_cast<size_t>(w)] = 28;
    for (const std::string format : {"csf", "sparselist(0)/dense(1)/sparselist(2)"}) {
        Tensor image = dense_of({3, 8, 1}, in, format);
        Tensor filter = dense_of({3, 1, 1}, {2, 2, 2});
        expect_values("O[n,w,f] += I[n, w+k, c] * F[k,c,f]", {{"I", &image}, {"F", &filter}}, "O",
                      {3, 6, 1}, want, format);
        auto got = compiled_matching_reference("O[n,w,f] += I[n, w+k, c] * F[k,c,f]",
                                               {{"I", &image}, {"F", &filter}}, {{"O", with_format("csf", 3)}});
        EXPECT_EQ(got.at("O").stored(), 18) << format;
    }
}

TEST(AffineCompiled, Case15Conv2dNCHW) {
    std::vector<double> in(3 * 3 * 8 * 8, 2.0);
    in[3] = 10;
    std::vector<double> want(36 * 3, 108.0);
    for (int w = 1; w <= 3; ++w) want[static_cast<size_t>(w)] = 124;
    for (const std::string format : {"sparselist(0)/dense(1)/sparselist(2)/dense(3)", "csf"}) {
        Tensor image = dense_of({3, 3, 8, 8}, in, format);
        for (const std::string ff : {"dense", "csf"}) {
            Tensor filter = dense_of({1, 3, 3, 3}, std::vector<double>(27, 2.0), ff);
            expect_values("O[n,f,h,w] += I[n, c, h+r, w+s] * F[f,c,r,s]", {{"I", &image}, {"F", &filter}},
                          "O", {3, 1, 6, 6}, want, format + " * " + ff);
        }
    }
}

TEST(AffineCompiled, Case16AThreeTermSubscript) {
    for (const auto& format : kVectorFormats) {
        Tensor c = make({12}, format, {{{6}, 1}});
        expect_values("for i { for j in 0:2 { for k in 0:3 { A[i] += C[i+j+k] } } }", {{"C", &c}}, "A", {9},
                      {0, 0, 0, 1, 2, 2, 1, 0, 0}, format);
    }
}

TEST(AffineCompiled, Case17TwoCompoundOperands) {
    for (const auto& af : kVectorFormats)
        for (const auto& bf : kVectorFormats) {
            Tensor a = make({5}, af, {{{1}, 1}, {{3}, 2}});
            Tensor b = make({5}, bf, {{{2}, 3}});
            expect_values("for j, k { for i in 0:4 { O[j,k] += A[i+j] * B[i+k] } }", {{"A", &a}, {"B", &b}},
                          "O", {2, 2}, {0, 3, 6, 0}, af + " * " + bf);
        }
}

TEST(AffineCompiled, Case20LoopOrdersAgree) {
    const std::vector<double> want = {0, 0, -1, -6, -1, 6, -1, 0, 1, 0, 1, 0, 0, -1, 1, 0, 0, 0,
                                      -1, 0, 0, 0, 0, 0, 0, 0, 3, 6, -3, -6, 2, -1, 3, 0, -3, 0};
    for (const std::string format : {"csr", "dcsr"}) {
        Tensor image = dense_of({8, 8}, kImage, format);
        Tensor filter = dense_of({3, 3}, kEdge);
        for (const std::string order : {"x { for y { for p in 0:3 { for q in 0:3", "x { for p in 0:3 { for y { for q in 0:3",
                                        "x { for p in 0:3 { for q in 0:3 { for y", "p in 0:3 { for q in 0:3 { for x { for y"}) {
            std::string program = "for " + order + " { O[x,y] += I[x+p, y+q] * F[p,q] }";
            int open = static_cast<int>(std::count(program.begin(), program.end(), '{'));
            int close = static_cast<int>(std::count(program.begin(), program.end(), '}'));
            program += std::string(static_cast<size_t>(open - close), '}');
            expect_values(program, {{"I", &image}, {"F", &filter}}, "O", {6, 6}, want, format + ": " + order,
                          {{"O", [] {
                                OutputSpec s;
                                s.shape = std::vector<int64_t>{6, 6};
                                return s;
                            }()}});
        }
    }
}

TEST(AffineCompiled, OffsetsAndNegativeConstants) {
    for (const auto& format : kVectorFormats) {
        Tensor v = make({8}, format, {{{0}, 4}, {{3}, 1}, {{7}, 2}});
        expect_values("y[i] = v[i+1]", {{"v", &v}}, "y", {7}, {0, 0, 1, 0, 0, 0, 2}, format);
        expect_values("for i in 2:8 { y[i] = v[i-2] + v[i-1] }", {{"v", &v}}, "y", {8}, {0, 0, 4, 0, 1, 1, 0, 0}, format);
        // An index sized by compound subscripts alone starts where they all stay inside.
        expect_values("y[i] = v[i-1] + v[i+1]", {{"v", &v}}, "y", {7}, {0, 4, 1, 0, 1, 0, 2}, format);
        expect_values("for i in 2:5 { y[i] = v[2*i - 3] }", {{"v", &v}}, "y", {5}, {0, 0, 0, 1, 0}, format);
    }
}

TEST(AffineCompiled, FinchCases13And14Padding) {
    for (const auto& format : kVectorFormats) {
        Tensor x = make({5}, format, {{{1}, 1}, {{4}, 3}});
        expect_values("for i in 0:5 { y[i] = coalesce(x[~(i+1)], 0) }", {{"x", &x}}, "y", {5}, {1, 0, 0, 3, 0},
                      format);
        Tensor x4 = dense_of({4}, {1, 2, 3, 4}, format);
        expect_values("y[i] = coalesce(x[~(i-1)], 0) + x[i] + coalesce(x[~(i+1)], 0)", {{"x", &x4}}, "y", {4},
                      {3, 6, 9, 7}, format);
        // A pad other than the fill, and a strided padded read.
        expect_values("for i in 0:4 { y[i] = coalesce(x[~(2*i - 1)], 9) }", {{"x", &x}}, "y", {4},
                      {9, 1, 0, 9}, format);
    }
}

Tensor bools(std::vector<int64_t> shape, const std::vector<int>& bits, const std::string& format) {
    CoordinateList list;
    list.ndims = static_cast<int>(shape.size());
    for (size_t flat = 0; flat < bits.size(); ++flat) {
        if (!bits[flat]) continue;
        std::vector<int64_t> at(shape.size());
        size_t rest = flat;
        for (size_t d = shape.size(); d-- > 0;) {
            at[d] = static_cast<int64_t>(rest % static_cast<size_t>(shape[d]));
            rest /= static_cast<size_t>(shape[d]);
        }
        list.add(at, Scalar::of(true));
    }
    return Tensor::from_coordinates(shape, ValueType::Bool, Scalar::of(false),
                                    Format::parse(format, static_cast<int>(shape.size())), list);
}

// Case 15 (Toeplitz), using only x's stored values. The notes' x (n = 5, {2:2, 5:5} 1-based)
// gives [0, 2, -5] in every vector format. The work is shown on the same two entries in an x of
// length 1000 (y: 998 elements, [0, 2, -5, 0, 5, 0, ...]): zeroing y costs 998 bodies, and past
// that the 3 values of k each step through the stored entries of x in the window (the walk over
// x's entries below f's length that picks the k, at most one step per entry, comes on top): at
// most 3 + 4 * stored, which is 3 + 8 for a sparselist (3 + 16 for the band, which stores 1..4).
// The same bound holds for the dense x (stored: 1000), and its walk over every element, 3 * 998
// bodies past the zeroing, is the contrast: it is far past the bound of two stored entries.
// A runlist x is left out of the work bound: it stores its zero runs, and every coordinate of a
// run is a body (y[i] += v * f[k] is not integrated over a run, and v is not tested against 0).
TEST(AffineCompiled, FinchCase15Toeplitz) {
    Tensor f = dense_of({3}, {1, 0, -1});
    for (const auto& format : kVectorFormats) {
        Tensor x = make({5}, format, {{{1}, 2}, {{4}, 5}});
        expect_values("for k, i in 0:3 { y[i] += x[i+k] * f[k] }", {{"x", &x}, {"f", &f}}, "y", {3}, {0, 2, -5}, format);
    }
    const int64_t n = 1000, ny = n - 2;
    std::vector<double> want(static_cast<size_t>(ny), 0.0);
    want[1] = 2;
    want[2] = -5;
    want[4] = 5;
    const int64_t sparse_bound = ny + 3 + 4 * 2;
    for (const auto& format : kVectorFormats) {
        SCOPED_TRACE(format);
        Tensor x = make({n}, format, {{{1}, 2}, {{4}, 5}});
        auto [out, work] = counted("for k, i { y[i] += x[i+k] * f[k] }", {{"x", &x}, {"f", &f}});
        EXPECT_EQ(out.at("y").shape(), std::vector<int64_t>{ny});
        EXPECT_EQ(values_of(out.at("y")), want);
        if (format == "runlist(0)") continue;
        EXPECT_LE(work, ny + 3 + 4 * x.stored());
        if (format == "dense") {
            EXPECT_GE(work, ny + 3 * ny);
            EXPECT_GT(work, sparse_bound);
        } else {
            EXPECT_LE(x.stored(), 4);
        }
    }
}

TEST(AffineCompiled, FinchCase16Scatter) {
    CoordinateList list;
    list.ndims = 1;
    std::vector<int64_t> idx = {2, 0, 2, 1, 2};
    for (size_t k = 0; k < idx.size(); ++k) list.add(std::vector<int64_t>{static_cast<int64_t>(k)}, Scalar::of(idx[k]));
    Tensor in = Tensor::from_coordinates({5}, ValueType::Int64, Scalar::of(int64_t{-1}), Format::parse("dense", 1), list);
    OutputSpec three;
    three.shape = std::vector<int64_t>{3};
    for (const std::string out : {"dense", "sparsebytemap(0)", "sparsehash(0)"}) {
        OutputSpec spec = three;
        spec.format = Format::parse(out, 1);
        auto got = compiled_matching_reference("bins[I[i]] += 1", {{"I", &in}}, {{"bins", spec}});
        EXPECT_EQ(values_of(got.at("bins")), (std::vector<double>{1, 1, 3})) << out;
    }
    OutputSpec sorted = three;
    sorted.format = Format::parse("sparselist(0)", 1);
    sorted.type = ValueType::Float64;
    expect_error([&] { run_compiled("bins[I[i]] += 1", {{"I", &in}}, {{"bins", sorted}}); },
                 "levels all take random-order writes");
}

TEST(AffineCompiled, FinchCase19OneDimensionalErosion) {
    for (const std::string format : {"runlist(0)", "dense", "sparselist(0)"}) {
        Tensor in = bools({10}, {1, 1, 1, 0, 0, 1, 1, 1, 1, 0}, format);
        auto got = compiled_matching_reference(
            "out[i] = coalesce(v[~(i-1)], true) & v[i] & coalesce(v[~(i+1)], true)", {{"v", &in}});
        EXPECT_EQ(values_of(got.at("out")), (std::vector<double>{1, 1, 0, 0, 0, 0, 1, 1, 0, 0})) << format;
    }
}

TEST(AffineCompiled, FinchCase20TwoDimensionalErosion) {
    std::vector<int> rows;
    for (int y = 0; y < 4; ++y) rows.insert(rows.end(), {0, 1, 1, 1, 1, 0});
    rows.insert(rows.end(), {0, 0, 1, 0, 0, 0});
    std::vector<double> want;
    for (int y = 0; y < 3; ++y) want.insert(want.end(), {0, 0, 1, 1, 0, 0});
    for (int y = 0; y < 2; ++y) want.insert(want.end(), {0, 0, 0, 0, 0, 0});
    for (const std::string format : {"dense", "dense(0)/runlist(1)", "csr"}) {
        Tensor in = bools({5, 6}, rows, format);
        auto got = compiled_matching_reference(
            "tmp[y,x] = coalesce(A[y, ~(x-1)], true) & A[y,x] & coalesce(A[y, ~(x+1)], true)\n"
            "out[y,x] = coalesce(tmp[~(y-1), x], true) & tmp[y,x] & coalesce(tmp[~(y+1), x], true)",
            {{"A", &in}});
        EXPECT_EQ(values_of(got.at("out")), want) << format;
    }
}

// Case 21 (masked histogram): masked-off pixels are never read. The notes' image rows
// [0,17,33,250] and [15,16,47,255] with the mask on x in 1..2 (0-based) give bins[1] = bins[2] = 2.
// Here the image is 1000 wide: past the notes' four columns every pixel is masked off and holds
// 4096 + x, whose bin (256 and up) lies outside bins, so a kernel that read one for its bin would
// stop with a coordinate error (the reference reads it only where the mask holds). Each mask
// format gives the notes' bins. The work is at most zeroing the 16 bins, one body per row, two per
// stored entry of the mask (a run of a runlist, or a step that finds its run) and one per
// masked-on pixel; with the run masks (three runs a row, or the one true run of a sparserunlist)
// that is at most 16 + 2 + 12 + 4, while a walk over every pixel costs 2000: the dense mask, which
// holds 2000 entries, is the contrast.
TEST(AffineCompiled, FinchCase21MaskedHistogram) {
    const int64_t rows = 2, width = 1000;
    const std::vector<int64_t> notes = {0, 17, 33, 250, 15, 16, 47, 255};
    CoordinateList list;
    list.ndims = 2;
    std::vector<int> on;
    for (int64_t y = 0; y < rows; ++y)
        for (int64_t x = 0; x < width; ++x) {
            int64_t v = x < 4 ? notes[static_cast<size_t>(y * 4 + x)] : 4096 + x;
            list.add(std::vector<int64_t>{y, x}, Scalar::of(v));
            on.push_back(x == 1 || x == 2);
        }
    const int64_t masked_on = rows * 2;
    Tensor img = Tensor::from_coordinates({rows, width}, ValueType::Int64, Scalar::of(int64_t{-1}),
                                          Format::parse("dense", 2), list);
    std::vector<double> want(16, 0.0);
    want[1] = 2;
    want[2] = 2;
    OutputSpec sixteen;
    sixteen.shape = std::vector<int64_t>{16};
    for (const std::string format : {"dense(0)/runlist(1)", "dense(0)/sparserunlist(1)", "dense"}) {
        SCOPED_TRACE(format);
        Tensor mask = bools({rows, width}, on, format);
        auto [out, work] = counted("for y, x { if M[y,x] { bins[floordiv(img[y,x], 16)] += 1 } }",
                                       {{"img", &img}, {"M", &mask}}, {{"bins", sixteen}});
        EXPECT_EQ(values_of(out.at("bins")), want);
        EXPECT_LE(work, 16 + rows + 2 * mask.stored() + masked_on);
        if (format == "dense") {
            EXPECT_GE(work, rows * width);
            EXPECT_GT(work, 16 + rows + 2 * 3 * rows + masked_on);
        } else {
            EXPECT_LE(mask.stored(), 3 * rows);
        }
    }
}

TEST(AffineCompiled, PaddedConvolutionKeepsTheSize) {
    OutputSpec same;
    same.shape = std::vector<int64_t>{8, 8};
    for (const auto& format : kMatrixFormats) {
        Tensor image = dense_of({8, 8}, kImage, format);
        Tensor filter = dense_of({3, 3}, kEdge);
        SCOPED_TRACE(format);
        auto got = compiled_matching_reference("O[x,y] += coalesce(I[~(x+p-1), ~(y+q-1)], 0) * F[p,q]",
                                               {{"I", &image}, {"F", &filter}}, {{"O", same}});
        // The interior is the valid convolution (case 6).
        EXPECT_EQ(got.at("O").at({1, 1}).as_double(), 0.0);
        EXPECT_EQ(got.at("O").at({1, 4}).as_double(), -6.0);
        EXPECT_EQ(got.at("O").at({6, 6}).as_double(), 0.0);
        // The corner sees I[1,1] * F[2,2] alone; the rest of its window is padding.
        EXPECT_EQ(got.at("O").at({0, 0}).as_double(), 2.0);
    }
}

TEST(AffineCompiled, PoolingWithAStride) {
    for (const auto& format : kVectorFormats) {
        Tensor in = make({8}, format, {{{0}, 3}, {{1}, -1}, {{3}, 5}, {{4}, 2}, {{7}, 7}});
        expect_values("for x { for p in 0:2 { O[x] max= I[2*x + p] } }", {{"I", &in}}, "O", {4}, {3, 5, 2, 7}, format);
        expect_values("for x { for p in 0:2 { O[x] min= I[2*x + p] } }", {{"I", &in}}, "O", {4}, {-1, 0, 0, 0}, format);
        expect_values("for x { for p in 0:2 { O[x] += I[2*x + p] } }", {{"I", &in}}, "O", {4}, {2, 5, 2, 7}, format);
        // argmax pooling: the window offset of each maximum.
        OutputSpec four;
        four.shape = std::vector<int64_t>{4};
        auto got = compiled_matching_reference("m[x], k[x] argmax= I[2*x + p]", {{"I", &in}},
                                               {{"m", four}, {"k", four}});
        EXPECT_EQ(values_of(got.at("m")), (std::vector<double>{3, 5, 2, 7})) << format;
        EXPECT_EQ(values_of(got.at("k")), (std::vector<double>{0, 1, 0, 1})) << format;
    }
    // 2x2 max pooling with stride 2 over an image, every matrix format.
    for (const auto& format : kMatrixFormats) {
        Tensor image = dense_of({8, 8}, kImage, format);
        expect_values("for x, y { for p in 0:2 { for q in 0:2 { O[x,y] max= I[2*x+p, 2*y+q] } } }",
                      {{"I", &image}}, "O", {4, 4}, {2, 4, 6, 8, 2, 4, 0, 8, 3, 4, 0, 8, 3, 4, 6, 8}, format);
    }
}

TEST(AffineCompiled, AKernelRunOnOtherShapesChecksItsCompoundSubscripts) {
    ir::Program program = ir::parse_program("y[i] = A[i] + v[i+1]");
    Tensor a4 = dense_of({4}, {1, 2, 3, 4}), a6 = dense_of({6}, {1, 2, 3, 4, 5, 6});
    Tensor v = dense_of({5}, {0, 10, 20, 30, 40});
    std::map<std::string, TensorSignature> sigs{{"A", TensorSignature::of(a4, true)},
                                                {"v", TensorSignature::of(v, true)}};
    sigs.emplace("y", TensorSignature::of(a4, true));
    auto kernel = compile(program, sigs, test_options());
    auto fits = kernel->prepare({{"y", {4}}});
    kernel->run({{"A", &a4}, {"v", &v}}, fits);
    EXPECT_EQ(values_of(fits.at("y")), (std::vector<double>{11, 22, 33, 44}));
    auto too_long = kernel->prepare({{"y", {6}}});
    expect_error([&] { kernel->run({{"A", &a6}, {"v", &v}}, too_long); },
                 "the subscript i + 1 of v reads coordinates 1..6 of its dimension 0 (size 5) when i over 0:6");
}


TEST(AffineCompiled, Case4WorkIsFlatInTheLength) {
    // 10 stored entries, window 3: the work must not grow with the length.
    auto input = [](int64_t n) {
        CoordinateList list;
        list.ndims = 1;
        for (int64_t k = 0; k < 10; ++k) list.add(std::vector<int64_t>{k * (n / 10) + 5}, Scalar::of(1.0 + static_cast<double>(k)));
        return Tensor::from_coordinates({n}, ValueType::Float64, Scalar::of(0.0), Format::parse("sparselist(0)", 1), list);
    };
    Tensor f = dense_of({3}, {1, 2, 3});
    Tensor small = input(1000), large = input(1000000);
    int64_t a = scalar_work_of("s[] += C[i+j] * F[j]", {{"C", &small}, {"F", &f}});
    int64_t b = scalar_work_of("s[] += C[i+j] * F[j]", {{"C", &large}, {"F", &f}});
    EXPECT_EQ(a, b);
    // Each entry lies in 3 windows, each window's inner loop sees at most a few chunks.
    EXPECT_LE(a, 10 + 3 * 10 * 3);
    // Case 1: three chunks, windows at {1, 2, 7, 8}, one or two inner steps each.
    Tensor c = make({10}, "sparselist(0)", {{{2}, 1}, {{8}, 2}, {{9}, 3}});
    Tensor b2 = dense_of({2}, {1, 1});
    int64_t w = scalar_work_of("s[] += C[i+j] * B[j]", {{"C", &c}, {"B", &b2}});
    EXPECT_GE(w, 4);
    EXPECT_LE(w, 3 + 4 + 4 * 2);
}

// Case 21 (loose upper bound): the window of output row x covers input rows x..x+2, but a DCSR
// (or COO) row level stores rows far past it. The walk must stop at the first stored row past the
// window (the paper's `break`): looking at that one row is all the tail costs, and none of its
// values is read. So the work of the windows over rows 0..4 is the same with 3 or with 300 rows
// stored below them, at most one step more than with none, and the values agree with the
// reference every time (scalar_work_of checks them).
TEST(AffineCompiled, Case21RowsPastTheWindowAreNeverWalked) {
    Tensor f = dense_of({3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
    for (const std::string format : {"dcsr", "coo", "csr"}) {
        auto image = [&](int64_t tail_rows) {
            CoordinateList list;
            list.ndims = 2;
            for (int64_t r : {0, 2, 3})
                for (int64_t c : {1, 4, 6}) list.add(std::vector<int64_t>{r, c}, Scalar::of(double(r + c + 1)));
            for (int64_t r = 6; r < 6 + tail_rows; ++r) list.add(std::vector<int64_t>{r, r % 8}, Scalar::of(100.0));
            return Tensor::from_coordinates({306, 8}, ValueType::Float64, Scalar::of(0.0),
                                            Format::parse(format, 2), list);
        };
        Tensor none = image(0), few = image(3), many = image(300);
        const std::string windows = "for x in 0:3 { s[] += I[x+p, y+q] * F[p,q] }";
        int64_t without = scalar_work_of(windows, {{"I", &none}, {"F", &f}});
        int64_t short_tail = scalar_work_of(windows, {{"I", &few}, {"F", &f}});
        int64_t long_tail = scalar_work_of(windows, {{"I", &many}, {"F", &f}});
        EXPECT_EQ(short_tail, long_tail) << format;
        EXPECT_LE(short_tail, without + 1) << format;
        EXPECT_GT(without, 0) << format;
    }
}

// Case 3: on random sorted coordinate sets, the offsets the windowed loop visits are exactly the
// brute-force set {o : some t < w has o + t stored}: the compiled output (C all ones, so A[o]
// counts the stored entries in window o) matches it, and the work of the scalar form is exactly
// one step of the chunk loop per stored entry that can start a window (coordinate <= n - w), one
// visit per admissible offset and one step per stored entry in its window: no other offset is
// visited.
TEST(AffineCompiled, Case3TheOffsetsVisitedAreTheBruteForceSet) {
    std::mt19937_64 rng(3);
    auto pick = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
    for (int round = 0; round < 25; ++round) {
        int64_t w = pick(1, 6), n = pick(w, 60);
        std::vector<int64_t> crd;
        for (int64_t c = 0; c < n; ++c)
            if (pick(0, 3) == 0 && crd.size() < 40) crd.push_back(c);
        CoordinateList list;
        list.ndims = 1;
        for (int64_t c : crd) list.add(std::vector<int64_t>{c}, Scalar::of(1.0));
        Tensor c = Tensor::from_coordinates({n}, ValueType::Float64, Scalar::of(0.0),
                                            Format::parse("sparselist(0)", 1), list);
        Tensor b = dense_of({w}, std::vector<double>(static_cast<size_t>(w), 1.0));
        std::vector<double> want(static_cast<size_t>(n - w + 1), 0.0);
        int64_t offsets = 0, steps = 0;
        int64_t chunks = std::count_if(crd.begin(), crd.end(), [&](int64_t c) { return c <= n - w; });
        for (int64_t o = 0; o + w <= n; ++o) {
            for (int64_t t = 0; t < w; ++t)
                if (std::binary_search(crd.begin(), crd.end(), o + t)) want[static_cast<size_t>(o)] += 1;
            offsets += want[static_cast<size_t>(o)] > 0;
            steps += static_cast<int64_t>(want[static_cast<size_t>(o)]);
        }
        std::string label = fmt::format("n={} w={} crd={}", n, w, fmt::join(crd, ","));
        expect_values("A[i] += C[i+j] * B[j]", {{"C", &c}, {"B", &b}}, "A", {n - w + 1}, want, label);
        int64_t work = scalar_work_of("s[] += C[i+j] * B[j]", {{"C", &c}, {"B", &b}});
        EXPECT_EQ(work, chunks + offsets + steps) << label;
    }
}

// Random affine programs (offsets, strides, dilations, fills) against the reference.
TEST(AffineCompiled, RandomAffineProgramsAgreeWithTheReference) {
    std::mt19937_64 rng(20261127);
    auto pick = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
    for (int round = 0; round < 60; ++round) {
        const std::string& format = kVectorFormats[static_cast<size_t>(pick(0, 5))];
        double fill = std::array<double, 3>{0.0, 1.0, 0.0}[static_cast<size_t>(pick(0, 2))];
        int64_t n = pick(1, 30), k = pick(1, 4), stride = pick(1, 3), dilation = pick(1, 3), offset = pick(0, 3);
        if (n < offset + (k - 1) * dilation + 1) continue;
        std::vector<double> values(static_cast<size_t>(n), fill);
        for (auto& v : values)
            if (pick(0, 3) == 0) v = static_cast<double>(pick(-3, 3));
        Tensor in = dense_of({n}, values, format, fill);
        Tensor f = dense_of({k}, std::vector<double>(static_cast<size_t>(k), 1.0));
        std::string sub = fmt::format("{}*i + {}*p + {}", stride, dilation, offset);
        std::string op = pick(0, 1) ? "+=" : "max=";
        std::string program = fmt::format("O[i] {} I[{}] * F[p]", op, sub);
        SCOPED_TRACE(program + " on " + format + fmt::format(" n={} fill={}", n, fill));
        compiled_matching_reference(program, {{"I", &in}, {"F", &f}});
        compiled_matching_reference(fmt::format("O[i] = I[{}*i + {}] + I[i + {}]", stride, offset, dilation),
                                    {{"I", &in}});
        // Padding: reads that leave I on either side.
        compiled_matching_reference(fmt::format("for i in 0:{} {{ O[i] = coalesce(I[~({}*i - {})], {}) * 2 }}",
                                                n + 2, stride, offset, pick(0, 2)),
                                    {{"I", &in}});
    }
}

// A split (C[i, j] = b[i*n + j], the shape paper's reshape of a vector) reads row i's window
// from the entry the row stepper stands at (Fiber::resume), not by a search from the vector's
// first entry per row: the vector's start pos[0] is read once. The rows agree with the reference
// for sorted inputs (sparselist, coo, sparsebytemap), fills 0 and 1.5, sparse and dense outputs,
// a loop between the row and its window (each window read again from the same entry), and
// overlapping windows (b[i + j]: entries of one window are read again by the next).
TEST(AffineCompiled, SplitWindowsResumeAtTheRowSteppersEntry) {
    std::mt19937_64 rng(17);
    auto pick = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
    // One kernel per input: the split into CSR, a loop between the row and its window, and
    // overlapping windows into COO.
    const std::string program = "for i in 0:7, j in 0:5 { C[i, j] = b[i * 5 + j] }\n"
                                "for i in 0:7, k in 0:2, j in 0:5 { D[i, k, j] = b[i * 5 + j] * 2 }\n"
                                "for x in 0:31, y in 0:5 { E[x, y] = b[x + y] }";
    for (const std::string format : {"sparselist(0)", "coo", "sparsebytemap(0)"}) {
        for (double fill : {0.0, 1.5}) {
            std::vector<double> values(35, fill);
            for (auto& v : values)
                if (pick(0, 2) == 0) v = static_cast<double>(pick(-3, 3));
            Tensor b = dense_of({35}, values, format, fill);
            SCOPED_TRACE(format + fmt::format(" fill={}", fill));
            compiled_matching_reference(program, {{"b", &b}},
                                        {{"C", with_format("csr", 2)}, {"E", with_format("coo", 2)}});
        }
    }
    ir::Program split = ir::parse_program("for i in 0:7, j in 0:5 { C[i, j] = b[i * 5 + j] }");
    Tensor b = dense_of({35}, std::vector<double>(35, 1.0), "sparselist(0)");
    TensorSignature c;
    c.format = Format::parse("csr", 2).with_index_bits(32);
    c.type = ValueType::Float64;
    c.fill = Scalar::of(0.0);
    c.ndims = 2;
    auto kernel = compile(split, {{"b", TensorSignature::of(b, true)}, {"C", c}}, test_options());
    const std::string& source = kernel->c_source();
    size_t starts = 0;
    for (size_t at = source.find("b_pos[0LL]"); at != std::string::npos; at = source.find("b_pos[0LL]", at + 1))
        ++starts;
    EXPECT_EQ(starts, 1u) << source;
}

TEST(AffineCompiled, ErrorsNameTheAccessAndTheRange) {
    Tensor v = make({8}, "sparselist(0)", {{{3}, 1}});
    Tensor f = dense_of({3}, {1, 1, 1});
    expect_error([&] { run_compiled("for i in 0:8 { y[i] = v[i+1] }", {{"v", &v}}); },
                 "the subscript i + 1 of v reads coordinates 1..8 of its dimension 0 (size 8) when i over 0:8");
    expect_error([&] { run_compiled("y[i] = v[i-2] * v[i]", {{"v", &v}}); },
                 "the subscript i - 2 of v reads coordinates -2..5 of its dimension 0 (size 8) when i over 0:8");
    // Not affine: a computed subscript (scatter_gather), checked as it goes.
    compiled_matching_reference("for i in 0:3 { y[i] = v[i*i] }", {{"v", &v}});
    expect_error([&] { run_compiled("for i in 0:3 { y[i] = coalesce(v[~(i*i)], 0) }", {{"v", &v}}); },
                 "compiled code pads affine subscripts");
    expect_error([&] { run_compiled("y[i] = v[~(i+1)] + v[i]", {{"v", &v}}); },
                 "the permissive subscript ~(i + 1) of v may leave v, where it reads missing; read it as "
                 "the first argument of coalesce");

    OutputSpec sparse = with_format("sparselist(0)", 1);
    sparse.shape = std::vector<int64_t>{9};
    sparse.type = ValueType::Float64;
    // A shifted write reaches y's coordinates in order (a collapse of one index,
    // ordered_writes.hpp); a backward one does not, and stays refused for a sparse level.
    Tensor shifted = run_compiled("y[i+1] = v[i]", {{"v", &v}}, {{"y", sparse}}).at("y");
    EXPECT_EQ(shifted.at({4}).as_double(), 1.0);
    EXPECT_EQ(shifted.stored(), 1);
    expect_error([&] { run_compiled("for i in 0:8 { y[8 - i] = v[i] }", {{"v", &v}}, {{"y", sparse}}); },
                 "into dense outputs only");
}

} // namespace
} // namespace siskin::testing
