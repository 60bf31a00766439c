// Work counts (CompileOptions::count_work): the generated code visits only what the formats and
// the algebra say it must. Every count is a loop-body execution of the generated C.
#include <cmath>
#include <random>

#include "compiler_test_util.hpp"

namespace siskin::testing {
namespace {

struct Counted {
    std::map<std::string, Tensor> outputs;
    int64_t work = -1;
};

// Compiles with count_work (inputs' finiteness computed), runs once, returns the outputs and the
// loop-body count.
Counted run_counted(const std::string& text, const std::map<std::string, const Tensor*>& inputs,
                    const std::map<std::string, std::pair<std::vector<int64_t>, std::string>>& outputs,
                    bool check_reference = true) {
    ir::Program program = ir::parse_program(text);
    std::map<std::string, TensorSignature> sigs;
    for (const auto& [name, t] : inputs) sigs.emplace(name, TensorSignature::of(*t, true));
    std::map<std::string, std::vector<int64_t>> shapes;
    for (const auto& [name, spec] : outputs) {
        TensorSignature s;
        s.format = Format::parse(spec.second, static_cast<int>(spec.first.size())).with_index_bits(64);
        s.type = ValueType::Float64;
        s.fill = Scalar::of(0.0);
        s.ndims = static_cast<int>(spec.first.size());
        sigs.emplace(name, s);
        shapes.emplace(name, spec.first);
    }
    CompileOptions options = test_options();
    options.count_work = true;
    auto kernel = compile(program, sigs, options);
    EXPECT_EQ(kernel->last_work(), -1);
    Counted out;
    out.outputs = kernel->prepare(shapes);
    kernel->run(inputs, out.outputs);
    out.work = kernel->last_work();
    if (!check_reference) return out; // the caller checks (the dense reference would be too slow)
    auto expected = evaluate_reference(program, inputs);
    for (const auto& [name, t] : expected) EXPECT_TRUE(out.outputs.at(name).equals(t)) << name;
    return out;
}

Tensor random_matrix(int64_t m, int64_t n, double density, const std::string& format, uint64_t seed) {
    return random_matrix_of(m, n, density, format, seed, 0.0, [](double u) { return u + 0.5; });
}

Tensor sparse_vector(int64_t n, const std::vector<int64_t>& at) {
    CoordinateList list;
    list.ndims = 1;
    for (int64_t c : at) list.add(std::vector<int64_t>{c}, Scalar::of(static_cast<double>(c % 7) + 1.0));
    return Tensor::from_coordinates({n}, ValueType::Float64, Scalar::of(0.0),
                                    Format::parse("sparselist(0)", 1), list);
}

// A sparse vector of n elements storing its first k.
Tensor leading_entries(int64_t n, int64_t k) {
    std::vector<int64_t> at;
    for (int64_t c = 0; c < k; ++c) at.push_back(c);
    return sparse_vector(n, at);
}

Tensor dense_vector(int64_t n) {
    std::vector<Scalar> values;
    for (int64_t i = 0; i < n; ++i) values.push_back(Scalar::of(static_cast<double>(i % 5) + 1.0));
    return Tensor::from_dense({n}, ValueType::Float64, Scalar::of(0.0), Format::dense(1), values);
}

TEST(CompilerWork, SpmvOnCsrVisitsEveryRowAndEveryStoredEntryOnce) {
    Tensor A = random_matrix(200, 300, 0.05, "csr", 1);
    Tensor x = dense_vector(300);
    ASSERT_GT(A.stored(), 1000);
    auto r = run_counted("y[i] += A[i,j] * x[j]", {{"A", &A}, {"x", &x}}, {{"y", {{200}, "dense"}}});
    // The row loop runs 200 times; the inner loop runs once per stored entry, nothing more (each
    // row starts from y's fill in a register: no separate loop sets y first).
    EXPECT_EQ(r.work, 200 + A.stored());
}

TEST(CompilerWork, TwoFingerIntersectionVisitsAtMostBothLists) {
    std::vector<int64_t> ca, cb;
    for (int64_t k = 0; k < 400; ++k) ca.push_back(3 * k);
    for (int64_t k = 0; k < 300; ++k) cb.push_back(4 * k + 1);
    Tensor a = sparse_vector(1200, ca), b = sparse_vector(1200, cb);
    auto r = run_counted("s[] += a[i] * b[i]", {{"a", &a}, {"b", &b}}, {{"s", {{}, "dense"}}});
    EXPECT_GT(r.work, 0);
    EXPECT_LE(r.work, a.stored() + b.stored());
}

TEST(CompilerWork, GallopingIntersectionIsLogarithmicInTheLongList) {
    const int64_t n = 1000000;
    std::vector<int64_t> ca, cb;
    for (int64_t k = 0; k < 10; ++k) ca.push_back(k * 99991 + 17);
    for (int64_t k = 0; k < n; ++k) cb.push_back(k);
    Tensor a = sparse_vector(n, ca), b = sparse_vector(n, cb);
    auto r = run_counted("s[] += a[gallop(i)] * b[gallop(i)]", {{"a", &a}, {"b", &b}},
                         {{"s", {{}, "dense"}}});
    EXPECT_GT(r.work, 0);
    EXPECT_LE(r.work, static_cast<int64_t>(10 * (std::log2(1e6) + 2)));
}

TEST(CompilerWork, ProductSkipsTheFillRunOfASparseOperand) {
    // a stores 20 entries in [0, 20) and nothing in [20, 100000): that Run(0) region costs no
    // iteration, though x is dense there.
    const int64_t n = 100000;
    Tensor a = leading_entries(n, 20);
    Tensor x = dense_vector(n);
    auto r = run_counted("s[] += a[i] * x[i]", {{"a", &a}, {"x", &x}}, {{"s", {{}, "dense"}}});
    EXPECT_GT(r.work, 0);
    EXPECT_LE(r.work, 20);
    // Elementwise into a sparse output: the same.
    auto v = run_counted("y[i] = a[i] * x[i]", {{"a", &a}, {"x", &x}}, {{"y", {{n}, "sparselist(0)"}}});
    EXPECT_LE(v.work, 20);
    EXPECT_EQ(v.outputs.at("y").stored(), 20);
}

TEST(CompilerWork, ACopyOfAFiniteInputIsFiniteToo) {
    // x_t copies a finite x (as the planner's explicit transposes copy their inputs): a[i] *
    // x_t[i] skips a's Run(0) region as a[i] * x[i] does, so the work is x_t's initialisation
    // and copy (n each) and a's 20 entries.
    const int64_t n = 100000;
    Tensor a = leading_entries(n, 20);
    Tensor x = dense_vector(n);
    const std::string program = "x_t[i] = x[i]\ns[] += a[i] * x_t[i]";
    auto r = run_counted(program, {{"a", &a}, {"x", &x}}, {{"s", {{}, "dense"}}, {"x_t", {{n}, "dense"}}});
    EXPECT_LE(r.work, 2 * n + 20);
    // An inf in x: the copy holds it, 0 * inf is NaN, and the kernel must visit it (run_counted
    // compares with the reference evaluator, NaN equal to NaN).
    std::vector<Scalar> values;
    for (int64_t i = 0; i < n; ++i) values.push_back(Scalar::of(i == n / 2 ? INFINITY : 1.0));
    Tensor x_inf = Tensor::from_dense({n}, ValueType::Float64, Scalar::of(0.0), Format::dense(1), values);
    auto inf = run_counted(program, {{"a", &a}, {"x", &x_inf}}, {{"s", {{}, "dense"}}, {"x_t", {{n}, "dense"}}});
    EXPECT_TRUE(std::isnan(inf.outputs.at("s").at({}).as_double()));
    EXPECT_GT(inf.work, 2 * n + 20);
}

// A product chain over n x n csr matrices: row i of A holds one entry, at (7 i) % n; row j of B
// one, at (3 j) % n; row k of C three, at k, (k + 1) % n and (k + 5) % n. `big` is A's and B's
// value in row 0 (1e200 makes A[0,j] * B[j,k] overflow to inf).
std::map<std::string, Tensor> chain_inputs(int64_t n, double big) {
    CoordinateList a, b, c;
    a.ndims = b.ndims = c.ndims = 2;
    for (int64_t i = 0; i < n; ++i) {
        a.add(std::vector<int64_t>{i, 7 * i % n}, Scalar::of(i == 0 ? big : 1.0 + i % 3));
        b.add(std::vector<int64_t>{i, 3 * i % n}, Scalar::of(i == 0 ? big : 2.0 + i % 5));
        for (int64_t l : {i, (i + 1) % n, (i + 5) % n}) c.add(std::vector<int64_t>{i, l}, Scalar::of(1.0 + l % 4));
    }
    auto csr = [&](const CoordinateList& list) {
        return Tensor::from_coordinates({n, n}, ValueType::Float64, Scalar::of(0.0), Format::csr(), list);
    };
    std::map<std::string, Tensor> out;
    out.emplace("A", csr(a));
    out.emplace("B", csr(b));
    out.emplace("C", csr(c));
    return out;
}

TEST(CompilerWork, AChainsProductsSkipTheNextFactorsZerosWhenTheyAreFinite) {
    // A[i,j] * B[j,k] is a product of finite inputs that may still overflow, and a temporary T
    // is not known finite: the kernel tests each such value once (value_specialisation.hpp), and
    // a finite one meets C's three stored entries of row k only. Untested, each walked C's whole
    // row of n (0 * inf is NaN), n * n steps. (n is small: the reference visits n^4 points.)
    const int64_t n = 40;
    const std::string fused = "D[i,l] += A[i,j] * B[j,k] * C[k,l]";
    const std::string split = "T[i,k] += A[i,j] * B[j,k]\nD[i,l] += T[i,k] * C[k,l]";
    auto finite = chain_inputs(n, 1.0);
    std::map<std::string, const Tensor*> inputs{{"A", &finite.at("A")}, {"B", &finite.at("B")}, {"C", &finite.at("C")}};
    auto one = run_counted(fused, inputs, {{"D", {{n, n}, "csr"}}});
    EXPECT_EQ(one.outputs.at("D").stored(), 3 * n);
    // The row workspace's n flags cleared once, then per row of D: the row, A's entry, B's
    // entry, C's 3, the copy and reset of 3, and bookkeeping (15 n in all, measured; 16 n
    // allowed). C's zeros walked would add n * n = 40 n.
    EXPECT_LE(one.work, 16 * n);
    auto two = run_counted(split, inputs, {{"T", {{n, n}, "csr"}}, {"D", {{n, n}, "csr"}}});
    EXPECT_LE(two.work, 24 * n); // 22 n measured: T's rows, then D's as above

    // Row 0's products overflow: A[0,0] * B[0,0] = 1e200 * 1e200 = inf, so D's row 0 is inf
    // where C's row 0 stores a positive value and NaN (inf * 0) everywhere else, as the
    // reference says (run_counted compares, NaN equal to NaN). Only that row walks n columns.
    auto huge = chain_inputs(n, 1e200);
    std::map<std::string, const Tensor*> overflowing{{"A", &huge.at("A")}, {"B", &huge.at("B")}, {"C", &huge.at("C")}};
    for (const auto& text : {fused, split}) {
        SCOPED_TRACE(text);
        std::map<std::string, std::pair<std::vector<int64_t>, std::string>> outs{{"D", {{n, n}, "csr"}}};
        if (text == split) outs.emplace("T", std::make_pair(std::vector<int64_t>{n, n}, std::string("csr")));
        auto r = run_counted(text, overflowing, outs);
        const Tensor& d = r.outputs.at("D");
        EXPECT_TRUE(std::isinf(d.at({0, 0}).as_double()));
        EXPECT_TRUE(std::isnan(d.at({0, 2}).as_double()));
        EXPECT_TRUE(std::isnan(d.at({0, n - 1}).as_double()));
        // Row 1: A[1,7] = 2, B[7,21] = 4, C[21, {21, 22, 26}] = 2, 3, 3.
        EXPECT_EQ(d.at({1, 22}).as_double(), 2.0 * 4.0 * 3.0);
        EXPECT_GE(r.work, n);
        EXPECT_LE(r.work, (text == fused ? 16 : 24) * n + 4 * n);
    }
}

// Gustavson's SpGEMM into csr with a sparsebytemap row workspace: per row, the copy and the reset
// visit the touched columns only, not all n. Every row of A here is the same 3 entries, which
// reach 3 rows of B holding 3 entries each, touching 7 distinct columns of the 100000:
//   A[i, {7, 5000, 99999}] = 1, 2, 3
//   B[7, {1, 50000, 99998}], B[5000, {1, 2, 3}], B[99999, {50000, 70000, 99999}]
Tensor same_rows(int64_t m, int64_t n) {
    CoordinateList list;
    list.ndims = 2;
    for (int64_t i = 0; i < m; ++i)
        for (auto [j, v] : std::vector<std::pair<int64_t, double>>{{7, 1.0}, {5000, 2.0}, {99999, 3.0}})
            list.add(std::vector<int64_t>{i, j}, Scalar::of(v));
    return Tensor::from_coordinates({m, n}, ValueType::Float64, Scalar::of(0.0), Format::csr(), list);
}

TEST(CompilerWork, GustavsonCopyAndResetVisitOnlyTouchedColumns) {
    const int64_t n = 100000;
    CoordinateList list;
    list.ndims = 2;
    for (auto [i, j] : std::vector<std::pair<int64_t, int64_t>>{{7, 1}, {7, 50000}, {7, 99998},
                                                                {5000, 1}, {5000, 2}, {5000, 3},
                                                                {99999, 50000}, {99999, 70000},
                                                                {99999, 99999}})
        list.add(std::vector<int64_t>{i, j}, Scalar::of(static_cast<double>(i % 11 + j % 13 + 1)));
    Tensor B = Tensor::from_coordinates({n, n}, ValueType::Float64, Scalar::of(0.0), Format::csr(), list);
    const std::string gemm = "C[i,j] += A[i,k] * B[k,j]";
    Tensor A1 = same_rows(1, n), A41 = same_rows(41, n);
    auto one = run_counted(gemm, {{"A", &A1}, {"B", &B}}, {{"C", {{1, n}, "csr"}}}, false);
    auto many = run_counted(gemm, {{"A", &A41}, {"B", &B}}, {{"C", {{41, n}, "csr"}}}, false);
    // Row i of C is 1 * B[7,:] + 2 * B[5000,:] + 3 * B[99999,:], B[k,j] = k % 11 + j % 13 + 1.
    auto b = [](int64_t k, int64_t j) { return static_cast<double>(k % 11 + j % 13 + 1); };
    std::vector<std::pair<int64_t, double>> row{
        {1, 1 * b(7, 1) + 2 * b(5000, 1)}, {2, 2 * b(5000, 2)}, {3, 2 * b(5000, 3)},
        {50000, 1 * b(7, 50000) + 3 * b(99999, 50000)}, {70000, 3 * b(99999, 70000)},
        {99998, 1 * b(7, 99998)}, {99999, 3 * b(99999, 99999)}};
    EXPECT_EQ(one.outputs.at("C").stored(), 7);
    EXPECT_EQ(many.outputs.at("C").stored(), 41 * 7);
    for (int64_t i : {0, 17, 40})
        for (auto [j, v] : row) EXPECT_EQ(many.outputs.at("C").at({i, j}).as_double(), v) << i << "," << j;
    for (auto [j, v] : row) EXPECT_EQ(one.outputs.at("C").at({0, j}).as_double(), v) << j;
    // Once per call the workspace's n bytes are cleared (n loop bodies); then each row costs its
    // entries: 1 (the row) + 3 (A's row) + 9 (B's rows) + 7 (the copy) + 7 (the reset) + a few
    // loop bodies of C's bookkeeping, far below 25 + 7 * 10. A copy that scanned the row would
    // cost n per row: 40 more rows would add 4 million.
    EXPECT_GE(one.work, n);
    EXPECT_LE(one.work, n + 100);
    int64_t forty_rows = many.work - one.work;
    EXPECT_GE(forty_rows, 40 * (1 + 3 + 9 + 7 + 7));
    EXPECT_LE(forty_rows, 40 * 100);
}

// An output that starts at its fill does not need the fill written first: `y[i] = 0` before
// the updates (the frontier reset at each pass of bfs.siskin) is left out, so the kernel does
// the work of the updates alone, for a dense y and for a bytemap y (which the reset would
// otherwise walk whole); another value, or the fill written after an update, is still written.
TEST(CompilerWork, WritingTheFillIntoAFreshOutputIsLeftOut) {
    const int64_t n = 1000;
    Tensor x = sparse_vector(n, {3, 40, 500});
    for (const char* format : {"dense", "sparsebytemap(0)"}) {
        SCOPED_TRACE(format);
        auto work = [&](const std::string& text) {
            return run_counted(text, {{"x", &x}}, {{"y", {{n}, format}}}).work;
        };
        int64_t updates = work("y[i] += x[i]");
        EXPECT_EQ(work("y[i] = 0\ny[i] += x[i]"), updates);
        EXPECT_GE(work("y[i] = 2\ny[i] += x[i]"), n + 3);
        EXPECT_GE(work("y[i] += x[i]\ny[i] = 0"), updates + n);
    }
}

TEST(CompilerWork, UninstrumentedKernelReportsNoCount) {
    Tensor x = dense_vector(10);
    ir::Program program = ir::parse_program("s[] += x[i]");
    TensorSignature s;
    s.format = Format::dense(0);
    s.fill = Scalar::of(0.0);
    auto kernel = compile(program, {{"x", TensorSignature::of(x)}, {"s", s}}, test_options());
    auto out = kernel->prepare({{"s", {}}});
    kernel->run({{"x", &x}}, out);
    EXPECT_EQ(kernel->last_work(), -1);
    EXPECT_EQ(kernel->c_source().find("siskin_work_count"), std::string::npos);
}

} // namespace
} // namespace siskin::testing
