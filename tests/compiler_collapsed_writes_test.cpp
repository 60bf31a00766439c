// Collapsed writes (src/compiler/ordered_writes.hpp): a reshape that merges dimensions,
// `c[i*n + j] = A[i, j]`, written straight into a sparse output when its loops reach the
// coordinates in order; the rule that decides it, the kernels against the reference evaluator
// across formats and fills, and the refusal that stays for writes out of order.
#include <cmath>
#include <tuple>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "compiler/ordered_writes.hpp"
#include "compiler_test_util.hpp"
#include "siskin/compiler.hpp"
#include "siskin/ir/text.hpp"

namespace siskin::testing {
namespace {

bool collapsed(const std::string& text, const std::string& format = "sparselist(0)", int ndims = 1) {
    return compiler::writes_collapsed_in_order(ir::parse_program(text), "c", Format::parse(format, ndims));
}

TEST(CollapsedWrites, TheRuleAcceptsMergedDimensionsInLoopOrder) {
    EXPECT_TRUE(collapsed("for i in 0:3, j in 0:4 { c[i * 4 + j] = A[i, j] }"));
    EXPECT_TRUE(collapsed("for i in 0:3, j in 0:4 { c[i * 5 + j + 2] = A[i, j] }")); // gaps, offset
    EXPECT_TRUE(collapsed("for i in 0:2, j in 0:3, k in 0:4 { c[i, j * 4 + k] = T[i, j, k] }", "csr", 2));
    EXPECT_TRUE(collapsed("for i, j in 0:4 { c[i * 4 + j] = A[i, j] }")); // the outer range is free
    // the inner loop reaches past the next outer step; loops in the other order
    EXPECT_FALSE(collapsed("for i in 0:3, j in 0:4 { c[i * 3 + j] = A[i, j] }"));
    EXPECT_FALSE(collapsed("for j in 0:4, i in 0:3 { c[i * 4 + j] = A[i, j] }"));
    // an inner loop without a constant range; a loop the subscript does not mention
    EXPECT_FALSE(collapsed("for i in 0:3, j { c[i * 4 + j] = A[i, j] }"));
    EXPECT_FALSE(collapsed("for i in 0:3, k in 0:2, j in 0:4 { c[i * 4 + j] = A[i, j] }"));
    // a mode order against the loops (csc stores mode 1 first); two write sites; plain writes
    EXPECT_FALSE(collapsed("for i in 0:2, j in 0:3, k in 0:4 { c[i, j * 4 + k] = T[i, j, k] }", "csc", 2));
    EXPECT_FALSE(collapsed("for i in 0:3, j in 0:4 { c[i * 4 + j] = A[i, j]; c[i * 4 + j] = B[i, j] }"));
    EXPECT_FALSE(collapsed("for i in 0:3 { c[i] = a[i] }"));
}

// Every element checked against the reference, with the stored coordinates, for CSR, COO and
// dense operands into sparse vectors, at fill 0 and another fill.
TEST(CollapsedWrites, MatrixToVectorMatchesTheReferenceAcrossFormatsAndFills) {
    auto value = [](double u) { return std::floor(u * 8) - 3; };
    const ir::Program p = ir::parse_program("for i in 0:12, j in 0:9 { c[i * 9 + j] = A[i, j] }");
    for (const auto& [in_format, out_format, fill] :
         {std::tuple{"csr", "sparselist(0)", 0.0}, std::tuple{"coo", "sparselist(0)", 0.0},
          std::tuple{"dense", "sparselist(0)", 0.0}, std::tuple{"csr", "coo", 0.0},
          std::tuple{"csr", "sparselist(0)", 2.0}}) {
        Tensor A = random_matrix_of(12, 9, 0.3, in_format, 7, fill, value);
        std::map<std::string, const Tensor*> in{{"A", &A}};
        OutputSpec spec = with_format(out_format, 1);
        spec.shape = std::vector<int64_t>{108};
        spec.fill = Scalar::of(fill);
        std::string what = fmt::format("{} -> {}, fill {}", in_format, out_format, fill);
        CompiledProgram k = compile_for(p, in, {{"c", spec}}, test_options());
        EXPECT_TRUE(k.convert_after.empty()) << what;
        Tensor got = k.run(in).at("c");
        EXPECT_TRUE(same_output(evaluate_reference(p, in, {{"c", spec}}).at("c"), got)) << what;
        EXPECT_EQ(got.format().levels()[0].kind, Format::parse(out_format, 1).levels()[0].kind) << what;
    }
}

// A 3-tensor's last two modes merged into the columns of a CSR and a COO matrix.
TEST(CollapsedWrites, TensorToMatrixMatchesTheReference) {
    const ir::Program p = ir::parse_program("for i in 0:4, j in 0:5, k in 0:6 { C[i, j * 6 + k] = T[i, j, k] }");
    Tensor T = random_tensor_of({4, 5, 6}, "coo", 0.2, Scalar::of(0.0), 11,
                                [](std::mt19937_64& r) { return Scalar::of(static_cast<double>(r() % 9) - 4); });
    std::map<std::string, const Tensor*> in{{"T", &T}};
    for (const char* format : {"csr", "coo"}) {
        OutputSpec spec = with_format(format, 2);
        spec.shape = std::vector<int64_t>{4, 30};
        CompiledProgram k = compile_for(p, in, {{"C", spec}}, test_options());
        EXPECT_TRUE(k.convert_after.empty()) << format;
        Tensor got = k.run(in).at("C");
        EXPECT_TRUE(same_output(evaluate_reference(p, in, {{"C", spec}}).at("C"), got)) << format << got.to_string();
    }
}

// Loops that reach the coordinates out of order are still refused for an append-only level,
// with the reason.
TEST(CollapsedWrites, OutOfOrderCollapseIntoASparseOutputIsRefused) {
    Tensor A = random_matrix_of(3, 4, 0.5, "csr", 1, 0.0, [](double u) { return u + 1; });
    std::map<std::string, const Tensor*> in{{"A", &A}};
    OutputSpec spec = with_format("sparselist(0)", 1);
    spec.shape = std::vector<int64_t>{12};
    try {
        compile_for(ir::parse_program("for j in 0:4, i in 0:3 { c[i * 4 + j] = A[i, j] }"), in, {{"c", spec}},
                    test_options());
        ADD_FAILURE() << "compiled";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("compound subscript"), std::string::npos) << e.what();
    }
}

} // namespace
} // namespace siskin::testing
