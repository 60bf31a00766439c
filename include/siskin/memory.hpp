#pragma once
// Memory siskin keeps for reuse. Large buffers are mappings of their own (runtime/siskin_memory.h);
// when one is freed its pages are kept, a bounded amount, for the next buffers of about its size,
// so a program run again and again does not hand its outputs' pages back to the system and fault
// them in again each time (malloc's heap keeps its free memory the same way).
#include <cstddef>

namespace siskin {

/// Hands the kept pages back to the system, as malloc_trim does for malloc's free memory (e.g.
/// before measuring what one run adds to the resident set); returns the bytes released.
size_t release_free_memory();

} // namespace siskin
