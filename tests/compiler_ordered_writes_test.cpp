// Ordered window writes (src/compiler/ordered_writes.hpp): outputs with levels appended in order
// written by several windows in coordinate order are appended directly, the rule that decides
// it, and outputs written out of order still computed dense and converted (correct either way).
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

bool ordered(const std::string& text, const std::string& format = "csr") {
    return compiler::writes_in_window_order(ir::parse_program(text), "C", Format::parse(format, 2));
}

TEST(OrderedWrites, TheRuleAcceptsConcatenationPhasesOnly) {
    // vstack and hstack phases, into CSR
    EXPECT_TRUE(ordered("for i0 in 0:2, i1 in 0:3 { C[i0(0:2), i1] = A[i0, i1] }\n"
                        "for i2 in 0:3, i3 in 0:3 { C[i2(2:5), i3] = B[i2, i3] }"));
    EXPECT_TRUE(ordered("for i0 in 0:4 { for i1 in 0:2 { C[i0, i1(0:2)] = A[i0, i1] }; "
                        "for i2 in 0:3 { C[i0, i2(2:5)] = B[i0, i2] } }"));
    // hstack phases as whole nests revisit every row: out of order for CSR, in order for CSC
    const std::string nests = "for i0 in 0:4, i1 in 0:2 { C[i0, i1(0:2)] = A[i0, i1] }\n"
                              "for i2 in 0:4, i3 in 0:3 { C[i2, i3(2:5)] = B[i2, i3] }";
    EXPECT_FALSE(ordered(nests));
    EXPECT_TRUE(ordered(nests, "csc"));
    // windows in decreasing order; overlapping windows
    EXPECT_FALSE(ordered("for i0 in 0:3, i1 in 0:3 { C[i0(2:5), i1] = A[i0, i1] }\n"
                         "for i2 in 0:2, i3 in 0:3 { C[i2(0:2), i3] = B[i2, i3] }"));
    EXPECT_FALSE(ordered("for i0 in 0:3, i1 in 0:3 { C[i0(0:3), i1] = A[i0, i1] }\n"
                         "for i2 in 0:3, i3 in 0:3 { C[i2(2:5), i3] = B[i2, i3] }"));
    // two windows in one loop body interleave their rows
    EXPECT_FALSE(ordered("for i in 0:2, j in 0:3 { C[i(0:2), j] = A[i, j]; C[i(2:4), j] = B[i, j] }"));
    // one index name reused by loops one after the other is two loops, not one around both
    EXPECT_FALSE(ordered("for i in 0:4 { for j in 0:2 { C[i, j(0:2)] = A[i, j] } }\n"
                         "for i in 0:4 { for j in 0:3 { C[i, j(2:5)] = B[i, j] } }"));
    // strided windows, and plain single writes, are not this rule's
    EXPECT_FALSE(ordered("for i0 in 0:2, i1 in 0:3 { C[i0(0:4:2), i1] = A[i0, i1] }"));
    EXPECT_FALSE(ordered("C[i, j] = A[i, j]"));
}

TEST(OrderedWrites, PhasesAreAppendedDirectlyOthersGoDense) {
    auto value = [](double u) { return std::floor(u * 8) - 3; };
    Tensor A = random_matrix_of(4, 3, 0.6, "csr", 1, 0.0, value);
    Tensor B = random_matrix_of(4, 2, 0.6, "csr", 2, 0.0, value);
    std::map<std::string, const Tensor*> in{{"A", &A}, {"B", &B}};
    OutputSpec csr = with_format("csr", 2);
    csr.shape = std::vector<int64_t>{4, 5};
    const std::string hstack = "for i0 in 0:4 { for i1 in 0:3 { C[i0, i1(0:3)] = A[i0, i1] }; "
                               "for i2 in 0:2 { C[i0, i2(3:5)] = B[i0, i2] } }";
    // The same columns written in the other order, as whole nests: out of order for CSR.
    const std::string nests = "for i0 in 0:4, i1 in 0:2 { C[i0, i1(0:2)] = B[i0, i1] }\n"
                              "for i2 in 0:4, i3 in 0:3 { C[i2, i3(2:5)] = A[i2, i3] }";
    for (const auto& [text, direct] : {std::pair{hstack, true}, std::pair{nests, false}}) {
        ir::Program p = ir::parse_program(text);
        CompiledProgram k = compile_for(p, in, {{"C", csr}}, test_options());
        EXPECT_EQ(k.convert_after.empty(), direct) << text;
        Tensor got = k.run(in).at("C");
        Tensor want = evaluate_reference(p, in, {{"C", csr}}).at("C");
        EXPECT_TRUE(same_output(want, got)) << text << "\n" << got.to_string();
        EXPECT_EQ(got.format().levels()[1].kind, "sparselist");
    }
}


// The phases of a concatenation write disjoint windows, so each may skip writing the fill (as a
// single plain write does): the kernel walks the stored entries, never every coordinate between
// them. Before, a vstack of COO operands visited all m x n coordinates.
TEST(OrderedWrites, PhasesWalkStoredEntriesOnlyAcrossFormatsAndFills) {
    auto value = [](double u) { return std::floor(u * 8) - 3; };
    const std::string vstack = "for i0 in 0:30, i1 in 0:40 { C[i0(0:30), i1] = A[i0, i1] }\n"
                               "for i2 in 0:20, i3 in 0:40 { C[i2(30:50), i3] = B[i2, i3] }";
    const std::string hstack = "for i0 in 0:30 { for i1 in 0:40 { C[i0, i1(0:40)] = A[i0, i1] }; "
                               "for i2 in 0:25 { C[i0, i2(40:65)] = B[i0, i2] } }";
    ir::Program pv = ir::parse_program(vstack), ph = ir::parse_program(hstack);
    CompileOptions options = test_options();
    options.count_work = true;
    // Every pair of formats at fill 0, and COO to COO at fill 1 (a kernel each: compile time).
    for (const auto& [in_format, out_format, fill] :
         {std::tuple{"csr", "csr", 0.0}, std::tuple{"csr", "coo", 0.0}, std::tuple{"coo", "csr", 0.0},
          std::tuple{"coo", "coo", 0.0}, std::tuple{"coo", "coo", 1.0}}) {
        Tensor A = random_matrix_of(30, 40, 0.1, in_format, 3, fill, value);
        Tensor Bv = random_matrix_of(20, 40, 0.1, in_format, 4, fill, value);
        Tensor Bh = random_matrix_of(30, 25, 0.1, in_format, 5, fill, value);
        for (const auto& [p, B, shape] : {std::tuple{&pv, &Bv, std::vector<int64_t>{50, 40}},
                                          std::tuple{&ph, &Bh, std::vector<int64_t>{30, 65}}}) {
            std::map<std::string, const Tensor*> in{{"A", &A}, {"B", B}};
            OutputSpec spec = with_format(out_format, 2);
            spec.shape = shape;
            spec.fill = Scalar::of(fill);
            std::string what = fmt::format("{} -> {}, fill {}:\n{}", in_format, out_format, fill,
                                           ir::print(*p));
            CompiledProgram k = compile_for(*p, in, {{"C", spec}}, options);
            ASSERT_TRUE(k.convert_after.empty()) << what;
            Tensor got = k.run(in).at("C");
            EXPECT_TRUE(same_output(evaluate_reference(*p, in, {{"C", spec}}).at("C"), got)) << what;
            // Rows of both operands plus their stored entries, with room for a step or
            // two per row, and one more pass over the entries where a block copy finds stored
            // fills (the values hold 0 and 1) and hands the rows to the lowered loops
            // (compiler/block_copy.hpp); every coordinate would be 2000.
            int64_t bound = 2 * (shape[0] + 30) + 3 * (A.stored() + B->stored());
            EXPECT_LE(k.kernel->last_work(), bound) << what;
            EXPECT_LT(bound, 1000) << what;
        }
    }
}

} // namespace
} // namespace siskin::testing
