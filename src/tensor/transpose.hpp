#pragma once
// The runtime's fast path for flipping a compressed matrix's orientation (CSR <-> CSC).
#include <optional>

#include "tensor/assemble.hpp"

namespace siskin::detail {

/// When `source` is dense(a)/sparselist(b)/element and `target` is dense(b)/sparselist(a)/element,
/// its storage in `target` (explicit fills dropped, index widths chosen as the builders do);
/// otherwise nothing.
std::optional<Assembled> transpose_compressed(const Tensor& source, const Format& target);

} // namespace siskin::detail
