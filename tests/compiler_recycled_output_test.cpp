// Outputs handed back to their kernel as an earlier run left them (KernelPlan::recycled_outputs,
// as the program driver does with a while loop's frontier): a sparsebytemap vector's declare
// clears only the entries it held, so a run writing a few of its n slots costs a few loop
// bodies, and the result is the reference's whatever the vector held before.
#include <limits>
#include <string>

#include "compiler/kernel_impl.hpp"
#include "compiler_test_util.hpp"

namespace siskin::testing {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(CompilerRecycledOutput, ABytemapVectorHandedBackClearsOnlyItsEntries) {
    const int64_t n = 5000;
    CompileOptions options = test_options();
    options.count_work = true;
    options.threads = 1;
    for (double fill : {0.0, 1.0, kInf}) {
        SCOPED_TRACE(fill);
        // Entries of S at most 5 write the fill: the slot is touched, and freeze drops it.
        std::string text = "G[j] = ifelse(S[j] > 5, S[j], " + Scalar::of(fill).to_string() + ")";
        ir::Program program = ir::parse_program(text);
        auto vector = [&](std::initializer_list<std::pair<std::vector<int64_t>, double>> list) {
            return make({n}, "sparselist(0)", list, fill);
        };
        // The second run writes 7 with the fill, 40 and 41, and not 1, 9 or n - 1.
        Tensor first = vector({{{1}, 9}, {{7}, 6}, {{9}, 3}, {{40}, 8}, {{n - 1}, 6}});
        Tensor second = vector({{{7}, 2}, {{40}, 7}, {{41}, 12}});
        Tensor empty({n}, ValueType::Float64, Scalar::of(fill), Format::parse("sparsebytemap(0)", 1));
        auto kernel = compile(program, {{"S", TensorSignature::of(first)}, {"G", TensorSignature::of(empty)}}, options);
        ASSERT_EQ(kernel->impl().plan.recycled_outputs.count("G"), 1u);
        OutputSpec spec;
        spec.format = empty.format();
        spec.fill = Scalar::of(fill);

        // Buffers without sizes (as the program driver's unbuilt outputs) are cleared whole.
        std::map<std::string, Tensor> out;
        out.emplace("G", detail::unbuilt_tensor({n}, ValueType::Float64, Scalar::of(fill), empty.format()));
        kernel->run({{"S", &first}}, out);
        EXPECT_TRUE(same_output(evaluate_reference(program, {{"S", &first}}, {{"G", spec}}).at("G"), out.at("G")))
            << out.at("G").to_string();
        EXPECT_EQ(out.at("G").stored(), 4);
        EXPECT_GE(kernel->last_work(), n);

        kernel->run({{"S", &second}}, out); // handed back holding first's 4 entries
        EXPECT_TRUE(same_output(evaluate_reference(program, {{"S", &second}}, {{"G", spec}}).at("G"), out.at("G")))
            << out.at("G").to_string();
        EXPECT_EQ(out.at("G").stored(), 2);
        // 4 entries cleared, 3 written, 3 kept or dropped at freeze (and the sort's few steps).
        EXPECT_LE(kernel->last_work(), 40);

        kernel->run({{"S", &first}}, out); // and back: 7 written again with a value
        EXPECT_TRUE(same_output(evaluate_reference(program, {{"S", &first}}, {{"G", spec}}).at("G"), out.at("G")))
            << out.at("G").to_string();
    }
}

} // namespace
} // namespace siskin::testing
