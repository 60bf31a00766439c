#pragma once
// The subcommands of `siskin`, each registered on the CLI11 app by one function.
#include <CLI/CLI.hpp>

namespace siskin::cli {

void add_run_command(CLI::App& app);
void add_explain_command(CLI::App& app);
void add_eval_command(CLI::App& app);
void add_demo_command(CLI::App& app);
void add_check_function_command(CLI::App& app);
void add_c_command(CLI::App& app);
void add_convert_command(CLI::App& app);

} // namespace siskin::cli
