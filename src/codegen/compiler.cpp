#include "codegen/compiler.hpp"

#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>

#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>
#include <xxhash.h>

#include "codegen/file_util.hpp"
#include "codegen/process.hpp"
#include "siskin/error.hpp"

namespace siskin::codegen {

namespace {

bool is_executable_file(const std::string& path) {
    struct stat st;
    return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(path.c_str(), X_OK) == 0;
}

// The command as a path: itself when it names one, else the first match on PATH.
std::string find_command(const std::string& command) {
    if (command.find('/') != std::string::npos) return is_executable_file(command) ? command : "";
    const char* path = std::getenv("PATH");
    std::string_view dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
    while (true) {
        size_t colon = dirs.find(':');
        std::string dir(dirs.substr(0, colon));
        std::string candidate = (dir.empty() ? "." : dir) + "/" + command;
        if (is_executable_file(candidate)) return candidate;
        if (colon == std::string_view::npos) return "";
        dirs.remove_prefix(colon + 1);
    }
}

std::optional<std::string> read_memo(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return std::nullopt;
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

// Written beside its name and renamed over it, so a concurrent reader sees all of it or none.
void write_memo(const std::string& path, const std::string& version) {
    std::string temp = fmt::format("{}.tmp-{}", path, static_cast<long long>(getpid()));
    try {
        write_file(temp, version);
        if (std::rename(temp.c_str(), path.c_str()) != 0) std::remove(temp.c_str());
    } catch (const Error&) {
        std::remove(temp.c_str()); // a memo is an optimisation: failing to write it is no error
    }
}

CompilerIdentity identify(const std::string& command, std::string_view origin,
                          const std::function<std::string()>& memo_dir, const TimeLimit& limit) {
    if (command.empty()) throw Error(fmt::format("the C compiler given by {} is empty", origin));
    CompilerIdentity id;
    id.path = find_command(command);
    if (id.path.empty())
        throw Error(fmt::format("C compiler '{}' (from {}) was not found{}; install a C compiler "
                                "or set SISKIN_CC to one",
                                command, origin,
                                command.find('/') == std::string::npos ? " on PATH" : ""));
    char real[PATH_MAX];
    id.real_path = realpath(id.path.c_str(), real) ? std::string(real) : id.path;
    std::string memo = memo_dir ? compiler_version_memo(memo_dir(), id.path, id.real_path) : "";
    if (!memo.empty())
        if (auto version = read_memo(memo); version && !version->empty()) {
            id.version = std::move(*version);
            return id;
        }
    ProcessResult r = run_process({id.path, "--version"}, limit.limit);
    if (r.timed_out)
        throw Error(fmt::format("C compiler '{}' (from {}) was stopped: `{} --version` did not "
                                "finish within the time limit of {}",
                                command, origin, id.path, limit.describe()));
    if (r.exit_status != 0)
        throw Error(fmt::format("C compiler '{}' (from {}) failed to report its version "
                                "(`{} --version` exited with status {}): {}",
                                command, origin, id.path, r.exit_status, r.output));
    id.version = std::move(r.output);
    if (!memo.empty() && !id.version.empty()) write_memo(memo, id.version);
    return id;
}

} // namespace

std::string TimeLimit::describe() const {
    std::string seconds =
        limit ? fmt::format("{:g} s", std::chrono::duration<double>(*limit).count()) : "none";
    return fmt::format("{} ({}); set SISKIN_CC_TIMEOUT to more seconds, or to 0 for no limit",
                       seconds, origin);
}

// `<dir>/compiler-<hash>.version`: the memo of one compiler binary's `--version`, named by its
// path as called, real path, size and modification time, so a reinstalled compiler gets a new one.
std::string compiler_version_memo(const std::string& dir, const std::string& path, const std::string& real_path) {
    struct stat st;
    if (stat(real_path.c_str(), &st) != 0) return "";
    std::string id = fmt::format("{}\n{}\n{}\n{}.{}", path, real_path, static_cast<long long>(st.st_size),
                                 static_cast<long long>(st.st_mtim.tv_sec), static_cast<long long>(st.st_mtim.tv_nsec));
    XXH128_hash_t h = XXH3_128bits(id.data(), id.size());
    return fmt::format("{}/compiler-{:016x}{:016x}.version", dir, h.high64, h.low64);
}

const CompilerIdentity& compiler_identity(const std::string& command, std::string_view origin,
                                          const std::function<std::string()>& memo_dir,
                                          const TimeLimit& limit) {
    static std::mutex mutex;
    static std::map<std::string, CompilerIdentity> known; // node-based: references stay valid
    std::lock_guard lock(mutex);
    auto it = known.find(command);
    if (it == known.end()) it = known.emplace(command, identify(command, origin, memo_dir, limit)).first;
    return it->second;
}

std::vector<std::string> shared_object_command(const CompilerIdentity& compiler,
                                               const std::vector<std::string>& flags) {
    std::vector<std::string> argv{compiler.path};
    argv.insert(argv.end(), flags.begin(), flags.end());
    for (const char* fixed : {"-fPIC", "-shared"}) argv.emplace_back(fixed);
    return argv;
}

CompileOutcome compile_shared_object(const CompilerIdentity& compiler,
                                     const std::vector<std::string>& flags,
                                     const std::string& include_dir, const std::string& source,
                                     const std::string& output, const TimeLimit& limit) {
    CompileOutcome out;
    out.argv = shared_object_command(compiler, flags);
    out.argv.push_back("-I" + include_dir);
    out.argv.insert(out.argv.end(), {"-o", output, source, "-lm"});

    auto start = std::chrono::steady_clock::now();
    ProcessResult r = run_process(out.argv, limit.limit);
    out.ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    out.diagnostics = std::move(r.output);
    out.timed_out = r.timed_out;
    out.ok = !r.timed_out && r.exit_status == 0 && access(output.c_str(), R_OK) == 0;
    return out;
}

} // namespace siskin::codegen
