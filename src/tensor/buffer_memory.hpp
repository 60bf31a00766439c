#pragma once
// The host's side of runtime/siskin_memory.h: Buffer allocates, resizes and frees its memory
// here. Blocks are what the kernels expect (malloc below SISKIN_BLOCK_MAP_MIN bytes, a mapping of
// their own above), so either side can grow or free a block the other allocated. On top of that,
// mapped blocks the host frees are kept for reuse (bounded, see buffer_memory.cpp): the pages of
// a run's freed outputs serve the next run's, as malloc's heap would, instead of going back to
// the system and faulting in again.
#include <cstddef>
#include <cstdint>

#include "siskin/buffer.hpp"

namespace siskin::buffer_memory {

/// Resizes the block p of old_bytes to new_bytes (siskin_block_resize's contract: the kept bytes
/// stay, new bytes are zero when `zero`); false when memory is short, with p unchanged.
bool resize(void*& p, size_t old_bytes, size_t new_bytes, bool zero);
/// Frees the block p of `bytes` bytes (a mapped one is kept for reuse while there is room).
void free(void* p, size_t bytes);
/// Makes room for at least n elements in b without changing its size; the new room is zero
/// when `zero` (as siskin_buffer_reserve leaves it, for a kernel that counts on it), otherwise
/// whatever the memory held (for a buffer the kernel writes before it reads).
void reserve(Buffer& b, int64_t n, bool zero);
/// Bytes of mapped blocks kept for reuse.
size_t kept_bytes();

} // namespace siskin::buffer_memory
