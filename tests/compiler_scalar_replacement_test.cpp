// The shape of the generated C for the kernels the benchmarks time (bench/bench_spmv.cpp):
// SpMV's row sum lives in a local (scalar replacement), no dead cursor or unneeded load of a
// row's last coordinate is left, and dense outputs are `restrict`. The text is checked, never
// the time; the values are checked against the reference evaluator.
#include "compiler_test_util.hpp"

namespace siskin::testing {
namespace {

std::string c_of(const std::string& program, const std::map<std::string, const Tensor*>& in,
                 const std::map<std::string, OutputSpec>& outputs = {}) {
    std::map<std::string, TensorSignature> sigs;
    for (const auto& [name, t] : in) sigs[name] = TensorSignature::of(*t, true); // finite: 0 * x = 0
    return generate_c(ir::parse_program(program),
                      infer_signatures(ir::parse_program(program), sigs, outputs));
}

bool has(const std::string& c, const std::string& what) { return c.find(what) != std::string::npos; }

Tensor matrix(const std::string& format) {
    return make({3, 4}, format, {{{0, 1}, 2.0}, {{0, 3}, 3.0}, {{2, 0}, 4.0}, {{2, 2}, -1.0}});
}

Tensor vector4() { return make({4}, "dense", {{{0}, 1.0}, {{1}, 10.0}, {{2}, 100.0}, {{3}, 1000.0}}); }

void expect_spmv_values(const std::string& program, const Tensor& a, const Tensor& x) {
    auto y = run_compiled(program, {{"A", &a}, {"x", &x}});
    auto want = evaluate_reference(ir::parse_program(program), {{"A", &a}, {"x", &x}});
    ASSERT_EQ(y.at("y").shape(), want.at("y").shape());
    // Row 0: 2*10 + 3*1000, row 1 empty, row 2: 4*1 - 100.
    EXPECT_EQ(y.at("y").at({0}).as_double(), 3020.0);
    EXPECT_EQ(y.at("y").at({1}).as_double(), 0.0);
    EXPECT_EQ(y.at("y").at({2}).as_double(), -96.0);
    for (int64_t i = 0; i < 3; ++i)
        EXPECT_EQ(y.at("y").at({i}).as_double(), want.at("y").at({i}).as_double());
}

TEST(CompilerScalarReplacement, CsrSpmvAccumulatesTheRowInALocal) {
    for (const std::string format : {"csr@32", "csr@64"}) {
        SCOPED_TRACE(format);
        Tensor a = matrix(format), x = vector4();
        const std::string program = "y[i] += A[i,j] * x[j]";
        std::string c = c_of(program, {{"A", &a}, {"x", &x}});
        // The row starts from y's fill in a local (no pass setting y first, no load), is updated
        // in the row's loop and stored once after it.
        EXPECT_TRUE(has(c, "double y_values_row = 0.0;")) << c;
        EXPECT_TRUE(has(c, "y_values_row = siskin_op_add_float64_float64(y_values_row, ")) << c;
        EXPECT_TRUE(has(c, "y_values[i] = y_values_row;")) << c;
        EXPECT_FALSE(has(c, "= y_values[")) << c;
        EXPECT_FALSE(has(c, "y_values[k] = 0.0;")) << c;
        EXPECT_FALSE(has(c, "y_values[i] = siskin_op_add")) << c;
        // The row's loop is guarded by p < p_end alone: no cursor, no load of the last column.
        EXPECT_TRUE(has(c, "if (p < p_end) {")) << c;
        EXPECT_TRUE(has(c, "for (; p < p_end; p++) {")) << c;
        EXPECT_FALSE(has(c, "j_start")) << c;
        EXPECT_FALSE(has(c, "p_last")) << c;
        EXPECT_FALSE(has(c, "p_end - 1LL")) << c;
        // The dense output is reached through one pointer only.
        EXPECT_TRUE(has(c, "double *restrict y_values = ")) << c;
        expect_spmv_values(program, a, x);
    }
}

// CSC read column by column (the loops written out): y[i] moves with the inner loop, so it
// stays in memory; x[j] is read once per column. Only the dead cursor and the load go.
TEST(CompilerScalarReplacement, CscSpmvColumnLoopKeepsTheScatteredUpdate) {
    Tensor a = matrix("csc"), x = vector4();
    const std::string program = "for j { for i { y[i] += A[i,j] * x[j] } }";
    std::string c = c_of(program, {{"A", &a}, {"x", &x}});
    EXPECT_FALSE(has(c, "_acc")) << c;
    EXPECT_FALSE(has(c, "i_start")) << c;
    EXPECT_FALSE(has(c, "p_last")) << c;
    EXPECT_TRUE(has(c, "double *restrict y_values = ")) << c;
    expect_spmv_values(program, a, x);
}

// A two-finger merge (a sparse vector times a sparse row) writes y[i] only where both have an
// entry, inside the merge's branches: reading y[i] before the loop is not known to be safe, so
// it stays in memory, but through a restrict pointer.
TEST(CompilerScalarReplacement, SparseTimesSparseRowWritesOnlyInBranches) {
    Tensor a = matrix("csr");
    Tensor x = make({4}, "sparselist(0)", {{{1}, 10.0}, {{3}, 1000.0}});
    const std::string program = "y[i] += A[i,j] * x[j]";
    std::string c = c_of(program, {{"A", &a}, {"x", &x}});
    EXPECT_FALSE(has(c, "y_values_acc")) << c;
    EXPECT_TRUE(has(c, "double *restrict y_values = ")) << c;
    auto y = run_compiled(program, {{"A", &a}, {"x", &x}});
    EXPECT_EQ(y.at("y").at({0}).as_double(), 3020.0);
    EXPECT_EQ(y.at("y").at({1}).as_double(), 0.0);
    EXPECT_EQ(y.at("y").at({2}).as_double(), 0.0);
}

// A sparse output grows while the kernel writes it: its pointers must stay plain.
TEST(CompilerScalarReplacement, GrowingSparseOutputIsNotRestrict) {
    Tensor a = matrix("csr"), b = matrix("csr");
    OutputSpec csr;
    csr.format = Format::parse("csr", 2);
    std::string c = c_of("C[i,j] = A[i,j] + B[i,j]", {{"A", &a}, {"B", &b}}, {{"C", csr}});
    EXPECT_FALSE(has(c, "*restrict C_crd")) << c;
    EXPECT_FALSE(has(c, "*restrict C_values")) << c;
    EXPECT_TRUE(has(c, "const double *restrict A_values")) << c;
    auto got = run_compiled("C[i,j] = A[i,j] + B[i,j]", {{"A", &a}, {"B", &b}}, {{"C", csr}});
    EXPECT_EQ(got.at("C").at({0, 3}).as_double(), 6.0);
    EXPECT_EQ(got.at("C").at({2, 2}).as_double(), -2.0);
    EXPECT_EQ(got.at("C").stored(), 4);
}

} // namespace
} // namespace siskin::testing
