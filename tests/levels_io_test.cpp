// Matrix Market and FROSTT files of tensors stored in the structural levels: written, read
// back into the same format, equal; and the entry count of a coordinate file matches its lines
// when runs are written once per coordinate.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include <gtest/gtest.h>

#include "siskin/io.hpp"
#include "siskin/tensor.hpp"
#include "storage_helpers.hpp"

using namespace siskin;
using siskin::testing::entries;

namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();

std::string temp_path(const std::string& file) {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) /
                                ("siskin_" + std::string(info->test_suite_name()) + "." + info->name());
    std::filesystem::create_directories(dir);
    return (dir / file).string();
}

std::string read_text(const std::string& path) {
    std::ifstream in(path);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

// [0 1 0 2] / [0 0 0 0] / [3 4 0 0], with fill `fill` where nothing is given.
Tensor matrix(const std::string& format, double fill) {
    return Tensor::from_coordinates({3, 4}, ValueType::Float64, Scalar::of(fill),
                                    Format::parse(format, 2),
                                    entries(2, {{{2, 1}, 4}, {{0, 3}, 2}, {{2, 0}, 3}, {{0, 1}, kNaN}}));
}

} // namespace

TEST(LevelsIo, MatrixMarketRoundTrips) {
    for (const char* f : {"dense(0)/sparseband(1)", "dense(0)/runlist(1)", "sparselist(0)/runlist(1)",
                          "dense(0)/sparsebytemap(1)", "sparsebytemap(0)/sparselist(1)",
                          "sparseband(0)/dense(1)", "sparsebytemap(0)/runlist(1)",
                          "dense(0)/sparserunlist(1)", "sparselist(0)/sparserunlist(1)@64"})
        for (double fill : {0.0, 1.0, kNaN}) {
            SCOPED_TRACE(::testing::Message() << f << ", fill " << fill);
            Tensor t = matrix(f, fill);
            std::string path = temp_path("m.mtx");
            WriteOptions keep_fill; // siskin reads the fill comment back; other readers do not
            keep_fill.fill_comment = true;
            write_matrix_market(t, path, keep_fill);
            ReadOptions options;
            options.format = Format::parse(f, 2);
            Tensor back = read_matrix_market(path, options);
            EXPECT_TRUE(back.equals(t));
            EXPECT_EQ(back.format(), t.format());
            EXPECT_TRUE(back.fill().same(t.fill()));
            // Read with the default format (csr) as well.
            EXPECT_TRUE(read_matrix_market(path).equals(t));
        }
}

// Runs are written once per coordinate: the header counts lines, not runs.
TEST(LevelsIo, RunListCoordinateFileCountsItsLines) {
    Tensor t = matrix("sparselist(0)/runlist(1)", 0.0);
    EXPECT_EQ(t.stored(), 7); // rows 0 and 2: 4 + 3 runs
    std::string path = temp_path("r.mtx");
    write_matrix_market(t, path);
    std::istringstream text(read_text(path));
    std::string line, size_line;
    int entry_lines = 0;
    while (std::getline(text, line)) {
        if (line.empty() || line[0] == '%') continue;
        if (size_line.empty()) size_line = line;
        else ++entry_lines;
    }
    EXPECT_EQ(size_line, "3 4 8");
    EXPECT_EQ(entry_lines, 8);
}

// A runlist whose levels are all full is written in array format.
TEST(LevelsIo, DenseRunListIsAnArrayFile) {
    Tensor t = matrix("dense(0)/runlist(1)", 0.0);
    std::string path = temp_path("a.mtx");
    write_matrix_market(t, path);
    EXPECT_NE(read_text(path).find("%%MatrixMarket matrix array real general"), std::string::npos);
}

TEST(LevelsIo, VectorsInMatrixMarket) {
    for (const char* f : {"sparseband(0)", "runlist(0)", "sparsebytemap(0)"}) {
        SCOPED_TRACE(f);
        Tensor t = Tensor::from_coordinates({9}, ValueType::Int32, Scalar::of(int64_t{5}),
                                            Format::parse(f, 1),
                                            entries(1, {{{7}, 1}, {{2}, 3}, {{3}, 3}}));
        std::string path = temp_path("v.mtx");
        WriteOptions keep_fill; // fill 5: siskin reads the comment back; other readers do not
        keep_fill.fill_comment = true;
        write_matrix_market(t, path, keep_fill);
        ReadOptions options;
        options.ndims = 1;
        options.type = ValueType::Int32;
        options.format = Format::parse(f, 1);
        Tensor back = read_matrix_market(path, options);
        EXPECT_TRUE(back.equals(t));
        EXPECT_EQ(back.at({5}).as_int(), 5);
    }
}

TEST(LevelsIo, FrosttRoundTrips) {
    CoordinateList list = entries(3, {{{0, 1, 2}, 1.5}, {{3, 0, 0}, -2}, {{3, 0, 1}, -2},
                                      {{1, 4, 5}, kNaN}, {{2, 2, 2}, 0}});
    for (const char* f : {"dense(0)/sparsebytemap(1)/runlist(2)", "sparseband(0)/sparseband(1)/dense(2)",
                          "sparsebytemap(2)/sparselist(0)/sparseband(1)"})
        for (double fill : {0.0, kNaN}) {
            SCOPED_TRACE(::testing::Message() << f << ", fill " << fill);
            Tensor t = Tensor::from_coordinates({4, 5, 6}, ValueType::Float64, Scalar::of(fill),
                                                Format::parse(f, 3), list);
            std::string path = temp_path("t.tns");
            write_frostt(t, path);
            ReadOptions options;
            options.format = Format::parse(f, 3);
            Tensor back = read_frostt(path, options);
            EXPECT_TRUE(back.equals(t));
            EXPECT_EQ(back.shape(), t.shape());
            EXPECT_TRUE(read_frostt(path).equals(t)); // coo by default
        }
}

// Printing lists entries per coordinate and says how many more there are.
TEST(LevelsIo, ToStringOfRuns) {
    Tensor t(std::vector<int64_t>{1000}, ValueType::Float64, Scalar::of(0.0),
             Format::parse("runlist(0)", 1));
    std::string text = t.to_string(3);
    EXPECT_NE(text.find("format runlist(0)@32, 1 stored"), std::string::npos) << text;
    EXPECT_NE(text.find("  (2): 0\n"), std::string::npos) << text;
    EXPECT_NE(text.find("... (997 more stored)"), std::string::npos) << text;
    Tensor small = matrix("dense(0)/sparseband(1)", 0.0);
    EXPECT_NE(small.to_string().find("[[  0 nan   0   2]"), std::string::npos) << small.to_string();
}

// The singular levels and sparserunlist in FROSTT files: one entry, or one run of one value,
// per fibre, read back into the same format.
TEST(LevelsIo, SingularLevelsInFrosttFiles) {
    CoordinateList list = entries(3, {{{0, 1, 2}, 1.5}, {{3, 0, 3}, -2}, {{3, 0, 4}, -2},
                                      {{1, 4, 5}, kNaN}, {{2, 2, 0}, 0}});
    for (const char* f : {"dense(0)/dense(1)/sparseinterval(2)", "sparselist(0)/sparselist(1)/sparseinterval(2)@64",
                          "dense(0)/sparselist(1)/sparserunlist(2)", "sparselist(0)/sparsepoint(1)/dense(2)"})
        for (double fill : {0.0, kNaN}) {
            SCOPED_TRACE(::testing::Message() << f << ", fill " << fill);
            Tensor t = Tensor::from_coordinates({4, 5, 6}, ValueType::Float64, Scalar::of(fill),
                                                Format::parse(f, 3), list);
            std::string path = temp_path("t.tns");
            write_frostt(t, path);
            ReadOptions options;
            options.format = Format::parse(f, 3);
            Tensor back = read_frostt(path, options);
            EXPECT_TRUE(back.equals(t));
            EXPECT_EQ(back.format(), t.format());
        }
}
