#pragma once
// A typed, growable array. Its raw part has the layout of the C struct
// `siskin_buffer` of the generated code's prelude, so compiled kernels can read, write and grow
// level and value arrays in place; both allocate, grow and free its memory through
// runtime/siskin_memory.h (malloc for small blocks, a mapping of its own for large ones).
#include <cstdint>

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

    ValueType type() const { return type_; }
    int64_t size() const { return raw_.size; }
    /// Grows or shrinks to `n` elements; new elements are zero.
    void resize(int64_t n);
    void push_back(const Scalar& v);

    Scalar get(int64_t i) const;
    void set(int64_t i, const Scalar& v);
    /// Sets every element to `v` (cast to the buffer's type).
    void fill(const Scalar& v);

    template <class T> T* data() { return static_cast<T*>(raw_.data); }
    template <class T> const T* data() const { return static_cast<const T*>(raw_.data); }
    /// For kernels: the struct they receive a pointer to and may grow through (siskin_memory.h).
    RawBuffer& raw() { return raw_; }

private:
    ValueType type_;
    RawBuffer raw_;
};

} // namespace siskin
