// Issue 22, the command-line cases: each test is named after the case it pins (CaseNN...). Every
// error is one line `siskin: error: ...` on stderr with exit status 1; outputs are all written
// or none; the arguments that were silently misread are errors or read as documented.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "cli_test_util.hpp"
#include "siskin/io.hpp"

using namespace siskin;
namespace fs = std::filesystem;

namespace {

class HardeningCli : public test::CliScratch {
protected:
    void SetUp() override {
        CliScratch::SetUp();
        // A 3x3 matrix with two entries, and a 3-vector.
        CoordinateList a;
        a.ndims = 2;
        a.add(std::vector<int64_t>{0, 1}, Scalar::of(2.0));
        a.add(std::vector<int64_t>{2, 2}, Scalar::of(5.0));
        write_matrix_market(Tensor::from_coordinates({3, 3}, ValueType::Float64, Scalar::of(0.0),
                                                     Format::csr(), a),
                            path("A.mtx"));
    }
    std::string A() const { return " -i A=" + path("A.mtx"); }
    // Only what the command writes to stderr (stdout discarded).
    test::CommandResult cli_stderr(const std::string& args, const std::string& env = "") const {
        return test::run_command(env + " " + cache_env() + " " + SISKIN_CLI_PATH + " " + args +
                                 " 2>&1 >/dev/null");
    }
    std::vector<std::string> listing() const {
        std::vector<std::string> names;
        for (const auto& e : fs::directory_iterator(dir_))
            if (e.path().filename() != "cache") names.push_back(e.path().filename().string());
        std::sort(names.begin(), names.end());
        return names;
    }
};

// One line on stderr starting "siskin: error: ", exit status 1, and `part` in it.
::testing::AssertionResult one_line_error(const test::CommandResult& r, const std::string& part) {
    if (r.status != 1) return ::testing::AssertionFailure() << "status " << r.status << ": " << r.output;
    if (r.output.rfind("siskin: error: ", 0) != 0)
        return ::testing::AssertionFailure() << "no prefix: " << r.output.substr(0, 500);
    if (r.output.find('\n') != r.output.size() - 1)
        return ::testing::AssertionFailure() << "not one line: " << r.output.substr(0, 2000);
    if (r.output.find(part) == std::string::npos)
        return ::testing::AssertionFailure() << "no '" << part << "' in: " << r.output.substr(0, 2000);
    return ::testing::AssertionSuccess();
}

} // namespace

// Case 4: a 2^40-row file with 3 entries ended in "internal error: std::bad_alloc", as csr (its
// row pointers follow the shape) and through convert, which read every input as csr first.
// Formats that grow with the entries work; csr is refused before allocating, with the shape and
// the memory it would need.
TEST_F(HardeningCli, Case04HugeShapeWithFewEntries) {
    std::string huge = path("huge.mtx");
    std::ofstream(huge) << "%%MatrixMarket matrix coordinate real general\n1099511627776 5 3\n"
                           "1 1 1\n7 2 2\n1099511627776 5 3\n";
    for (const char* format : {"coo", "dcsr"}) {
        auto r = cli("run 's[] += A[i,j]' -i A=" + huge + ":" + format + " --print s");
        EXPECT_EQ(r.status, 0) << format << ": " << r.output;
        EXPECT_NE(r.output.find("\n6\n"), std::string::npos) << format << ": " << r.output;
    }
    EXPECT_TRUE(one_line_error(cli_stderr("run 's[] += A[i,j]' -i A=" + huge + " --print s"),
                               "shape [1099511627776, 5] stored dense(0)/sparselist(1) needs 8.0 TiB"));
    // convert reads the input in the format asked for, never as csr first.
    auto converted = cli("convert " + huge + ":coo " + path("out.tns"));
    EXPECT_EQ(converted.status, 0) << converted.output;
    EXPECT_EQ(test::file_contents(path("out.tns")),
              "# shape: 1099511627776 5\n1 1 1\n7 2 2\n1099511627776 5 3\n");
    auto to_mtx = cli("convert " + huge + ":coo " + path("out.mtx") + ":dcsr");
    EXPECT_EQ(to_mtx.status, 0) << to_mtx.output;
    // Into csr: the output's row pointers are refused before the kernel runs, and no file is
    // left.
    EXPECT_TRUE(one_line_error(cli_stderr("convert " + huge + ":coo " + path("csr.mtx") + ":csr"),
                               "needs 8.0 TiB for the pos array"));
    EXPECT_FALSE(fs::exists(path("csr.mtx")));
}

// Case 9: a sparse output with a non-zero fill is refused in .mtx (scipy.io.mmread would read
// zeros where siskin holds the fill) unless --fill-comment keeps today's comment.
TEST_F(HardeningCli, Case09MatrixMarketOutputWithNonZeroFillNeedsFillComment) {
    std::string prog = "'C[i,j] = A[i,j] + 1'";
    auto refused = cli_stderr("run " + prog + A() + " --fill A=1 -o C=" + path("c.mtx") + ":csr");
    EXPECT_TRUE(one_line_error(refused, ".tns"));
    EXPECT_TRUE(one_line_error(refused, "--fill-comment"));
    EXPECT_FALSE(fs::exists(path("c.mtx")));
    auto kept = cli("run " + prog + A() + " --fill A=1 -o C=" + path("c.mtx") + ":csr --fill-comment");
    ASSERT_EQ(kept.status, 0) << kept.output;
    EXPECT_NE(test::file_contents(path("c.mtx")).find("% fill: 2"), std::string::npos);
    // Dense and .tns outputs carry the fill as it is.
    EXPECT_EQ(cli("run " + prog + A() + " --fill A=1 -o C=" + path("d.mtx") + ":dense").status, 0);
    EXPECT_EQ(cli("run " + prog + A() + " --fill A=1 -o C=" + path("c.tns") + ":csr").status, 0);
    // convert: the same rule and the same flag.
    EXPECT_TRUE(one_line_error(cli_stderr("convert " + path("c.tns") + " " + path("e.mtx")), "--fill-comment"));
    EXPECT_EQ(cli("convert " + path("c.tns") + " " + path("e.mtx") + " --fill-comment").status, 0);
}

// Case 10: with two outputs, a failing second one leaves the first unwritten (and an old first
// file as it was); a bad --stats path fails before any output is in place.
TEST_F(HardeningCli, Case10AFailedOutputOrStatsLeavesEveryOutputAsItWas) {
    std::string prog = "'for i, j { B[i,j] = A[i,j] * 2; C[i,j] = A[i,j] + 1 }'";
    std::ofstream(path("b.mtx")) << "old b\n";
    auto second = cli_stderr("run " + prog + A() + " --fill A=1 -o B=" + path("b.mtx") + " -o C=" +
                             path("c.mtx") + ":csr");
    EXPECT_TRUE(one_line_error(second, "c.mtx"));
    EXPECT_EQ(test::file_contents(path("b.mtx")), "old b\n");
    auto missing = cli_stderr("run " + prog + A() + " -o B=" + path("b.mtx") + " -o C=" +
                              path("no/such/dir/c.mtx"));
    EXPECT_TRUE(one_line_error(missing, "No such file or directory"));
    EXPECT_EQ(test::file_contents(path("b.mtx")), "old b\n");
    auto stats = cli_stderr("run " + prog + A() + " -o B=" + path("b.mtx") + " -o C=" + path("c.tns") +
                            " --stats " + path("no/such/dir/stats.json"));
    EXPECT_TRUE(one_line_error(stats, "stats.json"));
    EXPECT_EQ(test::file_contents(path("b.mtx")), "old b\n");
    EXPECT_EQ(listing(), (std::vector<std::string>{"A.mtx", "b.mtx"})); // no temporaries
    // All well: everything in place.
    auto ok = cli("run " + prog + A() + " -o B=" + path("b.mtx") + " -o C=" + path("c.tns") +
                  " --stats " + path("stats.json"));
    ASSERT_EQ(ok.status, 0) << ok.output;
    EXPECT_EQ(listing(), (std::vector<std::string>{"A.mtx", "b.mtx", "c.tns", "stats.json"}));
    EXPECT_EQ(read_tensor(path("b.mtx")).at({2, 2}).as_double(), 10.0);
    // A destination that is not a regular file is written directly.
    auto to_stdout = test::run_command(cache_env() + " " + SISKIN_CLI_PATH + " run " + prog + A() +
                                       " -o B=" + path("b.mtx") + " -o C=" + path("c.tns") +
                                       " --stats /dev/stdout | cat");
    EXPECT_EQ(to_stdout.status, 0);
    EXPECT_NE(to_stdout.output.find("\"median_ms\""), std::string::npos) << to_stdout.output;
}

// Case 10: an output that fails part-way (the file size limit: EFBIG) is not left truncated,
// and the message gives that failure's errno.
TEST_F(HardeningCli, Case10WriteFailingPartWayLeavesNoTruncatedFile) {
    std::ofstream(path("y.tns")) << "# shape: 1\n1 7\n";
    std::string prog = "'y[i] = x[i] + 1'";
    std::ofstream x(path("x.tns"));
    x << "# shape: 100000\n";
    for (int i = 1; i <= 100000; i += 7) x << i << " 0.125\n";
    x.close();
    // The reference evaluator: no kernel to compile under the limit.
    auto r = test::run_command("trap '' XFSZ; ulimit -f 256; " + cache_env() + " " + SISKIN_CLI_PATH +
                               " run " + prog + " --interpret -i x=" + path("x.tns") + ":dense -o y=" +
                               path("y.tns") + ":dense 2>&1 >/dev/null");
    EXPECT_TRUE(one_line_error(r, "File too large"));
    EXPECT_EQ(test::file_contents(path("y.tns")), "# shape: 1\n1 7\n");
    EXPECT_EQ(listing(), (std::vector<std::string>{"A.mtx", "x.tns", "y.tns"}));
}

// Case 12: CLI11's argument errors, compile failures and file bytes all become one line with
// the prefix and exit status 1.
TEST_F(HardeningCli, Case12EveryErrorIsOneLineWithThePrefix) {
    EXPECT_TRUE(one_line_error(cli_stderr("run 'y[i] = x[i]' --bogus"), "--bogus"));
    EXPECT_TRUE(one_line_error(cli_stderr("run"), "program"));
    EXPECT_TRUE(one_line_error(cli_stderr("frobnicate"), "subcommand"));
    EXPECT_TRUE(one_line_error(cli_stderr("run 'y[i] = x[i]' --repeat 0"), "repeat"));
    EXPECT_TRUE(one_line_error(cli_stderr("c 'y[i] = x[i]' --index-bits 7"), "index-bits"));
    EXPECT_TRUE(one_line_error(cli_stderr(""), "subcommand"));
    // --help and --version still print and succeed.
    EXPECT_EQ(cli("--help").status, 0);
    EXPECT_EQ(cli("run --help").status, 0);
    EXPECT_EQ(cli("--version").status, 0);
    // A parse error in the program, with its excerpt and caret, stays on one line.
    EXPECT_TRUE(one_line_error(cli_stderr("run 'y[i] += A[i,j] * '" + A()), "^"));
    // A failing C compiler: one line, however much it printed.
    auto cc = cli_stderr("run 'y[i] += A[i,j]'" + A() + " --print y",
                         "SISKIN_CFLAGS='-O1 -include /nonexistent/siskin-missing.h'");
    EXPECT_TRUE(one_line_error(cc, "C compilation failed"));
    // File bytes: escape sequences escaped, a 5 MB line cut with a note of how much was shown.
    std::ofstream(path("evil.mtx"), std::ios::binary)
        << "%%MatrixMarket matrix \x1b[2J\x1b]0;title\x07 real general\n1 1 1\n1 1 1\n";
    auto evil = cli_stderr("run 'y[i] += A[i,j]' -i A=" + path("evil.mtx") + " --print y");
    EXPECT_TRUE(one_line_error(evil, "\\x1b[2J"));
    EXPECT_EQ(evil.output.find('\x1b'), std::string::npos);
    std::ofstream(path("long.mtx"), std::ios::binary) << "%%MatrixMarket " << std::string(5'000'000, 'z') << "\n";
    auto long_line = cli_stderr("run 'y[i] += A[i,j]' -i A=" + path("long.mtx") + " --print y");
    EXPECT_TRUE(one_line_error(long_line, "bytes shown"));
    EXPECT_LT(long_line.output.size(), 2500u);
    // A control byte in an argument is escaped too.
    EXPECT_TRUE(one_line_error(cli_stderr("run 'y[i] += A[i,j]' -i \"$(printf 'A=\\033[31m.mtx')\" --print y"),
                               "\\x1b[31m"));
}

// Case 13: arguments that were silently misread.
TEST_F(HardeningCli, Case13RepeatedAndAmbiguousArgumentsAreErrors) {
    std::string prog = "'y[i] += A[i,j]'";
    // A repeated -i kept the first file, a repeated -o wrote only the last.
    EXPECT_TRUE(one_line_error(cli_stderr("run " + prog + A() + A() + " --print y"), "already given"));
    EXPECT_TRUE(one_line_error(
        cli_stderr("run " + prog + A() + " -o y=" + path("a.mtx") + " -o y=" + path("b.mtx")),
        "already written"));
    EXPECT_TRUE(one_line_error(
        cli_stderr("run 'for i { y[i] += A[i,i]; z[i] = A[i,i] }'" + A() + " -o y=" + path("a.tns") +
                   " -o z=" + path("a.tns")),
        "also where y is written"));
    // @directory read as an empty program; an empty program ran and did nothing.
    EXPECT_TRUE(one_line_error(cli_stderr("run @" + dir_.string() + A()), "directory"));
    std::ofstream(path("empty.sk")) << "  \n";
    EXPECT_TRUE(one_line_error(cli_stderr("run @" + path("empty.sk") + A()), "empty"));
    EXPECT_TRUE(one_line_error(cli_stderr("run ''" + A()), "empty"));
    // No -o, --print or --stats: the outputs would be computed and thrown away.
    EXPECT_TRUE(one_line_error(cli_stderr("run " + prog + A()), "go nowhere"));
    EXPECT_TRUE(one_line_error(cli_stderr("run " + prog + A()), "-o NAME=FILE"));
    EXPECT_EQ(cli("run " + prog + A() + " --stats " + path("s.json")).status, 0);
    EXPECT_EQ(listing(), (std::vector<std::string>{"A.mtx", "empty.sk", "s.json"}));
}

// Case 13: the text after the last ':' is a format only when it is a format spelling, so a
// path with ':' in it is a path.
TEST_F(HardeningCli, Case13ColonInPathIsAFormatOnlyWhenItSpellsOne) {
    std::string prog = "'y[i] += A[i,j]'";
    auto r = cli("run " + prog + A() + " -o y=" + path("out_0:5:2.tns"));
    ASSERT_EQ(r.status, 0) << r.output;
    ASSERT_TRUE(fs::exists(path("out_0:5:2.tns")));
    EXPECT_EQ(read_tensor(path("out_0:5:2.tns")).at({0}).as_double(), 2.0);
    // ... and reads back as an input the same way, with and without a format after it.
    fs::copy_file(path("A.mtx"), path("A:1.mtx"));
    EXPECT_EQ(cli("run " + prog + " -i A=" + path("A:1.mtx") + " --print y").status, 0);
    EXPECT_EQ(cli("run " + prog + " -i A=" + path("A:1.mtx") + ":csc --print y").status, 0);
    auto general = cli("run " + prog + " -i 'A=" + path("A:1.mtx") + ":dense(0)/sparselist(1)' --print y");
    EXPECT_EQ(general.status, 0) << general.output;
    // A misspelt format after an existing file says so.
    EXPECT_TRUE(one_line_error(cli_stderr("run " + prog + A() + ":zigzag --print y"),
                               "'zigzag' after its last ':' is not a format"));
    EXPECT_TRUE(one_line_error(cli_stderr("run " + prog + A() + ": --print y"), "nothing after"));
    // convert splits the same way.
    EXPECT_EQ(cli("convert " + path("A:1.mtx") + " " + path("b:2.tns")).status, 0);
    EXPECT_TRUE(fs::exists(path("b:2.tns")));
    EXPECT_EQ(cli("convert " + path("A:1.mtx") + ":csr " + path("b:3.mtx") + ":csc").status, 0);
    EXPECT_TRUE(fs::exists(path("b:3.mtx")));
}
