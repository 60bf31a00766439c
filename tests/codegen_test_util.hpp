#pragma once
// Helpers shared by the codegen tests: a private temporary directory, scoped environment
// variables, and a check that a call throws siskin::Error with a given message.
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include "siskin/codegen/jit.hpp"
#include "siskin/error.hpp"

namespace siskin::codegen_test {

/// A fresh directory under the system temporary directory, removed with everything in it.
class TempDir {
public:
    TempDir() {
        std::string tmpl =
            (std::filesystem::temp_directory_path() / "siskin-codegen-XXXXXX").string();
        if (!mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
        path_ = tmpl;
    }
    ~TempDir() {
        std::error_code ec;
        std::filesystem::remove_all(path_, ec);
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;

    const std::string& path() const { return path_; }
    std::string operator/(std::string_view name) const { return path_ + "/" + std::string(name); }

private:
    std::string path_;
};

/// Sets (or, with nullopt, unsets) an environment variable and restores it on scope exit.
class ScopedEnv {
public:
    ScopedEnv(const char* name, std::optional<std::string> value) : name_(name) {
        if (const char* old = std::getenv(name)) old_ = old;
        if (value)
            setenv(name, value->c_str(), 1);
        else
            unsetenv(name);
    }
    ~ScopedEnv() {
        if (old_)
            setenv(name_, old_->c_str(), 1);
        else
            unsetenv(name_);
    }
    ScopedEnv(const ScopedEnv&) = delete;
    ScopedEnv& operator=(const ScopedEnv&) = delete;

private:
    const char* name_;
    std::optional<std::string> old_;
};

/// Expects f() to throw siskin::Error whose message contains every one of `needles`.
template <class F, class... S> void expect_error(F&& f, const S&... needles) {
    try {
        f();
        ADD_FAILURE() << "expected a siskin::Error, nothing was thrown";
    } catch (const siskin::Error& e) {
        std::string what = e.what();
        for (std::string_view n : {std::string_view(needles)...})
            EXPECT_NE(what.find(n), std::string::npos) << "'" << n << "' not in: " << what;
    }
}

/// A C source no other test compiles (a fresh JIT cache key): `answer(x)` returns max(x, 0) +
/// value.
inline std::string unique_source(std::string_view tag, int value) {
    static std::atomic<int> counter{0};
    return fmt::format("#include \"siskin_prelude.h\"\n/* {} {} {} */\n"
                       "int64_t answer(int64_t x) {{ return siskin_max_i64(x, 0) + {}; }}\n",
                       tag, getpid(), counter++, value);
}

/// Calls the `answer` of a library built from unique_source.
inline int64_t call_answer(const codegen::JitResult& r, int64_t x) {
    return r.library->function<int64_t(int64_t)>("answer")(x);
}

} // namespace siskin::codegen_test
