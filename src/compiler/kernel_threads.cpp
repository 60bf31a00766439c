// kernel_threads (siskin/compiler.hpp): how many threads a kernel is compiled for;
// kernel_thread_cap (kernel_impl.hpp): how many one call may start.
#include <pthread.h>

#include <atomic>
#include <charconv>
#include <cstdlib>
#include <string_view>
#include <thread>

#include <fmt/format.h>

#include "siskin/compiler.hpp"
#include "siskin/error.hpp"
#include "compiler/kernel_impl.hpp"

namespace siskin {

namespace {
constexpr int kMaxThreads = 1024;

// Set in the child of a fork. libgomp keeps its idle threads in a pool and cannot be
// re-initialised: after a fork the child's pool still lists the parent's threads, which do not
// exist there, and the child's first parallel region waits for them forever (a Python program
// that runs a kernel and then uses multiprocessing's default start method on Linux, fork).
// The handler is registered when the library loads, so a fork before any kernel ran is covered
// too (the pool may belong to another library that uses libgomp).
std::atomic<bool> forked_child{false};

void mark_forked_child() { forked_child.store(true, std::memory_order_relaxed); }

[[maybe_unused]] const int fork_handler_registered = pthread_atfork(nullptr, nullptr, mark_forked_child);
} // namespace

int kernel_thread_cap() { return forked_child.load(std::memory_order_relaxed) ? 1 : 0; }

int kernel_threads(int requested) {
    if (requested > kMaxThreads)
        throw Error(fmt::format("{} threads asked for; at most {} are supported", requested,
                                kMaxThreads));
    if (requested > 0) return requested;
    if (const char* env = std::getenv("SISKIN_NUM_THREADS"); env && *env) {
        std::string_view text(env);
        int v = 0;
        auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
        if (ec != std::errc() || end != text.data() + text.size() || v < 1 || v > kMaxThreads)
            throw Error(fmt::format("SISKIN_NUM_THREADS is '{}': give the threads kernels run on, "
                                    "a whole number from 1 to {}",
                                    text.substr(0, 40), kMaxThreads));
        return v;
    }
    unsigned cores = std::thread::hardware_concurrency();
    return cores == 0 ? 1 : static_cast<int>(std::min<unsigned>(cores, kMaxThreads));
}

} // namespace siskin
