#pragma once
// Running the `siskin` command from tests: one popen helper for every CLI test file.
#include <cstdio>
#include <string>

#include <sys/wait.h>

#include <gtest/gtest.h>

namespace siskin::test {

struct CommandResult {
    int status;         // exit status, -1 when the command did not exit normally
    std::string output; // what the command wrote to stdout
};

// Runs a shell command line and collects its standard output.
inline CommandResult run_command(const std::string& command) {
    FILE* pipe = popen(command.c_str(), "r");
    EXPECT_NE(pipe, nullptr) << command;
    if (!pipe) return {-1, ""};
    std::string output;
    char chunk[4096];
    while (size_t n = fread(chunk, 1, sizeof chunk, pipe)) output.append(chunk, n);
    int status = pclose(pipe);
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, output};
}

// The siskin command with `args`, stdout and stderr together.
inline CommandResult siskin_cli(const std::string& args) {
    return run_command(std::string(SISKIN_CLI_PATH) + " " + args + " 2>&1");
}

} // namespace siskin::test
