#include "codegen/process.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <thread>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include "siskin/error.hpp"

extern char** environ;

namespace siskin::codegen {

namespace {

// Closes a file descriptor when it goes out of scope.
struct Fd {
    int fd = -1;
    ~Fd() {
        if (fd >= 0) close(fd);
    }
};

// posix_spawn's file actions, destroyed on every path out.
struct FileActions {
    posix_spawn_file_actions_t fa;
    FileActions() { posix_spawn_file_actions_init(&fa); }
    ~FileActions() { posix_spawn_file_actions_destroy(&fa); }
};

// posix_spawn's attributes, destroyed on every path out.
struct SpawnAttributes {
    posix_spawnattr_t attr;
    SpawnAttributes() { posix_spawnattr_init(&attr); }
    ~SpawnAttributes() { posix_spawnattr_destroy(&attr); }
};

using Clock = std::chrono::steady_clock;
using Deadline = std::optional<Clock::time_point>;

// The milliseconds poll() may wait: -1 without a deadline, else what is left of it (at least 0).
int poll_ms(Deadline deadline) {
    if (!deadline) return -1;
    auto left = std::chrono::ceil<std::chrono::milliseconds>(*deadline - Clock::now()).count();
    return static_cast<int>(std::clamp<decltype(left)>(left, 0, 1 << 30));
}

// Appends what the pipe carries to `out` until end of file; false when the deadline came first.
bool read_until(int fd, std::string& out, Deadline deadline) {
    char buf[4096];
    while (true) {
        pollfd p{fd, POLLIN, 0};
        int ready = poll(&p, 1, poll_ms(deadline));
        if (ready < 0 && errno == EINTR) continue;
        if (ready == 0) return false;
        ssize_t n = read(fd, buf, sizeof buf);
        if (n > 0)
            out.append(buf, static_cast<size_t>(n));
        else if (n == 0 || errno != EINTR)
            return true;
    }
}

// The wait status of `pid` once it has exited; nullopt when the deadline came first. A program
// may close its output and keep running, so end of file alone does not end the wait.
std::optional<int> wait_until(pid_t pid, const std::string& name, Deadline deadline) {
    auto pause = std::chrono::milliseconds(1);
    while (true) {
        int status = 0;
        pid_t r = waitpid(pid, &status, deadline ? WNOHANG : 0);
        if (r == pid) return status;
        if (r < 0 && errno != EINTR)
            throw Error(fmt::format("cannot wait for '{}': {}", name, std::strerror(errno)));
        if (r == 0) {
            if (Clock::now() >= *deadline) return std::nullopt;
            std::this_thread::sleep_for(std::min<Clock::duration>(pause, *deadline - Clock::now()));
            pause = std::min(pause * 2, std::chrono::milliseconds(50));
        }
    }
}

// Stops the process group led by `pid`: SIGTERM (a compiler removes its temporary files), a
// second's grace, then SIGKILL for whatever is left; returns the leader's wait status.
int stop_group(pid_t pid, const std::string& name) {
    kill(-pid, SIGTERM);
    std::optional<int> status = wait_until(pid, name, Clock::now() + std::chrono::seconds(1));
    // Also after the leader has gone: a child of it may have ignored SIGTERM. The group's id is
    // not reused while any member lives, so this reaches no other program.
    kill(-pid, SIGKILL);
    if (!status) status = wait_until(pid, name, std::nullopt);
    return *status;
}

} // namespace

ProcessResult run_process(const std::vector<std::string>& argv,
                          std::optional<std::chrono::milliseconds> limit) {
    SISKIN_ASSERT(!argv.empty(), "run_process needs a program");
    // O_CLOEXEC: a process spawned concurrently by another thread must not inherit this pipe,
    // or our read would not see end-of-file until that other process exits.
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0)
        throw Error(
            fmt::format("cannot create a pipe to run '{}': {}", argv[0], std::strerror(errno)));
    Fd read_end{fds[0]}, write_end{fds[1]};

    FileActions actions;
    posix_spawn_file_actions_addopen(&actions.fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&actions.fa, write_end.fd, 1); // dup2 clears O_CLOEXEC
    posix_spawn_file_actions_adddup2(&actions.fa, write_end.fd, 2);

    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);

    // A group of its own (group id = its pid), so a timeout can stop everything it started.
    SpawnAttributes attributes;
    posix_spawnattr_setflags(&attributes.attr, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&attributes.attr, 0);

    Deadline deadline;
    if (limit) deadline = Clock::now() + *limit;
    pid_t pid = 0;
    int rc = posix_spawnp(&pid, args[0], &actions.fa, &attributes.attr, args.data(), environ);
    if (rc != 0) throw Error(fmt::format("cannot run '{}': {}", argv[0], std::strerror(rc)));
    close(write_end.fd);
    write_end.fd = -1;

    ProcessResult result;
    std::optional<int> status;
    if (read_until(read_end.fd, result.output, deadline))
        status = wait_until(pid, argv[0], deadline);
    if (!status) {
        result.timed_out = true;
        status = stop_group(pid, argv[0]);
    }
    result.exit_status =
        WIFEXITED(*status) ? WEXITSTATUS(*status) : 128 + WTERMSIG(*status);
    return result;
}

} // namespace siskin::codegen
