// kernel_threads (siskin/compiler.hpp): how many threads a kernel is compiled for;
// kernel_thread_cap (kernel_impl.hpp): how many one call may start.
#include <charconv>
#include <cstdlib>
#include <string_view>
#include <thread>

#include <fmt/format.h>

#include "siskin/compiler.hpp"
#include "siskin/error.hpp"
#include "compiler/kernel_impl.hpp"
#include "tensor/thread_team.hpp"

namespace siskin {

namespace {
constexpr int kMaxThreads = 1024;
} // namespace

// libgomp's pool cannot serve a forked child (detail::forked_thread_cap, thread_team.cpp).
int kernel_thread_cap() { return detail::forked_thread_cap(); }

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
