// format_sweep: every program of the format sweep (tests/format_sweep_cases.hpp) over the whole
// product of its tensors' formats (issue 19's "Done when"). The compiler refuses a program before
// the C compiler runs, so by default each combination is only lowered to C (generate_c, what
// `siskin c` prints): the whole product, tens of thousands of combinations, takes minutes, where
// compiling each would take hours. It counts the refusals and the lowering time.
//
//   build/format_sweep                       # the whole product, lowered, as written
//   build/format_sweep --plans               # also every plan the planner weighs for each one
//   build/format_sweep --compile --cache DIR --program '+= A[i,k]' --chunk 0/4
//                                            # compiled and compared with the reference instead
//   build/format_sweep --coverings           # the sweep test's coverings' sizes (SISKIN_SWEEP)
//
// Exits 1 when some combination is refused (or, compiled, differs from the reference).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "format_sweep_cases.hpp"
#include "siskin/compiler.hpp"
#include "siskin/error.hpp"
#include "siskin/ir/text.hpp"
#include "siskin/planner.hpp"

namespace siskin::testing {
namespace {

struct Options {
    std::vector<std::string> programs; // parts of the program texts to sweep; empty: all
    bool plans = false;
    bool compile = false;
    std::string cache;
    std::string chunk = "0/1";
    int show = 3; // refusals shown per distinct message
    double time_limit = 0; // seconds after which no combination starts; 0: none
    bool coverings = false;
    std::optional<double> fill; // the inputs' fill instead of each program's
};

// How many combinations each covering of the sweep test takes, per program.
int print_coverings() {
    std::cout << fmt::format("{:<44} {:>8} {:>8} {:>8} {:>8}\n", "program", "formats", "outputs", "pairs", "product");
    size_t totals[4] = {};
    for (const SweepProgram& p : sweep_programs()) {
        const size_t n[4] = {every_format_covering(p).size(), output_pair_covering(p).size(),
                             pairwise_covering(p).size(), every_combination(p).size()};
        for (int k = 0; k < 4; ++k) totals[k] += n[k];
        std::cout << fmt::format("{:<44} {:>8} {:>8} {:>8} {:>8}\n", p.text, n[0], n[1], n[2], n[3]);
    }
    std::cout << fmt::format("{:<44} {:>8} {:>8} {:>8} {:>8}\n", "all", totals[0], totals[1], totals[2], totals[3]);
    return 0;
}

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

// The signatures compile_for gives these inputs and outputs (the inputs scanned for finiteness).
std::map<std::string, TensorSignature> signatures_of(const ir::Program& program, const SweepCase& c,
                                                     const std::map<std::string, OutputSpec>& specs) {
    std::map<std::string, TensorSignature> inputs;
    for (const auto& [name, t] : c.tensors) inputs.emplace(name, TensorSignature::of(t, true));
    return infer_signatures(program, inputs, specs);
}

struct Tally {
    int64_t combinations = 0, lowered = 0, compared = 0;
    double seconds = 0, slowest = 0;
    std::string slowest_where;
    std::map<std::string, std::vector<std::string>> refusals; // message -> where
    std::vector<std::string> mismatches;

    int64_t refused() const {
        int64_t n = 0;
        for (const auto& [message, where] : refusals) n += static_cast<int64_t>(where.size());
        return n;
    }
};

// Runs `step` (one lowering or compiled run), timing it and recording a refusal under `where`.
template <class Step> bool attempt(Tally& tally, const std::string& where, Step step) {
    const auto start = Clock::now();
    bool ok = true;
    try {
        step();
    } catch (const Error& e) {
        tally.refusals[e.message()].push_back(where);
        ok = false;
    }
    const double s = seconds_since(start);
    tally.seconds += s;
    if (s > tally.slowest) tally.slowest = s, tally.slowest_where = where;
    return ok;
}

void sweep_one(const SweepCase& c, const ir::Program& program, const std::string& output, const Options& o,
               const CompileOptions& compile_options, Tally& tally) {
    ++tally.combinations;
    if (o.compile) {
        const auto inputs = c.inputs();
        std::map<std::string, Tensor> wanted;
        try {
            wanted = evaluate_reference(program, inputs, c.specs);
        } catch (const Error& e) { // recorded like a mismatch: one refusal must not end the sweep
            tally.mismatches.push_back(fmt::format("{}\n  the reference refused: {}", c.where, e.what()));
            return;
        }
        const Tensor& want = wanted.at(output);
        std::map<std::string, Tensor> got;
        if (!attempt(tally, c.where, [&] { got = evaluate_compiled(program, inputs, c.specs, compile_options); }))
            return;
        ++tally.compared;
        const Tensor& g = got.at(output);
        if (!same_output(want, g) || sweep_layout(g.format()) != sweep_layout(*c.specs.at(output).format))
            tally.mismatches.push_back(fmt::format("{}\n  want {}\n  got  {}", c.where, want.to_string(), g.to_string()));
        return;
    }
    if (attempt(tally, c.where, [&] { generate_c(program, signatures_of(program, c, c.specs)); })) ++tally.lowered;
    if (!o.plans) return;
    const Plan plan = plan_program(program, c.inputs(), c.specs);
    for (size_t k = 0; k < plan.candidates.size(); ++k) {
        const PlanCandidate& candidate = plan.candidates[k];
        std::map<std::string, OutputSpec> specs = c.specs;
        for (const auto& [name, spec] : candidate.temporaries) specs[name] = spec;
        const std::string where = fmt::format("{} plan {} ({})", c.where, k, candidate.description);
        if (attempt(tally, where, [&] { generate_c(candidate.program, signatures_of(candidate.program, c, specs)); }))
            ++tally.lowered;
    }
}

int run(const Options& o) {
    if (o.coverings) return print_coverings();
    size_t chunk = 0, chunks = 1;
    if (std::sscanf(o.chunk.c_str(), "%zu/%zu", &chunk, &chunks) != 2 || chunks == 0 || chunk >= chunks)
        throw Error(fmt::format("--chunk {}: expected K/N with 0 <= K < N", o.chunk));
    CompileOptions compile_options;
    if (!o.cache.empty()) {
        std::filesystem::create_directories(o.cache);
        compile_options.jit.cache_dir = o.cache;
    }
    const auto start = Clock::now();
    bool stopped = false;
    Tally all;
    std::cout << fmt::format("{:<44} {:>8} {:>8} {:>8} {:>9} {:>9}\n", "program", "combos", "lowered",
                             "refused", "seconds", "slowest");
    uint64_t seed = 19;
    for (SweepProgram p : sweep_programs()) {
        if (o.fill) p.fill = *o.fill;
        if (!o.programs.empty() && std::none_of(o.programs.begin(), o.programs.end(), [&](const std::string& part) {
                return p.text.find(part) != std::string::npos;
            }))
            continue;
        const ir::Program program = ir::parse_program(p.text);
        Tally tally;
        const auto combinations = every_combination(p);
        for (size_t k = 0; k < combinations.size(); ++k) {
            seed += 16;
            if (k % chunks != chunk) continue;
            if (o.time_limit > 0 && seconds_since(start) > o.time_limit) {
                stopped = true;
                break;
            }
            sweep_one(sweep_case(p, combinations[k], seed), program, p.output, o, compile_options, tally);
        }
        std::cout << fmt::format("{:<44} {:>8} {:>8} {:>8} {:>9.1f} {:>8.3f}s\n", p.text, tally.combinations,
                                 o.compile ? tally.compared : tally.lowered, tally.refused(), tally.seconds,
                                 tally.slowest)
                  << std::flush;
        all.combinations += tally.combinations;
        all.lowered += tally.lowered;
        all.compared += tally.compared;
        all.seconds += tally.seconds;
        if (tally.slowest > all.slowest) all.slowest = tally.slowest, all.slowest_where = tally.slowest_where;
        for (auto& [message, where] : tally.refusals)
            all.refusals[message].insert(all.refusals[message].end(), where.begin(), where.end());
        all.mismatches.insert(all.mismatches.end(), tally.mismatches.begin(), tally.mismatches.end());
    }
    std::cout << fmt::format("{:<44} {:>8} {:>8} {:>8} {:>9.1f} {:>8.3f}s\n", "all", all.combinations,
                             o.compile ? all.compared : all.lowered, all.refused(), all.seconds, all.slowest);
    std::cout << fmt::format("slowest: {}\n", all.slowest_where);
    if (stopped) std::cout << fmt::format("stopped after {} s (--time-limit): the counts are partial\n", o.time_limit);
    for (const auto& [message, where] : all.refusals) {
        std::cout << fmt::format("\n{} refused: {}\n", where.size(), message);
        for (size_t k = 0; k < where.size() && static_cast<int>(k) < o.show; ++k) std::cout << "  " << where[k] << "\n";
    }
    for (const auto& m : all.mismatches) std::cout << "\ndiffers from the reference: " << m << "\n";
    if (o.compile) std::cout << fmt::format("{} differ from the reference\n", all.mismatches.size());
    return all.refusals.empty() && all.mismatches.empty() ? 0 : 1;
}

} // namespace
} // namespace siskin::testing

int main(int argc, char** argv) {
    siskin::testing::Options o;
    CLI::App app{"Every program of the format sweep over every combination of formats (issue 19)"};
    app.add_option("--program", o.programs, "Sweep only the programs whose text contains this (repeatable)");
    app.add_flag("--plans", o.plans, "Also lower every plan the planner weighs for each combination");
    app.add_flag("--compile", o.compile, "Compile and compare with the reference evaluator instead of lowering");
    app.add_option("--cache", o.cache, "Kernel cache directory for --compile (kept between runs)");
    app.add_option("--chunk", o.chunk, "K/N: only the combinations whose number is K modulo N");
    app.add_option("--time-limit", o.time_limit, "Start no combination after this many seconds (partial counts)");
    app.add_option("--fill", o.fill, "The inputs' fill (default: each program's, 0 or the identity of min= and max=)");
    app.add_flag("--coverings", o.coverings,
                 "Print how many combinations each covering of the sweep test takes (SISKIN_SWEEP)");
    app.add_option("--show", o.show, "Refusals listed per distinct message");
    CLI11_PARSE(app, argc, argv);
    try {
        return siskin::testing::run(o);
    } catch (const siskin::Error& e) {
        std::cerr << "format_sweep: " << e.what() << "\n";
        return 2;
    }
}
