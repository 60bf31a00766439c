// Issue 22, cases 5 (the C compiler's part) and 11: the limits on the C compiler (its running
// time, the size of the source it is given) and a kernel cache that checks what it loads and
// cleans up after interrupted work. Each test is named after the case it pins.
// Every test uses a fresh temporary cache directory, never the user's cache.
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "codegen/cache.hpp"
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
using Clock = std::chrono::steady_clock;

void write_text(const std::string& path, std::string_view text) {
    std::ofstream(path, std::ios::binary) << text;
}

std::vector<std::string> names_starting(const std::string& dir, std::string_view prefix) {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir))
        if (e.path().filename().string().rfind(prefix, 0) == 0)
            names.push_back(e.path().filename().string());
    return names;
}

// An executable shell script.
std::string script(const TempDir& dir, std::string_view name, std::string_view body) {
    std::string path = dir / name;
    write_text(path, fmt::format("#!/bin/sh\n{}", body));
    fs::permissions(path, fs::perms::owner_all);
    return path;
}

// Gone, or a zombie waiting for a parent that does not reap (PID 1 in some containers).
bool process_ended(pid_t pid) {
    std::string stat = test::file_contents(fmt::format("/proc/{}/stat", pid));
    if (stat.empty()) return true;
    size_t paren = stat.rfind(')');
    return paren != std::string::npos && paren + 2 < stat.size() && stat[paren + 2] == 'Z';
}

bool ends_within(pid_t pid, std::chrono::seconds limit) {
    auto until = Clock::now() + limit;
    while (!process_ended(pid)) {
        if (Clock::now() > until) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return true;
}

// Drops every reference to loaded kernels, so the next jit_compile reads the disk. A file is
// never changed in place while mapped: the tests replace it with a new one.
void forget(JitResult& r) {
    r = {};
    testing::forget_loaded_libraries();
}

void replace_file(const std::string& path, std::string_view contents) {
    fs::remove(path);
    write_text(path, contents);
    chmod(path.c_str(), 0700);
}

mode_t mode_of(const std::string& path) {
    struct stat st;
    EXPECT_EQ(lstat(path.c_str(), &st), 0) << path;
    return st.st_mode;
}

class Hardening : public ::testing::Test {
protected:
    void SetUp() override {
        testing::forget_loaded_libraries();
        options_.cache_dir = cache_.path();
        cflags_.emplace("SISKIN_CFLAGS", std::nullopt);
        cc_.emplace("SISKIN_CC", std::nullopt);
        timeout_.emplace("SISKIN_CC_TIMEOUT", std::nullopt);
        max_bytes_.emplace("SISKIN_MAX_C_BYTES", std::nullopt);
        cache_env_.emplace("SISKIN_CACHE_DIR", cache_.path());
        options_.flags = std::vector<std::string>{"-O1", "-std=c11"}; // quick compiles
    }

    TempDir cache_, bin_;
    JitOptions options_;
    std::optional<ScopedEnv> cflags_, cc_, timeout_, max_bytes_, cache_env_;
};

// ---- Case 5: the C compiler runs with a time limit, and a source too large is refused -------

// A compiler that never finishes (it waits for a child that sleeps): stopped at the limit with
// everything it started, a clear error that names the limit and how to raise it, the source
// kept, no temporaries left.
TEST_F(Hardening, Case5_StuckCompilerIsStoppedAtTheTimeLimit) {
    std::string pid_file = bin_ / "sleeper.pid";
    std::string cc = script(bin_, "stuck-cc",
                            fmt::format("case \"$1\" in --version) echo stuck-cc 1.0; exit 0;; esac\n"
                                        "sleep 60 &\necho $! > '{}'\nwait\n",
                                        pid_file));
    ScopedEnv env_cc("SISKIN_CC", cc);
    ScopedEnv limit("SISKIN_CC_TIMEOUT", "1");
    options_.flags.reset();
    auto start = Clock::now();
    expect_error([&] { jit_compile(unique_source("stuck", 1), options_); },
                 "the C compiler was stopped", "time limit of 1 s (SISKIN_CC_TIMEOUT)",
                 "set SISKIN_CC_TIMEOUT to more seconds, or to 0 for no limit",
                 "the source is kept at " + cache_.path() + "/failed-", cc);
    EXPECT_LT(Clock::now() - start, std::chrono::seconds(20));
    pid_t sleeper = std::stoi(test::file_contents(pid_file));
    EXPECT_TRUE(ends_within(sleeper, std::chrono::seconds(5)))
        << "the compiler's child outlived it: " << sleeper;
    EXPECT_TRUE(names_starting(cache_.path(), "tmp-").empty());
    EXPECT_EQ(names_starting(cache_.path(), "failed-").size(), 1u);
}

// The limit holds for a compiler that closes its output and goes on running, and for the
// `--version` query that identifies the compiler.
TEST_F(Hardening, Case5_CompilerSilentOrStuckInVersionIsStopped) {
    options_.compile_timeout_s = 0.5;
    options_.compiler = script(bin_, "silent-cc",
                               "case \"$1\" in --version) echo silent-cc 1.0; exit 0;; esac\n"
                               "exec >/dev/null 2>&1\nsleep 60\n");
    expect_error([&] { jit_compile(unique_source("silent", 2), options_); },
                 "time limit of 0.5 s (JitOptions::compile_timeout_s)");

    options_.compiler = script(bin_, "mute-cc", "sleep 60\n");
    auto start = Clock::now();
    expect_error([&] { jit_compile(unique_source("mute", 3), options_); },
                 "`" + *options_.compiler + " --version` did not finish within the time limit",
                 "SISKIN_CC_TIMEOUT");
    EXPECT_LT(Clock::now() - start, std::chrono::seconds(20));
}

// The limit comes from JitOptions, else SISKIN_CC_TIMEOUT, else 120 s; 0 is no limit, and a
// value that is not a number of seconds is an error that says what to give.
TEST_F(Hardening, Case5_TimeLimitSettings) {
    {
        ScopedEnv bad("SISKIN_CC_TIMEOUT", "two minutes");
        expect_error([&] { jit_compile(unique_source("badlimit", 4), options_); },
                     "SISKIN_CC_TIMEOUT is 'two minutes'", "0 for no limit");
    }
    {
        ScopedEnv negative("SISKIN_CC_TIMEOUT", "-1");
        expect_error([&] { jit_compile(unique_source("badlimit", 5), options_); },
                     "SISKIN_CC_TIMEOUT is '-1'");
    }
    EXPECT_EQ(kDefaultCompileTimeoutSeconds, 120);
    ScopedEnv none("SISKIN_CC_TIMEOUT", "0");
    EXPECT_EQ(call_answer(jit_compile(unique_source("nolimit", 6), options_), 1), 7);
}

// Generated C over the size limit is refused before the compiler starts (a log-writing
// compiler shows it never ran), naming the size, the limit and how to raise it. 0 is no limit,
// and a kernel already in the cache loads whatever its size.
TEST_F(Hardening, Case5_OversizedSourceIsRefusedBeforeCompiling) {
    std::string log = bin_ / "log";
    options_.compiler = script(bin_, "logging-cc", fmt::format("echo \"$@\" >> '{}'\nexec cc \"$@\"\n", log));
    std::string src = unique_source("large", 7) + "/*" + std::string(2000, 'x') + "*/\n";
    {
        ScopedEnv small("SISKIN_MAX_C_BYTES", "1000");
        expect_error([&] { jit_compile(src, options_); },
                     fmt::format("the generated C is {} bytes", src.size()),
                     "over the limit of 1000 bytes (SISKIN_MAX_C_BYTES)",
                     "Set SISKIN_MAX_C_BYTES to more bytes, or to 0 for no limit");
        EXPECT_EQ(test::file_contents(log).find("-shared"), std::string::npos) << "the compiler ran";
        options_.max_c_bytes = 100;
        expect_error([&] { jit_compile(src, options_); }, "(JitOptions::max_c_bytes)");
        options_.max_c_bytes.reset();
    }
    {
        ScopedEnv bad("SISKIN_MAX_C_BYTES", "2MB");
        expect_error([&] { jit_compile(src, options_); }, "SISKIN_MAX_C_BYTES is '2MB'");
    }
    EXPECT_EQ(kDefaultMaxCBytes, 2u << 20);
    JitResult r;
    {
        ScopedEnv none("SISKIN_MAX_C_BYTES", "0");
        r = jit_compile(src, options_);
        EXPECT_EQ(call_answer(r, 1), 8);
    }
    forget(r);
    options_.max_c_bytes = 1000;
    r = jit_compile(src, options_);
    EXPECT_EQ(r.cache, CacheStatus::DiskHit);
}

// ---- Case 11: the cache checks what it loads, keeps kernels private, sweeps temporaries -----

// A truncated kernel (1 KB, 12 KB, all but one byte) used to load and die with SIGBUS on every
// later run. Now it fails its check, is removed and rebuilt; the next run loads the repair.
TEST_F(Hardening, Case11_TruncatedKernelIsRebuiltNotLoaded) {
    std::string src = unique_source("truncated", 11);
    JitResult r = jit_compile(src, options_);
    std::string path = r.library->path();
    const std::string whole = test::file_contents(path);
    ASSERT_GT(whole.size(), 12u * 1024) << "a kernel smaller than the cases of the issue";
    for (size_t keep : {size_t{1024}, size_t{12 * 1024}, whole.size() - 1}) {
        forget(r);
        replace_file(path, whole.substr(0, keep));
        r = jit_compile(src, options_);
        EXPECT_EQ(r.cache, CacheStatus::Miss) << keep;
        EXPECT_NE(r.discarded.find(path), std::string::npos) << r.discarded;
        EXPECT_NE(r.discarded.find("no seal"), std::string::npos) << r.discarded;
        EXPECT_EQ(call_answer(r, 1), 12);
        forget(r);
        r = jit_compile(src, options_);
        EXPECT_EQ(r.cache, CacheStatus::DiskHit) << "the repair was not kept";
        EXPECT_EQ(r.discarded, "");
    }
    // One byte changed: the hash catches it. One byte appended: the seal is no longer last.
    std::string flipped = whole;
    flipped[flipped.size() / 2] ^= 1;
    for (auto [damaged, why] : {std::pair<std::string, std::string>{flipped, "damaged"},
                                {whole + "x", "no seal"}}) {
        forget(r);
        replace_file(path, damaged);
        r = jit_compile(src, options_);
        EXPECT_EQ(r.cache, CacheStatus::Miss);
        EXPECT_NE(r.discarded.find(why), std::string::npos) << r.discarded;
        EXPECT_EQ(call_answer(r, 1), 12);
    }
}

// Another valid kernel copied into an entry's place, or a symbolic link to one, used to be
// loaded and give its answer. Now the seal names the wrong key, or the link is not followed;
// the entry is rebuilt and the other kernel's file is untouched.
TEST_F(Hardening, Case11_AnotherKernelInItsPlaceIsRebuiltNotLoaded) {
    std::string mine = unique_source("mine", 100), other = unique_source("other", 200);
    JitResult a = jit_compile(mine, options_), b = jit_compile(other, options_);
    std::string path = a.library->path(), other_path = b.library->path();
    const std::string other_bytes = test::file_contents(other_path);
    forget(a);
    forget(b);

    replace_file(path, other_bytes);
    a = jit_compile(mine, options_);
    EXPECT_EQ(a.cache, CacheStatus::Miss);
    EXPECT_NE(a.discarded.find("sealed for another kernel"), std::string::npos) << a.discarded;
    EXPECT_EQ(call_answer(a, 1), 101);

    forget(a);
    fs::remove(path);
    fs::create_symlink(other_path, path);
    a = jit_compile(mine, options_);
    EXPECT_EQ(a.cache, CacheStatus::Miss);
    EXPECT_NE(a.discarded.find("symbolic link"), std::string::npos) << a.discarded;
    EXPECT_EQ(call_answer(a, 1), 101);
    EXPECT_TRUE(S_ISREG(mode_of(path))) << "the link is still there";
    EXPECT_EQ(test::file_contents(other_path), other_bytes);
}

// Not a file of this user's that only they may write: a FIFO (the check must not hang opening
// it), a directory's worth of nothing, a kernel others may write.
TEST_F(Hardening, Case11_EntryThatIsNotAPrivateFileIsRebuilt) {
    std::string src = unique_source("fifo", 300);
    JitResult r = jit_compile(src, options_);
    std::string path = r.library->path();
    const std::string whole = test::file_contents(path);
    forget(r);

    fs::remove(path);
    ASSERT_EQ(mkfifo(path.c_str(), 0600), 0);
    r = jit_compile(src, options_);
    EXPECT_NE(r.discarded.find("not a regular file"), std::string::npos) << r.discarded;
    EXPECT_EQ(call_answer(r, 0), 300);

    forget(r);
    replace_file(path, whole);
    chmod(path.c_str(), 0777);
    r = jit_compile(src, options_);
    EXPECT_NE(r.discarded.find("others may write it (mode 0777)"), std::string::npos)
        << r.discarded;
    EXPECT_EQ(mode_of(path) & 07777, 0700u);
}

// With umask 000 kernels used to be written 0777. Now: 0700 for kernels, 0600 for kept sources.
TEST_F(Hardening, Case11_KernelsArePrivateWhateverTheUmask) {
    mode_t old_umask = umask(0);
    JitResult r = jit_compile(unique_source("umask", 400), options_);
    std::string failed_message;
    try {
        jit_compile("#include \"siskin_prelude.h\"\nint broken(void) { return 1 }\n", options_);
    } catch (const Error& e) {
        failed_message = e.what();
    }
    umask(old_umask);
    EXPECT_EQ(mode_of(r.library->path()) & 07777, 0700u);
    std::vector<std::string> failed = names_starting(cache_.path(), "failed-");
    ASSERT_EQ(failed.size(), 1u) << failed_message;
    EXPECT_EQ(mode_of(cache_ / failed[0]) & 07777, 0600u);
}

// Interrupted compiles used to leave tmp-* files forever and failed-*.c files were never
// removed. The first open of a cache directory in a process sweeps: temporaries older than an
// hour (files, the runtime's directories, the version memo's), failed sources beyond the newest
// 16 or older than a week. Fresh temporaries, other entries and the targets of links stay.
TEST_F(Hardening, Case11_StaleTemporariesAndOldFailedSourcesAreSwept) {
    TempDir outside;
    std::string dir = cache_ / "swept";
    fs::create_directory(dir);
    chmod(dir.c_str(), 0700);
    auto age = [&](const std::string& name, std::chrono::seconds seconds) {
        std::string path = dir + "/" + name;
        struct timespec times[2];
        times[0].tv_sec = times[1].tv_sec = time(nullptr) - seconds.count();
        times[0].tv_nsec = times[1].tv_nsec = 0;
        ASSERT_EQ(utimensat(AT_FDCWD, path.c_str(), times, AT_SYMLINK_NOFOLLOW), 0) << path;
    };
    using std::chrono::hours;
    auto file = [&](const std::string& name, std::chrono::seconds old) {
        write_text(dir + "/" + name, "x");
        age(name, old);
    };
    file("tmp-aaaa-1-1.c", hours(2));
    file("tmp-aaaa-1-2.so", hours(2));
    file("tmp-bbbb-1-3.c", std::chrono::minutes(5)); // a compile still running
    fs::create_directory(dir + "/tmp-runtime-1-4.d");
    write_text(dir + "/tmp-runtime-1-4.d/siskin_prelude.h", "x");
    age("tmp-runtime-1-4.d", hours(2));
    file("compiler-cccc.version.tmp-99", hours(2));
    file("compiler-dddd.version", hours(24 * 30)); // not a temporary, however old
    file("eeee.so", hours(24 * 30));
    write_text(outside / "target", "keep me");
    fs::create_symlink(outside / "target", dir + "/tmp-link");
    age("tmp-link", hours(2));
    for (int i = 0; i < 20; ++i) file(fmt::format("failed-{:02}.c", i), hours(i + 1));
    file("failed-old.c", hours(24 * 8));

    KernelCache::open(dir);

    std::vector<std::string> left;
    for (const auto& e : fs::directory_iterator(dir)) left.push_back(e.path().filename().string());
    std::sort(left.begin(), left.end());
    std::vector<std::string> expected{"compiler-dddd.version", "eeee.so"};
    for (int i = 0; i < 16; ++i) expected.push_back(fmt::format("failed-{:02}.c", i));
    expected.push_back("tmp-bbbb-1-3.c");
    std::sort(expected.begin(), expected.end());
    EXPECT_EQ(left, expected);
    EXPECT_EQ(test::file_contents(outside / "target"), "keep me");
}

} // namespace
} // namespace siskin::codegen
