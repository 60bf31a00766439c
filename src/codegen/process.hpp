#pragma once
// Running a program with an argument vector (never through a shell) and capturing its output.
#include <string>
#include <vector>

namespace siskin::codegen {

struct ProcessResult {
    int exit_status = 0; // the exit status, or 128 + signal number when a signal ended it
    std::string output;  // stdout and stderr, interleaved as written
};

/// Runs argv[0] (a path, or a name looked up on PATH) with arguments argv[1..], stdin from
/// /dev/null, and waits for it. Throws Error when the program cannot be started.
ProcessResult run_process(const std::vector<std::string>& argv);

} // namespace siskin::codegen
