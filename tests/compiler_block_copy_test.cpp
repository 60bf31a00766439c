// Block copies (src/compiler/block_copy.hpp): a nest that copies CSR rows unchanged into a CSR
// output, or COO entries into a COO output, moves them as one block (a vstack), or row by row
// with shifted columns (an hstack); stored values equal to the fill, another output format,
// operand layout or index width take the lowered loops. Every result against the reference
// evaluator, stored coordinates included.
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

// Whether the kernel `text` compiles to for these inputs and output C (the first input's fill)
// copies a block: its C declares the test of stored fills.
bool copies_a_block(const std::string& text, const std::map<std::string, const Tensor*>& inputs,
                    const std::string& format, int bits) {
    std::map<std::string, TensorSignature> sigs;
    for (const auto& [name, t] : inputs) sigs[name] = TensorSignature::of(*t, true);
    TensorSignature c;
    c.format = Format::parse(format, 2).with_index_bits(bits);
    c.type = ValueType::Float64;
    c.fill = inputs.begin()->second->fill();
    c.ndims = 2;
    sigs["C"] = c;
    return compile(ir::parse_program(text), sigs, test_options())->c_source().find("block_fill") != std::string::npos;
}

// Values for the random operands: never the fill, or small integers that store 0 and 2 explicitly.
double positive(double u) { return u + 0.5; }
double small_ints(double u) { return std::floor(u * 8) - 3; }

// `check(fill, bits, format)` for fills 0 and 2 and both index widths, `format` the layout at
// that width.
template <class Check>
void for_each_fill_and_width(const std::string& layout, Check check) {
    for (double fill : {0.0, 2.0}) {
        for (int bits : {32, 64}) {
            SCOPED_TRACE(fmt::format("{} fill {} bits {}", layout, fill, bits));
            check(fill, bits, Format::parse(layout, 2).with_index_bits(bits));
        }
    }
}

// A vstack of operands stored in `layout` (csr or coo) into either output format, for fills 0
// and 2 and both index widths: blocks only; a block then stored fills (the lowered loops); an
// empty block. Only an output of the operands' layout and index width is written by blocks.
void vstack_matches_reference(const std::string& layout, const std::string& other) {
    for_each_fill_and_width(layout, [&](double fill, int bits, const Format& f) {
        Tensor A = random_matrix_of(3, 4, 0.5, layout, 1, fill, positive).convert(f);
        Tensor B = random_matrix_of(5, 4, 0.5, layout, 2, fill, positive).convert(f);
        Tensor F = random_matrix_of(5, 4, 0.7, layout, 3, fill, small_ints).convert(f);
        Tensor E(std::vector<int64_t>{5, 4}, ValueType::Float64, Scalar::of(fill), f);
        for (const Tensor* second : {&B, &F, &E})
            for (const std::string& format : {layout, other})
                compiled_matching_reference(kVstack, {{"A", &A}, {"B", second}},
                                            {{"C", output(format, fill)}});
        const std::map<std::string, const Tensor*> blocks{{"A", &A}, {"B", &B}};
        EXPECT_TRUE(copies_a_block(kVstack, blocks, layout, bits));
        EXPECT_FALSE(copies_a_block(kVstack, blocks, other, bits));
        EXPECT_FALSE(copies_a_block(kVstack, blocks, layout, bits == 32 ? 64 : 32)); // the other index width
    });
}

TEST(BlockCopy, VstackOfCsrRowsMatchesTheReference) {
    vstack_matches_reference("csr", "coo");
    // A plain copy of a CSR matrix.
    Tensor A = random_matrix_of(6, 5, 0.5, "csr", 4, 0.0, [](double u) { return u + 0.5; });
    compiled_matching_reference("C[i, j] = A[i, j]", {{"A", &A}}, {{"C", with_format("csr", 2)}});
}

TEST(BlockCopy, VstackOfCooEntriesMatchesTheReference) { vstack_matches_reference("coo", "csr"); }

// hstacks: L (5x3), R (5x4) and M (5x2) side by side in the columns of a 5x9 C, each row of C
// L's row, R's shifted by 3, M's by 7; the same with C's rows moved down by 2 (an 8x9 C whose
// rows 0, 1 and 7 stay empty).
const std::string kHstack2 = "for i0 in 0:5 { for i1 in 0:3 { C[i0, i1(0:3)] = L[i0, i1] }; "
                             "for i2 in 0:4 { C[i0, i2(3:7)] = R[i0, i2] } }";
const std::string kHstack3 = "for i0 in 0:5 { for i1 in 0:3 { C[i0, i1(0:3)] = L[i0, i1] }; "
                             "for i2 in 0:4 { C[i0, i2(3:7)] = R[i0, i2] }; "
                             "for i3 in 0:2 { C[i0, i3(7:9)] = M[i0, i3] } }";
const std::string kHstackMoved = "for i0 in 0:5 { for i1 in 0:3 { C[i0(2:7), i1(0:3)] = L[i0, i1] }; "
                                 "for i2 in 0:4 { C[i0(2:7), i2(3:7)] = R[i0, i2] } }";

OutputSpec output_of(const std::string& format, double fill, int64_t rows) {
    OutputSpec spec = with_format(format, 2);
    spec.shape = std::vector<int64_t>{rows, 9};
    spec.fill = Scalar::of(fill);
    return spec;
}

// hstacks of operands stored in `layout` into either output format, fills 0 and 2, both index
// widths: blocks only (some rows empty in one operand, in both, or in all); an operand storing
// the fill (the lowered loops); an empty operand; an operand of the other layout (the lowered
// loops). Every result against the reference, stored coordinates in storage order included
// (so a COO result is sorted by row, then column).
void hstack_matches_reference(const std::string& layout, const std::string& other) {
    for_each_fill_and_width(layout, [&](double fill, int bits, const Format& f) {
        Tensor L = random_matrix_of(5, 3, 0.4, layout, 11, fill, positive).convert(f);
        Tensor R = random_matrix_of(5, 4, 0.3, layout, 12, fill, positive).convert(f);
        Tensor M = random_matrix_of(5, 2, 0.5, layout, 13, fill, positive).convert(f);
        Tensor F = random_matrix_of(5, 4, 0.7, layout, 14, fill, small_ints).convert(f);
        Tensor E(std::vector<int64_t>{5, 4}, ValueType::Float64, Scalar::of(fill), f);
        Tensor EL(std::vector<int64_t>{5, 3}, ValueType::Float64, Scalar::of(fill), f);
        Tensor O = random_matrix_of(5, 4, 0.5, other, 15, fill, positive)
                       .convert(Format::parse(other, 2).with_index_bits(bits));
        for (const std::string& format : {layout, other}) {
            for (const Tensor* right : {&R, &F, &E, &O})
                compiled_matching_reference(kHstack2, {{"L", &L}, {"R", right}}, {{"C", output_of(format, fill, 5)}});
            compiled_matching_reference(kHstack2, {{"L", &EL}, {"R", &R}}, {{"C", output_of(format, fill, 5)}});
            for (const Tensor* right : {&R, &F})
                compiled_matching_reference(kHstackMoved, {{"L", &L}, {"R", right}},
                                            {{"C", output_of(format, fill, 8)}});
            compiled_matching_reference(kHstack3, {{"L", &L}, {"R", &R}, {"M", &M}},
                                        {{"C", output_of(format, fill, 5)}});
            compiled_matching_reference(kHstack3, {{"L", &EL}, {"R", &E}, {"M", &M}},
                                        {{"C", output_of(format, fill, 5)}});
        }
        const std::map<std::string, const Tensor*> three{{"L", &L}, {"R", &R}, {"M", &M}};
        EXPECT_TRUE(copies_a_block(kHstack3, three, layout, bits));
        EXPECT_TRUE(copies_a_block(kHstackMoved, {{"L", &L}, {"R", &R}}, layout, bits));
        EXPECT_FALSE(copies_a_block(kHstack3, three, other, bits));
        EXPECT_FALSE(copies_a_block(kHstack3, three, layout, bits == 32 ? 64 : 32));
        EXPECT_FALSE(copies_a_block(kHstack2, {{"L", &L}, {"R", &O}}, layout, bits));
    });
}

TEST(BlockCopy, HstackOfCsrRowsMatchesTheReference) { hstack_matches_reference("csr", "coo"); }

TEST(BlockCopy, HstackOfCooEntriesMatchesTheReference) { hstack_matches_reference("coo", "csr"); }

} // namespace
} // namespace siskin::testing
