// workspaces: SpGEMM in einsum form compiles to Gustavson's algorithm with a row workspace; the
// inner-product form written as loops keeps its order; SDDMM and two-output programs.
#include <algorithm>
#include <array>
#include <cmath>
#include <random>

#include "compiler_test_util.hpp"

namespace siskin::testing {
namespace {

Tensor random_matrix(int64_t m, int64_t n, double density, const std::string& format, uint64_t seed) {
    return random_matrix_of(m, n, density, format, seed, 0.0, [](double u) { return std::floor(u * 7) - 3; });
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
            expect_same(text, {{"A", &A}, {"B", &B}}, {{"C", with_format("csr", 2)}},
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
                {{"C", with_format("csr", 2)}}, "explicit gustavson");
    expect_same(text, {{"A", &Ad}, {"B", &Bd}}, {{"C", with_format("dcsr", 2)}}, "dcsr");
    expect_same("C[i,j] max= A[i,k] * B[k,j]", {{"A", &A}, {"B", &B}}, {{"C", with_format("csr", 2)}}, "max=");
}

// A matrix whose rows have very different numbers of entries: empty rows, rows of a few entries,
// and dense rows, so that SpGEMM rows touch few, some, and most of the columns (the touched
// list is insertion-sorted or rebuilt from the bytes).
Tensor mixed_rows(int64_t m, int64_t n, const std::string& format, uint64_t seed, double fill = 0.0) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    CoordinateList list;
    list.ndims = 2;
    for (int64_t i = 0; i < m; ++i) {
        double d = std::array<double, 4>{0.0, 0.01, 0.05, 0.6}[static_cast<size_t>(i % 4)];
        for (int64_t j = 0; j < n; ++j)
            if (u(rng) < d) list.add(std::vector<int64_t>{i, j}, Scalar::of(std::floor(u(rng) * 5) - 2));
    }
    return Tensor::from_coordinates({m, n}, ValueType::Float64, Scalar::of(fill),
                                    Format::parse(format, 2), list);
}

OutputSpec spec_with_fill(const std::string& format, double fill) {
    OutputSpec s = with_format(format, 2);
    s.fill = Scalar::of(fill);
    return s;
}

// Gustavson's SpGEMM with a sparsebytemap row workspace against the reference evaluator: operand
// and output formats, output fills, reduction operators, sums of products; rows touching few,
// some and most columns; products that cancel to the fill (not stored).
TEST(CompilerWorkspaces, BytemapWorkspaceSpgemmAgreesWithTheReference) {
    // 800 columns: rows touching up to 32 are insertion-sorted, more rebuilt from the bytes (the
    // radix sort's range needs wider rows: EveryWayOfOrderingTheTouchedList... below). (The
    // reference evaluator is dense: m * 40 * 800 per case.)
    Tensor A = mixed_rows(24, 40, "csr", 61), B = mixed_rows(40, 800, "csr", 62);
    Tensor Ad = mixed_rows(24, 40, "dcsr", 61), Bd = mixed_rows(40, 800, "dcsr", 62);
    Tensor Ab = mixed_rows(24, 40, "dense(0)/sparsebytemap(1)", 61);
    Tensor Bc = mixed_rows(40, 800, "csc", 62);
    const std::string gemm = "C[i,j] += A[i,k] * B[k,j]";
    int cases = 0;
    for (const auto& [a, b] : {std::pair{&A, &B}, std::pair{&Ad, &Bd}, std::pair{&Ab, &B}, std::pair{&A, &Bc}})
        for (const std::string out : {"csr", "dcsr", "csr@32"})
            for (double fill : {0.0, 2.5}) {
                expect_same(gemm, {{"A", a}, {"B", b}}, {{"C", spec_with_fill(out, fill)}},
                            out + " fill " + std::to_string(fill) + " A " + a->format().to_string() +
                                " B " + b->format().to_string());
                ++cases;
            }
    EXPECT_EQ(cases, 24);
    for (const std::string text :
         {"C[i,j] min= A[i,k] * B[k,j]", "C[i,j] max= A[i,k] * B[k,j]",
          "C[i,j] += A[i,k] * B[k,j] + A[i,k] * D[k,j]", "C[i,j] += (A[i,k] + 1) * B[k,j]",
          "for i, k, j { C[i,j] += A[i,k] * B[k,j] }"}) {
        Tensor Asq = mixed_rows(40, 40, "csr", 63);
        expect_same(text, {{"A", &Asq}, {"B", &B}, {"D", &Bd}}, {{"C", with_format("csr", 2)}}, text);
    }
    // Every product of a row cancels: touched, but the fill, so not stored.
    Tensor p = make({2, 3}, "csr", {{{0, 0}, 1}, {{0, 1}, 1}, {{1, 2}, 3}});
    Tensor q = make({3, 4}, "csr", {{{0, 2}, 1}, {{1, 2}, -1}, {{0, 3}, 2}, {{1, 3}, -2}, {{2, 0}, 1}});
    expect_same(gemm, {{"A", &p}, {"B", &q}}, {{"C", with_format("csr", 2)}}, "cancelling row");
    auto c = run_compiled(gemm, {{"A", &p}, {"B", &q}}, {{"C", with_format("csr", 2)}}).at("C");
    std::vector<std::vector<int64_t>> want{{1, 0}};
    EXPECT_EQ(stored_coordinates(c), want);
}

// B's rows touch controlled numbers of C's 3000 columns, and A's rows pick them, so that C's rows
// take every way of ordering the touched list (runtime/siskin_touched.h): none touched (an empty
// row of A, and a row of A whose B row is empty), 5 (insertion sort), 33 and 60 (radix sort, up
// to 3000 / 32 = 93), 94 and 500 (a scan of the bytes), all 3000 (the whole width), and a row
// summing several B rows whose columns overlap. 32- and 64-bit outputs (and so workspaces).
TEST(CompilerWorkspaces, EveryWayOfOrderingTheTouchedListAgreesWithTheReference) {
    const int64_t n = 3000;
    std::mt19937_64 rng(5);
    const std::vector<int64_t> touches{0, 5, 33, 60, 94, 500, n};
    CoordinateList b;
    b.ndims = 2;
    for (size_t k = 0; k < touches.size(); ++k) {
        std::vector<int64_t> cols(static_cast<size_t>(n));
        for (int64_t c = 0; c < n; ++c) cols[static_cast<size_t>(c)] = c;
        std::shuffle(cols.begin(), cols.end(), rng);
        cols.resize(static_cast<size_t>(touches[k]));
        std::sort(cols.begin(), cols.end());
        for (int64_t c : cols)
            b.add(std::vector<int64_t>{static_cast<int64_t>(k), c},
                  Scalar::of(static_cast<double>(static_cast<int64_t>(rng() % 3) + 1) * (rng() % 2 ? 1 : -1)));
    }
    CoordinateList a;
    a.ndims = 2;
    // Row 0 of A is empty; row 1 + k picks B row k; the last row sums B rows 1 to 5.
    const int64_t m = static_cast<int64_t>(touches.size()) + 2;
    for (size_t k = 0; k < touches.size(); ++k)
        a.add(std::vector<int64_t>{static_cast<int64_t>(k) + 1, static_cast<int64_t>(k)}, Scalar::of(2.0));
    for (int64_t k = 1; k <= 5; ++k) a.add(std::vector<int64_t>{m - 1, k}, Scalar::of(static_cast<double>(k)));
    const auto kb = static_cast<int64_t>(touches.size());
    for (const std::string format : {"csr", "csr@32"}) {
        Tensor A = Tensor::from_coordinates({m, kb}, ValueType::Float64, Scalar::of(0.0),
                                            Format::parse(format, 2), a);
        Tensor B = Tensor::from_coordinates({kb, n}, ValueType::Float64, Scalar::of(0.0),
                                            Format::parse(format, 2), b);
        for (const std::string out : {"csr", "csr@32", "csr@64"})
            expect_same("C[i,j] += A[i,k] * B[k,j]", {{"A", &A}, {"B", &B}}, {{"C", with_format(out, 2)}},
                        "operands " + format + " output " + out);
        auto c = run_compiled("C[i,j] += A[i,k] * B[k,j]", {{"A", &A}, {"B", &B}}, {{"C", with_format("csr", 2)}}).at("C");
        // Row 1 + k stores B row k's entries doubled (none is zero): as many as B row k has.
        auto coords = stored_coordinates(c);
        for (size_t k = 0; k < touches.size(); ++k)
            EXPECT_EQ(std::count_if(coords.begin(), coords.end(),
                                    [&](const std::vector<int64_t>& x) { return x[0] == static_cast<int64_t>(k) + 1; }),
                      touches[k])
                << format << " row " << k + 1;
    }
}

// The touched list has the output's index width: 32-bit coordinates for a csr@32 output.
TEST(CompilerWorkspaces, TheTouchedListHasTheOutputsIndexWidth) {
    Tensor A = random_matrix(4, 4, 0.5, "csr", 1), B = random_matrix(4, 4, 0.5, "csr", 2);
    std::map<std::string, TensorSignature> sigs{{"A", TensorSignature::of(A)}, {"B", TensorSignature::of(B)}};
    TensorSignature s;
    s.ndims = 2;
    s.format = Format::parse("csr@32", 2);
    s.fill = Scalar::of(0.0);
    sigs.emplace("C", s);
    std::string c = generate_c(ir::parse_program("C[i,j] += A[i,k] * B[k,j]"), sigs);
    EXPECT_NE(c.find("int32_t *C_ws_srt"), std::string::npos) << c;
    EXPECT_NE(c.find("siskin_sort_touched_i32(C_ws_srt, C_ws_touched"), std::string::npos) << c;
}

// For csr operands and a csr output the row workspace is a sparsebytemap: a first touch marks the
// byte and lists the coordinate, the copy sorts the list and walks it, and resets the bytes of
// the list only; a dense output keeps no workspace at all, and a bytemap output a dense one.
TEST(CompilerWorkspaces, CsrSpgemmUsesABytemapWorkspace) {
    Tensor A = random_matrix(4, 4, 0.5, "csr", 1), B = random_matrix(4, 4, 0.5, "csr", 2);
    const std::string gemm = "C[i,j] += A[i,k] * B[k,j]";
    std::string c = c_of(gemm, {{"A", &A}, {"B", &B}}, {{"C", "csr"}});
    EXPECT_NE(c.find("if (!C_ws_tbl["), std::string::npos) << c;          // first touch
    EXPECT_NE(c.find("C_ws_srt[C_ws_touched] ="), std::string::npos) << c; // listed
    EXPECT_NE(c.find("siskin_sort_touched_i64(C_ws_srt, C_ws_touched"), std::string::npos) << c;
    EXPECT_NE(c.find("C_ws_tbl[C_ws_srt["), std::string::npos) << c;       // reset by the list
    EXPECT_NE(c.find("C_ws_touched = 0LL;"), std::string::npos) << c;
    EXPECT_EQ(c.find("siskin_lower_bound"), std::string::npos) << c;
    // With finite inputs (the gaps of A's rows need no walk), row A_crd[p + 4] of B is asked
    // for while row A_crd[p] is summed (prefetch_fibres).
    std::map<std::string, TensorSignature> sigs{{"A", TensorSignature::of(A, true)},
                                                {"B", TensorSignature::of(B, true)}};
    TensorSignature out;
    out.ndims = 2;
    out.format = Format::parse("csr", 2).with_index_bits(64);
    out.fill = Scalar::of(0.0);
    sigs.emplace("C", out);
    std::string finite = generate_c(ir::parse_program(gemm), sigs);
    EXPECT_NE(finite.find("int64_t p_1_ahead = B_pos[A_crd[p + 4LL]];"), std::string::npos) << finite;
    EXPECT_NE(finite.find("siskin_prefetch_span(B_values + p_1_ahead, B_values + p_end_1_ahead);"),
              std::string::npos)
        << finite;
    // The first touch stores the slot's first sum at once (fold_opened_slot_updates), not the
    // fill that the update would load back.
    EXPECT_NE(finite.find("C_ws_values[B_crd[p_1]] = siskin_op_add_float64_float64(0.0, "), std::string::npos)
        << finite;
    EXPECT_EQ(finite.find("C_ws_values[B_crd[p_1]] = 0.0;"), std::string::npos) << finite;

    std::string dense = c_of(gemm, {{"A", &A}, {"B", &B}}, {{"C", "dense(0)/sparsebytemap(1)"}});
    EXPECT_NE(dense.find("C_ws"), std::string::npos) << dense;
    EXPECT_EQ(dense.find("C_ws_tbl"), std::string::npos) << dense;
    EXPECT_EQ(dense.find("siskin_sort_touched"), std::string::npos) << dense;
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
    expect_same(inner, {{"A", &A}, {"B", &Bc}}, {{"C", with_format("csr", 2)}}, "inner product");
    std::string c = c_of(inner, {{"A", &A}, {"B", &Bc}}, {{"C", "csr"}});
    EXPECT_EQ(c.find("C_ws"), std::string::npos) << c; // already in order: no workspace

    Tensor Ac = random_matrix(14, 10, 0.25, "csc", 23), B = random_matrix(10, 12, 0.25, "csr", 24);
    const std::string outer = "for k, i, j { C[i,j] += A[i,k] * B[k,j] }";
    expect_same(outer, {{"A", &Ac}, {"B", &B}}, {{"C", with_format("dense", 2)}}, "outer product");
    // Into csr the outer product needs a whole-matrix workspace: the loops as written sum into
    // a dense temporary, converted to csr after the kernel (output_order).
    expect_same(outer, {{"A", &Ac}, {"B", &B}}, {{"C", with_format("csr", 2)}}, "outer product into csr");
    std::string oc = c_of(outer, {{"A", &Ac}, {"B", &B}}, {{"C", "csr"}});
    EXPECT_NE(oc.find("C_by01"), std::string::npos) << oc;
}

TEST(CompilerWorkspaces, TacoSddmm) {
    Tensor B = random_matrix(15, 16, 0.2, "csr", 31);
    Tensor C = random_matrix(15, 6, 1.0, "dense", 32), D = random_matrix(6, 16, 1.0, "dense", 33);
    for (const std::string text : {"A[i,j] += B[i,j] * C[i,k] * D[k,j]", "A[i,j] = B[i,j] * C[i,k] * D[k,j]"})
        expect_same(text, {{"B", &B}, {"C", &C}, {"D", &D}}, {{"A", with_format("csr", 2)}}, text);
}

TEST(CompilerWorkspaces, TwoOutputs) {
    Tensor A = random_matrix(10, 10, 0.2, "csr", 41), B = random_matrix(10, 10, 0.2, "csr", 42);
    const std::string text = "C[i,j] += A[i,k] * B[k,j]\nD[i,j] = A[i,j] + B[j,i]\ny[j] += A[i,j]";
    OutputSpec y;
    y.format = Format::parse("sparselist(0)", 1);
    expect_same(text, {{"A", &A}, {"B", &B}}, {{"C", with_format("csr", 2)}, {"D", with_format("csr", 2)}, {"y", y}},
                "two outputs");
}

} // namespace
} // namespace siskin::testing
