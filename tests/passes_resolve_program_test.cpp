// The front half both engines share (src/passes/resolve_program.hpp): what it settles for each
// output.
#include "compiler_test_util.hpp"
#include "passes/resolve_program.hpp"

namespace siskin::testing {
namespace {

Tensor vector3() { return make({3}, "dense", {{{0}, 1.0}, {{2}, 3.0}}); }

OutputSpec starting_as(const Tensor& t) {
    OutputSpec spec;
    spec.start = &t;
    return spec;
}

TEST(ResolveProgram, SettlesEveryOutput) {
    Tensor x = vector3();
    Tensor start = make({3}, "dense", {{{1}, 5.0}}, 2.0);
    ir::Program p = ir::parse_program("y[i] = x[i] + 1\nz[i] += x[i]");
    ResolvedProgram r = resolve_program(p, ProgramInputs::of({{"x", &x}}),
                                        {{"y", with_format("sparselist(0)", 1)}, {"z", starting_as(start)}});
    EXPECT_EQ(r.inputs.size(), 1u);
    const ResolvedOutput& y = r.outputs.at("y");
    EXPECT_EQ(y.shape, (std::vector<int64_t>{3}));
    EXPECT_TRUE(y.signature.fill.same(Scalar::of(1.0))); // x + 1 where x holds its fill 0
    EXPECT_EQ(y.format.to_string(), "sparselist(0)");
    EXPECT_EQ(y.index_bits, 32);
    EXPECT_EQ(y.signature.format.to_string(), "sparselist(0)@32");
    EXPECT_FALSE(y.signature.keep_contents);
    const ResolvedOutput& z = r.outputs.at("z");
    EXPECT_EQ(z.start, &start);
    EXPECT_TRUE(z.signature.fill.same(Scalar::of(2.0)));
    EXPECT_TRUE(z.signature.keep_contents);
    EXPECT_EQ(r.verified.extents.at("i"), 3);
    EXPECT_EQ(r.signatures().size(), 3u);
}

TEST(ResolveProgram, IndexWidthsComeFromTheShapeOrFromTheCaller) {
    Tensor x = vector3();
    ir::Program p = ir::parse_program("y[i, j] += x[i]");
    OutputSpec huge;
    huge.shape = std::vector<int64_t>{3, int64_t{1} << 33};
    huge.type = ValueType::Float64;
    huge.format = Format::parse("dense(0)/sparselist(1)", 2);
    EXPECT_EQ(resolve_program(p, ProgramInputs::of({{"x", &x}}), {{"y", huge}}).outputs.at("y").index_bits, 64);
    // Signatures alone: any shape, and the caller's width for inputs and outputs alike.
    ResolvedProgram r = resolve_program(ir::parse_program("y[i] += x[i]"),
                                        ProgramInputs::any_shape({{"x", TensorSignature::of(x)}}, 64),
                                        {{"y", with_format("sparselist(0)", 1)}});
    EXPECT_EQ(r.outputs.at("y").index_bits, 64);
    EXPECT_EQ(r.outputs.at("y").signature.format.to_string(), "sparselist(0)@64");
}

} // namespace
} // namespace siskin::testing
