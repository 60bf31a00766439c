// output_order: outputs stored against the loop order are written through reordered loops or a
// temporary in loop order, converted after the kernel; which one, and the Kernel API around a
// routed output.
#include <cmath>

#include "compiler_test_util.hpp"

namespace siskin::testing {
namespace {

Tensor random_matrix(int64_t m, int64_t n, const std::string& format, uint64_t seed) {
    return random_matrix_of(m, n, 0.3, format, seed, 0.0, [](double u) { return std::floor(u * 7) - 3; });
}

// The program after output_order, for these formats.
std::string after_output_order(const std::string& text, const std::map<std::string, std::string>& formats) {
    ir::Program program = ir::parse_program(text);
    std::map<std::string, TensorSignature> sigs;
    for (const auto& [name, format] : formats) {
        TensorSignature s;
        s.ndims = name == "T" ? 3 : 2;
        s.format = Format::parse(format, s.ndims).with_index_bits(64);
        s.fill = Scalar::of(0.0);
        sigs.emplace(name, s);
    }
    CompileOptions options = test_options();
    options.dump_after = "output_order";
    ::testing::internal::CaptureStderr();
    generate_c(program, sigs, options);
    return ::testing::internal::GetCapturedStderr();
}

TEST(CompilerOutputOrder, TheIssueProgramsIntoCsc) {
    Tensor a = random_matrix(9, 8, "csr", 1), b = random_matrix(9, 8, "csr", 2), bt = random_matrix(8, 7, "csr", 3);
    OutputSpec csc = with_format("csc", 2);
    compiled_matching_reference("A[i,j] = -B[i,j]", {{"B", &b}}, {{"A", csc}});
    compiled_matching_reference("C[i,j] = A[i,j] + B[i,j]", {{"A", &a}, {"B", &b}}, {{"C", csc}});
    compiled_matching_reference("C[i,j] += A[i,k] * B[k,j]", {{"A", &a}, {"B", &bt}}, {{"C", csc}});
    Tensor ai = random_matrix_of(9, 8, 0.3, "csr", 4, INFINITY, [](double u) { return std::floor(u * 7); });
    Tensor bi = random_matrix_of(8, 7, 0.3, "csr", 5, INFINITY, [](double u) { return std::floor(u * 7); });
    compiled_matching_reference("C[i,j] min= A[i,k] + B[k,j]", {{"A", &ai}, {"B", &bi}}, {{"C", csc}});
    Tensor t = random_tensor_of({4, 5, 3}, "csf", 0.3, Scalar::of(0.0), 6,
                                [](auto& rng) { return Scalar::of(static_cast<double>(rng() % 5) + 1); });
    compiled_matching_reference("A[i,j] += T[i,j,k]", {{"T", &t}}, {{"A", csc}});
}

TEST(CompilerOutputOrder, ReorderWhenFreeElseATemporary) {
    // CSC into CSC: the loops run j, i and nothing is transposed.
    std::string copy = after_output_order("A[i,j] = -B[i,j]", {{"B", "csc"}, {"A", "csc"}});
    EXPECT_NE(copy.find("for j, i {"), std::string::npos) << copy;
    EXPECT_EQ(copy.find("_by"), std::string::npos) << copy;
    // A sum of two CSR matrices into CSC: one temporary (the result), not two transposed inputs.
    std::string sum = after_output_order("C[i,j] = A[i,j] + B[i,j]", {{"A", "csr"}, {"B", "csr"}, {"C", "csc"}});
    EXPECT_NE(sum.find("C_by01[i, j] = A[i, j] + B[i, j]"), std::string::npos) << sum;
    // SpGEMM of CSC matrices into CSC: column Gustavson, j outermost, no temporary.
    std::string gemm = after_output_order("C[i,j] += A[i,k] * B[k,j]", {{"A", "csc"}, {"B", "csc"}, {"C", "csc"}});
    EXPECT_NE(gemm.find("for j, k, i {"), std::string::npos) << gemm;
    EXPECT_EQ(gemm.find("_by"), std::string::npos) << gemm;
    // SpGEMM of CSR matrices into CSC: row Gustavson into a CSR temporary.
    std::string rows = after_output_order("C[i,j] += A[i,k] * B[k,j]", {{"A", "csr"}, {"B", "csr"}, {"C", "csc"}});
    EXPECT_NE(rows.find("C_by01[i, j] += A[i, k] * B[k, j]"), std::string::npos) << rows;
}

TEST(CompilerOutputOrder, TheKernelShowsTheOutputNotItsTemporary) {
    Tensor a = random_matrix(6, 5, "csr", 7), b = random_matrix(6, 5, "csr", 8);
    ir::Program program = ir::parse_program("C[i,j] = A[i,j] + B[i,j]");
    TensorSignature out;
    out.ndims = 2;
    out.format = Format::csc().with_index_bits(64);
    out.fill = Scalar::of(0.0);
    auto kernel = compile(program, {{"A", TensorSignature::of(a)}, {"B", TensorSignature::of(b)}, {"C", out}},
                          test_options());
    EXPECT_EQ(kernel->outputs(), std::vector<std::string>{"C"});
    auto outputs = kernel->prepare({{"C", {6, 5}}});
    kernel->run({{"A", &a}, {"B", &b}}, outputs);
    kernel->run({{"A", &a}, {"B", &b}}, outputs); // a second run starts from a fresh temporary
    const Tensor& c = outputs.at("C");
    EXPECT_EQ(c.format().levels().back().modes, std::vector<int>{0}); // csc
    EXPECT_TRUE(c.equals(evaluate_reference(program, {{"A", &a}, {"B", &b}}).at("C")));
    // An output of another format than compiled for is an error naming it.
    std::map<std::string, Tensor> wrong;
    wrong.emplace("C", Tensor({6, 5}, ValueType::Float64, Scalar::of(0.0), Format::csr()));
    try {
        kernel->run({{"A", &a}, {"B", &b}}, wrong);
        ADD_FAILURE() << "a csr C was accepted";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("output C"), std::string::npos) << e.what();
    }
}

} // namespace
} // namespace siskin::testing
