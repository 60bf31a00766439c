#include "tensor/buffer_memory.hpp"

#include <algorithm>
#include <cstring>
#include <mutex>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "siskin/error.hpp"
#include "siskin/memory.hpp"
#include "siskin_memory.h" // runtime/: the block layer the kernels use too

#if SISKIN_BLOCK_CAN_MAP
#include <unistd.h>
#endif

namespace siskin::buffer_memory {

namespace {

#if SISKIN_BLOCK_CAN_MAP
// Kept mapped blocks: at most this many, of at most this many bytes in all. Enough for the
// outputs and workspaces of a few runs; past it the oldest go back to the system.
constexpr size_t kMaxKept = 32;
constexpr size_t kMaxKeptBytes = size_t{256} << 20;

size_t page_size() {
    static const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    return page;
}
size_t whole_pages(size_t bytes) { return (bytes + page_size() - 1) / page_size() * page_size(); }

struct Kept {
    std::mutex mutex;
    std::vector<std::pair<void*, size_t>> blocks; // oldest first; sizes in whole pages
    size_t bytes = 0;
};
// Never destroyed: buffers of static lifetime may be freed after it would have been.
Kept& kept() {
    static Kept* k = new Kept;
    return *k;
}

// A kept mapping of exactly whole_pages(bytes) (a larger one is shrunk in place), or nullptr.
// Its contents are whatever its last owner left.
void* take(size_t bytes) {
    size_t want = whole_pages(bytes);
    Kept& k = kept();
    std::lock_guard lock(k.mutex);
    auto best = k.blocks.end();
    for (auto it = k.blocks.begin(); it != k.blocks.end(); ++it)
        if (it->second >= want && (best == k.blocks.end() || it->second < best->second)) best = it;
    if (best == k.blocks.end()) return nullptr;
    auto [p, have] = *best;
    k.blocks.erase(best);
    k.bytes -= have;
    if (have > want) munmap(static_cast<char*>(p) + want, have - want); // the tail goes back
    return p;
}

void keep(void* p, size_t bytes) {
    size_t have = whole_pages(bytes);
    std::vector<std::pair<void*, size_t>> evicted;
    {
        Kept& k = kept();
        std::lock_guard lock(k.mutex);
        k.blocks.emplace_back(p, have);
        k.bytes += have;
        while (k.blocks.size() > kMaxKept || k.bytes > kMaxKeptBytes) {
            evicted.push_back(k.blocks.front());
            k.bytes -= k.blocks.front().second;
            k.blocks.erase(k.blocks.begin());
        }
    }
    for (auto [q, n] : evicted) munmap(q, n);
}
#endif

} // namespace

bool resize(void*& p, size_t old_bytes, size_t new_bytes, bool zero) {
#if SISKIN_BLOCK_CAN_MAP
    bool old_mapped = siskin_block_mapped(old_bytes), new_mapped = siskin_block_mapped(new_bytes);
    if (new_mapped && !old_mapped) {
        // Into a kept mapping when there is one: its pages are resident already. The rest of the
        // last page past new_bytes is zeroed as a fresh mapping's would be (a kernel growing the
        // block with mremap counts on that), and the new bytes when `zero`.
        if (void* q = take(new_bytes)) {
            size_t keep_bytes = std::min(old_bytes, new_bytes);
            if (keep_bytes) std::memcpy(q, p, keep_bytes);
            size_t from = zero ? keep_bytes : new_bytes;
            std::memset(static_cast<char*>(q) + from, 0, whole_pages(new_bytes) - from);
            if (old_bytes) std::free(p);
            p = q;
            return true;
        }
    } else if (old_mapped && (new_bytes == 0 || !new_mapped)) {
        // Shrinking out of a mapping: the mapping is kept for reuse instead of unmapped.
        void* q = nullptr;
        if (siskin_block_resize(&q, 0, new_bytes, zero ? 1 : 0) != 0) return false;
        if (new_bytes) std::memcpy(q, p, new_bytes);
        free(p, old_bytes);
        p = q;
        return true;
    }
#endif
    return siskin_block_resize(&p, old_bytes, new_bytes, zero ? 1 : 0) == 0;
}

void free(void* p, size_t bytes) {
#if SISKIN_BLOCK_CAN_MAP
    if (p && siskin_block_mapped(bytes)) return keep(p, bytes);
#endif
    siskin_block_free(p, bytes);
}

void reserve(Buffer& b, int64_t n, bool zero) {
    SISKIN_ASSERT(!b.borrowed(), "reserving room in a borrowed buffer");
    RawBuffer& raw = b.raw();
    if (n <= raw.capacity) return;
    size_t elem = type_size(b.type());
    void* p = raw.data;
    if (static_cast<uint64_t>(n) > SIZE_MAX / elem ||
        !resize(p, static_cast<size_t>(raw.capacity) * elem, static_cast<size_t>(n) * elem, zero))
        throw Error(fmt::format("out of memory reserving a buffer of {} {} elements", n,
                                type_name(b.type())));
    raw.data = p;
    raw.capacity = n;
}

size_t kept_bytes() {
#if SISKIN_BLOCK_CAN_MAP
    Kept& k = kept();
    std::lock_guard lock(k.mutex);
    return k.bytes;
#else
    return 0;
#endif
}

} // namespace siskin::buffer_memory

namespace siskin {

size_t release_free_memory() {
#if SISKIN_BLOCK_CAN_MAP
    std::vector<std::pair<void*, size_t>> all;
    size_t bytes = 0;
    {
        auto& k = buffer_memory::kept();
        std::lock_guard lock(k.mutex);
        all.swap(k.blocks);
        bytes = std::exchange(k.bytes, 0);
    }
    for (auto [p, n] : all) munmap(p, n);
    return bytes;
#else
    return 0;
#endif
}

} // namespace siskin
