// `siskin run --start NAME=FILE`: an output that starts as the tensor in FILE, so a program that
// writes a window of it changes only that window; compiled and --interpret agree, and bad uses
// are one-line errors.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cli_test_util.hpp"
#include "siskin/io.hpp"

using namespace siskin;

namespace {

class OutputWindowCli : public test::CliScratch {
protected:
    void SetUp() override {
        test::CliScratch::SetUp();
        // y = [1, 0, 3, 0, 5, 0, 7, 0] (0 the fill), x = [10, 20, 30].
        std::vector<Scalar> y, x;
        for (int k = 0; k < 8; ++k) y.push_back(Scalar::of(k % 2 ? 0.0 : k + 1.0));
        for (int k = 1; k <= 3; ++k) x.push_back(Scalar::of(10.0 * k));
        write_matrix_market(Tensor::from_dense({8}, ValueType::Float64, Scalar::of(0.0), Format::parse("sparselist(0)", 1), y),
                            path("y0.mtx"));
        write_matrix_market(Tensor::from_dense({3}, ValueType::Float64, Scalar::of(0.0), Format::dense(1), x),
                            path("x.mtx"));
    }
    std::vector<double> read_vector(const std::string& name) {
        ReadOptions as_vector;
        as_vector.ndims = 1;
        std::vector<double> out;
        for (const auto& s : read_matrix_market(path(name), as_vector).to_dense()) out.push_back(s.as_double());
        return out;
    }
};

TEST_F(OutputWindowCli, RunUpdatesAWindowOfTheStartTensor) {
    for (const char* engine : {"", " --interpret"}) {
        for (const char* format : {"", ":dense", ":sparselist(0)"}) {
            auto r = cli("run 'y[i(1:7:2)] += x[i]' -i 'x=" + path("x.mtx") + "' --start 'y=" + path("y0.mtx") +
                         format + "' -o y=" + path("y.mtx") + engine);
            ASSERT_EQ(r.status, 0) << r.output;
            EXPECT_EQ(read_vector("y.mtx"), (std::vector<double>{1, 10, 3, 20, 5, 30, 7, 0})) << engine << format;
        }
        auto r = cli("run 'y[i(-3:)] = x[i]' -i x=" + path("x.mtx") + " --start y=" + path("y0.mtx") + " -o 'y=" +
                     path("y.mtx") + ":dense'" + engine);
        ASSERT_EQ(r.status, 0) << r.output;
        EXPECT_EQ(read_vector("y.mtx"), (std::vector<double>{1, 0, 3, 0, 5, 10, 20, 30})) << engine;
    }
    // The start file is only read.
    EXPECT_EQ(read_vector("y0.mtx"), (std::vector<double>{1, 0, 3, 0, 5, 0, 7, 0}));
}

TEST_F(OutputWindowCli, BadStartsAreOneLineErrors) {
    const std::string x = " -i x=" + path("x.mtx");
    auto input = cli("run 'y[i(0:3)] = x[i]'" + x + " --start x=" + path("y0.mtx"));
    EXPECT_NE(input.status, 0);
    EXPECT_NE(input.output.find("--start x=" + path("y0.mtx") + ": the program only reads x, and only an output "
                                "can start as an existing tensor"),
              std::string::npos)
        << input.output;
    auto unknown = cli("run 'y[i(0:3)] = x[i]'" + x + " --start z=" + path("y0.mtx"));
    EXPECT_NE(unknown.status, 0);
    EXPECT_NE(unknown.output.find("--start names tensor 'z', which the program does not use"), std::string::npos)
        << unknown.output;
    auto twice = cli("run 'y[i(0:3)] = x[i]'" + x + " --start y=" + path("y0.mtx") + " --start y=" + path("y0.mtx"));
    EXPECT_NE(twice.status, 0);
    EXPECT_NE(twice.output.find("y is given a start tensor twice"), std::string::npos) << twice.output;
    // A window that does not fit the start tensor.
    auto outside = cli("run 'y[i(6:9)] = x[i]'" + x + " --start y=" + path("y0.mtx") + " --print y");
    EXPECT_NE(outside.status, 0);
    EXPECT_NE(outside.output.find("slice 6:9 of dimension 0 of y is out of range"), std::string::npos) << outside.output;
    // --fill y=7 reads the start with fill 7, so its unstored elements are 7, and is the output's.
    auto filled = cli("run 'y[i(0:3)] = x[i]'" + x + " --start y=" + path("y0.mtx") + " --fill y=7 -o y=" +
                      path("y.mtx") + ":dense");
    ASSERT_EQ(filled.status, 0) << filled.output;
    EXPECT_EQ(read_vector("y.mtx"), (std::vector<double>{10, 20, 30, 7, 5, 7, 7, 7}));
}

} // namespace
