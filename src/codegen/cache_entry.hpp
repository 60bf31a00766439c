#pragma once
// A kernel in the cache: a shared object that carries its own seal, checked before it is loaded.
//
// dlopen of a damaged file is not an error but a crash (a truncated object dies with SIGBUS when
// a page past its end is touched), and of another valid object a wrong answer, so nothing is
// loaded from the cache until it has been checked. The seal is one line appended to the object,
// after everything the loader reads:
//
//   \nsiskin-seal-1 key=<32 hex> xxh3=<32 hex: XXH3-128 of the bytes before the seal> bytes=<20 digits>\n
//
// It lives in the same file, so the one rename() that installs a kernel installs its seal: no
// moment in which an object and a separate record of it disagree (two processes compiling one
// key make objects that differ in bytes, since the temporary source name is in the symbol table).
#include <string>
#include <string_view>

#include <sys/types.h>

namespace siskin::codegen {

/// Makes the freshly compiled object at `path` (a temporary name in the cache) a cache entry for
/// `key`: mode 0700 whatever the umask, then the seal appended. Opens `path` without following
/// a symbolic link. Throws Error.
void seal_entry(const std::string& path, std::string_view key);

/// The outcome of checking a cache entry. The file checked stays open (and so keeps its inode)
/// while this lives, so the name can be compared with it after dlopen has opened it by name.
class EntryCheck {
public:
    EntryCheck() = default;
    EntryCheck(EntryCheck&& other) noexcept;
    EntryCheck& operator=(EntryCheck&& other) = delete;
    EntryCheck(const EntryCheck&) = delete;
    ~EntryCheck();

    bool present() const { return present_; }
    /// Empty when the entry is sound; else why it may not be loaded ("is a symbolic link", ...).
    const std::string& problem() const { return problem_; }
    /// Whether `path` names, right now and without following a link, the file examined.
    bool still_names(const std::string& path) const;
    /// Removes `path` if it still names the file examined (a concurrent process may have
    /// installed a sound entry since). Errors are ignored: the rebuild replaces it anyway.
    void remove(const std::string& path) const;

private:
    friend EntryCheck check_entry(const std::string& path, std::string_view key);
    bool present_ = false; // something, sound or not, is at the path
    std::string problem_;
    int fd_ = -1;
    dev_t dev_ = 0;
    ino_t ino_ = 0;
};

/// Opens `path` without following a symbolic link (nor blocking on a FIFO) and checks that it is
/// a regular file of this user that nobody else may write, whose seal names `key` and whose bytes
/// hash to what the seal says. Never throws for a bad entry: the result says what is wrong.
EntryCheck check_entry(const std::string& path, std::string_view key);

} // namespace siskin::codegen
