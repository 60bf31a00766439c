#include "codegen/process.hpp"

#include <cerrno>
#include <cstring>

#include <fcntl.h>
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

} // namespace

ProcessResult run_process(const std::vector<std::string>& argv) {
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

    pid_t pid = 0;
    int rc = posix_spawnp(&pid, args[0], &actions.fa, nullptr, args.data(), environ);
    if (rc != 0) throw Error(fmt::format("cannot run '{}': {}", argv[0], std::strerror(rc)));
    close(write_end.fd);
    write_end.fd = -1;

    ProcessResult result;
    char buf[4096];
    while (true) {
        ssize_t n = read(read_end.fd, buf, sizeof buf);
        if (n > 0) {
            result.output.append(buf, static_cast<size_t>(n));
        } else if (n == 0 || errno != EINTR) {
            break;
        }
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR)
            throw Error(fmt::format("cannot wait for '{}': {}", argv[0], std::strerror(errno)));
    }
    result.exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return result;
}

} // namespace siskin::codegen
