// Block copies (src/compiler/block_copy.hpp): a nest that copies CSR rows unchanged into a CSR
// output, or COO entries into a COO output, moves them as one block; stored values equal to the
// fill, another output format or index width take the lowered loops. Every result against the reference evaluator, stored
// coordinates included.
#include <cmath>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "compiler_test_util.hpp"
#include "siskin/compiler.hpp"
#include "siskin/ir/text.hpp"

namespace siskin::testing {
namespace {

const std::string kVstack = "for i0 in 0:3, i1 in 0:4 { C[i0(0:3), i1] = A[i0, i1] }\n"
                            "for i2 in 0:5, i3 in 0:4 { C[i2(3:8), i3] = B[i2, i3] }";

OutputSpec output(const std::string& format, double fill) {
    OutputSpec spec = with_format(format, 2);
    spec.shape = std::vector<int64_t>{8, 4};
    spec.fill = Scalar::of(fill);
    return spec;
}

// Whether the kernel compiled for these inputs copies a block (its C declares the test of
// stored fills).
bool copies_a_block(const Tensor& A, const Tensor& B, const std::string& format, int bits) {
    TensorSignature c;
    c.format = Format::parse(format, 2).with_index_bits(bits);
    c.type = ValueType::Float64;
    c.fill = A.fill();
    c.ndims = 2;
    auto kernel = compile(ir::parse_program(kVstack),
                          {{"A", TensorSignature::of(A, true)}, {"B", TensorSignature::of(B, true)}, {"C", c}},
                          test_options());
    return kernel->c_source().find("block_fill") != std::string::npos;
}

// A vstack of operands stored in `layout` (csr or coo) into either output format, for fills 0
// and 2 and both index widths: blocks only; a block then stored fills (the lowered loops); an
// empty block. Only an output of the operands' layout and index width is written by blocks.
void vstack_matches_reference(const std::string& layout, const std::string& other) {
    auto positive = [](double u) { return u + 0.5; };
    auto small_ints = [](double u) { return std::floor(u * 8) - 3; }; // stores 0 and 2 explicitly
    for (double fill : {0.0, 2.0}) {
        for (int bits : {32, 64}) {
            Format f = Format::parse(layout, 2).with_index_bits(bits);
            Tensor A = random_matrix_of(3, 4, 0.5, layout, 1, fill, positive).convert(f);
            Tensor B = random_matrix_of(5, 4, 0.5, layout, 2, fill, positive).convert(f);
            Tensor F = random_matrix_of(5, 4, 0.7, layout, 3, fill, small_ints).convert(f);
            Tensor E(std::vector<int64_t>{5, 4}, ValueType::Float64, Scalar::of(fill), f);
            SCOPED_TRACE(fmt::format("{} fill {} bits {}", layout, fill, bits));
            for (const Tensor* second : {&B, &F, &E})
                for (const std::string& format : {layout, other})
                    compiled_matching_reference(kVstack, {{"A", &A}, {"B", second}},
                                                {{"C", output(format, fill)}});
            EXPECT_TRUE(copies_a_block(A, B, layout, bits));
            EXPECT_FALSE(copies_a_block(A, B, other, bits));
            EXPECT_FALSE(copies_a_block(A, B, layout, bits == 32 ? 64 : 32)); // the other index width
        }
    }
}

TEST(BlockCopy, VstackOfCsrRowsMatchesTheReference) {
    vstack_matches_reference("csr", "coo");
    // A plain copy of a CSR matrix.
    Tensor A = random_matrix_of(6, 5, 0.5, "csr", 4, 0.0, [](double u) { return u + 0.5; });
    compiled_matching_reference("C[i, j] = A[i, j]", {{"A", &A}}, {{"C", with_format("csr", 2)}});
}

TEST(BlockCopy, VstackOfCooEntriesMatchesTheReference) { vstack_matches_reference("coo", "csr"); }

} // namespace
} // namespace siskin::testing
