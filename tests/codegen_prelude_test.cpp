// The runtime prelude: it compiles warning-free on its own, its buffer layout is siskin::RawBuffer,
// and its helpers (growing buffers, binary and galloping search) work when called from a kernel.
#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <random>
#include <sstream>

#include <gtest/gtest.h>

#include "codegen_test_util.hpp"
#include "siskin/buffer.hpp"
#include "siskin/codegen/jit.hpp"
#include "siskin/codegen/runtime.hpp"
#include "siskin_memory.h"

#include <sys/mman.h>

namespace siskin::codegen {
namespace {

using codegen_test::TempDir;

// Thin exported wrappers, since the prelude's helpers are static inline.
const char* kKernel = R"(#include "siskin_prelude.h"
_Static_assert(sizeof(siskin_buffer) == 24, "siskin_buffer layout");
_Static_assert(offsetof(siskin_buffer, data) == 0, "data first");
_Static_assert(offsetof(siskin_buffer, size) == 8, "then size");
_Static_assert(offsetof(siskin_buffer, capacity) == 16, "then capacity");

int reserve(siskin_buffer *b, int64_t need, size_t elem_size) {
    return siskin_buffer_reserve(b, need, elem_size);
}
int grow(siskin_buffer *b, int64_t need, size_t elem_size) {
    return siskin_buffer_grow(b, need, elem_size);
}
int resize(siskin_buffer *b, int64_t n, size_t elem_size) {
    return siskin_buffer_resize(b, n, elem_size);
}
/* Appends 0, 3, 6, ... one element at a time, as an assembling kernel does. */
int append_multiples(siskin_buffer *b, int64_t n) {
    for (int64_t i = 0; i < n; i++) {
        if (siskin_buffer_reserve(b, b->size + 1, sizeof(int64_t)) != SISKIN_OK) return SISKIN_ERR_ALLOC;
        ((int64_t *)b->data)[b->size++] = 3 * i;
    }
    return SISKIN_OK;
}
int64_t lower_bound_i32(const int32_t *a, int64_t lo, int64_t hi, int32_t x) {
    return siskin_lower_bound_i32(a, lo, hi, x);
}
int64_t lower_bound_i64(const int64_t *a, int64_t lo, int64_t hi, int64_t x) {
    return siskin_lower_bound_i64(a, lo, hi, x);
}
int64_t gallop_i32(const int32_t *a, int64_t lo, int64_t hi, int32_t x) {
    return siskin_gallop_i32(a, lo, hi, x);
}
int64_t gallop_i64(const int64_t *a, int64_t lo, int64_t hi, int64_t x) {
    return siskin_gallop_i64(a, lo, hi, x);
}
int64_t gallop_down_i32(const int32_t *a, int64_t lo, int64_t hi, int32_t x) {
    return siskin_gallop_down_i32(a, lo, hi, x);
}
int64_t gallop_down_i64(const int64_t *a, int64_t lo, int64_t hi, int64_t x) {
    return siskin_gallop_down_i64(a, lo, hi, x);
}
int64_t min_max(int64_t a, int64_t b) { return siskin_min_i64(a, b) * 1000 + siskin_max_i64(a, b); }
void sort_touched_i32(int32_t *a, int64_t n, const bool *used, int64_t dim, int32_t *tmp) {
    siskin_sort_touched_i32(a, n, used, dim, tmp);
}
void sort_touched_i64(int64_t *a, int64_t n, const bool *used, int64_t dim, int64_t *tmp) {
    siskin_sort_touched_i64(a, n, used, dim, tmp);
}
void exclusive_sum(uint32_t *c, uint32_t n) { siskin_exclusive_sum_u32(c, n); }
/* The sum of f[0..n) after hinting the span [f + from, f + to). */
double span_then_sum(const double *f, int64_t n, int64_t from, int64_t to) {
    siskin_prefetch_span(f + from, f + to);
    double s = 0;
    for (int64_t k = 0; k < n; k++) s += f[k];
    return s;
}
)";

class CodegenPrelude : public ::testing::Test {
protected:
    void SetUp() override {
        options_.cache_dir = cache_.path();
        result_ = jit_compile(kKernel, options_);
    }
    template <class F> F* fn(const char* name) { return result_.library->function<F>(name); }

    TempDir cache_;
    JitOptions options_;
    JitResult result_;
};

// Frees a RawBuffer's memory, which the kernel grew, as a block of capacity * elem bytes.
struct OwnedRaw {
    RawBuffer raw;
    size_t elem = sizeof(int64_t);
    ~OwnedRaw() { siskin_block_free(raw.data, static_cast<size_t>(raw.capacity) * elem); }
};

TEST(CodegenRuntime, PreludeIsEmbeddedVerbatim) {
    std::ifstream in(SISKIN_REPO_DATA_DIR "/../runtime/siskin_prelude.h", std::ios::binary);
    ASSERT_TRUE(in) << "cannot read runtime/siskin_prelude.h";
    std::stringstream text;
    text << in.rdbuf();
    auto files = runtime_files();
    auto it = std::find_if(files.begin(), files.end(),
                           [](const RuntimeFile& f) { return f.name == "siskin_prelude.h"; });
    ASSERT_NE(it, files.end());
    EXPECT_EQ(it->contents, text.str());
}

TEST(CodegenRuntime, PreludeCompilesWarningFree) {
    TempDir cache;
    JitOptions options;
    options.cache_dir = cache.path();
    options.flags = {"-std=c11", "-Wall", "-Wextra", "-Werror", "-O2"};
    const std::string src =
        "#include \"siskin_prelude.h\"\nint nothing(void) { return SISKIN_OK; }\n";
    EXPECT_NO_THROW(jit_compile(src, options));
    options.compiler = "clang";
    try {
        jit_compile(src, options);
    } catch (const Error& e) {
        if (std::string(e.what()).find("not found") == std::string::npos) throw;
        GTEST_SKIP() << "clang is not installed";
    }
}

TEST_F(CodegenPrelude, GrowsByDoublingAndZeroFills) {
    auto* reserve = fn<int(RawBuffer*, int64_t, size_t)>("reserve");
    OwnedRaw b;
    std::vector<int64_t> capacities;
    for (int64_t need = 1; need <= 3000; ++need) {
        ASSERT_EQ(reserve(&b.raw, need, sizeof(int64_t)), 0);
        ASSERT_GE(b.raw.capacity, need);
        if (capacities.empty() || capacities.back() != b.raw.capacity)
            capacities.push_back(b.raw.capacity);
    }
    // Amortised doubling from 16: 3000 elements one at a time cost 9 allocations, not 3000.
    EXPECT_EQ(capacities, (std::vector<int64_t>{16, 32, 64, 128, 256, 512, 1024, 2048, 4096}));
    const auto* data = static_cast<const int64_t*>(b.raw.data);
    EXPECT_TRUE(std::all_of(data, data + b.raw.capacity, [](int64_t v) { return v == 0; }));
    EXPECT_EQ(b.raw.size, 0); // reserve does not change the size
}

// siskin_buffer_grow is reserve without the zero-fill (for arrays written before they are read):
// the same capacities, and what was stored survives every growth.
TEST_F(CodegenPrelude, GrowDoublesLikeReserveAndKeepsTheContents) {
    auto* grow = fn<int(RawBuffer*, int64_t, size_t)>("grow");
    OwnedRaw b;
    b.elem = sizeof(int32_t);
    std::vector<int64_t> capacities;
    for (int64_t need = 1; need <= 3000; ++need) {
        ASSERT_EQ(grow(&b.raw, need, sizeof(int32_t)), 0);
        ASSERT_GE(b.raw.capacity, need);
        static_cast<int32_t*>(b.raw.data)[need - 1] = static_cast<int32_t>(7 * need);
        if (capacities.empty() || capacities.back() != b.raw.capacity)
            capacities.push_back(b.raw.capacity);
    }
    EXPECT_EQ(capacities, (std::vector<int64_t>{16, 32, 64, 128, 256, 512, 1024, 2048, 4096}));
    const auto* data = static_cast<const int32_t*>(b.raw.data);
    for (int64_t i = 0; i < 3000; ++i) ASSERT_EQ(data[i], 7 * (i + 1)) << i;
    EXPECT_EQ(b.raw.size, 0);
    // Room already there: nothing moves.
    void* before = b.raw.data;
    ASSERT_EQ(grow(&b.raw, 4096, sizeof(int32_t)), 0);
    EXPECT_EQ(b.raw.data, before);
    EXPECT_EQ(b.raw.capacity, 4096);
}

// Kernel and host grow and free each other's buffers, also past the size from which a buffer is
// a mapping of its own (siskin_memory.h): the block size both compute from the capacity agrees.
TEST_F(CodegenPrelude, KernelAndHostShareBuffersAcrossTheMappingThreshold) {
    auto* grow = fn<int(RawBuffer*, int64_t, size_t)>("grow");
    auto* reserve = fn<int(RawBuffer*, int64_t, size_t)>("reserve");
    const int64_t big = static_cast<int64_t>(SISKIN_BLOCK_MAP_MIN); // elements: 4 bytes each
    {
        Buffer b(ValueType::Int32, 10); // host-allocated, kernel-grown, host-freed
        for (int32_t i = 0; i < 10; ++i) b.data<int32_t>()[i] = i + 1;
        ASSERT_EQ(grow(&b.raw(), big, sizeof(int32_t)), 0);
        ASSERT_GE(b.raw().capacity, big);
        for (int64_t i = 10; i < big; ++i) b.data<int32_t>()[i] = static_cast<int32_t>(-i);
        ASSERT_EQ(grow(&b.raw(), 4 * big, sizeof(int32_t)), 0); // mapped to mapped
        for (int32_t i = 0; i < 10; ++i) ASSERT_EQ(b.data<int32_t>()[i], i + 1);
        for (int64_t i = 10; i < big; ++i) ASSERT_EQ(b.data<int32_t>()[i], -i) << i;
        b.raw().size = big; // as a kernel's freeze sets it
        b.resize(5 * big);  // the host grows the kernel's block further, with zeros
        EXPECT_EQ(b.data<int32_t>()[big - 1], -(big - 1));
        EXPECT_EQ(b.data<int32_t>()[5 * big - 1], 0);
    }
    {
        Buffer b(ValueType::Float64, 2 * big); // host-allocated mapped block, grown by the kernel
        b.data<double>()[2 * big - 1] = 2.5;
        ASSERT_EQ(reserve(&b.raw(), 2 * big + 1, sizeof(double)), 0);
        EXPECT_EQ(b.data<double>()[2 * big - 1], 2.5);
        for (int64_t i = 2 * big; i < b.raw().capacity; ++i) ASSERT_EQ(b.data<double>()[i], 0.0) << i;
    }
    OwnedRaw k; // kernel-allocated, freed as the host would
    k.elem = sizeof(int32_t);
    ASSERT_EQ(reserve(&k.raw, 3 * big, sizeof(int32_t)), 0);
    EXPECT_EQ(static_cast<int32_t*>(k.raw.data)[3 * big - 1], 0);
}

TEST_F(CodegenPrelude, GrowRefusesImpossibleSizesAndLeavesTheBufferAlone) {
    auto* grow = fn<int(RawBuffer*, int64_t, size_t)>("grow");
    OwnedRaw b;
    ASSERT_EQ(grow(&b.raw, 5, sizeof(double)), 0);
    void* before = b.raw.data;
    EXPECT_EQ(grow(&b.raw, int64_t{1} << 62, sizeof(double)), 1); // bytes overflow size_t
    EXPECT_EQ(b.raw.data, before);
    EXPECT_EQ(b.raw.capacity, 16);
}

TEST_F(CodegenPrelude, AppendsThroughSeveralDoublings) {
    auto* append = fn<int(RawBuffer*, int64_t)>("append_multiples");
    OwnedRaw b;
    ASSERT_EQ(append(&b.raw, 1000), 0);
    ASSERT_EQ(b.raw.size, 1000);
    EXPECT_EQ(b.raw.capacity, 1024);
    const auto* data = static_cast<const int64_t*>(b.raw.data);
    for (int64_t i = 0; i < 1000; ++i) ASSERT_EQ(data[i], 3 * i);
    for (int64_t i = 1000; i < 1024; ++i) ASSERT_EQ(data[i], 0);
}

TEST_F(CodegenPrelude, ResizeZeroesElementsComingBackIntoUse) {
    auto* resize = fn<int(RawBuffer*, int64_t, size_t)>("resize");
    OwnedRaw b;
    ASSERT_EQ(resize(&b.raw, 10, sizeof(int32_t)), 0);
    auto* data = static_cast<int32_t*>(b.raw.data);
    for (int i = 0; i < 10; ++i) data[i] = i + 1;
    ASSERT_EQ(resize(&b.raw, 2, sizeof(int32_t)), 0);
    ASSERT_EQ(resize(&b.raw, 10, sizeof(int32_t)), 0);
    data = static_cast<int32_t*>(b.raw.data);
    EXPECT_EQ(b.raw.size, 10);
    EXPECT_EQ(data[0], 1);
    EXPECT_EQ(data[1], 2);
    for (int i = 2; i < 10; ++i) EXPECT_EQ(data[i], 0) << i;
}

TEST_F(CodegenPrelude, AllocationFailureIsReportedAndLeavesTheBufferAlone) {
    auto* reserve = fn<int(RawBuffer*, int64_t, size_t)>("reserve");
    auto* resize = fn<int(RawBuffer*, int64_t, size_t)>("resize");
    OwnedRaw b;
    ASSERT_EQ(reserve(&b.raw, 100, 8), 0);
    void* data = b.raw.data;
    // 2^50 elements of 8 bytes exceed the address space: realloc fails and returns NULL.
    EXPECT_EQ(reserve(&b.raw, int64_t{1} << 50, 8), 1);
    // 2^62 elements of 8 bytes do not even fit in size_t.
    EXPECT_EQ(reserve(&b.raw, int64_t{1} << 62, 8), 1);
    EXPECT_EQ(resize(&b.raw, -1, 8), 1);
    EXPECT_EQ(b.raw.data, data);
    EXPECT_EQ(b.raw.capacity, 128);
    EXPECT_EQ(b.raw.size, 0);
}

template <class T> void check_searches(int64_t (*lower)(const T*, int64_t, int64_t, T),
                                       int64_t (*gallop)(const T*, int64_t, int64_t, T),
                                       int64_t (*gallop_down)(const T*, int64_t, int64_t, T), T big) {
    std::mt19937_64 rng(7);
    for (int round = 0; round < 300; ++round) {
        int64_t n = static_cast<int64_t>(rng() % 200);
        T spread = round % 3 == 0 ? big : static_cast<T>(n + 5); // duplicates when small
        std::vector<T> a(static_cast<size_t>(n));
        for (T& v : a)
            v = static_cast<T>(static_cast<int64_t>(rng() % static_cast<uint64_t>(spread)) -
                               spread / 4);
        std::sort(a.begin(), a.end());
        for (int q = 0; q < 40; ++q) {
            int64_t lo = n ? static_cast<int64_t>(rng() % static_cast<uint64_t>(n + 1)) : 0;
            int64_t hi = lo + static_cast<int64_t>(rng() % static_cast<uint64_t>(n - lo + 1));
            T x = q % 8 == 0   ? std::numeric_limits<T>::min()
                  : q % 8 == 1 ? std::numeric_limits<T>::max()
                  : q % 2 == 0 && hi > lo
                      ? a[static_cast<size_t>(
                            lo + static_cast<int64_t>(rng() % static_cast<uint64_t>(hi - lo)))]
                      : static_cast<T>(static_cast<int64_t>(rng() % static_cast<uint64_t>(spread)) -
                                       spread / 4);
            int64_t want = std::lower_bound(a.begin() + lo, a.begin() + hi, x) - a.begin();
            ASSERT_EQ(lower(a.data(), lo, hi, x), want)
                << "n=" << n << " lo=" << lo << " hi=" << hi << " x=" << x;
            ASSERT_EQ(gallop(a.data(), lo, hi, x), want)
                << "n=" << n << " lo=" << lo << " hi=" << hi << " x=" << x;
            ASSERT_EQ(gallop_down(a.data(), lo, hi, x), want - 1)
                << "n=" << n << " lo=" << lo << " hi=" << hi << " x=" << x;
        }
    }
}

TEST_F(CodegenPrelude, SearchesMatchStdLowerBound) {
    check_searches<int32_t>(
        fn<int64_t(const int32_t*, int64_t, int64_t, int32_t)>("lower_bound_i32"),
        fn<int64_t(const int32_t*, int64_t, int64_t, int32_t)>("gallop_i32"),
        fn<int64_t(const int32_t*, int64_t, int64_t, int32_t)>("gallop_down_i32"), int32_t{2000000000});
    check_searches<int64_t>(
        fn<int64_t(const int64_t*, int64_t, int64_t, int64_t)>("lower_bound_i64"),
        fn<int64_t(const int64_t*, int64_t, int64_t, int64_t)>("gallop_i64"),
        fn<int64_t(const int64_t*, int64_t, int64_t, int64_t)>("gallop_down_i64"), int64_t{1} << 60);
}

// A prefetch span is only a hint: an empty fibre at the very start of a mapping (its "last
// byte" is the one before, unmapped here) and null pointers read nothing and never fault; a long
// span leaves the data alone.
TEST_F(CodegenPrelude, PrefetchSpanNeverFaults) {
    auto* span = fn<double(const double*, int64_t, int64_t, int64_t)>("span_then_sum");
    const size_t page = 4096;
    void* m = mmap(nullptr, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ASSERT_NE(m, MAP_FAILED);
    ASSERT_EQ(mprotect(m, page, PROT_NONE), 0);
    auto* f = reinterpret_cast<double*>(static_cast<char*>(m) + page);
    for (size_t k = 0; k < page / sizeof(double); ++k) f[k] = 1.0;
    const auto n = static_cast<int64_t>(page / sizeof(double));
    EXPECT_EQ(span(f, n, 0, 0), static_cast<double>(n));
    EXPECT_EQ(span(f, n, 0, n), static_cast<double>(n));
    EXPECT_EQ(span(f, n, n, n), static_cast<double>(n));
    EXPECT_EQ(span(f, 3, 1, 2), 3.0);
    EXPECT_EQ(span(nullptr, 0, 0, 0), 0.0);
    munmap(m, 2 * page);
}

// The radix sort's bucket offsets: exclusive prefix sums, eight lanes at a time where the
// compiler has AVX2, for every length the sort asks for (multiples of 8 up to 256), with sums
// carried across the lanes and past 2^31.
TEST_F(CodegenPrelude, ExclusiveSumMatchesTheScalarSum) {
    auto* sum = fn<void(uint32_t*, uint32_t)>("exclusive_sum");
    std::mt19937 rng(11);
    for (uint32_t n = 8; n <= 256; n += 8)
        for (uint32_t scale : {3u, 1000u, 1u << 26}) {
            std::vector<uint32_t> c(n), want(n);
            for (auto& x : c) x = static_cast<uint32_t>(rng() % scale);
            uint32_t total = 0;
            for (uint32_t b = 0; b < n; ++b) {
                want[b] = total;
                total += c[b];
            }
            sum(c.data(), n);
            ASSERT_EQ(c, want) << "n=" << n << " scale=" << scale;
        }
}

TEST_F(CodegenPrelude, GallopFindsFarTargetsInALongList) {
    auto* gallop = fn<int64_t(const int64_t*, int64_t, int64_t, int64_t)>("gallop_i64");
    std::vector<int64_t> a(1000000);
    for (size_t k = 0; k < a.size(); ++k) a[k] = 2 * static_cast<int64_t>(k);
    const int64_t n = static_cast<int64_t>(a.size());
    EXPECT_EQ(gallop(a.data(), 0, n, 0), 0);
    EXPECT_EQ(gallop(a.data(), 0, n, 1), 1);
    EXPECT_EQ(gallop(a.data(), 10, n, 1), 10);
    EXPECT_EQ(gallop(a.data(), 0, n, 1999998), n - 1);
    EXPECT_EQ(gallop(a.data(), 0, n, 1999999), n);
    EXPECT_EQ(gallop(a.data(), 5, n, 777777), 388889);
    EXPECT_EQ(gallop(a.data(), 5, 5, 777777), 5);
}

// The touched list of a sparsebytemap workspace: n distinct coordinates of [0, dim) in random
// order, their bytes set. Lengths on both sides of each switch (insertion sort up to 8, for
// 32-bit lists a sorting network up to 128 in runs of 16, 32, 64 and 128 lanes, radix sort up to
// dim / 4, or dim / 32 for extents up to 2048, a scan of the bytes above), none, and
// the whole width; extents that are
// not a multiple of 8 (the scan's tail), and radix sorts of one, two and three passes (an odd
// count ends in the scratch array and is copied back; two passes, up to 65536 columns, count
// both digits at once and sum only the high digit's buckets below dim).
template <class T> void check_sort_touched(void (*sort)(T*, int64_t, const bool*, int64_t, T*)) {
    std::mt19937_64 rng(11);
    int cases = 0;
    for (int64_t dim : std::initializer_list<int64_t>{1, 7, 8, 9, 100, 1000, 4099, 40000, 65536, 70000,
                                                      (int64_t{1} << 20) + 3}) {
        std::vector<int64_t> all(static_cast<size_t>(dim));
        for (int64_t c = 0; c < dim; ++c) all[static_cast<size_t>(c)] = c;
        for (int64_t n : {int64_t{0}, int64_t{1}, int64_t{2}, int64_t{8}, int64_t{9}, int64_t{16}, int64_t{17},
                          int64_t{32}, int64_t{33}, int64_t{64}, int64_t{65}, int64_t{128}, int64_t{129}, dim / 32,
                          dim / 32 + 1, dim / 4, dim / 4 + 1, dim / 2, dim - 1, dim}) {
            if (n < 0 || n > dim) continue;
            // n distinct coordinates: a partial Fisher-Yates shuffle of 0..dim-1.
            for (int64_t k = 0; k < n; ++k)
                std::swap(all[static_cast<size_t>(k)],
                          all[static_cast<size_t>(k + static_cast<int64_t>(rng() % static_cast<uint64_t>(dim - k)))]);
            std::vector<T> a(all.begin(), all.begin() + n), tmp(static_cast<size_t>(n) + 1);
            std::vector<char> bytes(static_cast<size_t>(dim), 0);
            for (T c : a) bytes[static_cast<size_t>(c)] = 1;
            std::unique_ptr<bool[]> used(new bool[static_cast<size_t>(dim)]);
            for (int64_t c = 0; c < dim; ++c) used[static_cast<size_t>(c)] = bytes[static_cast<size_t>(c)] != 0;
            std::vector<T> want = a;
            std::sort(want.begin(), want.end());
            sort(a.data(), n, used.get(), dim, tmp.data());
            ASSERT_EQ(a, want) << "dim " << dim << " n " << n;
            // The bytes are read, never written.
            EXPECT_TRUE(std::equal(bytes.begin(), bytes.end(), used.get(),
                                   [](char b, bool u) { return (b != 0) == u; }))
                << "dim " << dim << " n " << n;
            ++cases;
        }
    }
    EXPECT_GE(cases, 140);
    // Columns close together share their high digits: the radix sort skips those passes. Step
    // 256 (below 65536: two digits of 8 bits) shares the low digit instead.
    for (int64_t dim : std::initializer_list<int64_t>{40000, 65536, 70000, (int64_t{1} << 20) + 3}) {
        for (int64_t base : {int64_t{0}, int64_t{1000}, dim - 200, int64_t{-1}}) {
            std::vector<T> a;
            if (base < 0)
                for (int64_t c = 7; c < dim && a.size() < 100; c += 256) a.push_back(static_cast<T>(c));
            for (int64_t c = base; base >= 0 && c < base + 200; c += 2) a.push_back(static_cast<T>(c));
            std::shuffle(a.begin(), a.end(), rng);
            std::unique_ptr<bool[]> used(new bool[static_cast<size_t>(dim)]());
            for (T c : a) used[static_cast<size_t>(c)] = true;
            std::vector<T> want = a, tmp(a.size());
            std::sort(want.begin(), want.end());
            sort(a.data(), static_cast<int64_t>(a.size()), used.get(), dim, tmp.data());
            EXPECT_EQ(a, want) << "dim " << dim << " base " << base;
        }
    }
}

TEST_F(CodegenPrelude, SortTouchedOrdersTheListOnEveryPath) {
    check_sort_touched<int32_t>(fn<void(int32_t*, int64_t, const bool*, int64_t, int32_t*)>("sort_touched_i32"));
    check_sort_touched<int64_t>(fn<void(int64_t*, int64_t, const bool*, int64_t, int64_t*)>("sort_touched_i64"));
}

TEST_F(CodegenPrelude, MinMax) {
    auto* mm = fn<int64_t(int64_t, int64_t)>("min_max");
    EXPECT_EQ(mm(3, 7), 3007);
    EXPECT_EQ(mm(7, 3), 3007);
    EXPECT_EQ(mm(-2, -2), -2002);
}

} // namespace
} // namespace siskin::codegen
