#include "siskin/buffer.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <utility>

#include <fmt/format.h>

#include "siskin/error.hpp"
#include "tensor/buffer_memory.hpp"

namespace siskin {

namespace {

size_t block_bytes(int64_t elements, ValueType type) {
    return static_cast<size_t>(elements) * type_size(type);
}

// Resizes the block of a buffer of `type` from `old_elements` to `elements` (buffer_memory, over
// the block layer the kernels grow buffers with); new elements are zero when `zero`.
void* allocate(void* old, int64_t old_elements, int64_t elements, ValueType type, bool zero) {
    size_t bytes = block_bytes(elements, type);
    if (elements < 0 || bytes / type_size(type) != static_cast<size_t>(elements))
        throw Error(fmt::format("a buffer of {} {} elements is too large", elements,
                                type_name(type)));
    void* p = old;
    if (!buffer_memory::resize(p, block_bytes(old_elements, type), bytes, zero))
        throw Error(fmt::format("out of memory allocating a buffer of {} {} elements ({} bytes)",
                                elements, type_name(type), bytes));
    return p;
}

} // namespace

Buffer::Buffer(ValueType type, int64_t size) : type_(type) {
    SISKIN_ASSERT(size >= 0, "negative buffer size");
    // Zeroed by the allocation: calloc or fresh pages need no memset pass.
    raw_.data = allocate(nullptr, 0, size, type_, true);
    raw_.size = raw_.capacity = size;
}

Buffer::Buffer(const Buffer& o) : type_(o.type_) {
    raw_.data = allocate(nullptr, 0, o.raw_.size, type_, false);
    if (o.raw_.size > 0)
        std::memcpy(raw_.data, o.raw_.data, static_cast<size_t>(o.raw_.size) * type_size(type_));
    raw_.size = raw_.capacity = o.raw_.size;
    // The copy is memory of its own: what o remembered of its values holds for it.
    if (auto f = o.known_finite()) remember_finite(*f);
}

Buffer::Buffer(Buffer&& o) noexcept
    : type_(o.type_), raw_(std::exchange(o.raw_, RawBuffer{})), owner_(std::move(o.owner_)),
      finite_(o.finite_.exchange(kUnknown)), shared_writes_(o.shared_writes_.exchange(false)) {}

Buffer& Buffer::operator=(Buffer o) {
    std::swap(type_, o.type_);
    std::swap(raw_, o.raw_);
    std::swap(owner_, o.owner_);
    finite_.store(o.finite_.exchange(finite_.load()));
    shared_writes_.store(o.shared_writes_.exchange(shared_writes_.load()));
    return *this;
}

std::optional<bool> Buffer::known_finite() const {
    int8_t f = finite_.load(std::memory_order_relaxed);
    if (f == kUnknown || owner_ || shared_writes_.load(std::memory_order_relaxed)) return std::nullopt;
    return f == 1;
}

void Buffer::remember_finite(bool finite) const {
    if (!owner_ && !shared_writes_.load(std::memory_order_relaxed))
        finite_.store(finite ? 1 : 0, std::memory_order_relaxed);
}

void Buffer::share_writes() const { shared_writes_.store(true, std::memory_order_relaxed); }

Buffer::~Buffer() {
    if (!owner_) buffer_memory::free(raw_.data, block_bytes(raw_.capacity, type_));
}

Buffer Buffer::borrow(ValueType type, void* data, int64_t size, std::shared_ptr<const void> owner) {
    SISKIN_ASSERT(size >= 0 && owner, "a borrowed buffer needs a size and an owner");
    SISKIN_ASSERT(size == 0 || reinterpret_cast<uintptr_t>(data) % type_size(type) == 0,
                  "borrowed memory is not aligned for its type");
    Buffer b(type, 0);
    buffer_memory::free(b.raw_.data, 0);
    b.raw_ = RawBuffer{data, size, size};
    b.owner_ = std::move(owner);
    return b;
}

void Buffer::own() {
    if (!owner_) return;
    void* copy = allocate(nullptr, 0, raw_.size, type_, false);
    if (raw_.size > 0) std::memcpy(copy, raw_.data, block_bytes(raw_.size, type_));
    raw_.data = copy;
    raw_.capacity = raw_.size;
    owner_.reset();
}

void Buffer::resize(int64_t n) {
    forget_finite();
    SISKIN_ASSERT(n >= 0, "negative buffer size");
    own();
    int64_t dirty = std::min(n, raw_.capacity); // elements past the capacity come zeroed
    if (n > raw_.capacity) {
        raw_.data = allocate(raw_.data, raw_.capacity, n, type_, true);
        raw_.capacity = n;
    }
    if (dirty > raw_.size) {
        size_t elem = type_size(type_);
        std::memset(static_cast<char*>(raw_.data) + static_cast<size_t>(raw_.size) * elem, 0,
                    static_cast<size_t>(dirty - raw_.size) * elem);
    }
    raw_.size = n;
}

void Buffer::push_back(const Scalar& v) {
    forget_finite();
    own();
    if (raw_.size == raw_.capacity) {
        int64_t grown = raw_.capacity < 8 ? 8 : raw_.capacity * 2; // amortised doubling
        raw_.data = allocate(raw_.data, raw_.capacity, grown, type_, false);
        raw_.capacity = grown;
    }
    ++raw_.size;
    set(raw_.size - 1, v);
}

Scalar Buffer::get(int64_t i) const {
    SISKIN_ASSERT(i >= 0 && i < raw_.size, fmt::format("buffer index {} of {}", i, raw_.size));
    return Scalar::load(type_, static_cast<const char*>(raw_.data) + i * type_size(type_));
}

void Buffer::set(int64_t i, const Scalar& v) {
    forget_finite();
    SISKIN_ASSERT(i >= 0 && i < raw_.size, fmt::format("buffer index {} of {}", i, raw_.size));
    own();
    v.cast(type_).store(static_cast<char*>(raw_.data) + i * type_size(type_));
}

namespace {
template <class Word> void fill_words(void* data, int64_t n, const void* value) {
    Word w;
    std::memcpy(&w, value, sizeof w);
    std::fill_n(static_cast<Word*>(data), n, w);
}
} // namespace

void Buffer::fill(const Scalar& v) {
    forget_finite();
    if (raw_.size == 0) return;
    own();
    alignas(8) unsigned char bytes[8] = {};
    v.cast(type_).store(bytes);
    switch (type_size(type_)) { // by width: one typed store per element, no Scalar per element
    case 1: fill_words<uint8_t>(raw_.data, raw_.size, bytes); break;
    case 2: fill_words<uint16_t>(raw_.data, raw_.size, bytes); break;
    case 4: fill_words<uint32_t>(raw_.data, raw_.size, bytes); break;
    case 8: fill_words<uint64_t>(raw_.data, raw_.size, bytes); break;
    default:
        for (int64_t i = 0; i < raw_.size; ++i) set(i, v);
    }
}

} // namespace siskin
