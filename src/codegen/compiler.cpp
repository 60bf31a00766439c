#include "codegen/compiler.hpp"

#include <chrono>
#include <climits>
#include <cstdlib>
#include <map>
#include <mutex>

#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

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

CompilerIdentity identify(const std::string& command, std::string_view origin) {
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
    ProcessResult r = run_process({id.path, "--version"});
    if (r.exit_status != 0)
        throw Error(fmt::format("C compiler '{}' (from {}) failed to report its version "
                                "(`{} --version` exited with status {}): {}",
                                command, origin, id.path, r.exit_status, r.output));
    id.version = std::move(r.output);
    return id;
}

} // namespace

const CompilerIdentity& compiler_identity(const std::string& command, std::string_view origin) {
    static std::mutex mutex;
    static std::map<std::string, CompilerIdentity> known; // node-based: references stay valid
    std::lock_guard lock(mutex);
    auto it = known.find(command);
    if (it == known.end()) it = known.emplace(command, identify(command, origin)).first;
    return it->second;
}

CompileOutcome compile_shared_object(const CompilerIdentity& compiler,
                                     const std::vector<std::string>& flags,
                                     const std::string& include_dir, const std::string& source,
                                     const std::string& output) {
    CompileOutcome out;
    out.argv.push_back(compiler.path);
    out.argv.insert(out.argv.end(), flags.begin(), flags.end());
    for (const char* fixed : {"-fPIC", "-shared"}) out.argv.emplace_back(fixed);
    out.argv.push_back("-I" + include_dir);
    out.argv.insert(out.argv.end(), {"-o", output, source, "-lm"});

    auto start = std::chrono::steady_clock::now();
    ProcessResult r = run_process(out.argv);
    out.ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    out.diagnostics = std::move(r.output);
    out.ok = r.exit_status == 0 && access(output.c_str(), R_OK) == 0;
    return out;
}

} // namespace siskin::codegen
