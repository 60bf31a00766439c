// The `siskin` command: one line `siskin: error: ...` on stderr and exit status 1 for every
// error, whether CLI11 found it in the arguments, siskin in the input, or a siskin bug.
#include <string>
#include <string_view>

#include <CLI/CLI.hpp>

#include "commands.hpp"
#include "distributed_run.hpp"
#include "error_line.hpp"
#include "siskin/error.hpp"

int main(int argc, char** argv) {
    CLI::App app{"siskin: a compiler for sparse and structured array programs"};
    app.set_version_flag("--version", SISKIN_VERSION);
    app.require_subcommand(1);
    app.footer("\nLimits (each error says which was reached and how to raise it; 0 turns off the last three):\n"
               "  SISKIN_MAX_RANK         most dimensions of a tensor or an access (default 64)\n"
               "  SISKIN_LOWERING_BUDGET  most steps lowering one kernel takes, each looplet case and C\n"
               "                          statement one (default 100000; also --lowering-budget)\n"
               "  SISKIN_MAX_C_BYTES      largest generated C that is compiled (default 2097152)\n"
               "  SISKIN_CC_TIMEOUT       seconds one run of the C compiler may take (default 120)");
    siskin::cli::add_run_command(app);
    siskin::cli::add_explain_command(app);
    siskin::cli::add_eval_command(app);
    siskin::cli::add_c_command(app);
    siskin::cli::add_convert_command(app);
    siskin::cli::add_demo_command(app);
    siskin::cli::add_check_function_command(app);
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        // --help and --version arrive as "errors" with exit code 0: CLI11 prints them.
        if (e.get_exit_code() == 0) return app.exit(e);
        return siskin::cli::print_error(std::string(e.what()) + " (see siskin --help, or siskin COMMAND --help)");
    } catch (const siskin::cli::DistributedRunFailed&) {
        return 1; // rank 0 reported the error of a --distributed run
    } catch (const siskin::Error& e) {
        return siskin::cli::print_error(e.what()); // an Internal one says "internal error: ..." itself
    } catch (const std::exception& e) {
        return siskin::cli::print_error(std::string("internal error: ") + e.what());
    }
    return 0;
}
