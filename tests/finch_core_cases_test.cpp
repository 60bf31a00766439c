// The Finch paper's core test cases (../shared/papers/notes/finch.md §6) that no level or
// application test states with the notes' own values and work: vectors (1-6), matrices (7-12),
// run integration (17), the band (24),
// the short-circuit scalar (31), and the lifecycle and dimension inference (33); the table of all
// 33 is docs/finch-cases.md.
// Coordinates here are 0-based: the notes' {2:1.5} is x[1] = 1.5. Each program is compiled and
// checked against the reference evaluator; work counts (loop bodies run, CompileOptions::
// count_work) bound the cases that name one.
#include <fstream>
#include <functional>
#include <sstream>

#include "compiler_test_util.hpp"
#include "passes/lifecycle.hpp"

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

// An output that starts as an existing tensor (OutputSpec::start).
OutputSpec started_as(const Tensor& t) {
    OutputSpec s;
    s.start = &t;
    return s;
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

// Case 5 (Fig. 2): the four strategies that intersect a and b at even (1-based; odd 0-based)
// coordinates only, as the figure writes them: the sieve inside the merge (walked and
// galloped), a filtered copy of a first (ap = {4:3, 8:4}), the full intersection first
// (cp = {3:20, 8:120}) then filtered, and an even mask f built by the program: c = {8:120}
// each time. The sieve in the merge steps through the lists' entries only (a holds 4, b 3), never
// the 10 coordinates.
TEST(FinchCoreCases, Case5FourStrategiesForEvenCoordinates) {
    Tensor a = case2_a(), b = case2_b();
    using Entries = std::vector<std::pair<int64_t, double>>;
    auto sparse = [](std::initializer_list<const char*> names) {
        std::map<std::string, OutputSpec> specs;
        for (const char* n : names) specs.emplace(n, with_format("sparselist(0)", 1));
        return specs;
    };
    for (const char* text : {"for i { if i % 2 == 1 { c[i] = a[i] * b[i] } }",
                             "for i { if i % 2 == 1 { c[i] = a[gallop(i)] * b[gallop(i)] } }"}) {
        auto [out, work] = counted(text, {{"a", &a}, {"b", &b}}, sparse({"c"}));
        EXPECT_EQ(stored_of(out.at("c")), (Entries{{7, 120}})) << text;
        EXPECT_LE(work, 4 + 3) << text;
    }
    auto [filtered, w2] = counted("for i { if i % 2 == 1 { ap[i] = a[i] } }\nfor i { c[i] = ap[i] * b[i] }",
                                  {{"a", &a}, {"b", &b}}, sparse({"ap", "c"}));
    EXPECT_EQ(stored_of(filtered.at("ap")), (Entries{{3, 3}, {7, 4}}));
    EXPECT_EQ(stored_of(filtered.at("c")), (Entries{{7, 120}}));
    auto [late, w3] = counted("for i { cp[i] = a[i] * b[i] }\nfor i { if i % 2 == 1 { c[i] = cp[i] } }",
                              {{"a", &a}, {"b", &b}}, sparse({"cp", "c"}));
    EXPECT_EQ(stored_of(late.at("cp")), (Entries{{2, 20}, {7, 120}}));
    EXPECT_EQ(stored_of(late.at("c")), (Entries{{7, 120}}));
    auto [masked, w4] = counted("for i { if i % 2 == 1 { f[i] = 1 } }\nfor i { c[i] = a[i] * b[i] * f[i] }",
                                {{"a", &a}, {"b", &b}}, sparse({"c"}));
    EXPECT_EQ(values_of(masked.at("f")), (std::vector<double>{0, 1, 0, 1, 0, 1, 0, 1, 0, 1}));
    EXPECT_EQ(stored_of(masked.at("c")), (Entries{{7, 120}}));
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

// Cases 7 and 8: A = [[1,0,2],[0,3,0],[4,0,5]], x = [1,2,3]: y = [7,6,19] with A by rows
// (siskin's csr: the notes' CSC loop with the roles of i and j exchanged), and with A stored
// transposed and read by columns.
TEST(FinchCoreCases, Cases7And8SpMVBothLayouts) {
    Tensor A = make({3, 3}, "csr", {{{0, 0}, 1}, {{0, 2}, 2}, {{1, 1}, 3}, {{2, 0}, 4}, {{2, 2}, 5}});
    Tensor AT = make({3, 3}, "csr", {{{0, 0}, 1}, {{2, 0}, 2}, {{1, 1}, 3}, {{0, 2}, 4}, {{2, 2}, 5}});
    Tensor x = vector_of({1, 2, 3});
    auto [row, w1] = counted("for i { for j { y[i] += A[i, j] * x[j] } }", {{"A", &A}, {"x", &x}});
    EXPECT_EQ(values_of(row.at("y")), (std::vector<double>{7, 6, 19}));
    auto [col, w2] = counted("for j { for i { y[i] += AT[j, i] * x[j] } }", {{"AT", &AT}, {"x", &x}});
    EXPECT_EQ(values_of(col.at("y")), (std::vector<double>{7, 6, 19}));
}

// Case 12: the sum of case 7's A read discordantly (j outer, A by rows) is 15. By default
// siskin's concordize reads A through a transposed copy (no binary search in the kernel), so each
// stored entry is visited once: 3 column bodies and the 5 entries. The notes' seek into the
// SparseList for each (i, j) is the program that asks for it, `follow(j)`: a binary search in
// every row for every column, 3 column bodies and 3 x 3 (j, i) bodies, no transposed copy.
TEST(FinchCoreCases, Case12DiscordantReadsGoThroughATransposedCopyOrASeek) {
    Tensor A = make({3, 3}, "csr", {{{0, 0}, 1}, {{0, 2}, 2}, {{1, 1}, 3}, {{2, 0}, 4}, {{2, 2}, 5}});
    std::string c;
    auto [sum, work] = counted("for j { for i { s[] += A[i, j] } }", {{"A", &A}}, {}, &c);
    EXPECT_EQ(sum.at("s").at({}).as_double(), 15.0);
    EXPECT_EQ(c.find("siskin_lower_bound_"), std::string::npos) << c;
    EXPECT_EQ(work, 3 + 5);

    auto [sought, seeks] = counted("for j { for i { s[] += A[i, follow(j)] } }", {{"A", &A}}, {}, &c);
    EXPECT_EQ(sought.at("s").at({}).as_double(), 15.0);
    EXPECT_NE(c.find("siskin_lower_bound_"), std::string::npos) << c;
    EXPECT_EQ(seeks, 3 + 3 * 3);
}

// Case 9 (Fig. 19): S = [[4,1,0,2],[1,5,3,0],[0,3,6,0],[2,0,0,7]] from its strict upper
// triangle A (column by column, the notes' Dense(SparseList)) and its diagonal D, x = [1,2,3,4]:
// y = [14,20,24,30]. Each stored entry is read once, in one body that feeds both y[i] (its
// column) and w[j] (the mirrored entry's row): at most the 4 column bodies, the 3 stored
// entries and two dense passes of 4 (measured: 15).
TEST(FinchCoreCases, Case9SymmetricSpMVFromAStrictTriangleAndTheDiagonal) {
    Tensor A = make({4, 4}, "csc", {{{0, 1}, 1}, {{1, 2}, 3}, {{0, 3}, 2}});
    Tensor D = vector_of({4, 5, 6, 7});
    Tensor x = vector_of({1, 2, 3, 4});
    const std::string text = "for j {\n for i {\n  y[i] += A[i, j] * x[j]\n  w[j] += A[i, j] * x[i]\n }\n}\n"
                             "for j { y[j] += w[j] + D[j] * x[j] }";
    auto [out, work] = counted(text, {{"A", &A}, {"D", &D}, {"x", &x}});
    EXPECT_EQ(values_of(out.at("y")), (std::vector<double>{14, 20, 24, 30}));
    EXPECT_LE(work, 4 + 3 + 2 * 4);
}

// Case 9 as examples/symmetric_spmv.siskin has it: T the lower triangle, diagonal included (7
// entries), u through the rows and v through the columns off the diagonal, then y = u + v: the
// same y; the work is at most the 4 row bodies, the 7 entry bodies, and the dense passes
// (measured: 24; the earlier bound allowed 27). The two statements read T[i, j] through one walk
// of each row (one start position), not a merge of the row with itself.
TEST(FinchCoreCases, Case9SymmetricSpMVExampleFromALowerTriangle) {
    Tensor T = make({4, 4}, "csr", {{{0, 0}, 4}, {{1, 0}, 1}, {{1, 1}, 5}, {{2, 1}, 3}, {{2, 2}, 6},
                                    {{3, 0}, 2}, {{3, 3}, 7}});
    Tensor x = vector_of({1, 2, 3, 4});
    std::ifstream in(std::string(SISKIN_REPO_DATA_DIR) + "/../examples/symmetric_spmv.siskin");
    std::stringstream program;
    program << in.rdbuf();
    std::string c;
    auto [out, work] = counted(program.str(), {{"T", &T}, {"x", &x}}, {}, &c);
    EXPECT_EQ(values_of(out.at("y")), (std::vector<double>{14, 20, 24, 30}));
    EXPECT_LE(work, 24);
    size_t row_starts = 0;
    for (size_t at = c.find("= T_pos[i];"); at != std::string::npos; at = c.find("= T_pos[i];", at + 1)) ++row_starts;
    EXPECT_EQ(row_starts, 1u) << c;
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
// an error (the verifier's, shared by both engines) that names k and both extents.
TEST(FinchCoreCases, Case33DimensionsAreInferredAndAMismatchIsAnError) {
    Tensor A = make({3, 4}, "csr", {{{0, 0}, 1}, {{2, 3}, 2}});
    Tensor B = make({4, 5}, "csr", {{{0, 4}, 3}, {{3, 1}, 4}});
    auto [out, work] = counted("C[i, j] += A[i, k] * B[k, j]", {{"A", &A}, {"B", &B}});
    EXPECT_EQ(out.at("C").shape(), (std::vector<int64_t>{3, 5}));
    Tensor B5 = make({5, 5}, "csr", {{{0, 4}, 3}});
    for (bool compiled : {true, false}) {
        try {
            ir::Program p = ir::parse_program("C[i, j] += A[i, k] * B[k, j]");
            if (compiled) evaluate_compiled(p, {{"A", &A}, {"B", &B5}}, {}, test_options());
            else evaluate_reference(p, {{"A", &A}, {"B", &B5}});
            ADD_FAILURE() << "no error for B 5x5";
        } catch (const Error& e) {
            std::string m = e.what();
            EXPECT_EQ(e.kind(), Error::Kind::User) << m;
            for (const char* part : {"k", "A's dimension 1", "B's dimension 0", "4", "5"})
                EXPECT_NE(m.find(part), std::string::npos) << part << " in " << m;
        }
    }
}

// The error of case 33 from every engine: the reference evaluator, the compiled program, and
// compile() on signatures alone (the compiler's own lifecycle stage).
void expect_read_and_update_error(const std::string& text, const std::string& tensor,
                                  const std::string& statement,
                                  const std::map<std::string, const Tensor*>& inputs,
                                  const std::map<std::string, OutputSpec>& specs) {
    const std::string want = tensor + " is read and updated in one statement (" + statement + ")";
    ir::Program program = ir::parse_program(text);
    auto check = [&](const char* engine, const std::function<void()>& run) {
        try {
            run();
            ADD_FAILURE() << engine << ": no error for " << text;
        } catch (const Error& e) {
            EXPECT_EQ(e.kind(), Error::Kind::User) << engine << ": " << e.what();
            EXPECT_NE(std::string(e.what()).find(want), std::string::npos) << engine << ": " << e.what();
        }
    };
    check("reference", [&] { evaluate_reference(program, inputs, specs); });
    check("compiled", [&] { evaluate_compiled(program, inputs, specs, test_options()); });
    if (program.has_control()) return; // compile() builds one kernel
    std::map<std::string, TensorSignature> sigs;
    for (const auto& [name, t] : inputs) sigs.emplace(name, TensorSignature::of(*t));
    for (const auto& name : program.outputs()) {
        TensorSignature s;
        s.ndims = name == "s" ? 0 : 1;
        s.format = specs.count(name) && specs.at(name).format ? *specs.at(name).format : Format::dense(s.ndims);
        s.type = ValueType::Float64;
        s.fill = Scalar::of(0.0);
        s.keep_contents = specs.count(name) && specs.at(name).start;
        sigs.emplace(name, s);
    }
    check("compile()", [&] { generate_c(program, sigs, test_options()); });
}

// Case 33 (lifecycle): `for i: x[i] += x[i]` is an error, for a dense output as for every other
// format, started from an existing tensor or not: a statement that reads a tensor may not update
// it. So is a read through a let, a block inside the loop, a scalar, and the same inside a while.
TEST(FinchCoreCases, Case33ReadingAndUpdatingInOneStatementIsAnErrorInEveryFormat) {
    Tensor a = case2_a();
    Tensor x0 = vector_of({1, -2, 0, 3, 0, 0, 4, 0, 0, 5});
    for (const char* format : {"dense", "sparselist(0)", "sparsebytemap(0)", "sparsehash(0)", "runlist(0)",
                               "sparserunlist(0)", "coo"})
        for (bool started : {false, true}) {
            SCOPED_TRACE(std::string(format) + (started ? ", started" : ""));
            OutputSpec spec = with_format(format, 1);
            if (started) spec.start = &x0;
            else spec.shape = std::vector<int64_t>{10}; // nothing else sizes i in some programs
            std::map<std::string, OutputSpec> specs{{"x", spec}};
            expect_read_and_update_error("for i { x[i] += x[i] }", "x", "for i { x[i] += x[i] }", {{"a", &a}}, specs);
            expect_read_and_update_error("for i { x[i] = a[i] * x[i] }", "x", "for i { x[i] = a[i] * x[i] }",
                                         {{"a", &a}}, specs);
            expect_read_and_update_error("for i { let t = x[i] { x[i] = t + a[i] } }", "x",
                                         "for i { let t = x[i] { x[i] = t + a[i] } }", {{"a", &a}}, specs);
            expect_read_and_update_error("for i {\n x[i] = a[i]\n s[] += x[i]\n}", "x",
                                         "for i { x[i] = a[i]; s[] += x[i] }", {{"a", &a}}, specs);
        }
    expect_read_and_update_error("for i { s[] += s[] * a[i] }", "s", "for i { s[] += s[] * a[i] }", {{"a", &a}}, {});
    expect_read_and_update_error("k[] = 0\nwhile k[] < 3 {\n k[] += 1\n for i { x[i] += x[i] + a[i] }\n}", "x",
                                 "for i { x[i] += x[i] + a[i] }", {{"a", &a}}, {});
    // Read and updated in separate statements it is a program like any other.
    compiled_matching_reference("for i { t[i] = x[i] }\nfor i { x[i] += t[i] }", {}, {{"x", started_as(x0)}});
}

// Case 33 (Fig. 13): `y .= 0; for i y[i] = x[i]+1; @thaw(x); for i (x[i] += 1; y[i] += 1);
// for i x[i] += y[i]` gets exactly @freeze(y) before the last loop and @freeze(x) at the end.
// In siskin x is an output that starts as an existing tensor (frozen, as Finch's input x), y is
// declared with the program, and the @thaw(x) the figure writes is inserted too. The compiler's
// first stage prints the same, and the values agree with the reference: y = x0 + 2, x = 2 x0 + 3.
TEST(FinchCoreCases, Case33Fig13GetsItsFreezesAndThaws) {
    const std::string text = "for i { y[i] = x[i] + 1 }\nfor i {\n x[i] += 1\n y[i] += 1\n}\nfor i { x[i] += y[i] }";
    const std::string fig13 = "for i {\n    y[i] = x[i] + 1\n}\n"
                              "@thaw(x)\n"
                              "for i {\n    x[i] += 1\n    y[i] += 1\n}\n"
                              "@freeze(y)\n"
                              "for i {\n    x[i] += y[i]\n}\n"
                              "@freeze(x)\n";
    ir::Program program = ir::parse_program(text);
    Lifecycle l = plan_lifecycle(program, {"x"});
    EXPECT_EQ(print_lifecycle(program, l), fig13);
    const auto* top = program.body->as<ir::Block>();
    ASSERT_TRUE(top && top->stmts.size() == 3);
    using Op = LifecycleOp;
    EXPECT_FALSE(l.before.count(top->stmts[0].get()) && !l.before.at(top->stmts[0].get()).empty());
    EXPECT_EQ(l.before.at(top->stmts[1].get()), (std::vector<Op>{{Op::Kind::Thaw, "x"}}));
    EXPECT_EQ(l.before.at(top->stmts[2].get()), (std::vector<Op>{{Op::Kind::Freeze, "y"}}));
    EXPECT_EQ(l.at_end, (std::vector<Op>{{Op::Kind::Freeze, "x"}}));
    // x not started: declared with the program like y, so it is frozen (all fill) for the read.
    EXPECT_EQ(print_lifecycle(program, plan_lifecycle(program)), "@freeze(x)\n" + fig13);

    Tensor x0 = vector_of({1, -2, 0, 3.5, 0, 7});
    std::map<std::string, OutputSpec> specs{{"x", started_as(x0)}};
    CompileOptions options = test_options();
    options.dump_after = "lifecycle";
    ::testing::internal::CaptureStderr();
    auto out = evaluate_compiled(program, {}, specs, options);
    std::string dump = ::testing::internal::GetCapturedStderr();
    EXPECT_NE(dump.find("=== after lifecycle ===\n" + fig13), std::string::npos) << dump;
    auto want = evaluate_reference(program, {}, specs);
    for (const char* name : {"x", "y"}) EXPECT_TRUE(same_output(want.at(name), out.at(name))) << name;
    EXPECT_EQ(values_of(out.at("y")), (std::vector<double>{3, 0, 2, 5.5, 2, 9}));
    EXPECT_EQ(values_of(out.at("x")), (std::vector<double>{5, -1, 3, 10, 3, 17}));
}

// A while's passes start in the modes one pass leaves: bfs.siskin's frontier G is thawed at the
// top of each pass and frozen where it is read, and the loop is entered with it frozen.
TEST(FinchCoreCases, Case33LifecycleOfAWhileLoop) {
    ir::Program program = ir::parse_program(
        "F[j] = s[j]\nmore[] = true\nwhile more[] {\n G[j] = false\n for i { if F[i] { G[j] |= A[i, j] } }\n"
        " more[] = false\n more[] |= G[j]\n swap(F, G)\n}");
    EXPECT_EQ(print_lifecycle(program, plan_lifecycle(program)),
              "for j {\n    F[j] = s[j]\n}\n"
              "more[] = true\n"
              "@freeze(F)\n@freeze(more)\n@freeze(G)\n"
              "while more[] {\n"
              "    @thaw(G)\n"
              "    for j {\n        G[j] = false\n    }\n"
              "    for i {\n        if F[i] {\n            for j {\n                G[j] |= A[i, j]\n            }\n        }\n    }\n"
              "    @thaw(more)\n"
              "    more[] = false\n"
              "    @freeze(G)\n"
              "    for j {\n        more[] |= G[j]\n    }\n"
              "    swap(F, G)\n"
              "    @freeze(more)\n"
              "}\n");
}

} // namespace
} // namespace siskin::testing
