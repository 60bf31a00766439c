// `siskin run` with a sliced operand: compiled by default, the same values as the reference.
#include <string>

#include <gtest/gtest.h>

#include "cli_test_util.hpp"
#include "siskin/io.hpp"

using namespace siskin;

namespace {

class SlicingCli : public test::CliScratch {};

TEST_F(SlicingCli, RunReadsASlice) {
    // x = [0, 10, 20, ..., 70] stored sparsely (0 is the fill); x[1:5:2] = [10, 30].
    CoordinateList list;
    list.ndims = 1;
    for (int64_t k = 1; k < 8; ++k) list.add(std::vector<int64_t>{k}, Scalar::of(10.0 * static_cast<double>(k)));
    Tensor x = Tensor::from_coordinates({8}, ValueType::Float64, Scalar::of(0.0), Format::parse("sparselist(0)", 1),
                                        list);
    write_matrix_market(x, path("x.mtx"));
    for (const char* format : {"dense", "sparselist(0)"}) {
        auto r = cli("run 'y[i] = x[i(1:5:2)]' -i 'x=" + path("x.mtx") + ":" + format + "' -o y=" + path("y.mtx"));
        ASSERT_EQ(r.status, 0) << r.output;
        ReadOptions as_vector;
        as_vector.ndims = 1;
        Tensor y = read_matrix_market(path("y.mtx"), as_vector);
        ASSERT_EQ(y.shape(), std::vector<int64_t>{2}) << format;
        EXPECT_EQ(y.to_dense()[0].as_double(), 10.0) << format;
        EXPECT_EQ(y.to_dense()[1].as_double(), 30.0) << format;
    }
    // An out-of-range slice is a one-line error naming the tensor and the bounds.
    auto bad = cli("run 'y[i] = x[i(1:9)]' -i x=" + path("x.mtx") + " -o y=" + path("y.mtx"));
    EXPECT_NE(bad.status, 0);
    EXPECT_NE(bad.output.find("slice 1:9 of dimension 0 of x is out of range"), std::string::npos) << bad.output;
}

} // namespace
