#pragma once
// The subcommands of `siskin`, each registered on the CLI11 app by one function.
#include <cstdint>
#include <optional>

#include <CLI/CLI.hpp>

namespace siskin::cli {

void add_run_command(CLI::App& app);
void add_explain_command(CLI::App& app);
void add_eval_command(CLI::App& app);
void add_demo_command(CLI::App& app);
void add_check_function_command(CLI::App& app);
void add_c_command(CLI::App& app);
void add_convert_command(CLI::App& app);

/// `--threads N` (1 to 1024) into `threads`: the threads the command's kernels run on; `what`
/// ends the help text ("the kernel runs on").
inline void add_threads_option(CLI::App* cmd, int& threads, const std::string& what) {
    cmd->add_option("--threads", threads,
                    "Threads " + what + " (default $SISKIN_NUM_THREADS, else every core; 1: serial)")
        ->check(CLI::Range(1, 1024));
}

/// `--lowering-budget N` into `budget`: the most steps lowering one kernel may take
/// (CompileOptions::lowering_budget; unset: $SISKIN_LOWERING_BUDGET, else the default).
inline void add_lowering_budget_option(CLI::App* cmd, std::optional<int64_t>& budget) {
    cmd->add_option("--lowering-budget", budget,
                    "Most steps lowering one kernel may take, each looplet case and C statement one "
                    "(default $SISKIN_LOWERING_BUDGET, else 100000; 0: no limit)")
        ->check(CLI::NonNegativeNumber);
}

} // namespace siskin::cli
