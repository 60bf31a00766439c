// The `siskin` command on compiled code: `run` (compiled by default, --interpret, --stats,
// refusals), `c`, `convert`, and the pass dump.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_test_util.hpp"
#include "siskin/compiler.hpp"

#include "siskin/io.hpp"
#include "siskin/ir/text.hpp"
#include "siskin/reference.hpp"

using namespace siskin;
namespace fs = std::filesystem;

namespace {

struct Result {
    int status;
    std::string out; // stdout
    std::string err; // stderr
};

class CliCompiled : public test::CliScratch {
protected:
    // Runs the command with its own kernel cache; `env` is prepended (e.g. "SISKIN_DUMP_AFTER=x").
    Result siskin_cli(const std::string& args, const std::string& env = "") {
        std::string command = cache_env() + " " + env + " " +
                              SISKIN_CLI_PATH + " " + args + " 2>" + path("stderr.txt");
        auto [status, out] = test::run_command(command);
        std::ifstream err_file(path("stderr.txt"));
        std::string err((std::istreambuf_iterator<char>(err_file)), {});
        return {status, out, err};
    }
    static std::string data(const std::string& name) { return std::string(SISKIN_REPO_DATA_DIR) + "/" + name; }
    nlohmann::json stats(const std::string& name) const {
        std::ifstream in(path(name));
        return nlohmann::json::parse(in);
    }
    std::string write_vector(int64_t n) {
        std::vector<Scalar> values;
        for (int64_t j = 0; j < n; ++j) values.push_back(Scalar::of(static_cast<double>(j % 7) - 3));
        Tensor x = Tensor::from_dense({n}, ValueType::Float64, Scalar::of(0.0), Format::dense(1), values);
        write_matrix_market(x, path("x.mtx"));
        return path("x.mtx");
    }
};

void expect_one_line_error(const Result& r, const std::string& needle) {
    EXPECT_NE(r.status, 0) << r.err;
    EXPECT_EQ(r.err.rfind("siskin: error: ", 0), 0u) << r.err;
    EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
    EXPECT_NE(r.err.find(needle), std::string::npos) << r.err;
}

size_t count(const std::string& text, const std::string& needle) {
    size_t n = 0;
    for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
    return n;
}

} // namespace

TEST_F(CliCompiled, RunIsCompiledByDefaultAndAgreesWithTheReference) {
    std::string x = write_vector(161);
    std::string args = "run 'y[i] += A[i,j] * x[j]' -i A=" + data("pts5ldd03.mtx") + ":csr -i x=" + x +
                       ":dense -o y=" + path("y.mtx") + " --repeat 3";
    Result r = siskin_cli(args + " --stats " + path("s1.json"));
    ASSERT_EQ(r.status, 0) << r.err;
    auto s = stats("s1.json");
    EXPECT_EQ(s["engine"], "compiled");
    EXPECT_EQ(s["cache"], "miss");
    EXPECT_GT(s["compile_ms"].get<double>(), 0.0);
    EXPECT_EQ(s["runs"], 3);
    EXPECT_EQ(s["times_ms"].size(), 3u);

    ReadOptions as_vector;
    as_vector.ndims = 1;
    Tensor A = read_matrix_market(data("pts5ldd03.mtx"));
    Tensor xt = read_matrix_market(x, as_vector);
    auto expected = evaluate_reference(ir::parse_program("y[i] += A[i,j] * x[j]"), {{"A", &A}, {"x", &xt}});
    EXPECT_TRUE(read_matrix_market(path("y.mtx"), as_vector).equals(expected.at("y")));

    // A second process finds the kernel in the cache directory.
    r = siskin_cli(args + " --stats " + path("s2.json"));
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(stats("s2.json")["cache"], "disk");
}

TEST_F(CliCompiled, InterpretUsesTheReferenceEvaluator) {
    Result r = siskin_cli("run 's[] += A[i,j]' -i A=" + data("olm1000.mtx") + " --interpret --print s --stats " +
                          path("s.json"));
    ASSERT_EQ(r.status, 0) << r.err;
    auto s = stats("s.json");
    EXPECT_EQ(s["engine"], "interpret");
    EXPECT_FALSE(s.contains("compile_ms"));
    EXPECT_FALSE(s.contains("cache"));
    // Compiled in loop order, the same printed sum; with four partial sums (the default) a sum
    // that rounds differently, by a few units in the last place.
    Result in_order = siskin_cli("run 's[] += A[i,j]' -i A=" + data("olm1000.mtx") + " --in-order --print s");
    ASSERT_EQ(in_order.status, 0) << in_order.err;
    EXPECT_EQ(in_order.out, r.out);
    Result compiled = siskin_cli("run 's[] += A[i,j]' -i A=" + data("olm1000.mtx") + " --print s");
    ASSERT_EQ(compiled.status, 0) << compiled.err;
    auto sum_of = [](const std::string& out) { return std::stod(out.substr(out.find('\n') + 1)); };
    EXPECT_NEAR(sum_of(compiled.out), sum_of(r.out), 1e-12 * std::abs(sum_of(r.out)));
}

TEST_F(CliCompiled, ParallelMinWorkSetsTheThreshold) {
    // olm1000 (1000 rows, ~4000 entries) is below the default threshold; with 0 its rows are
    // shared by the threads, and the row sums are the serial ones. A negative work is refused.
    std::string args = "run 'y[i] += A[i,j]' -i A=" + data("olm1000.mtx") + " -o y=" + path("y1.mtx");
    Result serial = siskin_cli(args + " --threads 1");
    ASSERT_EQ(serial.status, 0) << serial.err;
    args = "run 'y[i] += A[i,j]' -i A=" + data("olm1000.mtx") + " -o y=" + path("y2.mtx");
    Result shared = siskin_cli(args + " --threads 2 --parallel-min-work 0 --dump-after print");
    ASSERT_EQ(shared.status, 0) << shared.err;
    EXPECT_NE(shared.err.find("siskin_team_size(siskin_loop_work_i32(A_pos, i_lo, i_hi), 0LL, 2, dims[3LL])"), std::string::npos)
        << shared.err;
    EXPECT_TRUE(read_tensor(path("y1.mtx")).equals(read_tensor(path("y2.mtx"))));
    expect_one_line_error(siskin_cli(args + " --parallel-min-work=-5"), "parallel-min-work");
}

TEST_F(CliCompiled, ProgramsTheCompilerRefusesSuggestInterpret) {
    // Compiled code does not write an output backwards yet; the reference evaluator can.
    std::string args = "run 'y[999 - i] += A[i,j]' -i A=" + data("olm1000.mtx") + " --shape y=1000 -o y=" +
                       path("y.mtx");
    expect_one_line_error(siskin_cli(args), "--interpret");
    expect_one_line_error(siskin_cli(args), "cannot");
    Result r = siskin_cli(args + " --interpret");
    EXPECT_EQ(r.status, 0) << r.err;
}

TEST_F(CliCompiled, DumpAfterEveryPass) {
    Result r = siskin_cli("run 's[] += A[i,j]' -i A=" + data("olm1000.mtx") + " --print s --dump-after all");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.err.find("=== input ===\nfor i, j {\n    s[] += A[i, j]"), std::string::npos) << r.err;
    for (const std::string& stage : compiler_passes())
        EXPECT_EQ(count(r.err, "=== after " + stage + " ===\n"), 1u) << stage << "\n" << r.err;
    // The IR passes leave this program as it was; bind shows the prologue it emits, convert the
    // lowering tree, the C passes the kernel's body.
    EXPECT_NE(r.err.find("=== after concordize ===\n(unchanged)"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("=== after bind ===\n    const int64_t A_dim0 = dims[0LL];"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("=== after convert ===\nfor i in 0:`A_dim0` {\n    for j in 0:`A_dim1` {\n"
                         "        &`s_values[0LL]` <<add>>= A@0(0LL)[i, j]\n"),
              std::string::npos) << r.err;
    EXPECT_NE(r.err.find("siskin_kernel"), std::string::npos) << r.err; // the C after print
    EXPECT_NE(r.out.find("s = "), std::string::npos);
    EXPECT_EQ(r.out.find("==="), std::string::npos); // the dump goes to stderr only
}

TEST_F(CliCompiled, DumpAfterOnePassAndFromTheEnvironment) {
    Result r = siskin_cli("c 'y[i] += A[i,j] * x[j]' -f A=csr", "SISKIN_DUMP_AFTER=convert");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(count(r.err, "=== after"), 1u) << r.err;
    EXPECT_NE(r.err.find("=== after convert ===\nfor i in 0:`A_dim0` {\n"), std::string::npos) << r.err;
    r = siskin_cli("c 'y[i] += A[i,j] * x[j]' -f A=csr --dump-after print");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.err.find("=== after print ===\n#include \"siskin_prelude.h\""), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(r.out), std::string::npos); // the dumped C is the printed C
}

TEST_F(CliCompiled, DumpAfterListNamesTheStagesThePipelineRuns) {
    Result r = siskin_cli("c 'y[i] += A[i,j] * x[j]' -f A=csr --dump-after list");
    ASSERT_EQ(r.status, 0) << r.err;
    std::string expected;
    for (const std::string& stage : compiler_passes()) expected += stage + "\n";
    EXPECT_EQ(r.out, expected);
    for (const char* stage : {"workspaces", "lower", "dead_locals", "split_accumulators", "print"})
        EXPECT_NE(r.out.find(std::string(stage) + "\n"), std::string::npos) << stage;
}

TEST_F(CliCompiled, DumpAfterACPassShowsTheKernelBodyItLeft) {
    // SpMV's row sum keeps four partial sums only from split_accumulators on.
    Result before = siskin_cli("c 'y[i] += A[i,j] * x[j]' -f A=csr --dump-after prefetch_fibres");
    Result after = siskin_cli("c 'y[i] += A[i,j] * x[j]' -f A=csr --dump-after split_accumulators");
    ASSERT_EQ(before.status, 0) << before.err;
    ASSERT_EQ(after.status, 0) << after.err;
    EXPECT_EQ(before.err.find("y_values_row_1"), std::string::npos) << before.err;
    EXPECT_NE(after.err.find("=== after split_accumulators ===\n"), std::string::npos) << after.err;
    EXPECT_NE(after.err.find("y_values_row_1"), std::string::npos) << after.err;
    Result in_order = siskin_cli("c 'y[i] += A[i,j] * x[j]' -f A=csr --in-order --dump-after split_accumulators");
    EXPECT_NE(in_order.err.find("=== after split_accumulators ===\n(unchanged)"), std::string::npos)
        << in_order.err;
}

TEST_F(CliCompiled, DumpAfterAnUnknownPassListsThePasses) {
    expect_one_line_error(siskin_cli("c 'y[i] += A[i,j]' --dump-after lowr"), "bind, convert, declare");
    expect_one_line_error(siskin_cli("c 'y[i] += A[i,j]'", "SISKIN_DUMP_AFTER=lowr"), "'lowr'");
    expect_one_line_error(siskin_cli("run 's[] += A[i,j]' -i A=" + data("olm1000.mtx") +
                                     " --interpret --dump-after all"),
                          "--interpret");
}

TEST_F(CliCompiled, CPrintsTheCsrSpMVLoop) {
    Result r = siskin_cli("c 'y[i] += A[i,j] * x[j]' -f A=csr -f x=dense");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out.rfind("#include \"siskin_prelude.h\"", 0), 0u) << r.out;
    EXPECT_NE(r.out.find("int siskin_kernel(siskin_buffer **buffers, const int64_t *dims)"), std::string::npos)
        << r.out;
    // One loop over A's rows and, inside it, the walk over the row's stored positions.
    EXPECT_NE(r.out.find("for (int64_t i = "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("for (; p < p_end; p++)"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("x_values[j]"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("const int32_t *restrict"), std::string::npos) << r.out; // 32-bit indices

    // Dense A: a loop over j; 64-bit indices on request; x holding inf keeps every j.
    Result dense = siskin_cli("c 'y[i] += A[i,j] * x[j]'");
    ASSERT_EQ(dense.status, 0) << dense.err;
    EXPECT_NE(dense.out.find("x_values[j]"), std::string::npos) << dense.out;
    // Four partial sums along a row, unless asked to keep the order.
    EXPECT_NE(r.out.find("y_values_row_3 = siskin_op_add_float64_float64(y_values_row_3, "), std::string::npos) << r.out;
    Result in_order = siskin_cli("c 'y[i] += A[i,j] * x[j]' -f A=csr --in-order");
    ASSERT_EQ(in_order.status, 0) << in_order.err;
    EXPECT_EQ(in_order.out.find("y_values_row_1"), std::string::npos) << in_order.out;
    EXPECT_NE(in_order.out.find("for (; p < p_end; p++)"), std::string::npos) << in_order.out;
    Result wide = siskin_cli("c 'y[i] += A[i,j] * x[j]' -f A=csr --index-bits 64");
    ASSERT_EQ(wide.status, 0) << wide.err;
    EXPECT_EQ(wide.out.find("int32_t"), std::string::npos) << wide.out;
    Result nonfinite = siskin_cli("c 'y[i] += A[i,j] * x[j]' -f A=csr --nonfinite x");
    ASSERT_EQ(nonfinite.status, 0) << nonfinite.err;
    EXPECT_NE(nonfinite.out.find("x_values[j]"), std::string::npos) << nonfinite.out;
}

TEST_F(CliCompiled, CTakesTypesFillsAndOutputFormats) {
    Result r = siskin_cli("c 'C[i,j] = min(A[i,j], B[i,j])' -f A=csr -f B=csr -f C=csr --fill A=7 "
                          "--fill B=7 --type A=int64 --type B=int64");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("int64_t"), std::string::npos);
    EXPECT_NE(r.out.find("siskin_buffer_reserve"), std::string::npos) << r.out; // a sparse output grows
}

// --in-place: the kernel `siskin run --start` uses, which updates y's values instead of setting
// them to the fill first (no growth of y, y[i] read before it is written).
TEST_F(CliCompiled, CInPlaceShowsTheKernelThatUpdatesTheOutput) {
    Result fresh = siskin_cli("c 'y[i] += x[i]'");
    ASSERT_EQ(fresh.status, 0) << fresh.err;
    EXPECT_NE(fresh.out.find("siskin_buffer_grow(y_values_buf"), std::string::npos) << fresh.out;
    Result updated = siskin_cli("c 'y[i] += x[i]' --in-place y");
    ASSERT_EQ(updated.status, 0) << updated.err;
    EXPECT_EQ(updated.out.find("siskin_buffer_grow"), std::string::npos) << updated.out;
    EXPECT_NE(updated.out.find("y_values[i] = siskin_op_add_float64_float64(y_values[i], x_values[i])"),
              std::string::npos)
        << updated.out;
    expect_one_line_error(siskin_cli("c 'y[i] += x[i]' --in-place x"), "--in-place x: the program only reads x");
    expect_one_line_error(siskin_cli("c 'y[i] += x[i]' --in-place z"), "'z'");
    expect_one_line_error(siskin_cli("c 'y[i] += x[i]' -f 'y=sparselist(0)' --in-place y"),
                          "dense outputs only");
}

TEST_F(CliCompiled, CBadOptionsAreOneLineErrors) {
    expect_one_line_error(siskin_cli("c 'y[i] += A[i,j]' -f A=zigzag"), "zigzag");
    expect_one_line_error(siskin_cli("c 'y[i] += A[i,j]' -f B=csr"), "'B'");
    expect_one_line_error(siskin_cli("c 'y[i] += A[i,j]' -f A"), "NAME=VALUE");
    expect_one_line_error(siskin_cli("c 'y[i] += A[i,j]' -f A=csr -f A=csc"), "twice");
    expect_one_line_error(siskin_cli("c 'y[i] += A[i,j]' --type A=float99"), "float99");
    expect_one_line_error(siskin_cli("c 'y[i] += A[i,j]' --fill A=lots"), "lots");
    expect_one_line_error(siskin_cli("c 'y[i] += A[i,j]' -f 'A=csf(0,1,2)'"), "-f A=csf(0,1,2): ");
    expect_one_line_error(siskin_cli("c 'y[i] += A[i,j]' --nonfinite y"), "output");
    expect_one_line_error(siskin_cli("c 'for i { y[i] = x[i] }\nfor i { y[i] += x[i] }' -f 'y=sparselist(0)' -f 'x=sparselist(0)'"),
                          "--interpret");
}

TEST_F(CliCompiled, ConvertWritesTheSameMatrixInAnotherFormat) {
    Result r = siskin_cli("convert " + data("olm1000.mtx") + " " + path("b.mtx") + ":csc -v");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.err.find("compiled copy"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("-> dense(1)@32/sparselist(0)@32"), std::string::npos) << r.err;
    Tensor a = read_matrix_market(data("olm1000.mtx"));
    Tensor b = read_matrix_market(path("b.mtx"));
    EXPECT_TRUE(a.equals(b));

    // Every target is written by a compiled copy (the input's spelling, then the output's).
    const std::vector<std::pair<std::string, std::string>> targets{
        {":csr", "b.tns:coo"},
        {"", "h.tns:sparsehash(0)/sparsehash(1)"},     // random-order writes
        {"", "c.mtx:sparsebytemap(0)/sparselist(1)"},  // its slots are the positions below
        {"", "r1.tns:runlist(0)/sparselist(1)"},       // runs of sub-fibres, rows merged when equal
        {"", "r2.tns:runlist(0)/sparseband(1)"},
    };
    for (const auto& [input, output] : targets) {
        r = siskin_cli("convert " + data("olm1000.mtx") + input + " '" + path(output) + "' -v");
        ASSERT_EQ(r.status, 0) << output << ": " << r.err;
        EXPECT_NE(r.err.find("compiled copy"), std::string::npos) << output << ": " << r.err;
        std::string file = path(output.substr(0, output.find(':')));
        Tensor back = file.ends_with(".mtx") ? read_matrix_market(file) : read_tensor(file);
        EXPECT_TRUE(back.equals(a)) << output;
    }
}

// Finch case 26 from the command line: the outer product through a workspace whose format the
// user gives (a hash of hashes), the same C as Gustavson's.
TEST_F(CliCompiled, OuterProductThroughAHashWorkspace) {
    std::string m = data("olm1000.mtx");
    Result r = siskin_cli("run 'for k { for i { for j { W[i,j] += A[i,k] * B[k,j] } } }\nC[i,j] = W[i,j]' -i A=" +
                          m + ":csc -i B=" + m + ":csr -o 'W=" + path("w.tns") + ":sparsehash(0)/sparsehash(1)' -o C=" +
                          path("outer.mtx") + ":csr --as-written");
    ASSERT_EQ(r.status, 0) << r.err;
    r = siskin_cli("run 'C[i,j] += A[i,k] * B[k,j]' -i A=" + m + ":csr -i B=" + m + ":csr -o C=" + path("g.mtx") + ":csr");
    ASSERT_EQ(r.status, 0) << r.err;
    Tensor outer = read_matrix_market(path("outer.mtx")), gustavson = read_matrix_market(path("g.mtx"));
    EXPECT_TRUE(outer.equals(gustavson));
    EXPECT_TRUE(read_tensor(path("w.tns")).equals(gustavson));
}

TEST_F(CliCompiled, ConvertErrors) {
    expect_one_line_error(siskin_cli("convert " + data("olm1000.mtx") + " " + path("b.mtx") + ":zigzag"), "zigzag");
    expect_one_line_error(siskin_cli("convert " + path("none.mtx") + " " + path("b.mtx")), "none.mtx");
    expect_one_line_error(siskin_cli("convert " + data("olm1000.mtx") + " " + path("b.mtx") + ":"), "FILE[:FORMAT]");
    expect_one_line_error(siskin_cli("convert " + data("olm1000.mtx") + " " + "'" + path("b.mtx") + ":csf(0,1,2)'"),
                          "csf");
}

TEST_F(CliCompiled, OutputFormatsFollowTheData) {
    std::string a = data("olm1000.mtx");
    // Over A's indices: A's format, in the output's index order.
    Result r = siskin_cli("run 'C[i,j] = A[i,j] * 2' -i A=" + a + ":csc -o C=" + path("c.mtx") + " --stats " +
                          path("s1.json"));
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(stats("s1.json")["format"]["C"], "dense(1)@32/sparselist(0)@32");
    r = siskin_cli("run 'C[i,j] = A[j,i]' -i A=" + a + ":csc -o C=" + path("t.mtx") + " --stats " + path("s2.json"));
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(stats("s2.json")["format"]["C"], "dense(0)@32/sparselist(1)@32");
    // A product: the leading operand's rows, then a sparse level.
    std::string small = data("pts5ldd03.mtx");
    r = siskin_cli("run 'C[i,j] += A[i,k] * A[k,j]' -i A=" + small + ":csr -o C=" + path("p.mtx") + " --stats " +
                   path("s3.json"));
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(stats("s3.json")["format"]["C"], "dense(0)@32/sparselist(1)@32");
    Tensor A = read_matrix_market(small);
    auto want = evaluate_reference(ir::parse_program("C[i,j] += A[i,k] * A[k,j]"), {{"A", &A}}).at("C");
    EXPECT_TRUE(read_matrix_market(path("p.mtx")).equals(want));
    // csc inputs give a csc product, as scipy's csc @ csc does: the columns come from B.
    r = siskin_cli("run 'C[i,j] += A[i,k] * A[k,j]' -i A=" + small + ":csc -o C=" + path("q.mtx") + " --stats " +
                   path("s5.json"));
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(stats("s5.json")["format"]["C"], "dense(1)@32/sparselist(0)@32");
    EXPECT_TRUE(read_matrix_market(path("q.mtx")).equals(want));
    // A sparse times a dense matrix fills whole rows: dense.
    r = siskin_cli("run 'C[i,j] += A[i,k] * B[k,j]' -i A=" + small + ":csr -i B=" + small + ":dense -o C=" +
                   path("d.mtx") + " --stats " + path("s6.json"));
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(stats("s6.json")["format"]["C"], "dense(0)@32/dense(1)@32");
    EXPECT_TRUE(read_matrix_market(path("d.mtx")).equals(want));
    // SpMV over csr rows stays dense; so does a fill that Matrix Market cannot hold.
    std::string x = write_vector(1000);
    r = siskin_cli("run 'y[i] += A[i,j] * x[j]' -i A=" + a + ":csr -i x=" + x + ":dense -o y=" + path("y.mtx") +
                   " --stats " + path("s4.json"));
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(stats("s4.json")["format"]["y"].get<std::string>().rfind("dense(0)", 0), 0u);
    r = siskin_cli("run 'C[i,j] = A[i,j] + 1' -i A=" + a + ":csr -o C=" + path("f.mtx"));
    ASSERT_EQ(r.status, 0) << r.err;
    Tensor f = read_matrix_market(path("f.mtx"));
    EXPECT_EQ(f.stored(), 1000 * 1000);
}

// 30 x 30, about 3 entries a row: small enough for the reference to run a fused chain.
void write_explain_matrix(const std::string& file) {
    CoordinateList entries;
    entries.ndims = 2;
    for (int64_t k = 0; k < 90; ++k)
        entries.add(std::vector<int64_t>{(k * 7) % 30, (k * 13 + k / 30) % 30}, Scalar::of(static_cast<double>(k % 5 + 1)));
    write_matrix_market(Tensor::from_coordinates({30, 30}, ValueType::Float64, Scalar::of(0.0), Format::csr(), entries),
                        file);
}

TEST_F(CliCompiled, ExplainListsThePlansAndRunTakesOne) {
    write_explain_matrix(path("a.mtx"));
    std::string a = path("a.mtx");
    std::string inputs = " -i A=" + a + " -i B=" + a + " -i C=" + a;
    Result r = siskin_cli("explain 'D[i,l] += A[i,j] * B[j,k] * C[k,l]'" + inputs);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out.rfind("plan 0 (cheapest): ", 0), 0u) << r.out;
    EXPECT_EQ(count(r.out, "estimated cost"), 3u) << r.out;
    EXPECT_NE(r.out.find("one fused nest"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("T[i, k] += A[i, j] * B[j, k]"), std::string::npos) << r.out;
    // Every plan computes the same D.
    Tensor A = read_matrix_market(a);
    auto want = evaluate_reference(ir::parse_program("D[i,l] += A[i,j] * B[j,k] * C[k,l]"),
                                   {{"A", &A}, {"B", &A}, {"C", &A}}).at("D");
    for (int n = 0; n < 3; ++n) {
        std::string out = path("d" + std::to_string(n) + ".tns");
        r = siskin_cli("run 'D[i,l] += A[i,j] * B[j,k] * C[k,l]'" + inputs + " --plan " + std::to_string(n) +
                       " -o D=" + out);
        ASSERT_EQ(r.status, 0) << r.err;
        EXPECT_TRUE(read_tensor(out).equals(want)) << n;
    }
    expect_one_line_error(siskin_cli("run 'D[i,l] += A[i,j] * B[j,k] * C[k,l]'" + inputs + " --plan 3 -o D=" +
                                     path("x.tns")),
                          "--plan 3");
}

TEST_F(CliCompiled, ExplainWeighsTheLoopOrdersOfAnyEinsumAndRunTakesTheCheapest) {
    write_explain_matrix(path("a.mtx"));
    std::vector<Scalar> ones(30, Scalar::of(2.0));
    write_matrix_market(Tensor::from_dense({30, 1}, ValueType::Float64, Scalar::of(0.0), Format::dense(2), ones),
                        path("x.mtx"));
    std::string inputs = " -i A=" + path("a.mtx") + ":csc -i x=" + path("x.mtx") + ":dense";
    Result r = siskin_cli("explain 'y[i] += A[i,j] * x[j]'" + inputs);
    ASSERT_EQ(r.status, 0) << r.err;
    // Reading the CSC matrix by columns beats transposing it or searching its columns.
    EXPECT_EQ(r.out.rfind("plan 0 (cheapest): loops j, i", 0), 0u) << r.out;
    EXPECT_EQ(count(r.out, "estimated cost"), 3u) << r.out;
    EXPECT_NE(r.out.find("loop steps +"), std::string::npos) << r.out; // the cost's terms
    EXPECT_NE(r.out.find("A[follow(i), j]"), std::string::npos) << r.out;
    Tensor A = read_matrix_market(path("a.mtx"));
    std::vector<Scalar> twos(30, Scalar::of(2.0));
    Tensor xv = Tensor::from_dense({30}, ValueType::Float64, Scalar::of(0.0), Format::dense(1), twos);
    auto want = evaluate_reference(ir::parse_program("y[i] += A[i,j] * x[j]"), {{"A", &A}, {"x", &xv}}).at("y");
    for (std::string choice : {"", "--as-written", "--plan 0", "--plan 1", "--plan 2"}) {
        std::string out = path("y.tns");
        r = siskin_cli("run 'y[i] += A[i,j] * x[j]'" + inputs + " " + choice + " -o y=" + out);
        ASSERT_EQ(r.status, 0) << choice << ": " << r.err;
        EXPECT_TRUE(read_tensor(out).equals(want)) << choice;
    }
    // The default is plan 0: the kernel reads A by columns; as written, through a transpose.
    r = siskin_cli("run 'y[i] += A[i,j] * x[j]'" + inputs + " -o y=" + path("y.tns") + ":dense --dump-after all");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.err.find("A_by"), std::string::npos) << r.err;
    r = siskin_cli("run 'y[i] += A[i,j] * x[j]'" + inputs + " -o y=" + path("y.tns") +
                   ":dense --as-written --dump-after all");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.err.find("A_by"), std::string::npos) << r.err;
    expect_one_line_error(siskin_cli("run 'y[i] += A[i,j] * x[j]'" + inputs + " --plan 1 --as-written -o y=" +
                                     path("y.tns")),
                          "--as-written");
}
