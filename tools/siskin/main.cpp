// The `siskin` command: one clear line on stderr and a non-zero exit for every error.
#include <iostream>

#include <CLI/CLI.hpp>

#include "commands.hpp"
#include "siskin/error.hpp"

int main(int argc, char** argv) {
    CLI::App app{"siskin: a compiler for sparse and structured array programs"};
    app.set_version_flag("--version", SISKIN_VERSION);
    app.require_subcommand(1);
    siskin::cli::add_run_command(app);
    siskin::cli::add_c_command(app);
    siskin::cli::add_convert_command(app);
    siskin::cli::add_demo_command(app);
    siskin::cli::add_check_function_command(app);
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        return app.exit(e);
    } catch (const siskin::Error& e) {
        std::cerr << "siskin: error: " << e.what() << "\n";
        return 1;
    } catch (const std::exception& e) {
        std::cerr << "siskin: internal error: " << e.what() << "\n";
        return 2;
    }
    return 0;
}
