#include "codegen/cache_entry.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>
#include <utility>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>
#include <xxhash.h>

#include "siskin/error.hpp"

namespace siskin::codegen {

namespace {

constexpr std::string_view kSealStart = "\nsiskin-seal-1 key=";

std::string seal_text(std::string_view key, XXH128_hash_t hash, uint64_t bytes) {
    return fmt::format("{}{} xxh3={:016x}{:016x} bytes={:020}\n", kSealStart, key, hash.high64,
                       hash.low64, bytes);
}

const size_t kSealSize = seal_text(std::string(32, '0'), {}, 0).size();

// Reads exactly `n` bytes at `offset`; false on a short read or an error.
bool read_at(int fd, char* out, size_t n, off_t offset) {
    while (n > 0) {
        ssize_t got = pread(fd, out, n, offset);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) return false;
        out += got;
        n -= static_cast<size_t>(got);
        offset += got;
    }
    return true;
}

// XXH3-128 of the first `bytes` bytes of the file; nullopt when they cannot all be read.
std::optional<XXH128_hash_t> hash_prefix(int fd, uint64_t bytes) {
    XXH3_state_t* st = XXH3_createState();
    SISKIN_ASSERT(st != nullptr, "out of memory for a hash state");
    XXH3_128bits_reset(st);
    char buf[1 << 16];
    bool ok = true;
    for (uint64_t done = 0; done < bytes && ok;) {
        size_t n = static_cast<size_t>(std::min<uint64_t>(sizeof buf, bytes - done));
        ok = read_at(fd, buf, n, static_cast<off_t>(done));
        XXH3_128bits_update(st, buf, n);
        done += n;
    }
    XXH128_hash_t h = XXH3_128bits_digest(st);
    XXH3_freeState(st);
    if (!ok) return std::nullopt;
    return h;
}

} // namespace

void seal_entry(const std::string& path, std::string_view key) {
    auto fail = [&](std::string_view what, int err) {
        return Error(fmt::format("cannot seal the compiled kernel '{}': {}: {}", path, what,
                                 std::strerror(err)));
    };
    int fd = open(path.c_str(), O_RDWR | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) throw fail("open", errno);
    struct Closer {
        int fd;
        ~Closer() { close(fd); }
    } closer{fd};
    struct stat st;
    if (fstat(fd, &st) != 0) throw fail("fstat", errno);
    if (!S_ISREG(st.st_mode)) throw fail("not a regular file", EINVAL);
    // The compiler created it 0777 less the umask: under umask 000, writable by everyone.
    if (fchmod(fd, 0700) != 0) throw fail("fchmod", errno);
    uint64_t bytes = static_cast<uint64_t>(st.st_size);
    std::optional<XXH128_hash_t> hash = hash_prefix(fd, bytes);
    if (!hash) throw fail("read", EIO);
    std::string seal = seal_text(key, *hash, bytes);
    for (size_t done = 0; done < seal.size();) {
        ssize_t n = pwrite(fd, seal.data() + done, seal.size() - done,
                           static_cast<off_t>(bytes + done));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) throw fail("write", n < 0 ? errno : EIO);
        done += static_cast<size_t>(n);
    }
}

EntryCheck::EntryCheck(EntryCheck&& other) noexcept
    : present_(other.present_), problem_(std::move(other.problem_)),
      fd_(std::exchange(other.fd_, -1)), dev_(other.dev_), ino_(other.ino_) {}

EntryCheck::~EntryCheck() {
    if (fd_ >= 0) close(fd_);
}

bool EntryCheck::still_names(const std::string& path) const {
    struct stat st;
    return present_ && lstat(path.c_str(), &st) == 0 && st.st_dev == dev_ && st.st_ino == ino_;
}

void EntryCheck::remove(const std::string& path) const {
    if (still_names(path)) unlink(path.c_str());
}

EntryCheck check_entry(const std::string& path, std::string_view key) {
    EntryCheck c;
    auto bad = [&](std::string problem) {
        c.problem_ = std::move(problem);
        return std::move(c);
    };
    // O_NONBLOCK: a FIFO put in the cache must not hang the open.
    c.fd_ = open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (c.fd_ < 0) {
        int err = errno;
        struct stat st;
        if (lstat(path.c_str(), &st) != 0) return c; // nothing there
        c.present_ = true;
        c.dev_ = st.st_dev;
        c.ino_ = st.st_ino;
        if (S_ISLNK(st.st_mode)) return bad("it is a symbolic link");
        return bad(fmt::format("it cannot be opened: {}", std::strerror(err)));
    }
    c.present_ = true;
    struct stat st;
    if (fstat(c.fd_, &st) != 0) return bad(fmt::format("fstat failed: {}", std::strerror(errno)));
    c.dev_ = st.st_dev;
    c.ino_ = st.st_ino;
    if (!S_ISREG(st.st_mode)) return bad("it is not a regular file");
    if (st.st_uid != geteuid())
        return bad(fmt::format("it belongs to user id {}, not to you", st.st_uid));
    if (st.st_mode & (S_IWGRP | S_IWOTH))
        return bad(fmt::format("others may write it (mode {:04o})", st.st_mode & 07777));
    uint64_t size = static_cast<uint64_t>(st.st_size);
    std::string seal(kSealSize, '\0');
    if (size < kSealSize || !read_at(c.fd_, seal.data(), kSealSize, static_cast<off_t>(size - kSealSize)) ||
        seal.compare(0, kSealStart.size(), kSealStart) != 0)
        return bad("it has no seal (truncated, or not written by this siskin)");
    std::string_view sealed_key = std::string_view(seal).substr(kSealStart.size(), key.size());
    if (sealed_key != key)
        return bad(fmt::format("it is sealed for another kernel ({})", sealed_key));
    uint64_t bytes = size - kSealSize;
    std::optional<XXH128_hash_t> hash = hash_prefix(c.fd_, bytes);
    if (!hash || seal != seal_text(key, *hash, bytes))
        return bad("its contents do not match its seal (damaged)");
    return c;
}

} // namespace siskin::codegen
