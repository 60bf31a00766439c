#pragma once
// The library's own parallel phases (the counting-sort transpose) on the OpenMP team the kernels
// use: a parallel region of the same libgomp, so the threads a kernel's region left spinning or
// waiting in the pool run the transpose too, with no thread started per call (a std::thread team
// started once per transpose gained nothing on a loaded machine: 1.46 ms on one thread, 2.65 on
// two, docs/compiler.md). run_team is there only where the file is compiled with OpenMP
// (CMakeLists.txt: src/tensor/transpose.cpp); forked_thread_cap everywhere.
#include <exception>

#ifdef _OPENMP
#include <omp.h>
#endif

namespace siskin::detail {

/// The most threads this process may run a parallel region on: 1 in the child of a fork, whose
/// copy of libgomp's pool lists the parent's threads, which do not exist there (its first region
/// with more than one thread would wait for them forever: a Python program that ran a kernel and
/// then forks through multiprocessing); 0 (no cap) elsewhere. A team of one never touches the
/// pool. Kernels get it as their call's cap (bind.hpp, kernel_thread_cap()).
int forked_thread_cap();

#ifdef _OPENMP
/// Runs work(t, n, sync) on a team of n threads, t = 0 .. n - 1, t = 0 on the calling thread;
/// `sync()` returns when all n have called it, so a phase after it reads what every thread wrote
/// before it. n is `wanted`, or fewer (at least 1) where OpenMP gives fewer (a nested region, a
/// thread limit) or after a fork (forked_thread_cap). `plan(n)` runs first, once n is known, on
/// one thread; what it throws is thrown here, and then `work` does not run. `work` must not throw
/// (an exception may not leave an OpenMP region), and every thread must call sync() the same
/// number of times. Returns n. With n = 1 no region is started.
template <class Plan, class Work> int run_team(int wanted, const Plan& plan, const Work& work) {
    if (forked_thread_cap() == 1 || wanted < 1) wanted = 1;
    if (wanted == 1) {
        plan(1);
        work(0, 1, [] {});
        return 1;
    }
    std::exception_ptr failed;
    int team = 1;
#pragma omp parallel num_threads(wanted)
    {
        const int t = omp_get_thread_num(), n = omp_get_num_threads();
#pragma omp single
        {
            team = n;
            try {
                plan(n);
            } catch (...) {
                failed = std::current_exception();
            }
        } // the single's barrier: every thread sees the plan, or `failed`
        if (!failed) work(t, n, [] {
#pragma omp barrier
        });
    }
    if (failed) std::rethrow_exception(failed);
    return team;
}
#endif

} // namespace siskin::detail
