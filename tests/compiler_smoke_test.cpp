#include <iostream>

#include "compiler_test_util.hpp"

namespace siskin::testing {
namespace {

TEST(CompilerSmoke, SpmvCsr) {
    Tensor A = make({3, 4}, "csr", {{{0, 1}, 2.0}, {{0, 3}, 3.0}, {{2, 0}, 4.0}});
    Tensor x = make({4}, "dense", {{{0}, 1.0}, {{1}, 10.0}, {{2}, 100.0}, {{3}, 1000.0}});
    auto p = ir::parse_program("for i { for j { y[i] += A[i, j] * x[j] } }");
    std::map<std::string, TensorSignature> sigs{{"A", TensorSignature::of(A, true)},
                                                {"x", TensorSignature::of(x, true)}};
    TensorSignature ys;
    ys.format = Format::dense(1).with_index_bits(32);
    ys.ndims = 1;
    ys.fill = Scalar::of(0.0);
    sigs["y"] = ys;
    std::cout << generate_c(p, sigs);
    auto out = run_compiled("for i { for j { y[i] += A[i, j] * x[j] } }", {{"A", &A}, {"x", &x}});
    EXPECT_EQ(out.at("y").at({0}).as_double(), 3020.0);
    EXPECT_EQ(out.at("y").at({1}).as_double(), 0.0);
    EXPECT_EQ(out.at("y").at({2}).as_double(), 4.0);
}

} // namespace
} // namespace siskin::testing
