#pragma once
// Compiling generated C with the system compiler, loading it, and caching it on disk and in
// memory.
//
//   auto r = siskin::codegen::jit_compile(c_source);
//   auto* spmv = r.library->function<int(int64_t, const double*, double*)>("spmv");
//   int status = spmv(n, x, y); // keep r.library alive while calling into it
//
// The source starts with `#include "siskin_prelude.h"` (see runtime.hpp) and uses nothing else
// beyond the standard headers. The shared object is stored as <cache dir>/<key>.so, where the key
// hashes the source, the compiler (its path and `--version`), the flags and siskin's version, so
// a later process with the same kernel loads it without compiling. Compiles go to a temporary
// file that is renamed into place, so concurrent processes share the cache safely. Every object
// carries a seal (its key and a hash of its bytes) that is checked before it is loaded: a
// truncated, replaced or symlinked entry is removed and compiled again, never loaded.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace siskin::codegen {

/// How to compile. A field left unset falls back to the environment, then to the default:
///   compiler   $SISKIN_CC, else "cc"  (a path, or a name looked up on PATH)
///   flags      $SISKIN_CFLAGS split at whitespace, else default_flags() for the compiler
///   cache_dir  $SISKIN_CACHE_DIR, else $XDG_CACHE_HOME/siskin, else ~/.cache/siskin
///   compile_timeout_s  $SISKIN_CC_TIMEOUT, else 120: seconds the compiler may run (0: no limit)
///   max_c_bytes        $SISKIN_MAX_C_BYTES, else 2 MiB: the largest source compiled (0: none)
/// Whatever the flags, the compiler also gets -fPIC -shared, the runtime include directory and
/// -lm: those make the output a loadable library, they are not a choice.
struct JitOptions {
    std::optional<std::string> compiler = {};
    std::optional<std::vector<std::string>> flags = {};
    std::optional<std::string> cache_dir = {};
    std::optional<double> compile_timeout_s = {};
    std::optional<uint64_t> max_c_bytes = {};
    /// The source has OpenMP regions: the compiler also gets -fopenmp (and the key its flags).
    bool openmp = false;
};

/// The defaults of the limits above. A one-line program can generate megabytes of C (2.6 MB took
/// GCC -O3 three minutes): 2 MiB is about what compiles within the time limit, so a larger
/// source is refused at once instead of stopped after the wait.
inline constexpr double kDefaultCompileTimeoutSeconds = 120;
inline constexpr uint64_t kDefaultMaxCBytes = uint64_t{2} << 20;

/// {"-O3", "-march=native", "-falign-loops=32", "-std=c11"}, for GCC 12 or later on x86-64
/// (`compiler_version` is its `--version`) with vector gathers turned off: no -ffast-math,
/// kernels keep IEEE semantics.
std::vector<std::string> default_flags(std::string_view compiler_version = {});

/// A loaded shared object. It stays loaded while a shared_ptr to it lives; the in-process cache
/// holds one for every library jit_compile returned, so in practice kernels stay loaded.
class CompiledLibrary {
public:
    /// Loads an existing shared object (RTLD_NOW | RTLD_LOCAL); throws Error when it cannot.
    static std::shared_ptr<const CompiledLibrary> load(std::string path, std::string key);
    ~CompiledLibrary();
    CompiledLibrary(const CompiledLibrary&) = delete;
    CompiledLibrary& operator=(const CompiledLibrary&) = delete;

    /// The address of an exported symbol; throws Error naming the symbol and library if absent.
    void* symbol(std::string_view name) const;
    /// A function by name, e.g. function<int(int64_t, double*)>("kernel").
    template <class F> F* function(std::string_view name) const {
        return reinterpret_cast<F*>(symbol(name));
    }

    const std::string& key() const { return key_; }
    const std::string& path() const { return path_; }

private:
    CompiledLibrary(void* handle, std::string path, std::string key)
        : handle_(handle), path_(std::move(path)), key_(std::move(key)) {}
    void* handle_;
    std::string path_;
    std::string key_;
};

enum class CacheStatus {
    Miss,      // compiled now
    DiskHit,   // loaded from the cache directory without compiling
    MemoryHit, // already loaded by this process
};

/// "miss", "hit (disk)", "hit (memory)".
std::string_view cache_status_name(CacheStatus s);

struct JitResult {
    std::shared_ptr<const CompiledLibrary> library;
    CacheStatus cache = CacheStatus::Miss;
    double compile_ms = 0; // time spent in the C compiler; 0 on a hit
    double total_ms = 0;   // the whole jit_compile call: key, cache lookup, compile, load
    std::string discarded; // why a cache entry was removed and compiled again; empty if none
};

/// Compiles `c_source` into a shared object and loads it, or reuses a cached one. Thread-safe:
/// threads asking for the same new source compile it once. Throws Error when the compiler is
/// missing, fails or runs past its time limit (the message names the kept source file,
/// <cache dir>/failed-<key>.c, and the first error lines, or the limit), when the source is
/// larger than max_c_bytes (before compiling), or when the cache directory is unsafe (not owned
/// by the user, or writable by others).
JitResult jit_compile(const std::string& c_source, const JitOptions& options = {});

/// What jit_compile has done in this process since it started: kernels compiled by the C
/// compiler and kernels loaded from the disk cache (hits in memory are not counted). For tools
/// and tests that show a kernel is compiled once, not once per call or per chunk.
struct JitCounts {
    int64_t compiled = 0;
    int64_t loaded_from_disk = 0;
};
JitCounts jit_counts();

/// The compiler and flags jit_compile would run for these options: {path, flags..., "-fPIC",
/// "-shared"} (it adds the runtime include directory, the files and -lm). Throws Error when the
/// compiler cannot be found or run.
std::vector<std::string> jit_command(const JitOptions& options = {});

} // namespace siskin::codegen
