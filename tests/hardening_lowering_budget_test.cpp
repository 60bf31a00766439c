// Issue 22, case 5 (the lowering's part): a one-line program whose loops split into ever more
// cases stops at the lowering budget with an error that names it and how to raise it, never
// lowers for minutes. The budget comes from CompileOptions::lowering_budget, else
// $SISKIN_LOWERING_BUDGET, else the default (siskin/limits.hpp).
#include <gtest/gtest.h>

#include "cli_test_util.hpp"
#include "codegen_test_util.hpp"
#include "compiler_test_util.hpp"
#include "siskin/limits.hpp"

namespace siskin::testing {
namespace {

using codegen_test::expect_error;
using codegen_test::ScopedEnv;

// Shifted permissive reads of one dcsr matrix: before the merge took them, each added a case
// split to every case of the others (four reads lowered to 758 KB of C, six for minutes).
std::string stencil(int reads) {
    static const char* kTerms[] = {"I[x,y]", // the plain read sizes x and y
                                   "coalesce(I[~(x-1),~(y-1)],0)", "coalesce(I[~(x-1),~(y)],0)",
                                   "coalesce(I[~(x-1),~(y+1)],0)", "coalesce(I[~(x),~(y-1)],0)",
                                   "coalesce(I[~(x),~(y+1)],0)"};
    std::string text = "O[x,y] = ";
    for (int k = 0; k < reads; ++k) text += (k ? " + " : "") + std::string(kTerms[k]);
    return text;
}

std::map<std::string, TensorSignature> stencil_signatures(const ir::Program& p) {
    static const Tensor image = make({6, 6}, "dcsr", {{{1, 2}, 1.0}, {{3, 3}, 2.0}});
    return infer_signatures(p, {{"I", TensorSignature::of(image)}});
}

std::string c_of(const std::string& text, const CompileOptions& options) {
    ir::Program p = ir::parse_program(text);
    return generate_c(p, stencil_signatures(p), options);
}

class LoweringBudget : public ::testing::Test {
protected:
    ScopedEnv env_{"SISKIN_LOWERING_BUDGET", std::nullopt};
};

TEST_F(LoweringBudget, Case5_ProgramOverTheBudgetStopsWithAnErrorThatSaysHowToRaiseIt) {
    CompileOptions small;
    small.lowering_budget = 200;
    expect_error([&] { c_of(stencil(2), small); }, "lowering this kernel took more than 200 steps",
                 "the lowering budget (the lowering_budget option)",
                 "Set SISKIN_LOWERING_BUDGET (or --lowering-budget) to more steps, or to 0 for no limit");
    // The same program within a larger budget, and with none.
    CompileOptions larger;
    larger.lowering_budget = 100000;
    std::string c = c_of(stencil(2), larger);
    EXPECT_NE(c.find("siskin_kernel"), std::string::npos);
    CompileOptions unlimited;
    unlimited.lowering_budget = 0;
    EXPECT_EQ(c_of(stencil(2), unlimited), c);
}

TEST_F(LoweringBudget, Case5_EnvironmentSetsTheBudgetAndBadValuesAreNamed) {
    {
        ScopedEnv small("SISKIN_LOWERING_BUDGET", "200");
        expect_error([&] { c_of(stencil(2), {}); }, "more than 200 steps",
                     "the lowering budget (SISKIN_LOWERING_BUDGET)");
        CompileOptions option; // the option wins over the environment
        option.lowering_budget = 0;
        EXPECT_NO_THROW(c_of(stencil(2), option));
    }
    for (const char* bad : {"lots", "-1", "12abc"}) {
        ScopedEnv env("SISKIN_LOWERING_BUDGET", bad);
        expect_error([&] { c_of("O[x,y] = I[x,y]", {}); },
                     fmt::format("SISKIN_LOWERING_BUDGET is '{}'", bad), "or 0 for no limit");
    }
    CompileOptions negative;
    negative.lowering_budget = -5;
    expect_error([&] { c_of("O[x,y] = I[x,y]", negative); }, "the lowering budget is -5");
    EXPECT_EQ(lowering_budget().value, kDefaultLoweringBudget);
    EXPECT_EQ(lowering_budget().origin, "the default");
}

// The budget leaves results alone: a kernel lowered within it matches the reference.
TEST_F(LoweringBudget, Case5_KernelWithinTheBudgetMatchesTheReference) {
    Tensor image = random_matrix_of(7, 6, 0.3, "dcsr", 22, 0.0, [](double u) { return 4 * u - 2; });
    compiled_matching_reference(stencil(3), {{"I", &image}});
}

class LoweringBudgetCli : public test::CliScratch {};

TEST_F(LoweringBudgetCli, Case5_OptionAndHelpNameTheBudget) {
    std::string program = "'" + stencil(2) + "'";
    auto over = cli("c " + program + " -f I=dcsr -f O=dense --lowering-budget 200");
    EXPECT_EQ(over.status, 1) << over.output;
    EXPECT_EQ(over.output.rfind("siskin: error: lowering this kernel took more than 200 steps", 0), 0u)
        << over.output;
    EXPECT_NE(over.output.find("SISKIN_LOWERING_BUDGET"), std::string::npos) << over.output;
    auto unlimited = cli("c " + program + " -f I=dcsr -f O=dense --lowering-budget 0");
    EXPECT_EQ(unlimited.status, 0) << unlimited.output;
    auto env = cli("c " + program + " -f I=dcsr -f O=dense");
    EXPECT_EQ(env.status, 0) << env.output;
    auto bad = cli("c " + program + " -f I=dcsr --lowering-budget -3");
    EXPECT_EQ(bad.status, 1) << bad.output;
    auto help = cli("--help");
    EXPECT_NE(help.output.find("SISKIN_LOWERING_BUDGET"), std::string::npos) << help.output;
    EXPECT_NE(help.output.find("SISKIN_CC_TIMEOUT"), std::string::npos) << help.output;
    for (const char* command : {"run", "eval", "c", "convert"}) {
        auto sub = cli(std::string(command) + " --help");
        EXPECT_NE(sub.output.find("--lowering-budget"), std::string::npos) << command << sub.output;
    }
}

} // namespace
} // namespace siskin::testing
