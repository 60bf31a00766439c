// The Finch paper's core test cases (../shared/papers/notes/finch.md §6) that no level or
// application test states with the notes' own values: vectors (1-6), matrices (7-12), run
// integration (17), the band (24), the short-circuit scalar (31) and dimension inference (33).
// Coordinates here are 0-based: the notes' {2:1.5} is x[1] = 1.5. Each program is compiled and
// checked against the reference evaluator; work counts (loop bodies run, CompileOptions::
// count_work) bound the cases that name one.
#include <fstream>
#include <sstream>

#include "compiler_test_util.hpp"

namespace siskin::testing {
namespace {

Tensor vector_of(const std::vector<double>& v) {
    std::vector<Scalar> s;
    for (double x : v) s.push_back(Scalar::of(x));
    return Tensor::from_dense({static_cast<int64_t>(v.size())}, ValueType::Float64, Scalar::of(0.0),
                              Format::dense(1), s);
}

std::vector<double> values_of(const Tensor& t) {
    std::vector<double> out;
    for (int64_t i = 0; i < t.shape()[0]; ++i) out.push_back(t.at({i}).as_double());
    return out;
}

// The stored (coordinate, value) pairs of a vector.
std::vector<std::pair<int64_t, double>> stored_of(const Tensor& t) {
    std::vector<std::pair<int64_t, double>> out;
    t.for_each_stored([&](std::span<const int64_t> c, const Scalar& v) { out.emplace_back(c[0], v.as_double()); });
    return out;
}

// `text` compiled with work counting for these inputs, run, checked against the reference:
// (outputs, loop bodies run).
std::pair<std::map<std::string, Tensor>, int64_t> counted(const std::string& text,
                                                          const std::map<std::string, const Tensor*>& inputs,
                                                          const std::map<std::string, OutputSpec>& specs = {}) {
    ir::Program program = ir::parse_program(text);
    CompileOptions options = test_options();
    options.count_work = true;
    options.threads = 1;
    CompiledProgram compiled = compile_for(program, inputs, specs, options);
    auto out = compiled.run(inputs);
    for (const auto& [name, want] : evaluate_reference(program, inputs, specs))
        EXPECT_TRUE(same_output(want, out.at(name))) << text << "\n" << name << ": " << out.at(name).to_string();
    return {out, compiled.kernel->last_work()};
}

// Cases 2-5's vectors: a = {1:1, 3:2, 4:3, 8:4} and b = {3:10, 5:20, 8:30} (1-based), n = 10.
Tensor case2_a() { return make({10}, "sparselist(0)", {{{0}, 1}, {{2}, 2}, {{3}, 3}, {{7}, 4}}); }
Tensor case2_b() { return make({10}, "sparselist(0)", {{{2}, 10}, {{4}, 20}, {{7}, 30}}); }

// Case 1: x = {2:1.5, 5:-2, 9:4}, y[i] = i (1-based): the dot is 29, reading y at x's 3 entries.
TEST(FinchCoreCases, Case1DotReadsYOnlyAtXsEntries) {
    Tensor x = make({10}, "sparselist(0)", {{{1}, 1.5}, {{4}, -2}, {{8}, 4}});
    Tensor y = vector_of({1, 2, 3, 4, 5, 6, 7, 8, 9, 10});
    auto [out, work] = counted("for i { s[] += x[i] * y[i] }", {{"x", &x}, {"y", &y}});
    EXPECT_EQ(out.at("s").at({}).as_double(), 29.0);
    EXPECT_EQ(work, 3);
}

// Cases 2 and 3: the product stores exactly the intersection {3:20, 8:120}, the sum the union
// {1:1, 3:12, 4:3, 5:20, 8:34}; case 4: galloping gives the same (its work bound on a 10^6
// vector is CompilerWork.GallopingIntersectionIsLogarithmicInTheLongList).
TEST(FinchCoreCases, Cases2To4IntersectionUnionAndGallop) {
    Tensor a = case2_a(), b = case2_b();
    std::map<std::string, OutputSpec> sparse{{"c", with_format("sparselist(0)", 1)}};
    using Entries = std::vector<std::pair<int64_t, double>>;
    for (const char* text : {"for i { c[i] = a[i] * b[i] }", "for i { c[i] = a[gallop(i)] * b[gallop(i)] }"}) {
        auto [out, work] = counted(text, {{"a", &a}, {"b", &b}}, sparse);
        EXPECT_EQ(stored_of(out.at("c")), (Entries{{2, 20}, {7, 120}})) << text;
    }
    auto [sum, work] = counted("for i { c[i] = a[i] + b[i] }", {{"a", &a}, {"b", &b}}, sparse);
    EXPECT_EQ(stored_of(sum.at("c")), (Entries{{0, 1}, {2, 12}, {3, 3}, {4, 20}, {7, 34}}));
}

// Case 5 (Fig. 2): the product at even (1-based) coordinates only, by a sieve on the index,
// walked or galloped, and through a mask vector: {8:120}.
TEST(FinchCoreCases, Case5EvenCoordinatesOnly) {
    Tensor a = case2_a(), b = case2_b();
    Tensor odd0 = make({10}, "sparselist(0)", {{{1}, 1}, {{3}, 1}, {{5}, 1}, {{7}, 1}, {{9}, 1}});
    std::map<std::string, OutputSpec> sparse{{"c", with_format("sparselist(0)", 1)}};
    using Entries = std::vector<std::pair<int64_t, double>>;
    for (const char* text : {"for i { if i % 2 == 1 { c[i] = a[i] * b[i] } }",
                             "for i { if i % 2 == 1 { c[i] = a[gallop(i)] * b[gallop(i)] } }",
                             "for i { c[i] = a[i] * b[i] * m[i] }"}) {
        auto [out, work] = counted(text, {{"a", &a}, {"b", &b}, {"m", &odd0}}, sparse);
        EXPECT_EQ(stored_of(out.at("c")), (Entries{{7, 120}})) << text;
    }
}

// Case 6: fills in reductions. x = {2:-1, 4:-3} (1-based) of n = 5: the sum -4, the max 0 (the
// unstored zeros count), the min -3; fully stored as [-1, -3], the max is -1.
TEST(FinchCoreCases, Case6FillsTakePartInReductions) {
    const std::string text = "fill s2 = -inf\nfill s3 = inf\nfor i { s1[] += x[i]\n s2[] max= x[i]\n s3[] min= x[i] }";
    Tensor x = make({5}, "sparselist(0)", {{{1}, -1}, {{3}, -3}});
    auto [out, work] = counted(text, {{"x", &x}});
    EXPECT_EQ(out.at("s1").at({}).as_double(), -4.0);
    EXPECT_EQ(out.at("s2").at({}).as_double(), 0.0);
    EXPECT_EQ(out.at("s3").at({}).as_double(), -3.0);
    Tensor full = vector_of({-1, -3});
    auto [both, w2] = counted(text, {{"x", &full}});
    EXPECT_EQ(both.at("s2").at({}).as_double(), -1.0);
}

// Cases 7, 8 and 12: A = [[1,0,2],[0,3,0],[4,0,5]], x = [1,2,3]: y = [7,6,19] with A by rows
// (siskin's csr: the notes' CSC loop with the roles of i and j exchanged), with A stored
// transposed and read by columns, and the sum of A read discordantly (j outer) is 15.
TEST(FinchCoreCases, Cases7To12SpMVBothLayoutsAndADiscordantSum) {
    Tensor A = make({3, 3}, "csr", {{{0, 0}, 1}, {{0, 2}, 2}, {{1, 1}, 3}, {{2, 0}, 4}, {{2, 2}, 5}});
    Tensor AT = make({3, 3}, "csr", {{{0, 0}, 1}, {{2, 0}, 2}, {{1, 1}, 3}, {{0, 2}, 4}, {{2, 2}, 5}});
    Tensor x = vector_of({1, 2, 3});
    auto [row, w1] = counted("for i { for j { y[i] += A[i, j] * x[j] } }", {{"A", &A}, {"x", &x}});
    EXPECT_EQ(values_of(row.at("y")), (std::vector<double>{7, 6, 19}));
    auto [col, w2] = counted("for j { for i { y[i] += AT[j, i] * x[j] } }", {{"AT", &AT}, {"x", &x}});
    EXPECT_EQ(values_of(col.at("y")), (std::vector<double>{7, 6, 19}));
    auto [sum, w3] = counted("for j { for i { s[] += A[i, j] } }", {{"A", &A}});
    EXPECT_EQ(sum.at("s").at({}).as_double(), 15.0);
}

// Case 9: S = [[4,1,0,2],[1,5,3,0],[0,3,6,0],[2,0,0,7]] from its stored lower triangle through
// examples/symmetric_spmv.siskin, x = [1,2,3,4]: y = [14,20,24,30], each stored entry read once
// (a body per row and per stored entry, and the sum y = u + v).
TEST(FinchCoreCases, Case9SymmetricSpMVFromATriangle) {
    Tensor T = make({4, 4}, "csr", {{{0, 0}, 4}, {{1, 0}, 1}, {{1, 1}, 5}, {{2, 1}, 3}, {{2, 2}, 6},
                                    {{3, 0}, 2}, {{3, 3}, 7}});
    Tensor x = vector_of({1, 2, 3, 4});
    std::ifstream in(std::string(SISKIN_REPO_DATA_DIR) + "/../examples/symmetric_spmv.siskin");
    std::stringstream program;
    program << in.rdbuf();
    auto [out, work] = counted(program.str(), {{"T", &T}, {"x", &x}});
    EXPECT_EQ(values_of(out.at("y")), (std::vector<double>{14, 20, 24, 30}));
    EXPECT_LE(work, 4 + 7 + 4 * 4); // rows, stored entries, and at most the dense passes of u, v, y
}

// Cases 10 and 11: A[i,j] = i + 3(j-1) (1-based), 3x3 csr: the upper triangle sums to 34
// loading no entry below the diagonal, the diagonal to 15 with 3 leaf reads.
TEST(FinchCoreCases, Cases10And11TriangleAndDiagonalMasks) {
    Tensor A = make({3, 3}, "csr", {{{0, 0}, 1}, {{0, 1}, 4}, {{0, 2}, 7}, {{1, 0}, 2}, {{1, 1}, 5},
                                    {{1, 2}, 8}, {{2, 0}, 3}, {{2, 1}, 6}, {{2, 2}, 9}});
    auto [upper, w1] = counted("for i { for j { if i <= j { s[] += A[i, j] } } }", {{"A", &A}});
    EXPECT_EQ(upper.at("s").at({}).as_double(), 34.0);
    EXPECT_LE(w1, 3 + 6); // rows and the 6 entries with i <= j
    auto [diag, w2] = counted("for i { for j { if i == j { s[] += A[i, j] } } }", {{"A", &A}});
    EXPECT_EQ(diag.at("s").at({}).as_double(), 15.0);
    EXPECT_LE(w2, 3 + 3);
}

// Case 17: runs [1:1000] = 2 and [1001:1003] = 5 in a runlist: the sum 2015 in 2 run steps.
TEST(FinchCoreCases, Case17RunsAreIntegrated) {
    CoordinateList list;
    list.ndims = 1;
    for (int64_t i = 0; i < 1003; ++i) list.add(std::vector<int64_t>{i}, Scalar::of(i < 1000 ? 2.0 : 5.0));
    Tensor x = Tensor::from_coordinates({1003}, ValueType::Float64, Scalar::of(0.0), Format::parse("runlist(0)", 1), list);
    EXPECT_EQ(x.stored(), 2);
    auto [out, work] = counted("for i { s[] += x[i] }", {{"x", &x}});
    EXPECT_EQ(out.at("s").at({}).as_double(), 2015.0);
    EXPECT_LE(work, 2);
}

// Case 24: the 6x6 tridiagonal (2 on the diagonal, -1 beside it) as dense(0)/sparseband(1):
// each row one band ending at min(p+1, 6) (1-based; 0-based exclusive ends 2,3,4,5,6,6) of
// lengths 2,3,3,3,3,2; times x = 1..6 it gives [0,0,0,0,0,7].
TEST(FinchCoreCases, Case24SparseBand) {
    CoordinateList list;
    list.ndims = 2;
    for (int64_t i = 0; i < 6; ++i)
        for (int64_t j = std::max<int64_t>(0, i - 1); j <= std::min<int64_t>(5, i + 1); ++j)
            list.add(std::vector<int64_t>{i, j}, Scalar::of(i == j ? 2.0 : -1.0));
    Tensor A = Tensor::from_coordinates({6, 6}, ValueType::Float64, Scalar::of(0.0),
                                        Format::parse("dense(0)/sparseband(1)", 2), list);
    EXPECT_EQ(ints(A.level(1).buffer("idx")), (std::vector<int64_t>{2, 3, 4, 5, 6, 6}));
    EXPECT_EQ(ints(A.level(1).buffer("ofs")), (std::vector<int64_t>{0, 2, 5, 8, 11, 14, 16}));
    Tensor x = vector_of({1, 2, 3, 4, 5, 6});
    auto [out, work] = counted("for i { for j { y[i] += A[i, j] * x[j] } }", {{"A", &A}, {"x", &x}});
    EXPECT_EQ(values_of(out.at("y")), (std::vector<double>{0, 0, 0, 0, 0, 7}));
}

// Case 31: p starts at 1 and p[] *= A[j] over A = [3,2,0,5,7,...] (10^6 entries) is 0, and the
// loop stops at the zero (j = 3, 1-based): the product's annihilator ends it.
TEST(FinchCoreCases, Case31TheProductStopsAtItsAnnihilator) {
    const int64_t n = 1000000;
    std::vector<Scalar> v(static_cast<size_t>(n), Scalar::of(1.5));
    const double head[] = {3, 2, 0, 5, 7};
    for (size_t k = 0; k < 5; ++k) v[k] = Scalar::of(head[k]);
    Tensor A = Tensor::from_dense({n}, ValueType::Float64, Scalar::of(0.0), Format::dense(1), v);
    auto [out, work] = counted("fill p = 1\nfor j { p[] *= A[j] }", {{"A", &A}});
    EXPECT_EQ(out.at("p").at({}).as_double(), 0.0);
    EXPECT_EQ(work, 3);
}

// Case 33 (dimensions, Fig. 11): A 3x4 and B 4x5 give C 3x5; B 5x5 makes k's extents disagree,
// an error that names them.
TEST(FinchCoreCases, Case33DimensionsAreInferredAndAMismatchIsAnError) {
    Tensor A = make({3, 4}, "csr", {{{0, 0}, 1}, {{2, 3}, 2}});
    Tensor B = make({4, 5}, "csr", {{{0, 4}, 3}, {{3, 1}, 4}});
    auto [out, work] = counted("C[i, j] += A[i, k] * B[k, j]", {{"A", &A}, {"B", &B}});
    EXPECT_EQ(out.at("C").shape(), (std::vector<int64_t>{3, 5}));
    Tensor B5 = make({5, 5}, "csr", {{{0, 4}, 3}});
    EXPECT_THROW(run_compiled("C[i, j] += A[i, k] * B[k, j]", {{"A", &A}, {"B", &B5}}), Error);
}

} // namespace
} // namespace siskin::testing
