/* The memory blocks behind siskin buffers: the one place that allocates, resizes and frees them,
 * shared by the host (siskin::Buffer, src/tensor/buffer.cpp) and the generated kernels (through
 * siskin_prelude.h), so a block either side allocated is resized and freed correctly by the other.
 *
 * A block is known by its pointer and its size in bytes (a buffer's capacity times its element
 * size, which both sides know); the size alone says how the block was allocated:
 * - below SISKIN_BLOCK_MAP_MIN bytes, or where there is no mremap: malloc/realloc/free;
 * - from SISKIN_BLOCK_MAP_MIN bytes on (Linux): a private anonymous mapping of its own, grown with
 *   mremap, which moves page-table entries instead of copying bytes, and never touches capacity
 *   nobody wrote. realloc would do that only while malloc's dynamic mmap threshold is low: once a
 *   program has freed a large mapped block, glibc raises the threshold (up to 32 MiB) and serves
 *   later large requests from the heap, where realloc copies, so the old and the new block are
 *   both resident (up to three times the final size for a doubling array). Owning the mappings
 *   keeps a growing output's peak at about what it wrote, without touching malloc's settings.
 * Bytes of a mapped block past the old size are zero when it grows (fresh pages are, and the rest
 * of a mapping's last page is kept zero); the zero_new argument asks for that on malloc'd blocks
 * too. */
#ifndef SISKIN_MEMORY_H
#define SISKIN_MEMORY_H

/* mremap and MAP_ANONYMOUS are GNU/Linux extensions, hidden under -std=c11 unless asked for before
 * the first system header. */
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE 1
#endif

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* SISKIN_BLOCK_NO_MAP: malloc'd blocks only, for ThreadSanitizer, which does not see mremap (a
 * mapping one thread gave up and another got at the same address reads as a race). The host and
 * the kernels must agree on it: scripts/tsan.sh sets it for kernels whose blocks it never frees. */
#if defined(__linux__) && !defined(SISKIN_BLOCK_NO_MAP)
#include <sys/mman.h>
#include <unistd.h>
#if !defined(MREMAP_MAYMOVE) || !defined(MAP_ANONYMOUS)
/* Both sides must agree on which blocks are mapped, so a silent fallback is not an option. */
#error "siskin_memory.h must come before any system header (it needs _GNU_SOURCE for mremap)"
#endif
#define SISKIN_BLOCK_CAN_MAP 1
#else
#define SISKIN_BLOCK_CAN_MAP 0
#endif

/* Blocks of this many bytes and more are mappings of their own (where SISKIN_BLOCK_CAN_MAP).
 * Below it a mapping's page rounding and system calls cost more than malloc's copies. */
#define SISKIN_BLOCK_MAP_MIN ((size_t)1 << 16)

/* Whether a block of `bytes` bytes is a mapping of its own. */
static inline int siskin_block_mapped(size_t bytes) {
    return SISKIN_BLOCK_CAN_MAP && bytes >= SISKIN_BLOCK_MAP_MIN;
}

#if SISKIN_BLOCK_CAN_MAP
static inline void *siskin_block_map(size_t bytes) {
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}
#endif

/* Frees the block p of `bytes` bytes (NULL or 0 bytes: nothing to free). */
static inline void siskin_block_free(void *p, size_t bytes) {
    if (p == NULL) return;
#if SISKIN_BLOCK_CAN_MAP
    if (siskin_block_mapped(bytes)) {
        munmap(p, bytes);
        return;
    }
#endif
    free(p);
}

/* Resizes the block *p of old_bytes bytes (*p NULL when old_bytes is 0) to new_bytes bytes,
 * keeping the first min(old_bytes, new_bytes) bytes; bytes past old_bytes are zero when zero_new
 * (and whenever the new block is mapped). new_bytes 0 frees the block and leaves *p NULL.
 * Returns 0, or -1 when memory is short, with *p and its block unchanged. */
static inline int siskin_block_resize(void **p, size_t old_bytes, size_t new_bytes, int zero_new) {
    void *old = old_bytes ? *p : NULL;
    if (new_bytes == old_bytes) return 0;
    if (new_bytes == 0) {
        siskin_block_free(old, old_bytes);
        *p = NULL;
        return 0;
    }
    void *grown = NULL;
#if SISKIN_BLOCK_CAN_MAP
    int old_mapped = siskin_block_mapped(old_bytes), new_mapped = siskin_block_mapped(new_bytes);
    if (old_mapped && new_mapped) {
        /* Pages move, nothing is copied; new pages are zero. A shrunk block zeroes the rest of
         * its last page, which a later growth would hand out as new. */
        grown = mremap(old, old_bytes, new_bytes, MREMAP_MAYMOVE);
        if (grown == MAP_FAILED) return -1;
        if (new_bytes < old_bytes) {
            size_t page = (size_t)sysconf(_SC_PAGESIZE), end = (new_bytes + page - 1) / page * page;
            memset((char *)grown + new_bytes, 0, end - new_bytes);
        }
        *p = grown;
        return 0;
    }
    if (old_mapped != new_mapped) {
        /* Crossing the threshold: a fresh block, the kept bytes copied, the old one freed. */
        size_t keep = old_bytes < new_bytes ? old_bytes : new_bytes;
        grown = new_mapped ? siskin_block_map(new_bytes)
                           : (zero_new ? calloc(new_bytes, 1) : malloc(new_bytes));
        if (grown == NULL) return -1;
        if (keep) memcpy(grown, old, keep);
        siskin_block_free(old, old_bytes);
        *p = grown;
        return 0;
    }
#endif
    grown = old == NULL && zero_new ? calloc(new_bytes, 1) : realloc(old, new_bytes);
    if (grown == NULL) return -1;
    if (zero_new && old != NULL && new_bytes > old_bytes)
        memset((char *)grown + old_bytes, 0, new_bytes - old_bytes);
    *p = grown;
    return 0;
}

#endif /* SISKIN_MEMORY_H */
