// jit_compile: options, the in-process map of loaded kernels, and the compile-or-load sequence.
#include "siskin/codegen/jit.hpp"

#include <atomic>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <sstream>
#include <unordered_map>

#include <dlfcn.h>
#include <unistd.h>

#include <fmt/format.h>

#include "codegen/cache.hpp"
#include "codegen/cache_entry.hpp"
#include "codegen/compiler.hpp"
#include "codegen/file_util.hpp"
#include "codegen/jit_testing.hpp"
#include "siskin/error.hpp"

namespace siskin::codegen {

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

std::vector<std::string> split_whitespace(std::string_view s) {
    std::vector<std::string> words;
    std::istringstream in{std::string(s)};
    for (std::string w; in >> w;) words.push_back(w);
    return words;
}

// The largest source compiled, and where that was decided.
struct SizeLimit {
    uint64_t bytes = 0; // 0: no limit
    std::string origin;
};

struct Settings {
    std::string compiler;
    std::string compiler_origin;
    std::optional<std::vector<std::string>> flags; // none: default_flags() for the compiler
    TimeLimit time_limit;
    SizeLimit size_limit;
};

const char* nonempty_env(const char* name) {
    const char* v = std::getenv(name);
    return v && *v ? v : nullptr;
}

// A number from the whole of `text`, or nullopt.
template <class T> std::optional<T> parse_number(std::string_view text) {
    T value{};
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
    return value;
}

TimeLimit resolve_time_limit(const JitOptions& o) {
    TimeLimit t;
    double seconds = kDefaultCompileTimeoutSeconds;
    t.origin = "the default";
    if (o.compile_timeout_s) {
        seconds = *o.compile_timeout_s;
        t.origin = "JitOptions::compile_timeout_s";
    } else if (const char* env = nonempty_env("SISKIN_CC_TIMEOUT")) {
        std::optional<double> v = parse_number<double>(env);
        if (!v || !(*v >= 0))
            throw Error(fmt::format("SISKIN_CC_TIMEOUT is '{}': give the seconds the C compiler "
                                    "may run, or 0 for no limit",
                                    env));
        seconds = *v;
        t.origin = "SISKIN_CC_TIMEOUT";
    }
    if (!(seconds >= 0))
        throw Error(fmt::format("{} is {}: give a number of seconds, or 0 for no limit", t.origin,
                                seconds));
    if (seconds > 0 && seconds < 1e9) // beyond thirty years: no limit
        t.limit = std::chrono::milliseconds(static_cast<int64_t>(std::ceil(seconds * 1000)));
    return t;
}

SizeLimit resolve_size_limit(const JitOptions& o) {
    if (o.max_c_bytes) return {*o.max_c_bytes, "JitOptions::max_c_bytes"};
    if (const char* env = nonempty_env("SISKIN_MAX_C_BYTES")) {
        std::optional<uint64_t> v = parse_number<uint64_t>(env);
        if (!v)
            throw Error(fmt::format("SISKIN_MAX_C_BYTES is '{}': give the size in bytes of the "
                                    "largest generated C to compile, or 0 for no limit",
                                    env));
        return {*v, "SISKIN_MAX_C_BYTES"};
    }
    return {kDefaultMaxCBytes, "the default"};
}

// Options first, then the environment, then the defaults. An environment variable that is set
// but empty counts as unset.
Settings resolve(const JitOptions& o) {
    Settings s;
    s.time_limit = resolve_time_limit(o);
    s.size_limit = resolve_size_limit(o);
    const char* cc = std::getenv("SISKIN_CC");
    if (o.compiler) {
        s.compiler = *o.compiler;
        s.compiler_origin = "JitOptions::compiler";
    } else if (cc && *cc) {
        s.compiler = cc;
        s.compiler_origin = "SISKIN_CC";
    } else {
        s.compiler = "cc";
        s.compiler_origin = "the default";
    }
    const char* cflags = std::getenv("SISKIN_CFLAGS");
    if (o.flags)
        s.flags = *o.flags;
    else if (cflags && *cflags)
        s.flags = split_whitespace(cflags);
    return s;
}

// GCC's major version from its `--version` (first line `gcc (Debian 12.2.0-14) 12.2.0`), or 0
// for another compiler (clang's says "clang version").
int gcc_major(std::string_view version) {
    if (version.find("Free Software Foundation") == std::string_view::npos ||
        version.find("clang") != std::string_view::npos)
        return 0;
    std::string_view first = version.substr(0, version.find('\n'));
    size_t last = first.find_last_of(' ');
    std::string_view number = last == std::string_view::npos ? first : first.substr(last + 1);
    int major = 0;
    for (char c : number) {
        if (c < '0' || c > '9') break;
        major = major * 10 + (c - '0');
    }
    return major;
}

// One slot per key. Its mutex makes threads that want the same new kernel wait for the one that
// compiles it, while kernels with different keys compile in parallel.
struct Slot {
    std::mutex mutex;
    std::shared_ptr<const CompiledLibrary> library;
};

struct LoadedLibraries {
    std::mutex mutex;
    std::unordered_map<std::string, std::shared_ptr<Slot>> slots;
};

LoadedLibraries& loaded() {
    static LoadedLibraries l;
    return l;
}

std::shared_ptr<Slot> slot_for(const std::string& key) {
    LoadedLibraries& l = loaded();
    std::lock_guard lock(l.mutex);
    auto& slot = l.slots[key];
    if (!slot) slot = std::make_shared<Slot>();
    return slot;
}

// The lines of the compiler's output that say "error", else its first lines.
std::string first_error_lines(const std::string& diagnostics, size_t max_lines = 8) {
    std::vector<std::string> all, errors;
    std::istringstream in(diagnostics);
    for (std::string line; std::getline(in, line);) {
        all.push_back(line);
        if (line.find("error") != std::string::npos && errors.size() < max_lines)
            errors.push_back(line);
    }
    if (errors.empty()) errors.assign(all.begin(), all.begin() + std::min(all.size(), max_lines));
    std::string out;
    for (const std::string& e : errors) out += "\n    " + e;
    return out.empty() ? "\n    (the compiler printed nothing)" : out;
}

std::string replace_all(std::string s, std::string_view from, std::string_view to) {
    for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
        s.replace(at, from.size(), to);
    return s;
}

// Generated C this large would compile for minutes: refused before the compiler starts.
void check_source_size(std::string_view source, const SizeLimit& limit) {
    if (limit.bytes == 0 || source.size() <= limit.bytes) return;
    throw Error(fmt::format("the generated C is {} bytes, over the limit of {} bytes ({}) that "
                            "keeps a program from compiling for minutes. Set SISKIN_MAX_C_BYTES "
                            "to more bytes, or to 0 for no limit",
                            source.size(), limit.bytes, limit.origin));
}

// Compiles the source into <key>.so through temporary files, seals it and renames it into
// place; returns the compiler's time.
double build(const KernelCache& cache, const CompilerIdentity& cc,
             const std::vector<std::string>& flags, const TimeLimit& time_limit,
             const std::string& key, const std::string& source, const std::string& library) {
    std::string include_dir = cache.runtime_include_dir();
    std::string src = cache.temp_path(key, "c"), obj = cache.temp_path(key, "so");
    write_file(src, source);
    CompileOutcome out = compile_shared_object(cc, flags, include_dir, src, obj, time_limit);
    if (!out.ok) {
        unlink(obj.c_str());
        std::string kept = cache.failed_source_path(key);
        if (rename(src.c_str(), kept.c_str()) != 0) kept = src;
        if (out.timed_out)
            throw Error(fmt::format("the C compiler was stopped: it did not finish within the "
                                    "time limit of {}; the source is kept at {}\n  command: {}",
                                    time_limit.describe(), kept, fmt::join(out.argv, " ")));
        throw Error(fmt::format("C compilation failed; the source is kept at {}\n  command: {}\n"
                                "  first errors:{}",
                                kept, fmt::join(out.argv, " "),
                                first_error_lines(replace_all(out.diagnostics, src, kept))));
    }
    unlink(src.c_str());
    try {
        seal_entry(obj, key);
    } catch (const Error&) {
        unlink(obj.c_str());
        throw;
    }
    // rename() replaces atomically: a process loading <key>.so sees the old file or the new one.
    if (rename(obj.c_str(), library.c_str()) != 0) {
        int err = errno;
        unlink(obj.c_str());
        throw Error(fmt::format("cannot install the compiled kernel as '{}': {}", library,
                                std::strerror(err)));
    }
    return out.ms;
}

} // namespace

// -falign-loops=32: on Skylake-derived cores a hot loop that happens to straddle a 32-byte
// boundary (the JCC erratum) ran SpMV 2-2.5x slower (0.75 vs 1.6-1.9 ms on luxembourg_osm) when an
// unrelated change moved the code; aligning loops keeps kernel times independent of layout.
//
// No vector gathers on x86-64 from GCC 12 on (12.4, 13.3 and 14 do the same by themselves for
// the Intel cores whose 2023 microcode made vgather slow): GCC 12.2 vectorizes int64-indexed
// SpMV with vgatherqpd and in-order adds, 3x slower than the scalar loop here (2.2 vs 0.75 ms
// on bcsstk33). Older GCC has other names for these tunings; clang does not take the option.
std::vector<std::string> default_flags(std::string_view compiler_version) {
    std::vector<std::string> flags{"-O3", "-march=native", "-falign-loops=32", "-std=c11"};
#if defined(__x86_64__)
    if (gcc_major(compiler_version) >= 12)
        flags.emplace_back("-mtune-ctrl=^use_gather_2parts,^use_gather_4parts,^use_gather");
#endif
    return flags;
}

std::string_view cache_status_name(CacheStatus s) {
    switch (s) {
    case CacheStatus::Miss: return "miss";
    case CacheStatus::DiskHit: return "hit (disk)";
    case CacheStatus::MemoryHit: return "hit (memory)";
    }
    return "?";
}

namespace {

std::atomic<int64_t> compiled_count{0};
std::atomic<int64_t> disk_load_count{0};

struct Command {
    const CompilerIdentity& cc;
    std::vector<std::string> flags;
    TimeLimit time_limit;
    SizeLimit size_limit;
};

Command command(const JitOptions& options) {
    Settings s = resolve(options);
    const CompilerIdentity& cc = compiler_identity(
        s.compiler, s.compiler_origin, [&] { return KernelCache::open(options.cache_dir).dir(); },
        s.time_limit);
    std::vector<std::string> flags = s.flags ? *s.flags : default_flags(cc.version);
    if (options.openmp) flags.emplace_back("-fopenmp");
    return {cc, std::move(flags), std::move(s.time_limit), std::move(s.size_limit)};
}

struct Loaded {
    std::shared_ptr<const CompiledLibrary> library;
    std::string problem;   // why an entry that was there was not loaded
    bool replaced = false; // another process renamed its entry into place meanwhile (kept)
};

// The cache entry at `path`, loaded if check_entry finds it sound; a damaged one is removed.
// dlopen opens the file again by name, so afterwards the name must still give the file checked
// (held open meanwhile, its inode cannot be reused).
Loaded load_once(const std::string& path, const std::string& key) {
    EntryCheck check = check_entry(path, key);
    if (!check.present()) return {};
    std::string problem = check.problem();
    if (problem.empty()) {
        try {
            std::shared_ptr<const CompiledLibrary> library = CompiledLibrary::load(path, key);
            if (check.still_names(path)) return {std::move(library), ""};
            return {nullptr,
                    fmt::format("the cached kernel '{}' was not loaded: it was replaced while it was being loaded", path),
                    true};
        } catch (const Error& e) {
            problem = e.message();
        }
    }
    check.remove(path);
    return {nullptr, fmt::format("the cached kernel '{}' was not loaded: {}", path, problem)};
}

// Processes that compile one kernel at once (Dask workers, MPI ranks) each rename their build
// into place: an entry replaced while loading is another's sound build of the same key, so it
// is loaded again, a few times, rather than removed or compiled once more.
Loaded load_entry(const std::string& path, const std::string& key) {
    Loaded found = load_once(path, key);
    for (int retry = 0; found.replaced && retry < 4; ++retry) found = load_once(path, key);
    return found;
}

} // namespace

std::vector<std::string> jit_command(const JitOptions& options) {
    Command c = command(options);
    return shared_object_command(c.cc, c.flags);
}

// An OpenMP kernel loads libgomp, whose idle worker threads outlive the parallel regions: were
// it unloaded with the last such kernel (at exit), they would run unmapped code. Loaded once and
// never unloaded.
void keep_openmp_runtime() {
    static std::once_flag once;
    std::call_once(once, [] { dlopen("libgomp.so.1", RTLD_NOW | RTLD_GLOBAL | RTLD_NODELETE); });
}

JitResult jit_compile(const std::string& c_source, const JitOptions& options) {
    if (options.openmp) keep_openmp_runtime();
    auto start = Clock::now();
    Command c = command(options);
    std::string key = kernel_key(c_source, c.cc, c.flags);

    std::shared_ptr<Slot> slot = slot_for(key);
    std::lock_guard lock(slot->mutex);
    JitResult r;
    if (slot->library) {
        r.cache = CacheStatus::MemoryHit;
    } else {
        KernelCache cache = KernelCache::open(options.cache_dir);
        std::string path = cache.library_path(key);
        Loaded found = load_entry(path, key);
        if (found.library) {
            slot->library = std::move(found.library);
            r.cache = CacheStatus::DiskHit;
            ++disk_load_count;
        } else {
            // Absent or damaged (and removed): compile it, once. What was just built and still
            // fails its check is an error, not another compile.
            r.discarded = std::move(found.problem);
            check_source_size(c_source, c.size_limit);
            r.compile_ms = build(cache, c.cc, c.flags, c.time_limit, key, c_source, path);
            Loaded built = load_entry(path, key);
            if (!built.library)
                throw Error(fmt::format("the kernel just compiled cannot be used: {}",
                                        built.problem));
            slot->library = std::move(built.library);
            r.cache = CacheStatus::Miss;
            ++compiled_count;
        }
    }
    r.library = slot->library;
    r.total_ms = ms_since(start);
    return r;
}

JitCounts jit_counts() { return {compiled_count.load(), disk_load_count.load()}; }

namespace testing {
void forget_loaded_libraries() {
    LoadedLibraries& l = loaded();
    std::lock_guard lock(l.mutex);
    l.slots.clear();
}
} // namespace testing

} // namespace siskin::codegen
