#pragma once
// A team of threads that runs the phases of one runtime operation (the counting-sort
// transpose): started once, its phases separated by a barrier, instead of a start and a join
// per phase. std::thread rather than OpenMP, so that the library needs no OpenMP runtime.
#include <algorithm>
#include <barrier>
#include <exception>
#include <latch>
#include <optional>
#include <system_error>
#include <thread>
#include <vector>

namespace siskin::detail {

/// Runs work(t, n, sync) on n threads at once, t = 0 .. n - 1, t = 0 on the calling thread;
/// `sync()` returns when all n have called it, so a phase after it reads what every thread
/// wrote before it. n is `wanted`, or fewer (at least 1) when the system cannot start a thread:
/// `plan(n)` runs first, on the calling thread, once n is known, and what it throws is thrown
/// here after the team has stopped. `work` must not throw (a thread that throws ends the
/// process), and every thread must call sync() the same number of times.
template <class Plan, class Work> void run_team(int wanted, const Plan& plan, const Work& work) {
    std::latch go(1);
    std::optional<std::barrier<>> barrier;
    bool planned = false;
    int n = 1;
    auto run = [&](int t) { work(t, n, [&] { barrier->arrive_and_wait(); }); };
    std::vector<std::thread> others;
    others.reserve(static_cast<size_t>(std::max(wanted - 1, 0))); // no bad_alloc once threads wait
    for (int t = 1; t < wanted; ++t) {
        try {
            others.emplace_back([&, t] {
                go.wait();
                if (planned) run(t);
            });
        } catch (const std::system_error&) {
            break; // a smaller team: the shares are planned for the threads that started
        }
    }
    n = static_cast<int>(others.size()) + 1;
    std::exception_ptr failed;
    try {
        plan(n);
        barrier.emplace(n);
        planned = true;
    } catch (...) {
        failed = std::current_exception();
    }
    go.count_down();
    if (planned) run(0);
    for (auto& th : others) th.join();
    if (failed) std::rethrow_exception(failed);
}

} // namespace siskin::detail
