// Writing the levels that do not append one coordinate per entry: runlist (runs, adjacent equal
// runs merged, a constant run stored once), sparseband (one block per fibre), coo (coordinate
// tuples) and pattern leaves. Every output is compared with the reference evaluator: values,
// stored coordinates, and the raw storage, which must be what Tensor::convert builds.
#include <cmath>
#include <limits>

#include "compiler_test_util.hpp"

namespace siskin::testing {
namespace {

const double kInf = std::numeric_limits<double>::infinity();

// Every buffer of every level and the values agree element by element (index widths may differ).
::testing::AssertionResult same_storage(const Tensor& got, const Tensor& want) {
    if (got.num_levels() != want.num_levels()) return ::testing::AssertionFailure() << "level count";
    auto same_buffer = [](const Buffer& a, const Buffer& b) {
        if (a.size() != b.size()) return false;
        for (int64_t i = 0; i < a.size(); ++i)
            if (!a.get(i).cast(ValueType::Float64).same(b.get(i).cast(ValueType::Float64))) return false;
        return true;
    };
    for (int k = 0; k < got.num_levels(); ++k) {
        const LevelStorage& g = got.level(k);
        const LevelStorage& w = want.level(k);
        if (g.names != w.names) return ::testing::AssertionFailure() << "buffer names of level " << k;
        for (size_t b = 0; b < g.names.size(); ++b)
            if (!same_buffer(g.buffers[b], w.buffers[b]))
                return ::testing::AssertionFailure() << "level " << k << " buffer " << g.names[b] << " differs";
    }
    if (!same_buffer(got.values(), want.values())) return ::testing::AssertionFailure() << "values differ";
    return ::testing::AssertionSuccess();
}

// Runs `program` compiled and by the reference; each output must match in values, stored
// coordinates and raw storage. Returns the compiled outputs.
std::map<std::string, Tensor> expect_like_reference(const std::string& program,
                                                    const std::map<std::string, const Tensor*>& inputs,
                                                    const std::map<std::string, OutputSpec>& outputs) {
    auto want = evaluate_reference(ir::parse_program(program), inputs, outputs);
    auto got = run_compiled(program, inputs, outputs);
    for (const auto& [name, w] : want) {
        const Tensor& g = got.at(name);
        EXPECT_TRUE(g.equals(w)) << program << "\n" << name << ": " << g.to_string() << "\nwant " << w.to_string();
        EXPECT_EQ(stored_coordinates(g), stored_coordinates(w)) << program;
        EXPECT_EQ(g.stored(), w.stored()) << program;
        EXPECT_TRUE(same_storage(g, w)) << program << "\n" << name << ": " << g.to_string() << "\nwant " << w.to_string();
    }
    return got;
}

std::vector<int64_t> index_values(const Buffer& b) {
    std::vector<int64_t> out;
    for (int64_t i = 0; i < b.size(); ++i) out.push_back(b.get(i).as_int());
    return out;
}

std::vector<double> double_values(const Buffer& b) {
    std::vector<double> out;
    for (int64_t i = 0; i < b.size(); ++i) out.push_back(b.get(i).as_double());
    return out;
}

Tensor dense_vector(const std::vector<double>& v, double fill = 0.0, const std::string& format = "dense") {
    CoordinateList e;
    e.ndims = 1;
    for (size_t i = 0; i < v.size(); ++i) e.add(std::vector<int64_t>{static_cast<int64_t>(i)}, Scalar::of(v[i]));
    return Tensor::from_coordinates({static_cast<int64_t>(v.size())}, ValueType::Float64, Scalar::of(fill),
                                    Format::parse(format, 1), e);
}

// Compiles with count_work and returns (outputs, loop-body executions).
std::pair<std::map<std::string, Tensor>, int64_t> run_counted(
    const std::string& text, const std::map<std::string, const Tensor*>& inputs, const std::string& out,
    const TensorSignature& out_sig, const std::vector<int64_t>& shape) {
    ir::Program program = ir::parse_program(text);
    std::map<std::string, TensorSignature> sigs;
    for (const auto& [name, t] : inputs) sigs.emplace(name, TensorSignature::of(*t, true));
    sigs.emplace(out, out_sig);
    CompileOptions options = test_options();
    options.count_work = true;
    auto kernel = compile(program, sigs, options);
    auto outputs = kernel->prepare({{out, shape}});
    kernel->run(inputs, outputs);
    return {std::move(outputs), kernel->last_work()};
}

// ---- runlist ---------------------------------------------------------------------------------

TEST(CompilerWriteLevels, RunListMergesEqualNeighbours) {
    // [1 1 2 2 2 0 0 1]: runs end (exclusive) at 2, 5, 7, 8 holding 1, 2, 0, 1.
    Tensor x = dense_vector({1, 1, 2, 2, 2, 0, 0, 1});
    auto y = expect_like_reference("for i { y[i] = x[i] }", {{"x", &x}}, {{"y", with_format("rle(0)", 1)}}).at("y");
    EXPECT_EQ(index_values(y.level(0).buffer("pos")), (std::vector<int64_t>{0, 4}));
    EXPECT_EQ(index_values(y.level(0).buffer("right")), (std::vector<int64_t>{2, 5, 7, 8}));
    EXPECT_EQ(double_values(y.values()), (std::vector<double>{1, 2, 0, 1}));
    // Values computed to the same number merge too: x * 0 + 3 is one run.
    auto z = expect_like_reference("for i { z[i] = x[i] * 0 + 3 }", {{"x", &x}}, {{"z", with_format("rle(0)", 1)}}).at("z");
    EXPECT_EQ(index_values(z.level(0).buffer("right")), (std::vector<int64_t>{8}));
    EXPECT_EQ(double_values(z.values()), (std::vector<double>{3}));
}

TEST(CompilerWriteLevels, RunListFillsGapsAndDropsNothingElse) {
    // A sparse input with fill 2.5: stored 1.0 at 3 and 4, and an explicit 2.5 at 9. Runs:
    // [0,3) 2.5, [3,5) 1.0, [5,12) 2.5.
    CoordinateList e;
    e.ndims = 1;
    e.add(std::vector<int64_t>{3}, Scalar::of(1.0));
    e.add(std::vector<int64_t>{4}, Scalar::of(1.0));
    e.add(std::vector<int64_t>{9}, Scalar::of(2.5));
    Tensor x = Tensor::from_coordinates({12}, ValueType::Float64, Scalar::of(2.5), Format::parse("sparselist(0)", 1), e);
    auto y = expect_like_reference("for i { y[i] = x[i] }", {{"x", &x}}, {{"y", with_format("rle(0)", 1)}}).at("y");
    EXPECT_EQ(index_values(y.level(0).buffer("right")), (std::vector<int64_t>{3, 5, 12}));
    EXPECT_EQ(double_values(y.values()), (std::vector<double>{2.5, 1.0, 2.5}));
    // NaN runs merge (Scalar::same), and a fill of NaN works like any other.
    double nan = std::numeric_limits<double>::quiet_NaN();
    Tensor n = dense_vector({nan, nan, 1, nan}, nan);
    auto m = expect_like_reference("for i { m[i] = n[i] }", {{"n", &n}}, {{"m", with_format("rle(0)", 1)}}).at("m");
    EXPECT_EQ(index_values(m.level(0).buffer("right")), (std::vector<int64_t>{2, 3, 4}));
}

TEST(CompilerWriteLevels, RunListStoresARunOnce) {
    // 200000 coordinates in 5 runs. Copying a runlist into a runlist does O(1) work per run; a
    // dense copy of it visits every coordinate.
    const int64_t n = 200000;
    CoordinateList e;
    e.ndims = 1;
    for (int64_t i = 50000; i < 50010; ++i) e.add(std::vector<int64_t>{i}, Scalar::of(3.0));
    for (int64_t i = 120000; i < 150000; ++i) e.add(std::vector<int64_t>{i}, Scalar::of(-1.0));
    Tensor x = Tensor::from_coordinates({n}, ValueType::Float64, Scalar::of(0.0), Format::parse("rle(0)", 1), e);
    ASSERT_EQ(x.stored(), 5);
    TensorSignature sig;
    sig.format = Format::parse("rle(0)@64", 1);
    sig.type = ValueType::Float64;
    sig.fill = Scalar::of(0.0);
    sig.ndims = 1;
    auto [out, work] = run_counted("for i { y[i] = x[i] }", {{"x", &x}}, "y", sig, {n});
    const Tensor& y = out.at("y");
    EXPECT_TRUE(y.equals(x));
    EXPECT_EQ(y.stored(), 5);
    EXPECT_TRUE(same_storage(y, x));
    EXPECT_LE(work, 10) << "one step per run";
    sig.format = Format::dense(1).with_index_bits(64);
    auto [dense, dense_work] = run_counted("for i { y[i] = x[i] }", {{"x", &x}}, "y", sig, {n});
    EXPECT_TRUE(dense.at("y").equals(x));
    EXPECT_GE(dense_work, n);
    // The fill between a sparse input's entries is a run too: 3 entries (7 and 8 adjacent and
    // equal) make 5 runs in O(entries) work.
    sig.format = Format::parse("rle(0)@64", 1);
    CoordinateList few;
    few.ndims = 1;
    for (int64_t i : {7, 8, 90000}) few.add(std::vector<int64_t>{i}, Scalar::of(2.0));
    Tensor sparse = Tensor::from_coordinates({n}, ValueType::Float64, Scalar::of(0.0),
                                             Format::parse("sparselist(0)", 1), few);
    auto [from_sparse, sparse_work] = run_counted("for i { y[i] = x[i] }", {{"x", &sparse}}, "y", sig, {n});
    EXPECT_TRUE(from_sparse.at("y").equals(sparse));
    EXPECT_EQ(from_sparse.at("y").stored(), 5); // 0, 2 2, 0, 2, 0
    EXPECT_LE(sparse_work, 10);
}

TEST(CompilerWriteLevels, RunListRowsOfMatrices) {
    // Rows 1 and 3 of 5 hold entries; a dcsr input skips the others, which still get one fill
    // run each (dense parent), or no slot at all (sparselist parent).
    Tensor a = make({5, 6}, "dcsr", {{{1, 0}, 2}, {{1, 1}, 2}, {{1, 4}, 7}, {{3, 5}, 1}});
    for (const char* f : {"dense(0)/rle(1)", "sparselist(0)/rle(1)", "dense(0)/rle(1)@32"})
        expect_like_reference("for i { for j { C[i, j] = A[i, j] } }", {{"A", &a}}, {{"C", with_format(f, 2)}});
    // A fill other than 0, and rows that are all fill after the operation.
    Tensor b = make({4, 5}, "csr", {{{0, 1}, 1}, {{2, 2}, 4}, {{2, 3}, 4}}, 1.0);
    for (const char* f : {"dense(0)/rle(1)", "sparselist(0)/rle(1)"}) {
        expect_like_reference("for i { for j { C[i, j] = B[i, j] } }", {{"B", &b}}, {{"C", with_format(f, 2)}});
        expect_like_reference("for i { for j { C[i, j] = B[i, j] * 0 + 1 } }", {{"B", &b}}, {{"C", with_format(f, 2)}});
    }
    // Reductions into a runlist: whole runs of empty rows are summed once.
    expect_like_reference("for i { for j { y[i] += A[i, j] } }", {{"A", &a}}, {{"y", with_format("rle(0)", 1)}});
    // A masked write: unwritten coordinates hold the fill.
    Tensor m = make({5, 6}, "csr", {{{1, 1}, 1}, {{3, 5}, 1}, {{4, 0}, 1}});
    expect_like_reference("for i { for j { if M[i, j] { C[i, j] = A[i, j] + 1 } } }", {{"A", &a}, {"M", &m}},
                          {{"C", with_format("dense(0)/rle(1)", 2)}});
}

TEST(CompilerWriteLevels, RunListWrittenOutOfOrder) {
    Tensor a = make({3, 3}, "csr", {{{0, 1}, 1}, {{2, 0}, 2}});
    // Loops against the output's order run in its order instead (output_order).
    expect_like_reference("for j { for i { C[i, j] = A[i, j] } }", {{"A", &a}}, {{"C", with_format("dense(0)/rle(1)", 2)}});
    // A sum in the wrong order gets a dense row workspace and is right.
    expect_like_reference("for j { for i { C[i, j] += A[i, j] } }", {{"A", &a}}, {{"C", with_format("dense(0)/rle(1)", 2)}});
    // Rows written again after later rows, through another subscript list: refused for every
    // level appended in order, fine for dense.
    const std::string again = "for i { for j { B[i, j] = A[i, j] } }\nfor j { B[1, j] = A[0, j] }";
    for (const char* f : {"dense(0)/rle(1)", "dense(0)/band(1)", "csr", "coo", "sparselist(0)/rle(1)"})
        EXPECT_TRUE(throws_error([&] { run_compiled(again, {{"A", &a}}, {{"B", with_format(f, 2)}}); },
                                 {"output B", "two different subscript lists"}))
            << f;
    expect_like_reference(again, {{"A", &a}}, {{"B", with_format("dense", 2)}});
}

// ---- sparseband ------------------------------------------------------------------------------

TEST(CompilerWriteLevels, SparseBandSpansFirstToLastNonFill) {
    // [0 0 3 0 0 5 0 0]: one block over coordinates 2..5 (idx = 6, exclusive), gaps hold 0.
    Tensor x = dense_vector({0, 0, 3, 0, 0, 5, 0, 0});
    auto y = expect_like_reference("for i { y[i] = x[i] }", {{"x", &x}}, {{"y", with_format("band(0)", 1)}}).at("y");
    EXPECT_EQ(index_values(y.level(0).buffer("ofs")), (std::vector<int64_t>{0, 4}));
    EXPECT_EQ(index_values(y.level(0).buffer("idx")), (std::vector<int64_t>{6}));
    EXPECT_EQ(double_values(y.values()), (std::vector<double>{3, 0, 0, 5}));
    // Fill 1 with an explicit 1 before the first other entry: the block starts at 3.
    CoordinateList e;
    e.ndims = 1;
    e.add(std::vector<int64_t>{1}, Scalar::of(1.0));
    e.add(std::vector<int64_t>{3}, Scalar::of(2.0));
    e.add(std::vector<int64_t>{6}, Scalar::of(4.0));
    Tensor s = Tensor::from_coordinates({9}, ValueType::Float64, Scalar::of(1.0), Format::parse("sparselist(0)", 1), e);
    auto b = expect_like_reference("for i { b[i] = s[i] }", {{"s", &s}}, {{"b", with_format("band(0)@32", 1)}}).at("b");
    EXPECT_EQ(index_values(b.level(0).buffer("idx")), (std::vector<int64_t>{7}));
    EXPECT_EQ(double_values(b.values()), (std::vector<double>{2, 1, 1, 4}));
    // Nothing but the fill: an empty block.
    auto z = expect_like_reference("for i { z[i] = x[i] * 0 }", {{"x", &x}}, {{"z", with_format("band(0)", 1)}}).at("z");
    EXPECT_EQ(index_values(z.level(0).buffer("ofs")), (std::vector<int64_t>{0, 0}));
    EXPECT_EQ(index_values(z.level(0).buffer("idx")), (std::vector<int64_t>{0}));
}

TEST(CompilerWriteLevels, SparseBandRowsOfMatrices) {
    Tensor a = make({5, 7}, "dcsr", {{{1, 1}, 2}, {{1, 5}, 2}, {{1, 6}, 7}, {{3, 0}, 1}, {{4, 3}, -1}});
    for (const char* f : {"dense(0)/band(1)", "sparselist(0)/band(1)", "band(0)/band(1)", "band(0)/dense(1)",
                          "dense(0)/band(1)@64"})
        expect_like_reference("for i { for j { C[i, j] = A[i, j] } }", {{"A", &a}}, {{"C", with_format(f, 2)}});
    Tensor b = make({5, 7}, "csr", {{{0, 1}, 1}, {{2, 2}, 4}, {{2, 3}, 1}, {{3, 4}, 0}, {{4, 3}, 2}}, 1.0);
    for (const char* f : {"dense(0)/band(1)", "sparselist(0)/band(1)", "band(0)/band(1)"}) {
        expect_like_reference("for i { for j { C[i, j] = B[i, j] } }", {{"B", &b}}, {{"C", with_format(f, 2)}});
        expect_like_reference("for i { for j { C[i, j] = A[i, j] + B[i, j] } }", {{"A", &a}, {"B", &b}},
                              {{"C", with_format(f, 2)}});
    }
    expect_like_reference("for i { for j { y[i] += A[i, j] } }", {{"A", &a}}, {{"y", with_format("band(0)", 1)}});
    // Written against its order: the loops run in its order (output_order).
    expect_like_reference("for j { for i { C[i, j] = A[i, j] } }", {{"A", &a}}, {{"C", with_format("dense(0)/band(1)", 2)}});
}

// ---- sparserunlist -----------------------------------------------------------------------------

TEST(CompilerWriteLevels, SparseRunListMergesRunsAndSkipsGaps) {
    // [0 2 2 0 3 3 4 0]: runs [1,3) 2, [4,6) 3, [6,7) 4; the fill between is no run.
    Tensor x = dense_vector({0, 2, 2, 0, 3, 3, 4, 0});
    auto y = expect_like_reference("for i { y[i] = x[i] }", {{"x", &x}}, {{"y", with_format("sparserunlist(0)", 1)}}).at("y");
    EXPECT_EQ(index_values(y.level(0).buffer("left")), (std::vector<int64_t>{1, 4, 6}));
    EXPECT_EQ(index_values(y.level(0).buffer("right")), (std::vector<int64_t>{3, 6, 7}));
    EXPECT_EQ(double_values(y.values()), (std::vector<double>{2, 3, 4}));
    // Values computed to the same number merge; fill 1 and inf; a runlist copied a run at a time.
    expect_like_reference("for i { y[i] = min(x[i], 2.5) }", {{"x", &x}}, {{"y", with_format("sparserunlist(0)@64", 1)}});
    Tensor ones = dense_vector({1, 5, 5, 1, 1, kInf}, 1.0);
    expect_like_reference("for i { y[i] = ones[i] }", {{"ones", &ones}}, {{"y", with_format("sparserunlist(0)", 1)}});
    Tensor r = x.convert(Format::parse("rle(0)", 1));
    auto z = expect_like_reference("for i { z[i] = r[i] * 2 }", {{"r", &r}}, {{"z", with_format("sparserunlist(0)", 1)}}).at("z");
    EXPECT_EQ(double_values(z.values()), (std::vector<double>{4, 6, 8}));
    // Rows of a matrix below dense and sparse levels, both orders, and pattern images.
    Tensor a = make({4, 7}, "csr", {{{0, 1}, 2}, {{0, 2}, 2}, {{0, 3}, 5}, {{2, 6}, -1}, {{3, 0}, 1}, {{3, 1}, 1}});
    for (const char* f : {"dense(0)/sparserunlist(1)", "sparselist(0)/sparserunlist(1)", "band(0)/sparserunlist(1)@32"})
        expect_like_reference("for i { for j { C[i, j] = A[i, j] } }", {{"A", &a}}, {{"C", with_format(f, 2)}});
    expect_like_reference("for j { for i { C[j, i] = A[i, j] } }", {{"A", &a}}, {{"C", with_format("dense(0)/sparserunlist(1)", 2)}});
    OutputSpec image = with_format("dense(0)/sparserunlist(1)/pattern", 2);
    image.type = ValueType::Bool;
    image.fill = Scalar::of(false);
    auto p = expect_like_reference("for i { for j { P[i, j] = A[i, j] > 0 } }", {{"A", &a}}, {{"P", image}}).at("P");
    EXPECT_EQ(index_values(p.level(1).buffer("left")), (std::vector<int64_t>{1, 0}));
    EXPECT_EQ(index_values(p.level(1).buffer("right")), (std::vector<int64_t>{4, 2}));
}

// ---- sparseblocklist ---------------------------------------------------------------------------

TEST(CompilerWriteLevels, SparseBlockListGroupsConsecutiveEntries) {
    // [0 1 2 3 0 0 0 0 4 5 0 0] (Finch case 25): blocks [1,4) and [8,10), idx 4 and 10, ofs 0 3 5.
    Tensor x = dense_vector({0, 1, 2, 3, 0, 0, 0, 0, 4, 5, 0, 0});
    auto y = expect_like_reference("for i { y[i] = x[i] }", {{"x", &x}}, {{"y", with_format("sparseblocklist(0)", 1)}}).at("y");
    EXPECT_EQ(index_values(y.level(0).buffer("pos")), (std::vector<int64_t>{0, 2}));
    EXPECT_EQ(index_values(y.level(0).buffer("idx")), (std::vector<int64_t>{4, 10}));
    EXPECT_EQ(index_values(y.level(0).buffer("ofs")), (std::vector<int64_t>{0, 3, 5}));
    EXPECT_EQ(double_values(y.values()), (std::vector<double>{1, 2, 3, 4, 5}));
    // A write of the fill inside a run splits the block.
    Tensor m = dense_vector({1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1});
    auto z = expect_like_reference("for i { z[i] = x[i] * m[i] }", {{"x", &x}, {"m", &m}},
                                   {{"z", with_format("vbl(0)@64", 1)}}).at("z");
    EXPECT_EQ(index_values(z.level(0).buffer("idx")), (std::vector<int64_t>{2, 4, 10}));
    // Rows of matrices in every place, fill 1 and inf, and a pattern leaf.
    Tensor a = make({5, 7}, "dcsr", {{{1, 1}, 2}, {{1, 2}, 2}, {{1, 6}, 7}, {{3, 0}, 1}, {{4, 3}, -1}, {{4, 4}, kInf}});
    for (const char* f : {"dense(0)/vbl(1)", "sparselist(0)/vbl(1)", "vbl(0)/vbl(1)", "vbl(0)/dense(1)",
                          "vbl(0)/sparselist(1)@32", "band(0)/vbl(1)"})
        expect_like_reference("for i { for j { C[i, j] = A[i, j] } }", {{"A", &a}}, {{"C", with_format(f, 2)}});
    Tensor b = make({5, 7}, "csr", {{{0, 1}, 1}, {{2, 2}, 4}, {{2, 3}, 1}, {{4, 3}, 2}}, 1.0);
    expect_like_reference("for i { for j { C[i, j] = min(A[i, j], B[i, j]) } }", {{"A", &a}, {"B", &b}},
                          {{"C", with_format("vbl(0)/vbl(1)", 2)}});
    OutputSpec image = with_format("dense(0)/sparseblocklist(1)/pattern", 2);
    image.type = ValueType::Bool;
    image.fill = Scalar::of(false);
    expect_like_reference("for i { for j { P[i, j] = A[i, j] > 0 } }", {{"A", &a}}, {{"P", image}});
}

// ---- packbits --------------------------------------------------------------------------------

TEST(CompilerWriteLevels, PackBitsEncodesRunsAndLiterals) {
    // Looplets case 17: run(7, ends 3), literal [1,2,3] (ends 6), run(0, ends 8), written one
    // coordinate at a time and read back through the Switch on the segment kind.
    Tensor x = dense_vector({7, 7, 7, 1, 2, 3, 0, 0});
    auto y = expect_like_reference("for i { y[i] = x[i] }", {{"x", &x}}, {{"y", with_format("packbits(0)", 1)}}).at("y");
    EXPECT_EQ(index_values(y.level(0).buffer("right")), (std::vector<int64_t>{3, 6, 8}));
    EXPECT_EQ(index_values(y.level(0).buffer("ofs")), (std::vector<int64_t>{0, 1, 4, 5}));
    EXPECT_EQ(double_values(y.values()), (std::vector<double>{7, 1, 2, 3, 0}));
    // A literal's last value taken into a run, equal computed values, fill 1 and inf, runs copied
    // a run at a time from a runlist, and a packbits input written again.
    Tensor w = dense_vector({1, 2, 2, 3, 5, 0, 5, 5, 4, kInf}, 1.0);
    for (const char* out : {"packbits(0)", "packbits(0)@64"}) {
        expect_like_reference("for i { y[i] = w[i] }", {{"w", &w}}, {{"y", with_format(out, 1)}});
        expect_like_reference("for i { y[i] = min(w[i], 2.5) }", {{"w", &w}}, {{"y", with_format(out, 1)}});
    }
    Tensor r = x.convert(Format::parse("rle(0)", 1));
    expect_like_reference("for i { z[i] = r[i] * 2 }", {{"r", &r}}, {{"z", with_format("packbits(0)", 1)}});
    Tensor p = y;
    expect_like_reference("for i { z[i] = p[i] + x[i] }", {{"p", &p}, {"x", &x}}, {{"z", with_format("packbits(0)", 1)}});
    // Rows of a matrix below dense and sparse levels (a sparse parent drops an all-fill row), both
    // loop orders, with empty rows the loops skip.
    Tensor a = make({5, 7}, "dcsr", {{{0, 1}, 2}, {{0, 2}, 2}, {{0, 3}, 5}, {{2, 6}, -1}, {{3, 0}, 1}, {{3, 1}, 1}, {{3, 2}, 4}});
    for (const char* f : {"dense(0)/packbits(1)", "sparselist(0)/packbits(1)", "band(0)/packbits(1)@32"})
        expect_like_reference("for i { for j { C[i, j] = A[i, j] } }", {{"A", &a}}, {{"C", with_format(f, 2)}});
    expect_like_reference("for j { for i { C[j, i] = A[i, j] } }", {{"A", &a}}, {{"C", with_format("dense(0)/packbits(1)", 2)}});
    Tensor pa = a.convert(Format::parse("dense(0)/packbits(1)", 2));
    expect_like_reference("for i { for j { y[i] += P[i, j] * A[i, j] } }", {{"P", &pa}, {"A", &a}},
                          {{"y", with_format("packbits(0)", 1)}});
    expect_like_reference("for j { for i { y[j] += P[i, j] } }", {{"P", &pa}}, {{"y", with_format("dense", 1)}});
}

// ---- sparsepoint and sparseinterval -----------------------------------------------------------

TEST(CompilerWriteLevels, SparsePointKeepsOneEntryPerFibre) {
    // A permutation times 2, in every place of the level: rows of one entry each, row 2 empty
    // (its idx is the extent, 5).
    Tensor p = make({4, 5}, "dense(0)/sparsepoint(1)", {{{0, 3}, 1}, {{1, 0}, 1}, {{3, 4}, -1}});
    auto c = expect_like_reference("for i { for j { C[i, j] = P[i, j] * 2 } }", {{"P", &p}},
                                   {{"C", with_format("dense(0)/point(1)", 2)}}).at("C");
    EXPECT_EQ(c.level(1).names, (std::vector<std::string>{"idx"}));
    EXPECT_EQ(index_values(c.level(1).buffer("idx")), (std::vector<int64_t>{3, 0, 5, 4}));
    EXPECT_EQ(double_values(c.values()), (std::vector<double>{2, 2, 0, -2}));
    Tensor dense = p.convert(Format::parse("dense", 2));
    for (const char* f : {"sparselist(0)/sparsepoint(1)", "sparselist(0)/sparsepoint(1)@64"})
        expect_like_reference("for i { for j { C[i, j] = P[i, j] } }", {{"P", &dense}}, {{"C", with_format(f, 2)}});
    // One row above its columns, written from a dense input whose other rows are the fill.
    Tensor row = make({3, 4}, "dense", {{{1, 0}, 4}, {{1, 2}, 5}});
    for (const char* f : {"sparsepoint(0)/sparselist(1)", "sparsepoint(0)/dense(1)", "sparsepoint(0)/band(1)"})
        expect_like_reference("for i { for j { C[i, j] = R[i, j] } }", {{"R", &row}}, {{"C", with_format(f, 2)}});
    // Column-major, a fill of inf, and the sum of a row into a vector with one entry.
    Tensor q = make({3, 3}, "dense(1)/sparsepoint(0)", {{{2, 0}, 1}, {{0, 1}, 3}}, kInf);
    expect_like_reference("for j { for i { C[i, j] = min(Q[i, j], 2) } }", {{"Q", &q}},
                          {{"C", with_format("dense(1)/sparsepoint(0)", 2)}});
    Tensor one = make({4}, "dense", {{{2}, 6}});
    expect_like_reference("for i { y[i] = one[i] }", {{"one", &one}}, {{"y", with_format("point(0)", 1)}});
}

TEST(CompilerWriteLevels, SparsePointRefusesASecondEntry) {
    Tensor x = make({6}, "sparselist(0)", {{{1}, 1}, {{4}, 2}});
    EXPECT_TRUE(throws_error(
        [&] { run_compiled("for i { y[i] = x[i] }", {{"x", &x}}, {{"y", with_format("sparsepoint(0)", 1)}}); },
        {"sparsepoint fibre holds one entry", "y of shape"}));
    // A second write of the fill after the entry is no second entry: it leaves the entry alone.
    Tensor d = make({6}, "dense", {{{1}, 1}});
    auto y = expect_like_reference("for i { y[i] = d[i] }", {{"d", &d}}, {{"y", with_format("sparsepoint(0)", 1)}}).at("y");
    EXPECT_EQ(double_values(y.values()), (std::vector<double>{1}));
}

TEST(CompilerWriteLevels, SparseIntervalStoresOneRun) {
    // [0 0 3 3 3 0]: left 2, right 5, one value; written from dense, from a runlist a run at a
    // time, and with fill 1.
    Tensor x = dense_vector({0, 0, 3, 3, 3, 0});
    auto y = expect_like_reference("for i { y[i] = x[i] }", {{"x", &x}}, {{"y", with_format("interval(0)", 1)}}).at("y");
    EXPECT_EQ(index_values(y.level(0).buffer("left")), (std::vector<int64_t>{2}));
    EXPECT_EQ(index_values(y.level(0).buffer("right")), (std::vector<int64_t>{5}));
    EXPECT_EQ(double_values(y.values()), (std::vector<double>{3}));
    Tensor r = x.convert(Format::parse("rle(0)", 1));
    expect_like_reference("for i { y[i] = r[i] * 2 }", {{"r", &r}}, {{"y", with_format("sparseinterval(0)@64", 1)}});
    Tensor ones = dense_vector({1, 7, 7, 1}, 1.0);
    expect_like_reference("for i { y[i] = ones[i] }", {{"ones", &ones}}, {{"y", with_format("interval(0)", 1)}});
    // Rows of a matrix, below dense, sparselist and sparsepoint levels, in both orders.
    Tensor a = make({4, 6}, "dense", {{{0, 1}, 2}, {{0, 2}, 2}, {{2, 5}, -1}, {{3, 0}, kInf}, {{3, 1}, kInf}});
    for (const char* f : {"dense(0)/interval(1)", "sparselist(0)/interval(1)", "sparselist(0)/interval(1)@32"})
        expect_like_reference("for i { for j { C[i, j] = A[i, j] } }", {{"A", &a}}, {{"C", with_format(f, 2)}});
    Tensor t = make({6, 4}, "dense", {{{1, 0}, 2}, {{2, 0}, 2}, {{5, 2}, -1}});
    expect_like_reference("for j { for i { C[i, j] = T[i, j] } }", {{"T", &t}}, {{"C", with_format("dense(1)/interval(0)", 2)}});
    Tensor row = make({3, 5}, "csr", {{{2, 1}, 4}, {{2, 2}, 4}});
    expect_like_reference("for i { for j { C[i, j] = R[i, j] } }", {{"R", &row}}, {{"C", with_format("point(0)/interval(1)", 2)}});
}

TEST(CompilerWriteLevels, SparseIntervalRefusesASecondRun) {
    for (auto values : {std::vector<double>{0, 3, 0, 3}, std::vector<double>{0, 3, 4, 0}}) {
        Tensor x = dense_vector(values);
        EXPECT_TRUE(throws_error(
            [&] { run_compiled("for i { y[i] = x[i] }", {{"x", &x}}, {{"y", with_format("sparseinterval(0)", 1)}}); },
            {"sparseinterval fibre one run of one value"}));
    }
}

// ---- coo ---------------------------------------------------------------------------------------

TEST(CompilerWriteLevels, CooAppendsCoordinateTuples) {
    Tensor a = make({3, 4}, "csr", {{{0, 1}, 1}, {{0, 3}, 2}, {{2, 0}, 3}, {{2, 2}, 0}});
    auto c = expect_like_reference("for i { for j { C[i, j] = A[i, j] } }", {{"A", &a}}, {{"C", with_format("coo", 2)}}).at("C");
    EXPECT_EQ(index_values(c.level(0).buffer("pos")), (std::vector<int64_t>{0, 3}));
    EXPECT_EQ(index_values(c.level(0).buffer("crd0")), (std::vector<int64_t>{0, 0, 2}));
    EXPECT_EQ(index_values(c.level(0).buffer("crd1")), (std::vector<int64_t>{1, 3, 0}));
    // Column-major coo, written with the loops in its order.
    auto t = expect_like_reference("for j { for i { C[i, j] = A[i, j] * 2 } }", {{"A", &a}},
                                   {{"C", with_format("coo(1,0)@64", 2)}}).at("C");
    EXPECT_EQ(index_values(t.level(0).buffer("crd0")), (std::vector<int64_t>{0, 1, 3}));
    EXPECT_EQ(index_values(t.level(0).buffer("crd1")), (std::vector<int64_t>{2, 0, 0}));
    // One dimension; three dimensions with a reduction; coo above and below other levels.
    Tensor x = dense_vector({0, 1, 0, 2});
    expect_like_reference("for i { y[i] = x[i] }", {{"x", &x}}, {{"y", with_format("coo", 1)}});
    CoordinateList e;
    e.ndims = 3;
    for (auto [i, j, k, v] : std::vector<std::tuple<int64_t, int64_t, int64_t, double>>{
             {0, 1, 2, 1}, {0, 1, 3, 2}, {1, 0, 0, 4}, {1, 2, 3, 8}, {1, 2, 1, -8}})
        e.add(std::vector<int64_t>{i, j, k}, Scalar::of(v));
    Tensor t3 = Tensor::from_coordinates({2, 3, 4}, ValueType::Float64, Scalar::of(0.0), Format::parse("csf", 3), e);
    expect_like_reference("for i { for j { for k { y[i, j] += T[i, j, k] } } }", {{"T", &t3}},
                          {{"y", with_format("coo", 2)}});
    for (const char* f : {"coo", "coo(0,1)/dense(2)", "dense(0)/coo(1,2)", "coo(0,1)/sparselist(2)", "coo(0,1)/rle(2)"})
        expect_like_reference("for i { for j { for k { U[i, j, k] = T[i, j, k] } } }", {{"T", &t3}},
                              {{"U", with_format(f, 3)}});
    // Written against its order: the loops run in its order (output_order).
    expect_like_reference("for j { for i { C[i, j] = A[i, j] } }", {{"A", &a}}, {{"C", with_format("coo", 2)}});
}

// ---- pattern -----------------------------------------------------------------------------------

OutputSpec pattern(const std::string& f, int ndims) {
    OutputSpec s = with_format(f, ndims);
    s.type = ValueType::Bool;
    s.fill = Scalar::of(false);
    return s;
}

TEST(CompilerWriteLevels, PatternKeepsTrueEntries) {
    Tensor a = make({3, 4}, "csr", {{{0, 1}, 1}, {{0, 3}, 2}, {{2, 0}, 3}, {{2, 2}, -1}});
    // Stored iff A > 1: (0,3) and (2,0).
    for (const char* f : {"dense(0)/sparselist(1)/pattern", "sparselist(0)/sparselist(1)/pattern",
                          "coo(0,1)/pattern", "dense(0)/bytemap(1)/pattern"}) {
        auto p = expect_like_reference("for i { for j { P[i, j] = A[i, j] > 1 } }", {{"A", &a}},
                                       {{"P", pattern(f, 2)}}).at("P");
        EXPECT_EQ(stored_coordinates(p), (std::vector<std::vector<int64_t>>{{0, 3}, {2, 0}})) << f;
    }
    // Reductions: rows with a negative entry (in order), columns holding anything (bytemap, any
    // order).
    auto r = expect_like_reference("for i { for j { r[i] |= A[i, j] < 0 } }", {{"A", &a}},
                                   {{"r", pattern("sparselist(0)/pattern", 1)}}).at("r");
    EXPECT_EQ(stored_coordinates(r), (std::vector<std::vector<int64_t>>{{2}}));
    auto c = expect_like_reference("for i { for j { c[j] |= A[i, j] != 0 } }", {{"A", &a}},
                                   {{"c", pattern("bytemap(0)/pattern", 1)}}).at("c");
    EXPECT_EQ(stored_coordinates(c), (std::vector<std::vector<int64_t>>{{0}, {1}, {2}, {3}}));
}

// A sparse level above a dense one stores a row only if something in it differs from the fill:
// a dense input's explicit zero row, or a row of explicit 2.5s under fill 2.5, is left out.
TEST(CompilerWriteLevels, RowsOfOnlyFillAboveADenseLevelAreNotStored) {
    for (double fill : {0.0, 2.5, std::nan("")}) {
        Tensor a = make({3, 3}, "dense", {{{0, 0}, 3}, {{1, 1}, fill}, {{2, 2}, 5}}, fill);
        OutputSpec out = with_format("sparselist(0)/dense(1)", 2);
        out.fill = Scalar::of(fill);
        auto b = expect_like_reference("B[i, j] = A[i, j]", {{"A", &a}}, {{"B", out}}).at("B");
        EXPECT_EQ(b.stored(), 6) << fill; // rows 0 and 2, three columns each
    }
}

// ---- sparsebytemap above another level ----------------------------------------------------------

TEST(CompilerWriteLevels, SparseByteMapAboveAnotherLevel) {
    // Rows 0 and 3 hold products; row 2 writes only the fill (5 - 5) and row 1 nothing, so both
    // slots stay unused. Positions below are the slots r*n + i: the sparselist keeps an empty
    // fibre under each unused slot, a dense row holds the fill there.
    Tensor a = make({4, 5}, "csr", {{{0, 1}, 2}, {{0, 4}, 3}, {{2, 2}, 5}, {{3, 0}, 1}, {{3, 3}, 4}});
    Tensor b = make({4, 5}, "csr", {{{0, 1}, 1}, {{2, 2}, 5}, {{3, 0}, -2}, {{3, 3}, 1}});
    const std::string diff = "for i { for j { C[i, j] = A[i, j] - B[i, j] } }";
    auto c = expect_like_reference(diff, {{"A", &a}, {"B", &b}},
                                   {{"C", with_format("bytemap(0)/sparselist(1)", 2)}}).at("C");
    EXPECT_EQ(index_values(c.level(0).buffer("pos")), (std::vector<int64_t>{0, 2}));
    EXPECT_EQ(index_values(c.level(0).buffer("tbl")), (std::vector<int64_t>{1, 0, 0, 1}));
    EXPECT_EQ(index_values(c.level(0).buffer("srt")), (std::vector<int64_t>{0, 3}));
    EXPECT_EQ(index_values(c.level(1).buffer("pos")), (std::vector<int64_t>{0, 2, 2, 2, 4}));
    EXPECT_EQ(index_values(c.level(1).buffer("crd")), (std::vector<int64_t>{1, 4, 0, 3}));
    EXPECT_EQ(double_values(c.values()), (std::vector<double>{1, 3, 3, 3}));
    auto d = expect_like_reference(diff, {{"A", &a}, {"B", &b}},
                                   {{"C", with_format("sparsebytemap(0)/dense(1)", 2)}}).at("C");
    EXPECT_EQ(index_values(d.level(0).buffer("tbl")), (std::vector<int64_t>{1, 0, 0, 1}));
    EXPECT_EQ(double_values(d.values()),
              (std::vector<double>{0, 1, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 3, 0}));
    // Other children (random-access, run-length, pattern), a fill of 1, a column-major output,
    // and SpGEMM in order i, k, j (its reduction goes through the compiler's workspace or
    // temporary: the sparselist child is appended once per row).
    for (const char* f : {"bytemap(0)/bytemap(1)", "bytemap(0)/runlist(1)@32", "bytemap(1)/sparselist(0)"})
        expect_like_reference(diff, {{"A", &a}, {"B", &b}}, {{"C", with_format(f, 2)}});
    expect_like_reference("for i { for j { P[i, j] = A[i, j] > 2 } }", {{"A", &a}},
                          {{"P", pattern("bytemap(0)/sparselist(1)/pattern", 2)}});
    Tensor one = a.convert(Format::parse("dense(0)/sparselist(1)", 2));
    OutputSpec fill_one = with_format("bytemap(0)/sparselist(1)", 2);
    fill_one.fill = Scalar::of(1.0);
    expect_like_reference("for i { for j { C[i, j] = A[i, j] + 1 } }", {{"A", &one}}, {{"C", fill_one}});
    Tensor bt = make({5, 4}, "csr", {{{1, 0}, 2}, {{3, 3}, -1}, {{4, 0}, 1}, {{4, 2}, 1}});
    for (const char* f : {"bytemap(0)/bytemap(1)", "bytemap(0)/sparselist(1)"})
        expect_like_reference("for i { for k { for j { C[i, j] += A[i, k] * B[k, j] } } }",
                              {{"A", &a}, {"B", &bt}}, {{"C", with_format(f, 2)}});
}

} // namespace
} // namespace siskin::testing
