// The `siskin` command: one line `siskin: error: ...` on stderr and exit status 1 for every
// error, whether CLI11 found it in the arguments, siskin in the input, or a siskin bug.
#include <iostream>
#include <string>
#include <string_view>

#include <CLI/CLI.hpp>

#include "commands.hpp"
#include "distributed_run.hpp"
#include "siskin/error.hpp"
#include "siskin/io.hpp"

namespace {

// The most of one message that is printed: a file's 5 MB line quoted in it is cut.
constexpr size_t kMaxMessageBytes = 2000;

// A message on one line: its lines (a parse error's excerpt, a C compiler's errors) joined by
// "; ", control bytes escaped, and cut at kMaxMessageBytes with a note of how much was shown.
std::string one_line(std::string_view message) {
    std::string joined;
    while (!message.empty()) {
        size_t end = message.find('\n');
        std::string_view line = message.substr(0, end);
        message = end == std::string_view::npos ? std::string_view() : message.substr(end + 1);
        while (!line.empty() && (line.front() == ' ' || line.front() == '\t'))
            line.remove_prefix(1);
        while (!line.empty() && (line.back() == ' ' || line.back() == '\r')) line.remove_suffix(1);
        if (line.empty()) continue;
        if (!joined.empty()) joined += "; ";
        joined += line;
    }
    return siskin::printable_text(joined, kMaxMessageBytes);
}

int error(std::string_view message) {
    std::cerr << "siskin: error: " << one_line(message) << "\n";
    return 1;
}

} // namespace

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
        return error(std::string(e.what()) + " (see siskin --help, or siskin COMMAND --help)");
    } catch (const siskin::cli::DistributedRunFailed&) {
        return 1; // rank 0 reports the error of a --distributed run
    } catch (const siskin::Error& e) {
        return error(e.what()); // an Internal one says "internal error: ..." itself
    } catch (const std::exception& e) {
        return error(std::string("internal error: ") + e.what());
    }
    return 0;
}
