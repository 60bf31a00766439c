// Threaded kernels in the child of a fork: libgomp's thread pool is not fork-safe (the child's
// copy lists the parent's threads, which do not exist there), so after the parent ran a parallel
// region a child's region of two threads would wait for them forever. Kernel::run caps a forked
// child's calls at one thread (kernel_thread_cap): the child computes what the parent computed.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <thread>

#include "compiler/kernel_impl.hpp"
#include "compiler_test_util.hpp"
#include "tensor/transpose.hpp"

namespace siskin::testing {
namespace {

// Runs `child` in a forked child under an alarm of `limit_s` seconds; its exit code (0: it
// returned true), or -SIGALRM / -signal when a signal ended it, -1 when it had to be killed.
int in_forked_child(const std::function<bool()>& child, int limit_s) {
    pid_t pid = fork();
    if (pid < 0) return -1000;
    if (pid == 0) {
        alarm(static_cast<unsigned>(limit_s)); // a hang ends with SIGALRM
        bool ok = false;
        try {
            ok = child();
        } catch (...) {
        }
        _exit(ok ? 0 : 1);
    }
    // The parent's own limit, in case the child blocks SIGALRM.
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(limit_s + 30);
    int status = 0;
    while (waitpid(pid, &status, WNOHANG) == 0) {
        if (std::chrono::steady_clock::now() > deadline) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            return -1;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    if (WIFSIGNALED(status)) return -WTERMSIG(status);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -2;
}

TEST(ThreadedKernelsAfterFork, AForkedChildRunsThemOnOneThreadAndGetsTheSameResult) {
    CompileOptions o = test_options();
    o.threads = 2;
    o.parallel_min_work = 0; // above the threshold: the parent starts libgomp's pool
    Tensor A = random_matrix_of(300, 200, 0.2, "csr", 51, 0.0, [](double u) { return std::floor(u * 9) - 4; });
    Tensor B = random_matrix_of(300, 200, 0.2, "csr", 52, 0.0, [](double u) { return std::floor(u * 9) - 4; });
    Tensor x = random_tensor_of({200}, "dense", 1.0, Scalar::of(0.0), 53,
                                [](std::mt19937_64& r) { return Scalar::of(static_cast<double>(r() % 5)); });
    std::map<std::string, const Tensor*> inputs{{"A", &A}, {"B", &B}, {"x", &x}};
    OutputSpec csr_output;
    csr_output.format = Format::parse("csr", 2);
    std::map<std::string, OutputSpec> csr{{"C", csr_output}};
    // A dense output, a scalar reduction (per-thread partials) and a CSR output (per-thread
    // buffers joined after a barrier): each kind of region.
    CompiledProgram spmv = compile_for(ir::parse_program("y[i] += A[i, j] * x[j]"), inputs, {}, o);
    CompiledProgram total = compile_for(ir::parse_program("s[] += A[i, j] * x[j]"), inputs, {}, o);
    CompiledProgram add = compile_for(ir::parse_program("C[i, j] = A[i, j] + B[i, j]"), inputs, csr, o);
    for (const auto* k : {&spmv, &total, &add})
        ASSERT_NE(k->kernel->c_source().find("#pragma omp parallel"), std::string::npos);
    // The parent runs the first two (the pool now has a thread); the third is run first in the
    // child, a kernel loaded before the fork whose region the parent never entered.
    auto y = spmv.run(inputs), s = total.run(inputs);
    auto want_add = evaluate_reference(ir::parse_program("C[i, j] = A[i, j] + B[i, j]"), inputs, csr);
    ir::Program row_sums = ir::parse_program("r[i] += A[i, j]");
    auto want_sums = evaluate_reference(row_sums, inputs);

    EXPECT_EQ(spmv.kernel->impl().last_threads().kernel, 2);
    int code = in_forked_child(
        [&] {
            for (int round = 0; round < 3; ++round)
                if (!same_output(y.at("y"), spmv.run(inputs).at("y")) ||
                    !same_output(s.at("s"), total.run(inputs).at("s")) ||
                    !same_output(want_add.at("C"), add.run(inputs).at("C")))
                    return false;
            if (spmv.kernel->impl().last_threads().kernel != 1) return false;
            // A kernel compiled and loaded after the fork.
            if (!same_output(want_sums.at("r"), compile_for(row_sums, inputs, {}, o).run(inputs).at("r")))
                return false;
            // A grandchild: the cap holds through a second fork.
            return in_forked_child([&] { return same_output(y.at("y"), spmv.run(inputs).at("y")); }, 20) == 0;
        },
        90);
    EXPECT_EQ(code, 0) << "child: " << (code == -SIGALRM ? "hung (SIGALRM)" : "failed");
    // The parent keeps its threads.
    EXPECT_TRUE(same_output(y.at("y"), spmv.run(inputs).at("y")));
}

TEST(ThreadedKernelsAfterFork, AForkedChildTransposesOnOneThread) {
    // The counting-sort transpose runs on the kernels' OpenMP team (thread_team.hpp), so after a
    // fork it is capped at one thread as kernels are: the parent's transpose on two threads
    // starts libgomp's pool, the child's gives the same tensor on one. 3000 x 200 with about
    // 150,000 entries is above two shares of 2^16 rows plus entries.
    Tensor A = random_matrix_of(3000, 200, 0.25, "csr", 54, 0.0, [](double u) { return std::floor(u * 9) - 4; });
    ASSERT_GT(A.stored() + 3000, 2 * (int64_t{1} << 16));
    Format csc = Format::parse("csc", 2);
    Tensor want = A.convert(csc);
    auto transposed = [&](int& team) {
        team = 0;
        return same_output(want, detail::convert_on_threads(A, csc, 2, &team));
    };
    int team = 0;
    ASSERT_TRUE(transposed(team));
    EXPECT_EQ(team, 2);
    int code = in_forked_child([&] {
        int child_team = 0;
        return transposed(child_team) && child_team == 1;
    }, 60);
    EXPECT_EQ(code, 0) << "child: " << (code == -SIGALRM ? "hung (SIGALRM)" : "failed");
}

} // namespace
} // namespace siskin::testing
