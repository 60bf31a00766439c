#pragma once
// A typed, growable array. Its raw part has the layout of the C struct
// `siskin_buffer` of the generated code's prelude, so compiled kernels can read, write and grow
// level and value arrays in place; both allocate, grow and free its memory through
// runtime/siskin_memory.h (malloc for small blocks, a mapping of its own for large ones).
// A buffer may instead borrow memory that another owner keeps alive (Buffer::borrow: a NumPy
// array's, for the Python package's zero-copy views).
#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>

#include "siskin/value.hpp"

namespace siskin {

struct RawBuffer {
    void* data = nullptr;
    int64_t size = 0;     // elements in use
    int64_t capacity = 0; // elements allocated
};

class Buffer {
public:
    explicit Buffer(ValueType type = ValueType::Int64, int64_t size = 0); // zero-filled
    Buffer(const Buffer&);
    Buffer(Buffer&&) noexcept;
    Buffer& operator=(Buffer);
    ~Buffer();

    /// A buffer over `size` elements at `data`, used in place: `owner` (which keeps that memory
    /// alive, e.g. a NumPy array) is held as long as the buffer uses the memory, and released
    /// instead of freeing it. siskin never writes borrowed memory: resize, push_back, set and
    /// fill first copy it into memory of the buffer's own (a copy of the buffer owns its memory
    /// too), so what writes it is the owner alone, and what it writes is seen here. `data` must
    /// be aligned for the type.
    static Buffer borrow(ValueType type, void* data, int64_t size, std::shared_ptr<const void> owner);
    /// Whether the memory is borrowed (and not yet copied by a write).
    bool borrowed() const { return owner_ != nullptr; }

    ValueType type() const { return type_; }
    int64_t size() const { return raw_.size; }
    /// Grows or shrinks to `n` elements; new elements are zero.
    void resize(int64_t n);
    void push_back(const Scalar& v);

    Scalar get(int64_t i) const;
    void set(int64_t i, const Scalar& v);
    /// Sets every element to `v` (cast to the buffer's type).
    void fill(const Scalar& v);

    /// Mutable access forgets what known_finite() remembered: the caller may write.
    template <class T> T* data() {
        forget_finite();
        return static_cast<T*>(raw_.data);
    }
    template <class T> const T* data() const { return static_cast<const T*>(raw_.data); }
    /// For kernels: the struct they receive a pointer to and may grow through (siskin_memory.h).
    RawBuffer& raw() {
        forget_finite();
        return raw_;
    }
    /// For kernels that only read the buffer.
    const RawBuffer& raw() const { return raw_; }

    /// Whether every value is finite, as a scan found it (the compiler's finite_values),
    /// kept until the next write through this buffer, so a tensor used again is not scanned
    /// again: nothing when unknown. Memory that others may write without siskin knowing (a
    /// borrowed NumPy array, or memory shared_writes() was called for) keeps no answer: it is
    /// scanned every time, since a stale "finite" would let a kernel skip 0 * inf.
    std::optional<bool> known_finite() const;
    void remember_finite(bool finite) const;
    /// Others may write this memory from now on (a writable NumPy view of it was handed out).
    void share_writes() const;

private:
    // Copies borrowed memory into a block of the buffer's own before a write.
    void own();
    void forget_finite() { finite_.store(kUnknown, std::memory_order_relaxed); }

    ValueType type_;
    RawBuffer raw_;
    std::shared_ptr<const void> owner_; // set while raw_.data is borrowed
    static constexpr int8_t kUnknown = -1;
    mutable std::atomic<int8_t> finite_{kUnknown}; // 1 finite, 0 not, kUnknown
    mutable std::atomic<bool> shared_writes_{false};
};

} // namespace siskin
