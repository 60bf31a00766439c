#include "codegen/file_util.hpp"

#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <unistd.h>

#include <fmt/format.h>

#include "siskin/error.hpp"

namespace siskin::codegen {

void write_file(const std::string& path, std::string_view contents) {
    auto fail = [&](int err) {
        return Error(fmt::format("cannot write '{}': {}", path, std::strerror(err)));
    };
    int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) throw fail(errno);
    size_t done = 0;
    while (done < contents.size()) {
        ssize_t n = write(fd, contents.data() + done, contents.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            int err = errno;
            close(fd);
            throw fail(err);
        }
        done += static_cast<size_t>(n);
    }
    if (close(fd) != 0) throw fail(errno);
}

} // namespace siskin::codegen
