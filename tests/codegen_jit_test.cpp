// The JIT: compiling and calling, the in-process and on-disk caches, keys, the cache directory's
// safety checks, concurrency, and the errors for broken source and missing compilers.
// Every test uses a fresh temporary cache directory, never the user's cache.
#include <atomic>
#include <filesystem>
#include <fstream>
#include <latch>
#include <sstream>
#include <thread>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include "codegen/compiler.hpp"
#include "codegen/jit_testing.hpp"
#include "cli_test_util.hpp"
#include "codegen_test_util.hpp"
#include "siskin/codegen/jit.hpp"

namespace siskin::codegen {
namespace {

using codegen_test::expect_error;
using codegen_test::ScopedEnv;
using codegen_test::call_answer;
using codegen_test::TempDir;
using codegen_test::unique_source;
namespace fs = std::filesystem;

std::vector<std::string> files_in(const std::string& dir) {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
}

class CodegenJit : public ::testing::Test {
protected:
    void SetUp() override {
        testing::forget_loaded_libraries();
        options_.cache_dir = cache_.path();
        // Flags from the caller's environment would change keys; SISKIN_CACHE_DIR points to the
        // temporary directory as a safety net for any call that forgets cache_dir.
        cflags_.emplace("SISKIN_CFLAGS", std::nullopt);
        cc_.emplace("SISKIN_CC", std::nullopt);
        cache_env_.emplace("SISKIN_CACHE_DIR", cache_.path());
    }

    TempDir cache_;
    JitOptions options_;
    std::optional<ScopedEnv> cflags_, cc_, cache_env_;
};

TEST_F(CodegenJit, CompilesAndCalls) {
    JitResult r = jit_compile(unique_source("call", 42), options_);
    EXPECT_EQ(r.cache, CacheStatus::Miss);
    EXPECT_GT(r.compile_ms, 0);
    EXPECT_GE(r.total_ms, r.compile_ms);
    EXPECT_EQ(call_answer(r, 8), 50);
    EXPECT_EQ(call_answer(r, -8), 42);
    EXPECT_EQ(r.library->key().size(), 32u);
    EXPECT_EQ(r.library->key().find_first_not_of("0123456789abcdef"), std::string::npos);
    EXPECT_EQ(r.library->path(), cache_.path() + "/" + r.library->key() + ".so");
    EXPECT_TRUE(fs::exists(r.library->path()));
    // Only the library, the runtime headers and (when this process asked the compiler here
    // first) the memo of its version remain: no temporary files.
    std::vector<std::string> names = files_in(cache_.path());
    std::erase_if(names, [](const std::string& n) {
        return n.rfind("compiler-", 0) == 0 && n.size() > 8 && n.substr(n.size() - 8) == ".version";
    });
    ASSERT_EQ(names.size(), 2u) << fmt::format("{}", fmt::join(files_in(cache_.path()), ", "));
    EXPECT_EQ(names[0], r.library->key() + ".so");
    EXPECT_EQ(names[1].rfind("runtime-", 0), 0u);
    EXPECT_TRUE(fs::exists(cache_.path() + "/" + names[1] + "/siskin_prelude.h"));
}

TEST_F(CodegenJit, SameSourceInProcessReturnsTheLoadedLibrary) {
    std::string src = unique_source("memory", 1);
    JitResult first = jit_compile(src, options_);
    JitResult second = jit_compile(src, options_);
    EXPECT_EQ(first.cache, CacheStatus::Miss);
    EXPECT_EQ(second.cache, CacheStatus::MemoryHit);
    EXPECT_EQ(second.compile_ms, 0);
    EXPECT_EQ(first.library.get(), second.library.get());
    EXPECT_EQ(cache_status_name(second.cache), "hit (memory)");
}

TEST_F(CodegenJit, NewProcessStateLoadsFromDiskWithoutTheCompiler) {
    // A compiler wrapper that logs every invocation, then runs cc.
    TempDir bin;
    std::string log = bin / "log", wrapper = bin / "logging-cc";
    std::ofstream(wrapper) << "#!/bin/sh\necho \"$@\" >> '" << log << "'\nexec cc \"$@\"\n";
    fs::permissions(wrapper, fs::perms::owner_all);
    options_.compiler = wrapper;

    std::string src = unique_source("disk", 2);
    JitResult first = jit_compile(src, options_);
    ASSERT_EQ(first.cache, CacheStatus::Miss);
    std::string log_after_compile = test::file_contents(log);
    EXPECT_NE(log_after_compile.find("--version"), std::string::npos);
    EXPECT_NE(log_after_compile.find("-shared"), std::string::npos);

    testing::forget_loaded_libraries();
    JitResult second = jit_compile(src, options_);
    EXPECT_EQ(second.cache, CacheStatus::DiskHit);
    EXPECT_EQ(second.compile_ms, 0);
    EXPECT_EQ(second.library->key(), first.library->key());
    EXPECT_NE(second.library.get(), first.library.get());
    EXPECT_EQ(call_answer(second, 1), 3);
    EXPECT_EQ(test::file_contents(log), log_after_compile) << "the compiler ran for a disk hit";
    EXPECT_EQ(cache_status_name(second.cache), "hit (disk)");
}

TEST_F(CodegenJit, KeyDependsOnFlagsAndSource) {
    std::string src = unique_source("flags", 3);
    options_.flags = {"-O2", "-std=c11"};
    JitResult o2 = jit_compile(src, options_);
    options_.flags = {"-O1", "-std=c11"};
    JitResult o1 = jit_compile(src, options_);
    EXPECT_NE(o1.library->key(), o2.library->key());
    EXPECT_EQ(o1.cache, CacheStatus::Miss);
    EXPECT_EQ(call_answer(o1, 1), call_answer(o2, 1));
    // The same flags from SISKIN_CFLAGS give the same key.
    testing::forget_loaded_libraries();
    ScopedEnv env("SISKIN_CFLAGS", "  -O1\t-std=c11 ");
    JitResult from_env = jit_compile(src, JitOptions{.cache_dir = cache_.path()});
    EXPECT_EQ(from_env.library->key(), o1.library->key());
    EXPECT_EQ(from_env.cache, CacheStatus::DiskHit);
    // A different source, same flags: a different key.
    EXPECT_NE(jit_compile(unique_source("flags", 3), options_).library->key(), o1.library->key());
}

TEST_F(CodegenJit, DefaultFlags) {
    const std::vector<std::string> base{"-O3", "-march=native", "-falign-loops=32", "-std=c11"};
    EXPECT_EQ(default_flags(), base);
    // GCC 12 and later on x86-64 also get no vector gathers; clang and older GCC do not know
    // the option's names.
    std::vector<std::string> gcc12 = default_flags(
        "cc (Debian 12.2.0-14+deb12u1) 12.2.0\nCopyright (C) 2022 Free Software Foundation, Inc.\n");
#if defined(__x86_64__)
    ASSERT_EQ(gcc12.size(), base.size() + 1);
    EXPECT_EQ(gcc12.back(), "-mtune-ctrl=^use_gather_2parts,^use_gather_4parts,^use_gather");
#else
    EXPECT_EQ(gcc12, base);
#endif
    EXPECT_EQ(default_flags("gcc (GCC) 11.4.0\nCopyright (C) 2021 Free Software Foundation, Inc.\n"), base);
    EXPECT_EQ(default_flags("Debian clang version 14.0.6\nTarget: x86_64-pc-linux-gnu\n"), base);
    // The command jit_compile runs: the compiler found on PATH, the flags, then -fPIC -shared.
    std::vector<std::string> command = jit_command(JitOptions{.flags = std::vector<std::string>{"-O1"}});
    ASSERT_EQ(command.size(), 4u);
    EXPECT_EQ(command[0].front(), '/');
    EXPECT_EQ(std::vector<std::string>(command.begin() + 1, command.end()),
              (std::vector<std::string>{"-O1", "-fPIC", "-shared"}));
    // Unset options and environment: the defaults, under a key distinct from explicit -O1.
    JitResult def =
        jit_compile(unique_source("default", 4), JitOptions{.cache_dir = cache_.path()});
    EXPECT_EQ(call_answer(def, 0), 4);
}

TEST_F(CodegenJit, CreatesTheCacheDirectoryPrivate) {
    mode_t old_umask = umask(0); // even a permissive umask must give 0700
    std::string dir = cache_ / "made/by/siskin";
    options_.cache_dir = dir;
    JitResult r = jit_compile(unique_source("mode", 5), options_);
    umask(old_umask);
    for (const std::string& d : {dir, cache_ / "made/by", cache_ / "made"}) {
        struct stat st;
        ASSERT_EQ(stat(d.c_str(), &st), 0) << d;
        EXPECT_EQ(st.st_mode & 07777, 0700u) << d;
    }
    EXPECT_EQ(r.library->path().rfind(dir + "/", 0), 0u);
}

TEST_F(CodegenJit, CacheDirectoryFromTheEnvironment) {
    std::string src = unique_source("env", 6);
    {
        ScopedEnv env("SISKIN_CACHE_DIR", cache_ / "env");
        EXPECT_EQ(jit_compile(src, {}).library->path().rfind(cache_ / "env/", 0), 0u);
    }
    testing::forget_loaded_libraries();
    {
        ScopedEnv no_env("SISKIN_CACHE_DIR", std::nullopt);
        ScopedEnv xdg("XDG_CACHE_HOME", cache_ / "xdg");
        EXPECT_EQ(jit_compile(src, {}).library->path().rfind(cache_ / "xdg/siskin/", 0), 0u);
    }
    testing::forget_loaded_libraries();
    {
        ScopedEnv no_env("SISKIN_CACHE_DIR", std::nullopt);
        ScopedEnv no_xdg("XDG_CACHE_HOME", std::nullopt);
        ScopedEnv home("HOME", cache_ / "home");
        EXPECT_EQ(jit_compile(src, {}).library->path().rfind(cache_ / "home/.cache/siskin/", 0),
                  0u);
    }
}

TEST_F(CodegenJit, RefusesUnsafeCacheDirectories) {
    std::string src = unique_source("unsafe", 7);
    std::string open_dir = cache_ / "open";
    fs::create_directory(open_dir);
    chmod(open_dir.c_str(), 0777);
    options_.cache_dir = open_dir;
    expect_error([&] { jit_compile(src, options_); }, open_dir, "writable by others", "chmod 700");

    chmod(open_dir.c_str(), 0770);
    expect_error([&] { jit_compile(src, options_); }, "writable by its group");

    std::string file = cache_ / "a-file";
    std::ofstream(file) << "x";
    options_.cache_dir = file;
    expect_error([&] { jit_compile(src, options_); }, "is not a directory");

    // A directory of another user: as root, give one away; otherwise / belongs to root.
    std::string foreign = "/";
    if (geteuid() == 0) {
        foreign = cache_ / "foreign";
        fs::create_directory(foreign);
        chmod(foreign.c_str(), 0700);
        ASSERT_EQ(chown(foreign.c_str(), 65534, 65534), 0);
    }
    options_.cache_dir = foreign;
    expect_error([&] { jit_compile(src, options_); }, "owned by user id", "not by you");
}

TEST_F(CodegenJit, ThreadsCompilingTheSameSourceShareOneCompile) {
    std::string src = unique_source("threads", 8);
    const int n = 4;
    std::latch start(n);
    std::vector<JitResult> results(n);
    std::vector<std::string> errors(n);
    std::vector<std::thread> threads;
    for (int t = 0; t < n; ++t)
        threads.emplace_back([&, t] {
            start.arrive_and_wait();
            try {
                results[t] = jit_compile(src, options_);
            } catch (const std::exception& e) {
                errors[t] = e.what();
            }
        });
    for (auto& th : threads) th.join();
    int misses = 0;
    for (int t = 0; t < n; ++t) {
        ASSERT_EQ(errors[t], "") << "thread " << t;
        EXPECT_EQ(call_answer(results[t], 2), 10);
        EXPECT_EQ(results[t].library.get(), results[0].library.get());
        misses += results[t].cache == CacheStatus::Miss;
    }
    EXPECT_EQ(misses, 1);
}

TEST_F(CodegenJit, ProcessesCompilingTheSameSourceShareTheCache) {
    // Two child processes compile one new kernel at the same moment; both must end up with a
    // working library, and the parent then finds it on disk.
    std::string src = unique_source("processes", 9);
    int go[2];
    ASSERT_EQ(pipe(go), 0);
    std::vector<pid_t> children;
    for (int k = 0; k < 2; ++k) {
        pid_t pid = fork();
        ASSERT_GE(pid, 0);
        if (pid == 0) {
            close(go[1]);
            char c;
            (void)!read(go[0], &c, 1); // wait for the start signal (end of file)
            int code = 1;
            try {
                code = call_answer(jit_compile(src, options_), 1) == 10 ? 0 : 2;
            } catch (...) {
                code = 3;
            }
            _exit(code);
        }
        children.push_back(pid);
    }
    close(go[0]);
    close(go[1]); // both children start now
    for (pid_t pid : children) {
        int status = 0;
        ASSERT_EQ(waitpid(pid, &status, 0), pid);
        EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child status " << status;
    }
    JitResult r = jit_compile(src, options_);
    EXPECT_EQ(r.cache, CacheStatus::DiskHit);
    for (const std::string& name : files_in(cache_.path()))
        EXPECT_NE(name.rfind("tmp-", 0), 0u) << "left behind: " << name;
}

TEST_F(CodegenJit, SyntaxErrorKeepsTheSourceAndNamesIt) {
    const std::string src = "#include \"siskin_prelude.h\"\nint broken(void) { return 1 }\n";
    std::string message;
    try {
        jit_compile(src, options_);
        FAIL() << "no error";
    } catch (const Error& e) {
        message = e.what();
    }
    size_t at = message.find(cache_.path() + "/failed-");
    ASSERT_NE(at, std::string::npos) << message;
    std::string kept = message.substr(at, message.find(".c", at + cache_.path().size()) + 2 - at);
    EXPECT_EQ(test::file_contents(kept), src);
    EXPECT_NE(message.find("error"), std::string::npos) << message;
    // The compiler's messages point at the kept file, line 2.
    EXPECT_NE(message.find(kept + ":2:"), std::string::npos) << message;
    for (const std::string& name : files_in(cache_.path())) {
        EXPECT_NE(name.rfind("tmp-", 0), 0u) << "left behind: " << name;
        EXPECT_EQ(name.find(".so"), std::string::npos) << "a library for broken source: " << name;
    }
}

// `cc --version` costs a new process most of its load time, so its answer is kept in the cache
// directory per compiler binary and read back instead of asked again.
TEST_F(CodegenJit, CompilerVersionIsKeptInTheCacheDirectory) {
    TempDir bin;
    const std::string real = compiler_identity("cc", "test").real_path;
    auto memo_dir = [&] { return cache_.path(); };
    const std::string first = bin.path() + "/cc-first";
    fs::create_symlink(real, first);
    const CompilerIdentity& id = compiler_identity(first, "test", memo_dir);
    ASSERT_FALSE(id.version.empty());
    std::string memo = compiler_version_memo(cache_.path(), id.path, id.real_path);
    ASSERT_FALSE(memo.empty());
    EXPECT_EQ(test::file_contents(memo), id.version);
    // A memo is believed: for a name whose memo is planted, the compiler is not asked.
    const std::string second = bin.path() + "/cc-second";
    fs::create_symlink(real, second);
    std::string planted = compiler_version_memo(cache_.path(), second, real);
    EXPECT_NE(planted, memo); // named by the path it is called as, too
    std::ofstream(planted) << "planted 1.0\n";
    EXPECT_EQ(compiler_identity(second, "test", memo_dir).version, "planted 1.0\n");
}

TEST_F(CodegenJit, MissingCompilerIsAClearError) {
    {
        ScopedEnv cc("SISKIN_CC", "/nonexistent/siskin-test-cc");
        expect_error([&] { jit_compile(unique_source("nocc", 10), options_); },
                     "'/nonexistent/siskin-test-cc' (from SISKIN_CC) was not found");
    }
    options_.compiler = "siskin-test-no-such-cc";
    expect_error([&] { jit_compile(unique_source("nocc", 11), options_); },
                 "'siskin-test-no-such-cc' (from JitOptions::compiler) was not found on PATH");
}

TEST_F(CodegenJit, MissingSymbolIsAClearError) {
    JitResult r = jit_compile(unique_source("symbol", 12), options_);
    expect_error([&] { r.library->symbol("no_such_kernel"); }, "no symbol 'no_such_kernel'",
                 r.library->path());
}

TEST_F(CodegenJit, DamagedCacheEntryIsRebuilt) {
    std::string src = unique_source("damaged", 13);
    JitResult first = jit_compile(src, options_);
    std::string path = first.library->path();
    first = {};
    testing::forget_loaded_libraries();
    fs::remove(path); // a new file: never scribble over a mapped one
    std::ofstream(path) << "not a shared object";
    JitResult again = jit_compile(src, options_);
    EXPECT_EQ(again.cache, CacheStatus::Miss);
    EXPECT_EQ(call_answer(again, 0), 13);
}

} // namespace
} // namespace siskin::codegen
