#pragma once
// The system C compiler: finding it, identifying it (for the cache key) and running it to build
// a shared object.
#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace siskin::codegen {

/// How long one run of the compiler may take, and where that was decided ("SISKIN_CC_TIMEOUT",
/// "JitOptions::compile_timeout_s", "the default"): the error for a stopped compiler names both.
struct TimeLimit {
    std::optional<std::chrono::milliseconds> limit; // none: no limit
    std::string origin;
    /// "120 s (the default); set SISKIN_CC_TIMEOUT to more seconds, or to 0 for no limit"
    std::string describe() const;
};

struct CompilerIdentity {
    std::string path;      // where the command was found (run as is: clang's behaviour depends on
                           // the name it is called by)
    std::string real_path; // the file it resolves to, symlinks followed
    std::string version;   // its `--version` output
};

/// Finds `command` (a path, or a name looked up on PATH) and asks it for its version, once per
/// process and command. `origin` says where the command came from ("SISKIN_CC", "JitOptions")
/// for the error raised when it is missing or does not run. `memo_dir`, when it gives a
/// directory, keeps the version across processes in a file named by the compiler's real path,
/// size and modification time (running `cc --version` costs a new process most of its 5 ms).
/// `limit` bounds how long `--version` may run, as for a compile: a stuck compiler is an error.
const CompilerIdentity& compiler_identity(const std::string& command, std::string_view origin,
                                          const std::function<std::string()>& memo_dir = {},
                                          const TimeLimit& limit = {});

/// The file in `dir` that keeps the `--version` of the compiler called as `path` (resolving to
/// `real_path`), named by both and the binary's size and modification time; "" when the binary
/// cannot be examined.
std::string compiler_version_memo(const std::string& dir, const std::string& path, const std::string& real_path);

struct CompileOutcome {
    bool ok = false;
    bool timed_out = false;        // stopped at the time limit (ok is false then)
    std::string diagnostics;       // everything the compiler printed
    std::vector<std::string> argv; // the command that ran
    double ms = 0;                 // wall time of the compiler
};

/// The compiler, `flags`, then -fPIC -shared: the start of every command that builds a kernel
/// (jit_command prints it).
std::vector<std::string> shared_object_command(const CompilerIdentity& compiler,
                                               const std::vector<std::string>& flags);

/// Compiles C source file `source` into the shared object `output` with shared_object_command,
/// then the include directory of the runtime headers and -lm. A compiler still running after
/// `limit` is stopped, with everything it started (run_process).
CompileOutcome compile_shared_object(const CompilerIdentity& compiler,
                                     const std::vector<std::string>& flags,
                                     const std::string& include_dir, const std::string& source,
                                     const std::string& output, const TimeLimit& limit = {});

} // namespace siskin::codegen
