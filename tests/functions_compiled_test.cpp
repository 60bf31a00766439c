// User functions in compiled kernels: the kernel carries the function's C definition, and its
// results (values and stored structure) equal the reference evaluator's.
#include <gtest/gtest.h>

#include "compiler_test_util.hpp"
#include "siskin/ir/text.hpp"
#include "siskin/reference.hpp"

using namespace siskin;
using namespace siskin::testing;

namespace {

const std::string kGcd = R"(
def gcd_cc(a: int64, b: int64) -> int64 [commutative, associative, annihilator(1)] {
    while b != 0 { let t = b; b = a % b; a = t }
    return abs(a)
}
case gcd_cc(x, 0) = abs(x)
)";

Tensor ints(std::vector<int64_t> values, int64_t fill) {
    std::vector<Scalar> s;
    for (int64_t v : values) s.push_back(Scalar::of(v));
    return Tensor::from_dense({static_cast<int64_t>(values.size())}, ValueType::Int64, Scalar::of(fill),
                              Format::parse("sparselist(0)", 1), s);
}

void expect_same_as_reference(const std::string& text, const std::map<std::string, const Tensor*>& inputs) {
    OutputSpec sparse;
    sparse.format = Format::parse("sparselist(0)", 1);
    ir::Program program = ir::parse_program(text);
    auto want = evaluate_reference(program, inputs, {{"C", sparse}});
    auto got = evaluate_compiled(program, inputs, {{"C", sparse}}, test_options());
    EXPECT_TRUE(got.at("C").equals(want.at("C"))) << got.at("C").to_string() << "\n" << want.at("C").to_string();
    EXPECT_EQ(stored_coordinates(got.at("C")), stored_coordinates(want.at("C")));
    EXPECT_TRUE(got.at("C").fill().same(want.at("C").fill()));
}

} // namespace

TEST(FunctionsCompiled, GcdOfSparseVectorsMatchesTheReference) {
    Tensor A = ints({12, 0, 0, 9, 0, -7, 0, 100}, 0), B = ints({18, 5, 0, 6, 0, 0, -4, 75}, 0);
    expect_same_as_reference(kGcd + "C[i] = gcd_cc(A[i], B[i])", {{"A", &A}, {"B", &B}});
    // Fill 1 annihilates: the compiled kernel only has to visit where both are stored.
    Tensor P = ints({1, 4, 1, 6, 1, 15}, 1), Q = ints({1, 1, 10, 9, 1, 10}, 1);
    expect_same_as_reference(kGcd + "C[i] = gcd_cc(P[i], Q[i])", {{"P", &P}, {"Q", &Q}});
}

TEST(FunctionsCompiled, KernelContainsTheFunctionDefinition) {
    Tensor A = ints({12, 0, 9}, 0), B = ints({18, 5, 6}, 0);
    ir::Program program = ir::parse_program(kGcd + "s[] += gcd_cc(A[i], B[i])");
    CompiledProgram compiled = compile_for(program, {{"A", &A}, {"B", &B}}, {}, test_options());
    const std::string& c = compiled.kernel->c_source();
    EXPECT_NE(c.find("siskin_udf_gcd_cc"), std::string::npos) << c;
    EXPECT_NE(c.find("while"), std::string::npos) << c;
    EXPECT_EQ(compiled.run({{"A", &A}, {"B", &B}}).at("s").at({}).as_int(), 6 + 5 + 3);
}
