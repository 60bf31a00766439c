#pragma once
// From coordinate lists to level storage: the runtime builder behind every Tensor constructor.
#include <cstdint>
#include <span>
#include <vector>

#include "siskin/tensor.hpp"

namespace siskin::detail {

/// Entries with coordinates in tensor dimension order (ndims per entry) and values of the
/// tensor's type.
struct Entries {
    int ndims = 0;
    std::vector<int64_t> coords;
    std::vector<Scalar> values;
    int64_t size() const { return static_cast<int64_t>(values.size()); }
};

/// Sorts entries lexicographically in the storage order `mode_order` (stable, so duplicates keep
/// their input order) and merges duplicates: summed in type `type`, or an Error naming the
/// coordinate. Coordinates must already be in range.
void sort_and_merge(Entries& entries, std::span<const int> mode_order,
                    std::span<const int64_t> shape, ValueType type, Duplicates duplicates);

/// Checks what every Tensor constructor needs (rank, shape, format dimensions, the fill a value
/// of `type` and of the leaf) and returns the fill as a value of `type`.
Scalar check_tensor(std::span<const int64_t> shape, ValueType type, const Scalar& fill,
                    const Format& format);

struct Assembled {
    Format format; // with the index widths chosen
    std::vector<LevelStorage> levels;
    Buffer values;
};

/// Builds every level and the leaf for entries that are sorted and unique in storage order.
/// Throws Error when `positions` + 1 elements of `bytes_each` bytes, storage of `format` that
/// follows the shape rather than the stored entries (`what`, at `level`: a csr's pos array, one
/// per row), are more than this machine's memory: the message names the shape, the format and
/// both amounts, and suggests a format that grows with the entries. Checked before allocating.
void check_shape_storage(std::span<const int64_t> shape, const Format& format, int level,
                         int64_t positions, size_t bytes_each, const std::string& what);

Assembled assemble(std::span<const int64_t> shape, ValueType type, const Scalar& fill,
                   const Format& format, const Entries& sorted);

/// The storage of `format` for `shape` with every buffer empty (index widths chosen as assemble
/// chooses them): what a kernel output needs before the kernel declares it, which sets every
/// buffer itself. Building an empty tensor instead would fill its values only to be overwritten.
Assembled assemble_unbuilt(std::span<const int64_t> shape, ValueType type, const Scalar& fill,
                           const Format& format);

} // namespace siskin::detail
