#include "codegen/cache.hpp"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>

#include <dirent.h>
#include <fcntl.h>
#include <pwd.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <fmt/format.h>
#include <xxhash.h>

#include "codegen/file_util.hpp"
#include "siskin/codegen/runtime.hpp"
#include "siskin/error.hpp"

#ifndef SISKIN_VERSION
#error "SISKIN_VERSION must be defined by the build"
#endif

namespace siskin::codegen {

namespace {

// Bump when the way a kernel is built changes in a way the other key parts do not show (the
// fixed compiler arguments, the library file layout).
constexpr std::string_view kRecipe = "siskin-kernel-2 -fPIC -shared -lm sealed";

// Feeds a part into the hash with its length, so ("ab", "c") and ("a", "bc") differ.
void add_part(XXH3_state_t* st, std::string_view part) {
    uint64_t n = part.size();
    XXH3_128bits_update(st, &n, sizeof n);
    XXH3_128bits_update(st, part.data(), part.size());
}

// A hash of the embedded runtime headers: names the runtime include directory and enters the key.
const std::string& runtime_hash() {
    static const std::string hash = [] {
        XXH3_state_t* st = XXH3_createState();
        XXH3_128bits_reset(st);
        for (const RuntimeFile& f : runtime_files()) {
            add_part(st, f.name);
            add_part(st, f.contents);
        }
        XXH128_hash_t h = XXH3_128bits_digest(st);
        XXH3_freeState(st);
        return fmt::format("{:016x}", h.high64);
    }();
    return hash;
}

// The host CPU: the machine name plus the model and feature lines of /proc/cpuinfo.
const std::string& host_cpu() {
    static const std::string cpu = [] {
        std::string s;
        struct utsname u;
        if (uname(&u) == 0) s = u.machine;
        std::ifstream in("/proc/cpuinfo");
        std::string line;
        bool model = false, features = false;
        while (std::getline(in, line) && !(model && features)) {
            auto starts = [&](std::string_view p) { return line.compare(0, p.size(), p) == 0; };
            if (!model && (starts("model name") || starts("CPU part"))) {
                s += "\n" + line;
                model = true;
            } else if (!features && (starts("flags") || starts("Features"))) {
                s += "\n" + line;
                features = true;
            }
        }
        return s;
    }();
    return cpu;
}

bool targets_host_cpu(const std::vector<std::string>& flags) {
    for (const std::string& f : flags)
        if (f.find("=native") != std::string::npos) return true;
    return false;
}

std::string home_dir() {
    if (const char* home = std::getenv("HOME"); home && *home) return home;
    if (const passwd* pw = getpwuid(getuid()); pw && pw->pw_dir) return pw->pw_dir;
    throw Error("cannot find a cache directory: HOME is not set; set SISKIN_CACHE_DIR");
}

const char* nonempty_env(const char* name) {
    const char* v = std::getenv(name);
    return v && *v ? v : nullptr;
}

std::string absolute(std::string path) {
    while (path.size() > 1 && path.back() == '/') path.pop_back();
    if (path.empty() || path[0] == '/') return path;
    char cwd[4096];
    if (!getcwd(cwd, sizeof cwd))
        throw Error(
            fmt::format("cannot resolve the cache directory '{}': {}", path, std::strerror(errno)));
    return std::string(cwd) + "/" + path;
}

// mkdir -p with mode 0700 for every directory it creates.
void make_dirs(const std::string& dir, std::string_view origin) {
    if (mkdir(dir.c_str(), 0700) == 0) {
        chmod(dir.c_str(), 0700); // exactly 0700, whatever the umask
        return;
    }
    if (errno == EEXIST) return;
    if (errno == ENOENT) {
        size_t slash = dir.rfind('/');
        if (slash != std::string::npos && slash > 0) {
            make_dirs(dir.substr(0, slash), origin);
            if (mkdir(dir.c_str(), 0700) == 0 || errno == EEXIST) {
                chmod(dir.c_str(), 0700);
                return;
            }
        }
    }
    throw Error(fmt::format("cannot create the siskin cache directory '{}' (from {}): {}", dir,
                            origin, std::strerror(errno)));
}

// Loading a library runs its code: refuse a directory someone else could have put one into.
void check_safe(const std::string& dir, std::string_view origin) {
    struct stat st;
    if (stat(dir.c_str(), &st) != 0)
        throw Error(fmt::format("cannot use the siskin cache directory '{}' (from {}): {}", dir,
                                origin, std::strerror(errno)));
    if (!S_ISDIR(st.st_mode))
        throw Error(fmt::format("the siskin cache directory '{}' (from {}) is not a directory", dir,
                                origin));
    if (st.st_uid != geteuid())
        throw Error(
            fmt::format("refusing the siskin cache directory '{}' (from {}): it is owned by "
                        "user id {}, not by you (user id {}); set SISKIN_CACHE_DIR to a "
                        "directory of your own",
                        dir, origin, st.st_uid, geteuid()));
    if (st.st_mode & (S_IWGRP | S_IWOTH))
        throw Error(fmt::format(
            "refusing the siskin cache directory '{}' (from {}): it is writable "
            "by {} (mode {:04o}), so others could plant code in it; run "
            "`chmod 700 '{}'` or set SISKIN_CACHE_DIR",
            dir, origin, (st.st_mode & S_IWOTH) ? "others" : "its group", st.st_mode & 07777, dir));
}

bool starts_with(std::string_view s, std::string_view prefix) {
    return s.compare(0, prefix.size(), prefix) == 0;
}

bool ends_with(std::string_view s, std::string_view suffix) {
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Sweeps a directory once per process: a program compiling many kernels lists it once.
bool first_open(const std::string& dir) {
    static std::mutex mutex;
    static std::set<std::string> swept;
    std::lock_guard lock(mutex);
    return swept.insert(dir).second;
}

} // namespace

void sweep_cache_dir(const std::string& dir) {
    DIR* d = opendir(dir.c_str());
    if (!d) return;
    const time_t now = std::time(nullptr);
    struct Failed {
        time_t mtime;
        std::string name;
    };
    std::vector<Failed> failed;
    std::vector<std::string> stale;
    while (const dirent* e = readdir(d)) {
        std::string_view name = e->d_name;
        bool temporary = starts_with(name, "tmp-") || name.find(".tmp-") != std::string_view::npos;
        bool failed_source = starts_with(name, "failed-") && ends_with(name, ".c");
        if (!temporary && !failed_source) continue;
        struct stat st;
        if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
        time_t age = now - st.st_mtime;
        if (temporary && age > KernelCache::kStaleTemporarySeconds)
            stale.emplace_back(name);
        else if (failed_source)
            failed.push_back({st.st_mtime, std::string(name)});
    }
    closedir(d);
    std::sort(failed.begin(), failed.end(),
              [](const Failed& a, const Failed& b) { return a.mtime > b.mtime; });
    for (size_t i = 0; i < failed.size(); ++i)
        if (i >= KernelCache::kKeptFailedSources ||
            now - failed[i].mtime > KernelCache::kFailedSourceSeconds)
            stale.push_back(failed[i].name);
    for (const std::string& name : stale) {
        // remove_all removes a symbolic link itself, never what it points to.
        std::error_code ignored;
        std::filesystem::remove_all(dir + "/" + name, ignored);
    }
}

std::string kernel_key(std::string_view source, const CompilerIdentity& compiler,
                       const std::vector<std::string>& flags) {
    XXH3_state_t* st = XXH3_createState();
    SISKIN_ASSERT(st != nullptr, "out of memory for a hash state");
    XXH3_128bits_reset(st);
    add_part(st, kRecipe);
    add_part(st, SISKIN_VERSION);
    add_part(st, runtime_hash());
    add_part(st, compiler.path);
    add_part(st, compiler.real_path);
    add_part(st, compiler.version);
    add_part(st, std::to_string(flags.size()));
    for (const std::string& f : flags) add_part(st, f);
    add_part(st, targets_host_cpu(flags) ? host_cpu() : std::string());
    add_part(st, source);
    XXH128_hash_t h = XXH3_128bits_digest(st);
    XXH3_freeState(st);
    return fmt::format("{:016x}{:016x}", h.high64, h.low64);
}

KernelCache KernelCache::open(const std::optional<std::string>& dir) {
    std::string path, origin;
    if (dir) {
        if (dir->empty()) throw Error("JitOptions::cache_dir is empty");
        path = *dir;
        origin = "JitOptions::cache_dir";
    } else if (const char* env = nonempty_env("SISKIN_CACHE_DIR")) {
        path = env;
        origin = "SISKIN_CACHE_DIR";
    } else if (const char* xdg = nonempty_env("XDG_CACHE_HOME"); xdg && xdg[0] == '/') {
        path = std::string(xdg) + "/siskin"; // the XDG spec ignores relative values
        origin = "XDG_CACHE_HOME";
    } else {
        path = home_dir() + "/.cache/siskin";
        origin = "the default ~/.cache/siskin";
    }
    path = absolute(std::move(path));
    make_dirs(path, origin);
    check_safe(path, origin);
    if (first_open(path)) sweep_cache_dir(path);
    return KernelCache(std::move(path));
}

std::string KernelCache::library_path(std::string_view key) const {
    return fmt::format("{}/{}.so", dir_, key);
}

std::string KernelCache::failed_source_path(std::string_view key) const {
    return fmt::format("{}/failed-{}.c", dir_, key);
}

std::string KernelCache::temp_path(std::string_view key, std::string_view extension) const {
    static std::atomic<uint64_t> counter{0};
    return fmt::format("{}/tmp-{}-{}-{}.{}", dir_, key, getpid(), counter++, extension);
}

std::string KernelCache::runtime_include_dir() const {
    std::string final_dir = fmt::format("{}/runtime-{}", dir_, runtime_hash());
    struct stat st;
    if (stat(final_dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) return final_dir;

    // Write the headers into a private directory, then rename it into place in one step, so a
    // concurrent compile never sees a half-written runtime.
    std::string tmp = temp_path("runtime", "d");
    if (mkdir(tmp.c_str(), 0700) != 0)
        throw Error(fmt::format("cannot create '{}': {}", tmp, std::strerror(errno)));
    for (const RuntimeFile& f : runtime_files())
        write_file(tmp + "/" + std::string(f.name), f.contents);
    if (rename(tmp.c_str(), final_dir.c_str()) != 0) {
        int err = errno;
        for (const RuntimeFile& f : runtime_files())
            unlink((tmp + "/" + std::string(f.name)).c_str());
        rmdir(tmp.c_str());
        // Another process installed the same runtime first: use theirs.
        if (err != EEXIST && err != ENOTEMPTY)
            throw Error(fmt::format("cannot install the runtime headers into '{}': {}", final_dir,
                                    std::strerror(err)));
    }
    return final_dir;
}

} // namespace siskin::codegen
