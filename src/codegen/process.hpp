#pragma once
// Running a program with an argument vector (never through a shell) and capturing its output.
#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace siskin::codegen {

struct ProcessResult {
    int exit_status = 0;    // the exit status, or 128 + signal number when a signal ended it
    std::string output;     // stdout and stderr, interleaved as written
    bool timed_out = false; // it ran past its limit and was stopped
};

/// Runs argv[0] (a path, or a name looked up on PATH) with arguments argv[1..], stdin from
/// /dev/null, and waits for it. Throws Error when the program cannot be started.
///
/// The program runs in a process group of its own, so that everything it starts (a compiler
/// driver's cc1, as and ld) can be stopped with it. With a `limit`, a program still running when
/// the limit has passed gets SIGTERM, one second later SIGKILL, both sent to its whole group,
/// and the result says timed_out; the output it printed until then is kept.
ProcessResult run_process(const std::vector<std::string>& argv,
                          std::optional<std::chrono::milliseconds> limit = std::nullopt);

} // namespace siskin::codegen
