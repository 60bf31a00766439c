#pragma once
// Running the `siskin` command from tests: one popen helper for every CLI test file.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <sys/wait.h>
#include <unistd.h>

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

// A fixture with a scratch directory of its own per test (removed afterwards) holding a private
// kernel cache, so CLI runs neither share nor leave compiled kernels.
class CliScratch : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = std::filesystem::path(::testing::TempDir()) /
               ("siskin-cli-" + std::to_string(::getpid()) + "-" +
                ::testing::UnitTest::GetInstance()->current_test_info()->test_suite_name() + "-" +
                ::testing::UnitTest::GetInstance()->current_test_info()->name());
        std::filesystem::remove_all(dir_);
        std::filesystem::create_directories(dir_ / "cache");
        std::filesystem::permissions(dir_ / "cache", std::filesystem::perms::owner_all,
                                     std::filesystem::perm_options::replace);
    }
    void TearDown() override {
        std::error_code ec;
        std::filesystem::remove_all(dir_, ec);
    }
    std::string path(const std::string& name) const { return (dir_ / name).string(); }
    // The environment setting that points the command at this test's kernel cache.
    std::string cache_env() const { return "SISKIN_CACHE_DIR=" + (dir_ / "cache").string(); }
    // The command run with `args` and this test's kernel cache, stderr with stdout.
    CommandResult cli(const std::string& args) const {
        return run_command(cache_env() + " " + SISKIN_CLI_PATH + " " + args + " 2>&1");
    }
    std::filesystem::path dir_;
};

/// The whole file at `path`, as bytes (empty when it cannot be read).
inline std::string file_contents(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

} // namespace siskin::test
