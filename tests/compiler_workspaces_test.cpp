// workspaces: SpGEMM in einsum form compiles to Gustavson's algorithm with a row workspace; the
// inner-product form written as loops keeps its order; SDDMM and two-output programs.
#include <random>

#include "compiler_test_util.hpp"

namespace siskin::testing {
namespace {

Tensor random_matrix(int64_t m, int64_t n, double density, const std::string& format, uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    CoordinateList list;
    list.ndims = 2;
    for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j)
            if (u(rng) < density) list.add(std::vector<int64_t>{i, j}, Scalar::of(std::floor(u(rng) * 7) - 3));
    return Tensor::from_coordinates({m, n}, ValueType::Float64, Scalar::of(0.0),
                                    Format::parse(format, 2), list);
}

OutputSpec spec(const std::string& format) {
    OutputSpec s;
    s.format = Format::parse(format, 2);
    return s;
}

// Compiled and reference outputs agree on values and on the stored coordinates.
void expect_same(const std::string& text, const std::map<std::string, const Tensor*>& inputs,
                 const std::map<std::string, OutputSpec>& outputs, const std::string& what) {
    auto want = evaluate_reference(ir::parse_program(text), inputs, outputs);
    auto got = run_compiled(text, inputs, outputs);
    for (const auto& [name, t] : want) {
        ASSERT_TRUE(got.count(name)) << what;
        EXPECT_TRUE(got.at(name).equals(t)) << what << " output " << name << "\n"
                                            << got.at(name).to_string() << "\n" << t.to_string();
        EXPECT_EQ(stored_coordinates(got.at(name)), stored_coordinates(t)) << what << " output " << name;
    }
    EXPECT_EQ(got.size(), want.size()) << what;
}

std::string c_of(const std::string& text, const std::map<std::string, const Tensor*>& inputs,
                 const std::map<std::string, std::string>& outputs) {
    std::map<std::string, TensorSignature> sigs;
    for (const auto& [name, t] : inputs) sigs.emplace(name, TensorSignature::of(*t));
    for (const auto& [name, format] : outputs) {
        TensorSignature s;
        s.ndims = 2;
        s.format = Format::parse(format, 2).with_index_bits(64);
        s.fill = Scalar::of(0.0);
        sigs.emplace(name, s);
    }
    return generate_c(ir::parse_program(text), sigs);
}

TEST(CompilerWorkspaces, SpgemmEinsumIsGustavsonWithARowWorkspace) {
    const std::string text = "C[i,j] += A[i,k] * B[k,j]";
    int cases = 0;
    for (uint64_t seed = 1; seed <= 6; ++seed) {
        for (auto [m, k, n, d] : {std::tuple{17, 13, 19, 0.15}, std::tuple{30, 30, 30, 0.05},
                                  std::tuple{8, 40, 5, 0.3}, std::tuple{1, 1, 1, 1.0}}) {
            Tensor A = random_matrix(m, k, d, "csr", seed), B = random_matrix(k, n, d, "csr", seed + 50);
            expect_same(text, {{"A", &A}, {"B", &B}}, {{"C", spec("csr")}},
                        "seed " + std::to_string(seed) + " m " + std::to_string(m));
            ++cases;
        }
    }
    EXPECT_EQ(cases, 24);
    Tensor A = random_matrix(4, 4, 0.5, "csr", 1), B = random_matrix(4, 4, 0.5, "csr", 2);
    std::string c = c_of(text, {{"A", &A}, {"B", &B}}, {{"C", "csr"}});
    // The sums go to the workspace; B is walked by rows (no transpose, no binary search).
    EXPECT_NE(c.find("C_ws"), std::string::npos) << c;
    EXPECT_EQ(c.find("B_by"), std::string::npos) << c;
    EXPECT_EQ(c.find("siskin_lower_bound"), std::string::npos) << c;

    // The same loops written explicitly in Gustavson's order, and dcsr operands.
    Tensor Ad = random_matrix(12, 9, 0.2, "dcsr", 3), Bd = random_matrix(9, 11, 0.2, "dcsr", 4);
    expect_same("for i, k, j { C[i,j] += A[i,k] * B[k,j] }", {{"A", &A}, {"B", &B}},
                {{"C", spec("csr")}}, "explicit gustavson");
    expect_same(text, {{"A", &Ad}, {"B", &Bd}}, {{"C", spec("dcsr")}}, "dcsr");
    expect_same("C[i,j] max= A[i,k] * B[k,j]", {{"A", &A}, {"B", &B}}, {{"C", spec("csr")}}, "max=");
}

TEST(CompilerWorkspaces, WorkspaceKernelsRunThroughTheKernelApi) {
    Tensor A = random_matrix(6, 5, 0.4, "csr", 8), B = random_matrix(5, 7, 0.4, "csr", 9);
    ir::Program program = ir::parse_program("C[i,j] += A[i,k] * B[k,j]");
    TensorSignature s;
    s.ndims = 2;
    s.format = Format::parse("csr", 2).with_index_bits(64);
    s.fill = Scalar::of(0.0);
    auto k = compile(program, {{"A", TensorSignature::of(A)}, {"B", TensorSignature::of(B)}, {"C", s}},
                     test_options());
    ASSERT_EQ(k->outputs(), std::vector<std::string>{"C"}); // the workspace stays inside
    auto out = k->prepare({{"C", {6, 7}}});
    k->run({{"A", &A}, {"B", &B}}, out);
    k->run({{"A", &A}, {"B", &B}}, out); // a second run starts from a clean workspace
    auto want = evaluate_reference(program, {{"A", &A}, {"B", &B}}).at("C");
    EXPECT_TRUE(out.at("C").equals(want));
}

TEST(CompilerWorkspaces, InnerAndOuterProductsWrittenAsLoops) {
    Tensor A = random_matrix(14, 10, 0.25, "csr", 21), Bc = random_matrix(10, 12, 0.25, "csc", 22);
    const std::string inner = "for i, j, k { C[i,j] += A[i,k] * B[k,j] }";
    expect_same(inner, {{"A", &A}, {"B", &Bc}}, {{"C", spec("csr")}}, "inner product");
    std::string c = c_of(inner, {{"A", &A}, {"B", &Bc}}, {{"C", "csr"}});
    EXPECT_EQ(c.find("C_ws"), std::string::npos) << c; // already in order: no workspace

    Tensor Ac = random_matrix(14, 10, 0.25, "csc", 23), B = random_matrix(10, 12, 0.25, "csr", 24);
    const std::string outer = "for k, i, j { C[i,j] += A[i,k] * B[k,j] }";
    expect_same(outer, {{"A", &Ac}, {"B", &B}}, {{"C", spec("dense")}}, "outer product");
    // Into csr the outer product would need a whole-matrix workspace: refused, not run wrongly.
    auto caught = throws_error([&] { run_compiled(outer, {{"A", &Ac}, {"B", &B}}, {{"C", spec("csr")}}); },
                               {"output C", "workspace"});
    EXPECT_TRUE(caught);
}

TEST(CompilerWorkspaces, TacoSddmm) {
    Tensor B = random_matrix(15, 16, 0.2, "csr", 31);
    Tensor C = random_matrix(15, 6, 1.0, "dense", 32), D = random_matrix(6, 16, 1.0, "dense", 33);
    for (const std::string text : {"A[i,j] += B[i,j] * C[i,k] * D[k,j]", "A[i,j] = B[i,j] * C[i,k] * D[k,j]"})
        expect_same(text, {{"B", &B}, {"C", &C}, {"D", &D}}, {{"A", spec("csr")}}, text);
}

TEST(CompilerWorkspaces, TwoOutputs) {
    Tensor A = random_matrix(10, 10, 0.2, "csr", 41), B = random_matrix(10, 10, 0.2, "csr", 42);
    const std::string text = "C[i,j] += A[i,k] * B[k,j]\nD[i,j] = A[i,j] + B[j,i]\ny[j] += A[i,j]";
    OutputSpec y;
    y.format = Format::parse("sparselist(0)", 1);
    expect_same(text, {{"A", &A}, {"B", &B}}, {{"C", spec("csr")}, {"D", spec("csr")}, {"y", y}},
                "two outputs");
}

} // namespace
} // namespace siskin::testing
