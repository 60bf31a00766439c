// runtime/siskin_memory.h, the block layer under every buffer: resizing keeps the contents across
// the malloc/mapping threshold in both directions, zero-fills where it promises to (without
// touching the pages of a mapped block), frees to nothing, and reports a failed allocation with
// the block left as it was. The host (siskin::Buffer) and the kernels share it, so a buffer that
// one allocated the other can grow and free.
#include <cstdint>
#include <cstring>
#include <vector>

#include <gtest/gtest.h>

#include "siskin/buffer.hpp"
#include "siskin/memory.hpp"
#include "siskin_memory.h"
#include "storage_helpers.hpp"
#include "tensor/buffer_memory.hpp"

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace siskin {
namespace {

// Frees what a test still holds, also when an assertion returned early.
struct Block {
    void* p = nullptr;
    size_t bytes = 0;
    ~Block() { siskin_block_free(p, bytes); }
    int resize(size_t n, bool zero) {
        int status = siskin_block_resize(&p, bytes, n, zero ? 1 : 0);
        if (status == 0) bytes = n;
        return status;
    }
    unsigned char* data() const { return static_cast<unsigned char*>(p); }
};

// Byte k of a block written by fill(): a pattern that a misplaced copy would not reproduce.
unsigned char pattern(size_t k) { return static_cast<unsigned char>(k * 7 + k / 251 + 1); }
void fill(Block& b, size_t from, size_t to) {
    for (size_t k = from; k < to; ++k) b.data()[k] = pattern(k);
}
::testing::AssertionResult holds_pattern(const Block& b, size_t n) {
    for (size_t k = 0; k < n; ++k)
        if (b.data()[k] != pattern(k)) return ::testing::AssertionFailure() << "byte " << k << " of " << n;
    return ::testing::AssertionSuccess();
}
::testing::AssertionResult zero_from(const Block& b, size_t from) {
    for (size_t k = from; k < b.bytes; ++k)
        if (b.data()[k] != 0) return ::testing::AssertionFailure() << "byte " << k << " is not zero";
    return ::testing::AssertionSuccess();
}

constexpr size_t kMapMin = SISKIN_BLOCK_MAP_MIN;

TEST(CodegenMemory, ThresholdDecidesHowABlockIsHeld) {
    EXPECT_FALSE(siskin_block_mapped(0));
    EXPECT_FALSE(siskin_block_mapped(kMapMin - 1));
#if defined(__linux__)
    EXPECT_TRUE(siskin_block_mapped(kMapMin));
    EXPECT_TRUE(siskin_block_mapped(size_t{1} << 40));
#endif
}

TEST(CodegenMemory, GrowingByDoublingAcrossTheThresholdKeepsTheContents) {
    Block b;
    size_t written = 0;
    for (size_t n = 100; n <= 64 * kMapMin; n *= 2) {
        ASSERT_EQ(b.resize(n, false), 0) << n;
        ASSERT_TRUE(holds_pattern(b, written)) << "after growing to " << n;
        fill(b, written, n);
        written = n;
    }
#if defined(__linux__)
    // A mapped block is a mapping of its own: page-aligned.
    EXPECT_EQ(reinterpret_cast<uintptr_t>(b.p) % static_cast<uintptr_t>(sysconf(_SC_PAGESIZE)), 0u);
#endif
    EXPECT_TRUE(holds_pattern(b, written));
}

TEST(CodegenMemory, ZeroNewFillsEveryNewByteOnBothSidesOfTheThreshold) {
    for (size_t start : {size_t{24}, kMapMin / 2, kMapMin, 3 * kMapMin}) {
        Block b;
        ASSERT_EQ(b.resize(start, true), 0);
        ASSERT_TRUE(zero_from(b, 0)) << "fresh block of " << start;
        fill(b, 0, start);
        ASSERT_EQ(b.resize(start * 4 + 13, true), 0);
        EXPECT_TRUE(holds_pattern(b, start)) << start;
        EXPECT_TRUE(zero_from(b, start)) << start;
    }
}

TEST(CodegenMemory, MappedGrowthIsZeroWithoutBeingAsked) {
    // A mapped block's new bytes are fresh pages, zero even when zero_new is off; Buffer::resize
    // relies on that to skip its memset.
    if (!siskin_block_mapped(kMapMin)) GTEST_SKIP() << "no mappings on this system";
    Block b;
    ASSERT_EQ(b.resize(2 * kMapMin, false), 0);
    std::memset(b.p, 0xab, b.bytes);
    ASSERT_EQ(b.resize(2 * kMapMin + 5, false), 0); // a few bytes of a new page
    ASSERT_EQ(b.resize(16 * kMapMin, false), 0);
    for (size_t k = 0; k < 2 * kMapMin; ++k) ASSERT_EQ(b.data()[k], 0xab) << k;
    EXPECT_TRUE(zero_from(b, 2 * kMapMin));
}

#if defined(__linux__)
// Pages of [from, to) resident in memory.
size_t resident_pages(const Block& b, size_t from, size_t to) {
    size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    std::vector<unsigned char> vec((to - from + page - 1) / page);
    EXPECT_EQ(mincore(b.data() + from, to - from, vec.data()), 0);
    size_t n = 0;
    for (unsigned char v : vec) n += v & 1;
    return n;
}

TEST(CodegenMemory, MappedGrowthLeavesUnwrittenCapacityUntouched) {
    // What a doubling output does: the capacity past what it wrote costs no resident memory,
    // also when the growth promised zeros.
    Block b;
    ASSERT_EQ(b.resize(4 * kMapMin, true), 0);
    fill(b, 0, 4 * kMapMin);
    ASSERT_EQ(b.resize(64 * kMapMin, true), 0);
    EXPECT_EQ(resident_pages(b, 4 * kMapMin, 64 * kMapMin), 0u);
    EXPECT_TRUE(holds_pattern(b, 4 * kMapMin));
}
#endif

TEST(CodegenMemory, ShrinkingKeepsThePrefixAndZeroBytesFree) {
    Block b;
    ASSERT_EQ(b.resize(8 * kMapMin, false), 0);
    fill(b, 0, b.bytes);
    ASSERT_EQ(b.resize(4 * kMapMin - 3, false), 0); // mapped to mapped
    EXPECT_TRUE(holds_pattern(b, 4 * kMapMin - 3));
    ASSERT_EQ(b.resize(4 * kMapMin + 100, true), 0); // grows back with zeros, not the old bytes
    EXPECT_TRUE(holds_pattern(b, 4 * kMapMin - 3));
    EXPECT_TRUE(zero_from(b, 4 * kMapMin - 3));
    ASSERT_EQ(b.resize(4 * kMapMin, false), 0);
    ASSERT_EQ(b.resize(kMapMin / 4, false), 0); // mapped to malloc
    EXPECT_TRUE(holds_pattern(b, kMapMin / 4));
    ASSERT_EQ(b.resize(100, false), 0); // malloc to malloc
    EXPECT_TRUE(holds_pattern(b, 100));
    ASSERT_EQ(b.resize(0, false), 0);
    EXPECT_EQ(b.p, nullptr);
    // Freeing nothing is fine, and a freed block grows again from nothing.
    siskin_block_free(nullptr, 0);
    ASSERT_EQ(b.resize(2 * kMapMin, true), 0);
    EXPECT_TRUE(zero_from(b, 0));
}

TEST(CodegenMemory, AFailedAllocationLeavesTheBlockAsItWas) {
    const size_t huge = size_t{1} << 60; // more than any address space
    {
        Block none;
        EXPECT_EQ(none.resize(huge, false), -1);
        EXPECT_EQ(none.p, nullptr);
    }
    for (size_t start : {size_t{1000}, 4 * kMapMin}) {
        Block b;
        ASSERT_EQ(b.resize(start, false), 0);
        fill(b, 0, start);
        void* before = b.p;
        EXPECT_EQ(b.resize(huge, true), -1) << start;
        EXPECT_EQ(b.p, before);
        EXPECT_EQ(b.bytes, start);
        EXPECT_TRUE(holds_pattern(b, start)); // still readable and whole, and freed by ~Block
    }
}

// The host side: a Buffer's memory follows the same rule, so it survives growing past the
// threshold and is freed with the block size its capacity gives.
TEST(CodegenMemory, BufferGrowsAcrossTheThresholdWithZeros) {
    Buffer b(ValueType::Int64, 3);
    for (int64_t i = 0; i < 3; ++i) b.set(i, Scalar::of(int64_t{i + 1}));
    const int64_t big = static_cast<int64_t>(4 * kMapMin / sizeof(int64_t));
    b.resize(big);
    EXPECT_EQ(b.raw().capacity, big);
    EXPECT_EQ(b.data<int64_t>()[2], 3);
    for (int64_t i = 3; i < big; ++i) ASSERT_EQ(b.data<int64_t>()[i], 0) << i;
    b.resize(2);
    b.resize(big + 1); // elements coming back into use are zero again
    EXPECT_EQ(b.data<int64_t>()[1], 2);
    for (int64_t i = 2; i <= big; ++i) ASSERT_EQ(b.data<int64_t>()[i], 0) << i;
    Buffer copy = b; // a copy is a block of its own size
    EXPECT_EQ(copy.raw().capacity, big + 1);
    EXPECT_EQ(copy.data<int64_t>()[0], 1);
}

// The host keeps the mapped blocks of freed buffers and hands their pages to the next buffer of
// about that size, zeroed as a fresh one; release_free_memory gives them back to the system.
TEST(CodegenMemory, FreedMappedBuffersAreKeptForReuseUntilReleased) {
    if (!siskin_block_mapped(kMapMin)) GTEST_SKIP() << "no mappings on this system";
    release_free_memory();
    const int64_t n = static_cast<int64_t>(8 * kMapMin / sizeof(int64_t));
    void* first = nullptr;
    {
        Buffer b(ValueType::Int64, n);
        first = b.data<int64_t>();
        for (int64_t i = 0; i < n; ++i) b.data<int64_t>()[i] = i + 1;
    }
    EXPECT_EQ(buffer_memory::kept_bytes(), 8 * kMapMin);
    {
        Buffer c(ValueType::Int64, n - 100); // the same pages, zeroed
        EXPECT_EQ(static_cast<void*>(c.data<int64_t>()), first);
        for (int64_t i = 0; i < c.size(); ++i) ASSERT_EQ(c.data<int64_t>()[i], 0) << i;
        EXPECT_EQ(buffer_memory::kept_bytes(), 0u);
        // A kernel grows it as a fresh mapping (mremap, no zero-fill of its own): the rest of the
        // last page the previous owner wrote must have been zeroed too.
        RawBuffer& raw = c.raw();
        void* p = raw.data;
        size_t old_bytes = static_cast<size_t>(raw.capacity) * sizeof(int64_t);
        ASSERT_EQ(siskin_block_resize(&p, old_bytes, 2 * old_bytes, 0), 0);
        raw.data = p;
        raw.capacity *= 2;
        for (int64_t i = c.size(); i < raw.capacity; ++i) ASSERT_EQ(c.data<int64_t>()[i], 0) << i;
        Buffer small(ValueType::Int64, 10); // malloc'd: nothing to keep
    }
    EXPECT_EQ(buffer_memory::kept_bytes(), 16 * kMapMin);
    EXPECT_EQ(release_free_memory(), 16 * kMapMin);
    EXPECT_EQ(buffer_memory::kept_bytes(), 0u);
    EXPECT_EQ(release_free_memory(), 0u);
}

TEST(CodegenMemory, ReserveGivesZeroedRoomAndKeepsTheSize) {
    Buffer b(ValueType::Int32, 3);
    b.data<int32_t>()[2] = 9;
    const int64_t n = static_cast<int64_t>(4 * kMapMin);
    buffer_memory::reserve(b, n, true);
    EXPECT_EQ(b.size(), 3);
    EXPECT_EQ(b.raw().capacity, n);
    EXPECT_EQ(b.data<int32_t>()[2], 9);
    for (int64_t i = 3; i < n; ++i) ASSERT_EQ(b.data<int32_t>()[i], 0) << i;
    buffer_memory::reserve(b, 5, true); // room enough already: nothing changes
    EXPECT_EQ(b.raw().capacity, n);
    EXPECT_TRUE(testing::throws_error([&] { buffer_memory::reserve(b, int64_t{1} << 61, true); }, {"out of memory"}));
    EXPECT_EQ(b.raw().capacity, n);
}

// Room for a buffer the kernel writes before reading may keep a reused block's old bytes, but
// the rest of its last page must be zero: growing the mapping later hands those bytes out as new.
TEST(CodegenMemory, UnzeroedReserveStillZeroesThePageTail) {
    release_free_memory();
    const int64_t whole = static_cast<int64_t>(4 * kMapMin / 4); // int32 elements in 4 map-mins
    {
        Buffer old(ValueType::Int32, whole);
        std::memset(old.raw().data, 7, static_cast<size_t>(whole) * 4);
    } // kept for reuse
    ASSERT_EQ(buffer_memory::kept_bytes(), 4 * kMapMin);
    Buffer b(ValueType::Int32, 3);
    b.data<int32_t>()[2] = 9;
    const int64_t n = whole - 5; // the kept block, 20 bytes short of its end
    buffer_memory::reserve(b, n, false);
    EXPECT_EQ(buffer_memory::kept_bytes(), 0u); // it took the kept block
    EXPECT_EQ(b.size(), 3);
    EXPECT_EQ(b.raw().capacity, n);
    EXPECT_EQ(b.data<int32_t>()[2], 9);
    b.resize(whole + 1000); // grows the mapping in place: the page tail comes back as new room
    for (int64_t i = 3; i < whole + 1000; ++i) ASSERT_EQ(b.data<int32_t>()[i], 0) << i;
}

} // namespace
} // namespace siskin
