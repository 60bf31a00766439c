// The `siskin` command end to end: outputs it writes, and the one-line errors it prints.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include <sys/wait.h>

#include <gtest/gtest.h>

#include "cli_test_util.hpp"

#include "siskin/io.hpp"
#include "siskin/ir/text.hpp"
#include "siskin/reference.hpp"

using namespace siskin;
namespace fs = std::filesystem;

namespace {

using Result = test::CommandResult;
using test::siskin_cli;

class Cli : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = fs::path(::testing::TempDir()) /
               ("siskin-cli-" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
        fs::remove_all(dir_);
        fs::create_directories(dir_);
    }
    std::string path(const std::string& name) const { return (dir_ / name).string(); }
    std::string data(const std::string& name) const {
        return std::string(SISKIN_REPO_DATA_DIR) + "/" + name;
    }
    // A dense vector file x of length n with x[j] = j + 1.
    std::string write_vector(int64_t n) {
        std::vector<Scalar> values;
        for (int64_t j = 0; j < n; ++j) values.push_back(Scalar::of(static_cast<double>(j + 1)));
        Tensor x = Tensor::from_dense({n}, ValueType::Float64, Scalar::of(0.0), Format::dense(1), values);
        std::string p = path("x.mtx");
        write_matrix_market(x, p);
        return p;
    }
    fs::path dir_;
};

// Each error is one line on stderr, starting "siskin: error:", and a non-zero exit.
void expect_one_line_error(const Result& r, const std::string& needle) {
    EXPECT_NE(r.status, 0) << r.output;
    EXPECT_EQ(r.output.rfind("siskin: error: ", 0), 0u) << r.output;
    EXPECT_NE(r.output.find(needle), std::string::npos) << r.output;
}

} // namespace

TEST_F(Cli, SpMVWritesTheReferenceResult) {
    std::string x = write_vector(161);
    Result r = siskin_cli("run 'y[i] += A[i,j] * x[j]' -i A=" + data("pts5ldd03.mtx") + ":csr -i x=" +
                          x + ":dense -o y=" + path("y.mtx") + ":dense --stats " + path("stats.json"));
    ASSERT_EQ(r.status, 0) << r.output;

    ReadOptions as_vector;
    as_vector.ndims = 1;
    Tensor y = read_matrix_market(path("y.mtx"), as_vector);
    Tensor A = read_matrix_market(data("pts5ldd03.mtx"));
    Tensor xt = read_matrix_market(x, as_vector);
    auto expected = evaluate_reference(ir::parse_program("y[i] += A[i,j] * x[j]"), {{"A", &A}, {"x", &xt}});
    EXPECT_TRUE(y.equals(expected.at("y")));

    std::ifstream stats(path("stats.json"));
    std::string json((std::istreambuf_iterator<char>(stats)), {});
    for (const char* key : {"\"median_ms\"", "\"min_ms\"", "\"runs\"", "\"stored\""})
        EXPECT_NE(json.find(key), std::string::npos) << key << " missing from " << json;
}

TEST_F(Cli, PrintsAScalarReductionWithAGivenFill) {
    Result r = siskin_cli("run 's[] min= A[i,j]' -i A=" + data("olm1000.mtx") + " --fill A=inf --print s");
    ASSERT_EQ(r.status, 0) << r.output;
    Tensor A = read_matrix_market(data("olm1000.mtx"));
    double smallest = INFINITY;
    A.for_each_stored([&](std::span<const int64_t>, const Scalar& v) { smallest = std::min(smallest, v.as_double()); });
    EXPECT_NE(r.output.find(Scalar::of(smallest).to_string()), std::string::npos) << r.output;
}

TEST_F(Cli, DemoRunsAndAgreesWithItsDirectComputations) {
    Result r = siskin_cli("demo --data " + std::string(SISKIN_REPO_DATA_DIR));
    ASSERT_EQ(r.status, 0) << r.output;
    // The sums agree with the direct ones up to the rounding of a reassociated sum (entries of
    // 1138_bus reach 1e4 in magnitude).
    for (const char* label : {"max |y - direct| = ", "max |r - direct| = "}) {
        size_t at = r.output.find(label);
        ASSERT_NE(at, std::string::npos) << label << r.output;
        EXPECT_LT(std::stod(r.output.substr(at + std::strlen(label))), 1e-9) << r.output;
    }
    EXPECT_NE(r.output.find(" 0 mismatches"), std::string::npos) << r.output;
    // Each of the three compiled programs gives the reference evaluator's result; the
    // elementwise minimum exactly.
    size_t same = 0;
    for (size_t at = r.output.find("same "); at != std::string::npos; at = r.output.find("same ", at + 1))
        same += r.output.compare(at, 11, "same result") == 0 || r.output.compare(at, 19, "same up to rounding") == 0;
    EXPECT_EQ(same, 3u) << r.output;
    EXPECT_NE(r.output.find("stored, fill inf, 0 mismatches"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("same result)   B "), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("DIFFERENT"), std::string::npos) << r.output;
}

TEST_F(Cli, MissingFileIsOneLineError) {
    expect_one_line_error(siskin_cli("run 'y[i] += A[i,j]' -i A=" + path("nope.mtx")), "nope.mtx");
}

TEST_F(Cli, MalformedFileNamesTheLine) {
    std::ofstream(path("bad.mtx")) << "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 x 3.0\n";
    expect_one_line_error(siskin_cli("run 'y[i] += A[i,j]' -i A=" + path("bad.mtx")), "bad.mtx:3");
}

TEST_F(Cli, ParseErrorPointsAtTheColumn) {
    Result r = siskin_cli("run 'y[i] += A[i,j] * ' -i A=" + data("olm1000.mtx"));
    EXPECT_NE(r.status, 0);
    EXPECT_EQ(r.output.rfind("siskin: error: ", 0), 0u) << r.output;
    EXPECT_NE(r.output.find("1:"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find('^'), std::string::npos) << r.output;
}

TEST_F(Cli, ShapeMismatchIsAnError) {
    std::string x = write_vector(7);
    expect_one_line_error(siskin_cli("run 'y[i] += A[i,j] * x[j]' -i A=" + data("olm1000.mtx") +
                                     " -i x=" + x + " --print y"),
                          "x");
}

TEST_F(Cli, MissingInputIsNamed) {
    expect_one_line_error(siskin_cli("run 'y[i] += A[i,j] * x[j]' -i A=" + data("olm1000.mtx")), "-i x=FILE");
}

TEST_F(Cli, UnknownFormatIsAnError) {
    expect_one_line_error(siskin_cli("run 'y[i] += A[i,j]' -i A=" + data("olm1000.mtx") + ":zigzag"), "zigzag");
}

TEST_F(Cli, BadFillValueIsAnError) {
    expect_one_line_error(siskin_cli("run 'y[i] += A[i,j]' -i A=" + data("olm1000.mtx") + " --fill A=lots"), "lots");
}

TEST_F(Cli, TensorNotInTheProgramIsAnError) {
    expect_one_line_error(siskin_cli("run 'y[i] += A[i,j]' -i A=" + data("olm1000.mtx") + " -i B=" +
                                     data("olm1000.mtx")),
                          "'B'");
}

TEST_F(Cli, GeneralFormatSpellingsWithSlashesAreAccepted) {
    Result r = siskin_cli("run 'r[i] += A[i,j]' -i 'A=" + data("pts5ldd03.mtx") +
                          ":dense(0)/runlist(1)' -o r=" + path("r.mtx") + " --print A --interpret");
    ASSERT_EQ(r.status, 0) << r.output;
    EXPECT_NE(r.output.find("runlist(1)"), std::string::npos) << r.output;
}
