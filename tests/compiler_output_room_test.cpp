// A kernel remembers how large its output buffers ended (Kernel::Impl::size_hints) and starts
// the next run with that much room: run again on inputs of the same size, a sparse output grows
// no more (capacity == size, no copies, no doubling slack), and on inputs whose outputs are
// smaller or larger the results stay right.
#include "compiler_test_util.hpp"

namespace siskin::testing {
namespace {

const std::string kAdd = "C[i,j] = A[i,j] + B[i,j]";

Tensor random_csr(double density, uint64_t seed) {
    return random_matrix_of(150, 140, density, "csr", seed, 0.0, [](double u) { return u + 1.0; });
}

Tensor run_add(const Kernel& k, const Tensor& a, const Tensor& b) {
    auto out = k.prepare({{"C", {150, 140}}});
    k.run({{"A", &a}, {"B", &b}}, out);
    return std::move(out.at("C"));
}

Tensor reference_add(const Tensor& a, const Tensor& b) {
    OutputSpec spec;
    spec.format = Format::parse("csr", 2);
    return evaluate_reference(ir::parse_program(kAdd), {{"A", &a}, {"B", &b}}, {{"C", spec}}).at("C");
}

TEST(CompilerOutputRoom, ASecondRunStartsWithTheRoomTheFirstEndedWith) {
    Tensor a = random_csr(0.3, 1), b = random_csr(0.3, 2);
    TensorSignature sig = TensorSignature::of(a); // every input below has the same
    auto k = compile(ir::parse_program(kAdd), {{"A", sig}, {"B", sig}, {"C", sig}}, test_options());

    Tensor first = run_add(*k, a, b);
    Buffer& crd1 = first.level(1).buffer("crd");
    ASSERT_GT(crd1.size(), 5000);
    EXPECT_GT(crd1.raw().capacity, crd1.size()); // grown by doubling

    Tensor second = run_add(*k, a, b);
    Buffer& crd2 = second.level(1).buffer("crd");
    EXPECT_EQ(crd2.raw().capacity, crd2.size()); // room for exactly what it wrote
    EXPECT_EQ(second.values().raw().capacity, second.values().size());
    EXPECT_TRUE(same_output(first, second));
    EXPECT_TRUE(same_output(reference_add(a, b), second));

    // Fewer entries than the room: the unused room holds nothing that shows.
    Tensor sa = random_csr(0.05, 3), sb = random_csr(0.05, 4);
    Tensor smaller = run_add(*k, sa, sb);
    EXPECT_TRUE(same_output(reference_add(sa, sb), smaller));
    // More: the output grows past the room it started with.
    Tensor la = random_csr(0.6, 5), lb = random_csr(0.6, 6);
    Tensor larger = run_add(*k, la, lb);
    EXPECT_GT(larger.stored(), crd2.size());
    EXPECT_TRUE(same_output(reference_add(la, lb), larger));
}

} // namespace
} // namespace siskin::testing
