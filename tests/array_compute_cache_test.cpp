// compute() reuses what it compiled for an expression of the same kind (src/array/compute_cache):
// no compile and no disk lookup the second time, results equal to the reference evaluator's on
// new tensors, and a kernel compiled for finite values is not reused once an input holds inf.
// Buffer::known_finite: one scan per tensor whose memory siskin alone writes.
#include <cmath>
#include <memory>

#include <gtest/gtest.h>

#include "array_test_util.hpp"
#include "compiler_test_util.hpp"
#include "siskin/array.hpp"
#include "siskin/codegen/jit.hpp"

namespace siskin::testing {
namespace {

int64_t jit_lookups() {
    const codegen::JitCounts c = codegen::jit_counts();
    return c.compiled + c.loaded_from_disk;
}

std::shared_ptr<Tensor> matrix(const std::string& format, uint64_t seed, double fill = 0.0) {
    return std::make_shared<Tensor>(random_matrix_of(7, 5, 0.4, format, seed, fill, [](double u) { return u - 0.5; }));
}

void expect_reference(const Array& a, const Tensor& got) {
    Tensor want = a.compute(interpreted());
    EXPECT_TRUE(want.equals(got)) << a.program_text() << "\nwant " << want.to_string() << "\ngot "
                                  << got.to_string();
}

TEST(ArrayComputeCache, TheSameKindOfExpressionRunsWithoutCompiling) {
    auto a = matrix("csr", 1), b = matrix("csr", 2);
    auto expr = [](const std::shared_ptr<Tensor>& x, const std::shared_ptr<Tensor>& y) {
        return sum(Array(std::shared_ptr<const Tensor>(x)) * 2.0 + Array(std::shared_ptr<const Tensor>(y)), 1);
    };
    Tensor first = expr(a, b).compute(compiled());
    expect_reference(expr(a, b), first);
    const int64_t lookups = jit_lookups();
    // New tensors of the same formats, types, fills and shapes: the kernel compiled above.
    auto c = matrix("csr", 3), d = matrix("csr", 4);
    Tensor again = expr(c, d).compute(compiled());
    EXPECT_EQ(jit_lookups(), lookups);
    expect_reference(expr(c, d), again);
    // Another format or fill is another kernel, still right.
    auto e = matrix("coo", 5), f = matrix("csr", 6, 1.0);
    expect_reference(expr(e, f), expr(e, f).compute(compiled()));
    EXPECT_GT(jit_lookups(), lookups);
}

TEST(ArrayComputeCache, OneTensorReadTwiceIsAnotherKindThanTwoTensors) {
    auto a = matrix("csr", 7), b = matrix("csr", 8);
    Array x(std::shared_ptr<const Tensor>(a), "x"), y(std::shared_ptr<const Tensor>(b), "y");
    expect_reference(x - x.T().T(), (x - x.T().T()).compute(compiled()));
    expect_reference(x - y, (x - y).compute(compiled()));
    expect_reference(y - x, (y - x).compute(compiled()));
    // A subexpression used twice (one temporary) and the same written out twice.
    Array s = sum(x, 0);
    expect_reference(s + s, (s + s).compute(compiled()));
    expect_reference(s + sum(y, 0), (s + sum(y, 0)).compute(compiled()));
}

// A * B with B finite skips B where A is not stored (0 * x = 0); once B holds inf there, the
// product is NaN there, and the kernel for finite values must not run.
TEST(ArrayComputeCache, AnInputThatTurnsNonFiniteGetsAnotherKernel) {
    auto a = std::make_shared<Tensor>(make({3, 3}, "csr", {{{0, 0}, 2.0}, {{1, 2}, 3.0}}));
    std::vector<Scalar> ones(9, Scalar::of(1.0));
    auto b = std::make_shared<Tensor>(Tensor::from_dense({3, 3}, ValueType::Float64, Scalar::of(0.0),
                                                         Format::dense(2), ones));
    Array product = Array(std::shared_ptr<const Tensor>(a)) * Array(std::shared_ptr<const Tensor>(b));
    Tensor finite = product.compute(compiled());
    expect_reference(product, finite);
    EXPECT_TRUE(finite.at({2, 2}).same_value(Scalar::of(0.0)));
    b->values().data<double>()[2 * 3 + 2] = INFINITY; // a write through siskin: the memo is dropped
    Tensor with_inf = product.compute(compiled());
    expect_reference(product, with_inf);
    EXPECT_TRUE(with_inf.at({2, 2}).is_nan());
    // Finite again: either kernel is right.
    b->values().data<double>()[2 * 3 + 2] = 4.0;
    expect_reference(product, product.compute(compiled()));
}

TEST(ArrayComputeCache, BuffersRememberFinitenessUntilWritten) {
    Buffer owned(ValueType::Float64, 4);
    EXPECT_FALSE(owned.known_finite());
    owned.remember_finite(true);
    EXPECT_EQ(owned.known_finite(), std::optional<bool>(true));
    Buffer copy = owned;
    EXPECT_EQ(copy.known_finite(), std::optional<bool>(true));
    owned.set(0, Scalar::of(1.0));
    EXPECT_FALSE(owned.known_finite());
    owned.remember_finite(false);
    (void)owned.data<double>(); // mutable access: the caller may write
    EXPECT_FALSE(owned.known_finite());
    owned.remember_finite(true);
    owned.resize(8);
    EXPECT_FALSE(owned.known_finite());
    // Memory others may write keeps nothing: borrowed, or shared with a writer.
    auto memory = std::make_shared<std::vector<double>>(4, 1.0);
    Buffer borrowed = Buffer::borrow(ValueType::Float64, memory->data(), 4, memory);
    borrowed.remember_finite(true);
    EXPECT_FALSE(borrowed.known_finite());
    copy.share_writes();
    copy.remember_finite(true);
    EXPECT_FALSE(copy.known_finite());
}

} // namespace
} // namespace siskin::testing
