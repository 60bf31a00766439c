// The front half both engines share (src/passes/resolve_program.hpp): what it settles for each
// output, and the errors that the reference evaluator, compile_for and infer_signatures used to
// give each in their own way and now give alike.
#include "compiler_test_util.hpp"
#include "ir_test_support.hpp"
#include "passes/resolve_program.hpp"

namespace siskin::testing {
namespace {

using ir::test::expect_error;

Tensor vector3() { return make({3}, "dense", {{{0}, 1.0}, {{2}, 3.0}}); }

OutputSpec starting_as(const Tensor& t) {
    OutputSpec spec;
    spec.start = &t;
    return spec;
}

// Every entry point into the front half refuses `text` with a message holding `part`.
void all_refuse(const std::string& text, const std::map<std::string, const Tensor*>& in,
                const std::map<std::string, OutputSpec>& specs, const std::string& part) {
    SCOPED_TRACE(text);
    ir::Program p = ir::parse_program(text);
    std::map<std::string, TensorSignature> sigs;
    for (const auto& [name, t] : in) sigs[name] = TensorSignature::of(*t);
    expect_error([&] { evaluate_reference(p, in, specs); }, part);
    expect_error([&] { compile_for(p, in, specs, test_options()); }, part);
    expect_error([&] { infer_signatures(p, sigs, specs); }, part);
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

// The three copies of the front half disagreed on these; they now give one answer.
TEST(ResolveProgram, AnOutputFormatOfOtherDimensionsIsOneError) {
    Tensor x = vector3();
    all_refuse("y[i] = x[i]", {{"x", &x}}, {{"y", with_format("csr", 2)}},
               "y is written with 1 subscripts, but its format dense(0)/sparselist(1) has 2 dimensions");
}

TEST(ResolveProgram, AMissingInputIsTheVerifiersError) {
    all_refuse("y[i] = x[i]", {}, {},
               "unknown tensor x: it is neither given nor assigned by the program (given: none)");
}

TEST(ResolveProgram, AnImpossibleFillNamesTheFormatAsAsked) {
    Tensor x = vector3();
    OutputSpec spec = with_format("sparselist(0)", 1);
    spec.fill = Scalar::of(0.0);
    all_refuse("w[i] = x[i] + 1", {{"x", &x}}, {{"w", spec}},
               "so the sparselist(0) output would not be sparse there");
}

TEST(ResolveProgram, AnOutputGivenAsAnInputIsRefusedAsSuch) {
    // Even when the program declares a fill for it that the given tensor does not have.
    Tensor x = vector3(), y = vector3();
    all_refuse("fill y = inf\ny[i] = x[i]", {{"x", &x}, {"y", &y}}, {},
               "y is both an input and an output of the program");
}

} // namespace
} // namespace siskin::testing
