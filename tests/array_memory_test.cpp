// Fused chains allocate no temporary: the peak resident memory of `siskin eval` over a 3000 x
// 3000 CSR matrix (30000 entries) stays within a small allowance above the same command's on a
// 30 x 30 matrix, where a dense temporary of the matrix's shape (72 MB) cannot fit; the same
// measurement sees the dense temporary of an unfused chain (a contraction below a reduction), so
// it would see one in the fused chains too.
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <random>
#include <set>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "cli_test_util.hpp"

namespace siskin::test {
namespace {

class ArrayMemory : public CliScratch {
protected:
    /// A random n x n Matrix Market file with `entries` distinct entries.
    std::string matrix_file(const std::string& name, int n, int entries) {
        std::mt19937 rng(7);
        std::set<std::pair<int, int>> at;
        while (static_cast<int>(at.size()) < entries)
            at.insert({static_cast<int>(rng() % n) + 1, static_cast<int>(rng() % n) + 1});
        std::string file = path(name);
        std::ofstream out(file);
        out << "%%MatrixMarket matrix coordinate real general\n" << n << " " << n << " " << entries << "\n";
        for (auto [i, j] : at) out << i << " " << j << " " << 1 + rng() % 9 << "\n";
        return file;
    }

    /// The peak resident set of `siskin eval EXPR -i A=FILE:csr --stats FILE`, in MiB, measured
    /// on a second run (the first compiles the kernel into the test's cache, so the C compiler
    /// does not run in the measured one).
    double peak_mib(const std::string& expression, const std::string& file) {
        double peak = 0;
        for (int run = 0; run < 2; ++run) {
            std::string stats = path("stats.json");
            pid_t pid = fork();
            if (pid == 0) {
                std::string cache = path("cache");
                setenv("SISKIN_CACHE_DIR", cache.c_str(), 1);
                std::string input = "A=" + file + ":csr";
                int null = open("/dev/null", O_WRONLY);
                dup2(null, 1);
                execl(SISKIN_CLI_PATH, SISKIN_CLI_PATH, "eval", expression.c_str(), "-i",
                      input.c_str(), "--stats", stats.c_str(), static_cast<char*>(nullptr));
                _exit(127);
            }
            int status = 0;
            struct rusage usage {};
            EXPECT_EQ(wait4(pid, &status, 0, &usage), pid);
            EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << expression;
            peak = static_cast<double>(usage.ru_maxrss) / 1024.0; // ru_maxrss is in KiB
        }
        return peak;
    }
};

TEST_F(ArrayMemory, FusedChainsAllocateNoTemporary) {
    std::string small = matrix_file("small.mtx", 30, 30);
    std::string large = matrix_file("large.mtx", 3000, 30000);
    // The input (12 bytes an entry as CSR, more while the file is read) and the outputs (3000
    // or 6000 doubles) are below 4 MiB; a dense 3000 x 3000 temporary is 68.7 MiB.
    const double allowance = 24.0;
    for (const char* chain : {"sum(flip(A, axis=1) * 2 + A, axis=1)",
                                     "sum(vstack((A, A[::-1])), axis=1)",
                                     "max(A[:, 2999:0:-3] - 1, axis=0)"}) {
        double base = peak_mib(chain, small), peak = peak_mib(chain, large); // NOLINT
        EXPECT_LT(peak - base, allowance) << chain << ": " << base << " MiB on 30 x 30, " << peak
                                          << " MiB on 3000 x 3000";
    }
    // The control: the product below the reduction is a dense 3000 x 3000 temporary.
    const std::string unfused = "sum(A @ A, axis=1)";
    double base = peak_mib(unfused, small), peak = peak_mib(unfused, large);
    EXPECT_GT(peak - base, 60.0) << unfused << ": " << base << " MiB, then " << peak << " MiB";
}

} // namespace
} // namespace siskin::test
