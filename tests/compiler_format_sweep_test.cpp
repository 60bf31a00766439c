// The format sweep: einsum programs over the formats of their inputs and output (csr, csc, dcsr,
// dcsc, coo, dense, band, runlist and bytemap rows or columns, csf in every order; the lists and
// programs are tests/format_sweep_cases.hpp), compiled and compared with the reference evaluator.
// No combination may be refused: an output stored against the loop order is written through
// reordered loops or a temporary (output_order).
//
// Each combination is a C compile (about half a second), so the suite compiles a covering in
// which every tensor of every program takes every format of its list, one test per program.
// tools/format_sweep lowers the whole product (every combination, no C compiler) and counts
// refusals; SISKIN_SWEEP=outputs also meets every input format with every output format,
// SISKIN_SWEEP=pairs every two formats of every two tensors, SISKIN_SWEEP=full the whole product
// (thousands of compiles: `format_sweep --compile` runs it in chunks with a kernel cache).
#include <cctype>
#include <cstdlib>
#include <set>

#include "compiler_test_util.hpp"
#include "format_sweep_cases.hpp"

namespace siskin::testing {
namespace {

std::vector<SweepCombination> swept_combinations(const SweepProgram& p) {
    const char* mode = std::getenv("SISKIN_SWEEP");
    const std::string m = mode ? mode : "";
    if (m == "full") return every_combination(p);
    if (m == "pairs") return pairwise_covering(p);
    if (m == "outputs") return output_pair_covering(p);
    return every_format_covering(p);
}

class CompilerFormatSweep : public ::testing::TestWithParam<size_t> {};

TEST_P(CompilerFormatSweep, EveryFormatMatchesTheReference) {
    const SweepProgram& p = sweep_programs().at(GetParam());
    const ir::Program program = ir::parse_program(p.text);
    int compared = 0;
    std::vector<std::string> refused;
    uint64_t seed = 19 + 1000 * GetParam();
    for (const auto& combination : swept_combinations(p)) {
        seed += 16;
        const SweepCase c = sweep_case(p, combination, seed);
        const auto inputs = c.inputs();
        std::map<std::string, Tensor> want, got;
        try {
            want = evaluate_reference(program, inputs, c.specs);
        } catch (const Error& e) {
            ADD_FAILURE() << c.where << ": the reference refused: " << e.what();
            continue;
        }
        try {
            got = evaluate_compiled(program, inputs, c.specs, test_options());
        } catch (const Error& e) {
            refused.push_back(c.where + ": " + e.what());
            continue;
        }
        const Tensor& w = want.at(p.output);
        const Tensor& g = got.at(p.output);
        EXPECT_TRUE(same_output(w, g)) << c.where << "\nwant " << w.to_string() << "\ngot  " << g.to_string();
        EXPECT_EQ(sweep_layout(g.format()), sweep_layout(*c.specs.at(p.output).format)) << c.where;
        ++compared;
    }
    std::string text;
    for (const auto& r : refused) text += r + "\n";
    EXPECT_TRUE(refused.empty()) << refused.size() << " refused of " << compared + refused.size() << ":\n" << text;
    EXPECT_GT(compared, 0);
}

// Every tensor of a program takes every format of its list in the default covering.
TEST(CompilerFormatSweepCovering, EveryTensorTakesEveryFormat) {
    for (const SweepProgram& p : sweep_programs()) {
        const auto lists = sweep_lists(p);
        const auto combinations = every_format_covering(p);
        for (size_t t = 0; t < lists.size(); ++t) {
            std::set<std::string> met;
            for (const auto& c : combinations) met.insert(c[t]);
            EXPECT_EQ(met.size(), lists[t]->size()) << p.text << ", tensor " << t;
        }
    }
}

// The pairwise covering meets every two formats of every two tensors, in not many more
// combinations than the largest pair of lists needs.
TEST(CompilerFormatSweepCovering, PairwiseCoveringMeetsEveryPair) {
    for (const SweepProgram& p : sweep_programs()) {
        const auto lists = sweep_lists(p);
        const auto combinations = pairwise_covering(p);
        for (size_t a = 0; a < lists.size(); ++a)
            for (size_t b = a + 1; b < lists.size(); ++b) {
                std::set<std::pair<std::string, std::string>> met;
                for (const auto& c : combinations) met.emplace(c[a], c[b]);
                EXPECT_EQ(met.size(), lists[a]->size() * lists[b]->size()) << p.text << ", tensors " << a << ", " << b;
            }
        size_t largest_pair = 0;
        for (size_t a = 0; a < lists.size(); ++a)
            for (size_t b = a + 1; b < lists.size(); ++b)
                largest_pair = std::max(largest_pair, lists[a]->size() * lists[b]->size());
        EXPECT_LE(combinations.size() * 2, largest_pair * 3) << p.text;
    }
}

TEST(CompilerFormatSweepCovering, OutputCoveringMeetsEveryInputOutputPair) {
    for (const SweepProgram& p : sweep_programs()) {
        const auto lists = sweep_lists(p);
        const auto combinations = output_pair_covering(p);
        for (size_t t = 0; t + 1 < lists.size(); ++t) {
            std::set<std::pair<std::string, std::string>> met;
            for (const auto& c : combinations) met.emplace(c[t], c.back());
            EXPECT_EQ(met.size(), lists[t]->size() * lists.back()->size()) << p.text << ", tensor " << t;
        }
    }
}

std::string program_name(const ::testing::TestParamInfo<size_t>& info) {
    // A test name from the program text: its letters and digits, its operators spelt out.
    std::string name;
    for (char ch : sweep_programs().at(info.param).text) {
        if (std::isalnum(static_cast<unsigned char>(ch))) name += ch;
        if (ch == '+') name += "Plus";
        if (ch == '*') name += "Times";
        if (ch == '-') name += "Minus";
    }
    return std::to_string(info.param) + "_" + name;
}

INSTANTIATE_TEST_SUITE_P(Programs, CompilerFormatSweep, ::testing::Range<size_t>(0, sweep_programs().size()),
                         program_name);

} // namespace
} // namespace siskin::testing
