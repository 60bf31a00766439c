// forked_thread_cap (thread_team.hpp): set in the child of a fork. libgomp keeps its idle threads
// in a pool and cannot be re-initialised: after a fork the child's pool still lists the parent's
// threads, and the child's first region of more than one thread waits for them forever. The
// handler is registered when the library loads, so a fork before any region ran is covered too
// (the pool may belong to another library that uses libgomp).
#include <pthread.h>

#include <atomic>

#include "tensor/thread_team.hpp"

namespace siskin::detail {

namespace {
std::atomic<bool> forked_child{false};

void mark_forked_child() { forked_child.store(true, std::memory_order_relaxed); }

[[maybe_unused]] const int fork_handler_registered = pthread_atfork(nullptr, nullptr, mark_forked_child);
} // namespace

int forked_thread_cap() { return forked_child.load(std::memory_order_relaxed) ? 1 : 0; }

} // namespace siskin::detail
