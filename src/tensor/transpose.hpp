#pragma once
// The runtime's fast path for flipping a compressed matrix's orientation (CSR <-> CSC).
#include <cstdint>
#include <optional>

#include "tensor/assemble.hpp"

namespace siskin::detail {

/// The least work (old rows plus stored entries) that each thread of a transpose gets: below it,
/// starting a thread and its counts array cost more than they save (bench/thread_threshold.py).
inline constexpr int64_t kTransposeWorkPerThread = int64_t{1} << 16;

/// When `source` is dense(a)/sparselist(b)/element and `target` is dense(b)/sparselist(a)/element,
/// its storage in `target` (explicit fills dropped, index widths chosen as the builders do);
/// otherwise nothing. Up to `threads` threads share the old rows (counting_transpose.hpp), each
/// share at least `least_share_work` rows and entries; by default (0) kTransposeWorkPerThread
/// and no fewer than the new fibres, as each share counts into an array as long as them (tests
/// pass 1: a share per thread however small). The result does not depend on how many; `team`,
/// when given, gets how many ran it (1 without a region).
std::optional<Assembled> transpose_compressed(const Tensor& source, const Format& target, int threads = 1,
                                              int64_t least_share_work = 0, int* team = nullptr);

/// Tensor::convert, with the counting-sort transpose on up to `threads` threads (a kernel's
/// transposed temporaries and routed outputs, the compiler's fallback conversions). `team`, when
/// given, gets the threads the transpose ran on (1 when it ran on one or was not a transpose).
Tensor convert_on_threads(const Tensor& source, const Format& target, int threads, int* team = nullptr);

} // namespace siskin::detail
