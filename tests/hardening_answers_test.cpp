// Issue 22, the wrong-answer cases: each test is named after the case it pins (CaseNN...), checks
// hand-computed values, and compares the compiled code with the dense reference evaluator.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "compiler_test_util.hpp"
#include "passes/output_fill.hpp"

namespace siskin::testing {
namespace {

const double kInf = std::numeric_limits<double>::infinity();

std::vector<double> dense_values(const Tensor& t) {
    std::vector<double> out;
    for (const Scalar& s : t.to_dense()) out.push_back(s.as_double());
    return out;
}

// Case 2: a dense output whose number of elements wraps past 2^63 was sized by a product that
// wrapped (to 0 for 2^32 x 2^32), and both engines wrote past its end. The reference evaluator
// and the host check the product before allocating, and the generated code computes the sizes
// it allocates with checked products (SISKIN_ERR_SIZE), each a siskin Error naming the shape.
TEST(HardeningAnswers, Case02DenseOutputWhoseSizeWrapsIsAnError) {
    const int64_t big = int64_t{1} << 32;
    Tensor A = make({big, big}, "coo", {{{0, 0}, 1.5}});
    ir::Program copy = ir::parse_program("C[i,j] = A[i,j]");
    std::map<std::string, const Tensor*> in{{"A", &A}};
    EXPECT_TRUE(throws_error([&] { evaluate_reference(copy, in, {{"C", with_format("dense", 2)}}); },
                             {"output C", "[4294967296, 4294967296]", "2^63"}));
    EXPECT_TRUE(throws_error([&] { evaluate_compiled(copy, in, {{"C", with_format("dense", 2)}}, test_options()); },
                             {"output C", "[4294967296, 4294967296]", "64 bits", "sparse format"}));
    // Dense levels below a sparse one: the size is data-dependent, and the kernel checks it.
    Tensor B = make({2, big, big}, "coo", {{{0, 0, 0}, 1.5}});
    EXPECT_TRUE(throws_error(
        [&] {
            evaluate_compiled(ir::parse_program("C[i,j,k] = B[i,j,k]"), {{"B", &B}},
                              {{"C", with_format("sparselist(0)/dense(1)/dense(2)", 3)}}, test_options());
        },
        {"does not fit 64 bits", "C of shape [2, 4294967296, 4294967296]"}));
    // The same shape stored sparse is fine.
    Tensor C = evaluate_compiled(copy, in, {{"C", with_format("coo", 2)}}, test_options()).at("C");
    EXPECT_EQ(C.at({0, 0}).as_double(), 1.5);
    EXPECT_EQ(C.at({big - 1, big - 1}).as_double(), 0);
    EXPECT_EQ(C.stored(), 1);
}

// Case 3, at the limit: 64 dimensions (the default rank limit) read, compile and run, and the
// compiled code agrees with the reference.
TEST(HardeningAnswers, Case03SixtyFourDimensionsCompileAndMatchTheReference) {
    // Extents of 1 but the last two, so that the reference (which visits every coordinate) has
    // only 4 to visit.
    std::vector<int64_t> shape(64, 1);
    shape[62] = shape[63] = 2;
    std::vector<int64_t> last(64, 0);
    last[62] = last[63] = 1;
    CoordinateList list;
    list.ndims = 64;
    list.add(std::vector<int64_t>(64, 0), Scalar::of(1.5));
    list.add(last, Scalar::of(2.0));
    Tensor A = Tensor::from_coordinates(shape, ValueType::Float64, Scalar::of(0.0), Format::coo(64), list);
    std::string subscripts;
    for (int k = 0; k < 64; ++k) subscripts += fmt::format("{}i{}", k ? "," : "", k);
    auto s = compiled_matching_reference("s[] += A[" + subscripts + "]", {{"A", &A}}).at("s");
    EXPECT_EQ(s.at({}).as_double(), 3.5);
}

// Case 6: an output written only under a condition took the written value as its fill, so the
// elements where the condition was false read as the written value in both engines. A write
// that may not reach an element leaves it at the output's initial value, so the fill is
// inferred only from writes that cover the output.
TEST(HardeningAnswers, Case06ConditionalWriteKeepsTheInitialValueWhereTheConditionIsFalse) {
    for (const char* format : {"dense", "sparselist(0)"}) {
        SCOPED_TRACE(format);
        Tensor c = make({5}, format, {{{1}, 1}, {{3}, 1}});
        auto y = compiled_matching_reference("for i { if c[i] { y[i] = 5 } }", {{"c", &c}}).at("y");
        EXPECT_EQ(dense_values(y), (std::vector<double>{0, 5, 0, 5, 0}));
        EXPECT_EQ(y.fill().as_double(), 0);
        // A condition true on the fill: the element c holds false keeps the initial value.
        Tensor t = make({5}, format, {{{2}, 0}}, 1.0);
        y = compiled_matching_reference("for i { if t[i] { y[i] = 5 } }", {{"t", &t}}).at("y");
        EXPECT_EQ(dense_values(y), (std::vector<double>{5, 5, 0, 5, 5}));
        // Both branches write: every element is written, whichever value it gets.
        y = compiled_matching_reference("for i { if c[i] { y[i] = 5 } else { y[i] = 7 } }", {{"c", &c}}).at("y");
        EXPECT_EQ(dense_values(y), (std::vector<double>{7, 5, 7, 5, 7}));
        // A covering write first, then a conditional one: the fill is the covering write's value.
        Tensor x = make({5}, format, {{{0}, 2}});
        y = compiled_matching_reference("for i { y[i] = x[i] + 1\n if c[i] { y[i] = 5 } }",
                                        {{"x", &x}, {"c", &c}})
                .at("y");
        EXPECT_EQ(dense_values(y), (std::vector<double>{3, 5, 1, 5, 1}));
        EXPECT_EQ(y.fill().as_double(), 1);
        // A sparse output: only the written elements are stored.
        y = compiled_matching_reference("for i { if c[i] { y[i] = 5 } }", {{"c", &c}},
                                        {{"y", with_format("sparselist(0)", 1)}})
                .at("y");
        EXPECT_EQ(dense_values(y), (std::vector<double>{0, 5, 0, 5, 0}));
        EXPECT_EQ(stored_coordinates(y), (std::vector<std::vector<int64_t>>{{1}, {3}}));
    }
    // The inference itself: conditional and partial writes do not decide the fill, covering
    // writes and constant conditions do.
    std::map<std::string, Scalar> fills{{"c", Scalar::of(0.0)}, {"x", Scalar::of(0.0)}};
    auto inferred = [&](const std::string& text) {
        return infer_output_fill(ir::parse_program(text), "y", ValueType::Float64, fills).as_double();
    };
    EXPECT_EQ(inferred("for i { if c[i] { y[i] = 5 } }"), 0);
    EXPECT_EQ(inferred("for i { if i < 3 { y[i] = 5 } }"), 0);
    EXPECT_EQ(inferred("for i { if true { y[i] = x[i] + 5 } }"), 5);
    EXPECT_EQ(inferred("for i { y[i] = x[i] + 5 }"), 5);
    EXPECT_EQ(inferred("for i { for j { y[i, j] = x[i] + 5 } }"), 5);
    EXPECT_EQ(inferred("for i { y[i, i] = x[i] + 5 }"), 0); // the diagonal only
}

// Case 7: a storage-order reduction over a matrix with a sparse outer level mixed the fill in
// when a level stored fewer positions than its parents times its extent, even when an extent
// below was 0 and there was no element at all (3 x 0); and a collapsed `s += v` over an empty
// loop added 0 * v, NaN for an infinite fill. Every reduction over an empty matrix gives its
// identity, whatever the format and the fill.
TEST(HardeningAnswers, Case07ReductionsOverAnEmptyMatrixNeverMeetTheFill) {
    // The reproducers, by hand.
    Tensor empty = make({3, 0}, "dcsr", {});
    auto s = compiled_matching_reference("s[] max= A[i,j]", {{"A", &empty}}).at("s");
    EXPECT_EQ(s.at({}).as_double(), -kInf);
    s = compiled_matching_reference("s[] &= A[i,j] > 0", {{"A", &empty}}).at("s");
    EXPECT_TRUE(s.at({}).as_bool());
    Tensor infinite = make({3, 0}, "dcsr", {}, kInf);
    s = compiled_matching_reference("s[] += A[i,j]", {{"A", &infinite}}).at("s");
    EXPECT_EQ(s.at({}).as_double(), 0);
    auto y = compiled_matching_reference("y[i] += A[i,j]", {{"A", &infinite}}).at("y");
    EXPECT_EQ(dense_values(y), (std::vector<double>{0, 0, 0}));

    // Every reduction, format and fill, against the reference.
    for (const char* format : {"dcsr", "coo", "sparselist(0)/dense(1)", "sparselist(1)/sparselist(0)"})
        for (double fill : {0.0, kInf, 2.0})
            for (std::vector<int64_t> shape : {std::vector<int64_t>{3, 0}, std::vector<int64_t>{0, 3}}) {
                Tensor A = make(shape, format, {}, fill);
                for (const char* text : {"s[] max= A[i,j]", "s[] min= A[i,j]", "s[] += A[i,j]",
                                         "s[] *= A[i,j]", "s[] |= A[i,j] > 0", "s[] &= A[i,j] > 0",
                                         "y[i] += A[i,j]", "y[i] max= A[i,j]"}) {
                    SCOPED_TRACE(fmt::format("{} on {} {}x{} fill {}", text, format, shape[0], shape[1], fill));
                    compiled_matching_reference(text, {{"A", &A}});
                }
            }
    // A matrix with elements still meets its fill where it stores nothing.
    Tensor some = make({3, 2}, "dcsr", {{{0, 0}, 5}, {{0, 1}, 3}}, kInf);
    EXPECT_EQ(compiled_matching_reference("s[] max= A[i,j]", {{"A", &some}}).at("s").at({}).as_double(), kInf);
    EXPECT_EQ(compiled_matching_reference("s[] min= A[i,j]", {{"A", &some}}).at("s").at({}).as_double(), 3);
}

} // namespace
} // namespace siskin::testing
