#pragma once
// The on-disk kernel cache: a per-user directory of shared objects named by a content key.
//
// Layout of the directory (created 0700; an existing one must belong to the user and not be
// writable by group or others, since loading a library from it runs its code):
//   <key>.so             a compiled kernel, mode 0700, sealed with its key and content hash
//                        (cache_entry.hpp) and installed by rename(): it is checked before
//                        every load, and a damaged or mismatched one is removed and rebuilt
//   failed-<key>.c       the source of a kernel that did not compile, kept for the user to
//                        inspect: the newest 16, for a week
//   runtime-<hash>/      the embedded runtime headers of one siskin build (the -I directory)
//   compiler-<hash>.version  a compiler's `--version`, kept so a new process need not ask it
//   tmp-*, *.tmp-*       files being written; each process writes only its own. Those an
//                        interrupted process left are removed once they are an hour old
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "codegen/compiler.hpp"

namespace siskin::codegen {

/// The cache key: XXH3-128, as 32 hex digits, of the C source, the compiler's identity, the
/// flags, siskin's version and the runtime headers. When a flag asks for the host CPU
/// (-march=native and the like) the CPU's model and feature flags are part of it too, so a home
/// directory shared by different machines never hands one machine another's instructions.
std::string kernel_key(std::string_view source, const CompilerIdentity& compiler,
                       const std::vector<std::string>& flags);

class KernelCache {
public:
    /// The directory `dir`, else $SISKIN_CACHE_DIR, else $XDG_CACHE_HOME/siskin, else
    /// ~/.cache/siskin: created with mode 0700 if missing, checked if present. Throws Error when
    /// it cannot be created or is not safe to load code from. The first open of a directory in a
    /// process sweeps it (sweep_cache_dir).
    static KernelCache open(const std::optional<std::string>& dir);

    const std::string& dir() const { return dir_; }
    std::string library_path(std::string_view key) const;       // <dir>/<key>.so
    std::string failed_source_path(std::string_view key) const; // <dir>/failed-<key>.c
    /// A fresh file name in the directory, unique across threads and processes.
    std::string temp_path(std::string_view key, std::string_view extension) const;
    /// The directory holding this build's runtime headers, written on first use.
    std::string runtime_include_dir() const;

    /// How old a temporary file must be to count as left behind. No compile takes this long
    /// under the default time limit; a compiler that runs longer has read its source by then,
    /// and writes its output under a fresh name.
    static constexpr int kStaleTemporarySeconds = 60 * 60;
    /// Kept failed sources: at most this many, the newest, and none older than a week.
    static constexpr size_t kKeptFailedSources = 16;
    static constexpr int kFailedSourceSeconds = 7 * 24 * 60 * 60;

private:
    explicit KernelCache(std::string dir) : dir_(std::move(dir)) {}
    std::string dir_;
};

/// Removes what interrupted or failed work left in the cache directory `dir`: temporaries
/// (`tmp-*`, `*.tmp-*`, files or directories) older than kStaleTemporarySeconds, and failed
/// sources beyond the newest kKeptFailedSources or older than kFailedSourceSeconds. Symbolic
/// links are removed, never followed. Errors are ignored: sweeping is housekeeping.
void sweep_cache_dir(const std::string& dir);

} // namespace siskin::codegen
