// OutputFiles: every file of a run written to a temporary beside it, fsynced, and renamed into
// place only when all of them were written, so that a failure leaves the old files (or none)
// instead of a truncated one that reads back as a valid, wrong tensor.
#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include "io/writers.hpp"
#include "siskin/error.hpp"
#include "siskin/io.hpp"

namespace siskin {

namespace {

namespace fs = std::filesystem;

// The message of a failed system call: errno read right after the call that failed, never later.
[[noreturn]] void fail(const std::string& what, const std::string& path, int err) {
    throw Error(fmt::format("cannot {} {}: {}", what, quote_input(path, 4096), std::strerror(err)));
}

// Writes all of `text` to `fd`, retrying short writes and EINTR; the errno of the failure or 0.
int write_all(int fd, std::string_view text) {
    while (!text.empty()) {
        ssize_t n = ::write(fd, text.data(), text.size());
        if (n < 0) {
            if (errno == EINTR) continue;
            return errno;
        }
        text.remove_prefix(static_cast<size_t>(n));
    }
    return 0;
}

// The file the text finally goes to: a symbolic link is replaced by what it points to, so that
// renaming onto it updates the target, as writing through the link did.
std::string final_path(const std::string& path) {
    std::error_code ec;
    if (fs::is_symlink(fs::symlink_status(path, ec))) {
        fs::path target = fs::weakly_canonical(path, ec);
        if (!ec) return target.string();
    }
    return path;
}

// True for a destination that a rename cannot replace, which is written directly, last: one
// that exists and is not a regular file (a pipe, a terminal), and anything under /dev or /proc
// (/dev/stdout names the shell's redirection, whatever file that is).
bool is_special(const std::string& given, const std::string& target) {
    if (given.starts_with("/dev/") || given.starts_with("/proc/")) return true;
    struct stat st {};
    return ::stat(target.c_str(), &st) == 0 && !S_ISREG(st.st_mode);
}

void fsync_directory(const std::string& path) {
    fs::path dir = fs::path(path).parent_path();
    int fd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return; // best effort: the files themselves are synced
    ::fsync(fd);
    ::close(fd);
}

} // namespace

OutputFiles::~OutputFiles() {
    for (const Pending& p : pending_)
        if (!p.temp.empty()) ::unlink(p.temp.c_str());
}

void OutputFiles::write_tensor(const Tensor& t, const std::string& path,
                               const WriteOptions& options) {
    write_text(path, io::tensor_file_text(t, path, options));
}

void OutputFiles::write_text(const std::string& path, std::string_view text) {
    if (committed_) throw Error("OutputFiles: write after commit", Error::Kind::Internal);
    for (const Pending& p : pending_)
        if (p.path == path)
            throw Error(fmt::format("{} is written twice in one run", quote_input(path, 4096)));
    Pending p;
    p.path = path;
    std::string target = final_path(path);
    if (is_special(path, target)) {
        p.direct = std::string(text);
        pending_.push_back(std::move(p));
        return;
    }
    fs::path dest(target);
    static std::atomic<uint64_t> counter{0};
    std::string name = fmt::format(".{}.siskin-{}-{}.tmp", dest.filename().string(), ::getpid(),
                                   counter++);
    std::string temp = (dest.parent_path() / name).string();
    int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0) fail("create a file beside", path, errno);
    p.temp = temp;
    p.target = target;
    pending_.push_back(p); // from here the destructor removes the temporary
    // A file that is replaced keeps its permissions, as it did when written in place.
    struct stat old {};
    if (::stat(target.c_str(), &old) == 0 && ::fchmod(fd, old.st_mode & 07777) != 0) {
        int err = errno;
        ::close(fd);
        fail("keep the permissions of", path, err);
    }
    if (int err = write_all(fd, text)) {
        ::close(fd);
        fail("write", path, err);
    }
    if (::fsync(fd) != 0) {
        int err = errno;
        ::close(fd);
        fail("write (fsync)", path, err);
    }
    if (::close(fd) != 0) fail("write (close)", path, errno);
}

void OutputFiles::commit() {
    if (committed_) return;
    committed_ = true;
    for (Pending& p : pending_) {
        if (p.temp.empty()) continue;
        if (::rename(p.temp.c_str(), p.target.c_str()) != 0) fail("replace", p.path, errno);
        p.temp.clear();
        fsync_directory(p.target);
    }
    for (const Pending& p : pending_) {
        if (!p.direct) continue;
        int fd = ::open(p.path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
        if (fd < 0) fail("open", p.path, errno);
        int err = write_all(fd, *p.direct);
        ::close(fd);
        if (err) fail("write", p.path, err);
    }
}

} // namespace siskin
