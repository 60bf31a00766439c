// Sparse outputs grow their appended arrays (coordinates, values) without zero-filling the new
// memory (siskin_buffer_grow): every appended element is written before anything reads it, and
// a value slot gets the output's fill when it opens. These outputs grow through many doublings,
// with fills other than zero, and must still equal the reference evaluator's.
#include "compiler_test_util.hpp"

namespace siskin::testing {
namespace {

TensorSignature csr_signature() {
    TensorSignature s;
    s.format = Format::parse("csr@32", 2);
    s.type = ValueType::Float64;
    s.fill = Scalar::of(0.0);
    s.ndims = 2;
    return s;
}

size_t count(const std::string& text, const std::string& what) {
    size_t n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
}

TEST(CompilerAppendGrowth, AppendedArraysGrowWithoutZeroFill) {
    std::map<std::string, TensorSignature> sigs{
        {"A", csr_signature()}, {"B", csr_signature()}, {"C", csr_signature()}};
    std::string c = generate_c(ir::parse_program("C[i,j] = A[i,j] + B[i,j]"), sigs);
    // Coordinates and values are appended, so they skip the zero-fill...
    EXPECT_GE(count(c, "siskin_buffer_grow(C_crd_buf"), 1u) << c;
    EXPECT_GE(count(c, "siskin_buffer_grow(C_values_buf"), 1u) << c;
    EXPECT_EQ(count(c, "siskin_buffer_reserve(C_crd_buf"), 0u) << c;
    EXPECT_EQ(count(c, "siskin_buffer_reserve(C_values_buf"), 0u) << c;
    // ...while the row pointers keep the zeroing growth.
    EXPECT_GE(count(c, "siskin_buffer_reserve(C_pos_buf"), 1u) << c;
}

// A union big enough that crd and values double many times (from 16 to over 10^4 entries),
// into row-major sparse outputs (the loop order of the program).
TEST(CompilerAppendGrowth, LargeSparseOutputsMatchTheReference) {
    Tensor a = random_matrix_of(150, 140, 0.3, "csr", 11, 0.0, [](double u) { return u - 0.5; });
    Tensor b = random_matrix_of(150, 140, 0.3, "csr", 12, 0.0, [](double u) { return 2 * u; });
    for (const std::string format : {"csr", "dcsr", "coo"}) {
        auto want = evaluate_reference(ir::parse_program("C[i,j] = A[i,j] + B[i,j]"), {{"A", &a}, {"B", &b}},
                                       {{"C", with_format(format, 2)}});
        auto got = run_compiled("C[i,j] = A[i,j] + B[i,j]", {{"A", &a}, {"B", &b}}, {{"C", with_format(format, 2)}});
        EXPECT_GT(got.at("C").stored(), 10000) << format;
        EXPECT_TRUE(same_output(want.at("C"), got.at("C"))) << format;
    }
}

// Dense rows under a sparse level: each row opened gets the fill (5 = 2.5 + 2.5) in every slot
// before its entries are written, also in memory the growth did not zero.
TEST(CompilerAppendGrowth, DenseRowsUnderASparseLevelHoldTheFill) {
    Tensor a = random_matrix_of(200, 64, 0.02, "csr", 21, 2.5, [](double u) { return u; });
    Tensor b = random_matrix_of(200, 64, 0.02, "csr", 22, 2.5, [](double u) { return -u; });
    OutputSpec out = with_format("sparselist(0)/dense(1)", 2);
    const std::string program = "C[i,j] = A[i,j] + B[i,j]";
    auto want = evaluate_reference(ir::parse_program(program), {{"A", &a}, {"B", &b}}, {{"C", out}});
    auto got = run_compiled(program, {{"A", &a}, {"B", &b}}, {{"C", out}});
    const Tensor& c = got.at("C");
    EXPECT_TRUE(c.fill().same(Scalar::of(5.0)));
    EXPECT_TRUE(same_output(want.at("C"), c));
    // Rows with entries are stored whole: their other slots hold the fill, not leftover memory.
    const Buffer& values = c.values();
    int64_t fills = 0;
    for (int64_t q = 0; q < values.size(); ++q) fills += values.get(q).as_double() == 5.0;
    EXPECT_GT(values.size(), 64 * 100);
    EXPECT_GT(fills, values.size() / 2);
}

} // namespace
} // namespace siskin::testing
