#pragma once
// A tensor: shape, value type, fill value and a tree of levels holding the stored entries.
// Dense semantics: every coordinate that is not stored holds the fill value.
// A 0-dimensional tensor (shape {}) is a scalar: no levels and one value.
// A tensor with a Pattern leaf has type bool, fill false, and no values buffer.
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "siskin/buffer.hpp"
#include "siskin/format.hpp"
#include "siskin/value.hpp"

namespace siskin {

/// Entries given as coordinates and values, in any order. coords holds ndims numbers per entry.
struct CoordinateList {
    int ndims = 0;
    std::vector<int64_t> coords;
    std::vector<Scalar> values;
    int64_t size() const { return static_cast<int64_t>(values.size()); }
    void add(std::span<const int64_t> coordinate, const Scalar& value);
};

enum class Duplicates { Sum, Reject };

class Tensor;
namespace detail {
/// Internal: a tensor of `format` with every buffer empty, for a compiled kernel to declare
/// (Kernel::run). It is not a valid tensor until that kernel has run on it.
Tensor unbuilt_tensor(std::vector<int64_t> shape, ValueType type, Scalar fill, Format format);
} // namespace detail

/// The buffers of one level, named by its level format (e.g. "pos", "crd", or "crd0".."crdN").
struct LevelStorage {
    LevelSpec spec;
    std::vector<std::string> names;
    std::vector<Buffer> buffers;
    Buffer& buffer(std::string_view name);
    const Buffer& buffer(std::string_view name) const;
};

class Tensor {
public:
    /// An empty tensor: every element is the fill value.
    Tensor(std::vector<int64_t> shape, ValueType type, Scalar fill, Format format);

    /// Builds from coordinates in any order. Duplicates are summed (or rejected with
    /// Duplicates::Reject); coordinates out of range are rejected. Values are converted to `type`
    /// with C semantics (Scalar::cast). Entries equal to the fill are kept as explicit entries in
    /// sparse levels (they still read as the fill); a pattern leaf drops false entries. The fill
    /// must be a value of `type` (floats take any number, rounded).
    static Tensor from_coordinates(std::vector<int64_t> shape, ValueType type, Scalar fill,
                                   Format format, const CoordinateList& entries,
                                   Duplicates duplicates = Duplicates::Sum);
    /// Builds from a row-major dense array; elements equal to the fill are not stored.
    static Tensor from_dense(std::vector<int64_t> shape, ValueType type, Scalar fill,
                             Format format, std::span<const Scalar> values);

    /// A tensor over storage the caller built or borrowed (Buffer::borrow: a NumPy or SciPy
    /// array's), taken as it is, without copying, once checked in one pass over it: levels[k]
    /// names the buffers of level k as its format names them ("pos", "crd", "crd0", ...; a dense
    /// level has none), with the index type of the level's width (a width the format leaves
    /// open is taken from the buffers); positions start at 0 and never decrease, and each
    /// fibre's coordinates lie inside their dimension, increasing and unique (lexicographically
    /// for coo), so no kernel reads outside the buffers; `values` holds one value per position of
    /// the last level (none for a pattern leaf). Anything else is an Error naming the level,
    /// buffer and position. Dense, sparselist and coo levels; the others (runs, fill gaps, slot
    /// flags) are refused with Error(Unsupported).
    static Tensor from_storage(std::vector<int64_t> shape, ValueType type, Scalar fill,
                               Format format, std::vector<std::map<std::string, Buffer>> levels,
                               Buffer values);

    /// Row-major dense copy, the fill where nothing is stored.
    std::vector<Scalar> to_dense() const;
    /// The element at a coordinate (the fill when not stored). Throws Error when out of range.
    Scalar at(std::span<const int64_t> coordinate) const;
    Scalar at(std::initializer_list<int64_t> coordinate) const {
        return at(std::span<const int64_t>(coordinate.begin(), coordinate.size()));
    }
    /// Number of entries the levels store (for dense levels, every position; for a runlist, one
    /// per run, since a run stores one value).
    int64_t stored() const;
    /// Visits stored entries in storage order, with their coordinates in tensor dimension order.
    /// A run (runlist) is visited once per coordinate it covers, fill runs included, so the
    /// visits can outnumber stored().
    void for_each_stored(
        const std::function<void(std::span<const int64_t>, const Scalar&)>& visit) const;
    /// The same values in another format (a runtime copy; the compiler brings a compiled one).
    /// Stored entries equal to the fill are not carried over.
    Tensor convert(const Format& format) const;

    /// Equality under dense semantics: same shape and every element the same value (NaN equals
    /// NaN; a stored entry equal to the fill equals an unstored one). Types must match.
    bool equals(const Tensor& other) const;
    /// Human-readable: header line, then the dense grid for small tensors or the stored entries.
    std::string to_string(int64_t max_elements = 400) const;

    const std::vector<int64_t>& shape() const { return shape_; }
    int ndims() const { return static_cast<int>(shape_.size()); }
    ValueType type() const { return type_; }
    const Scalar& fill() const { return fill_; }
    const Format& format() const { return format_; }

    int num_levels() const { return static_cast<int>(levels_.size()); }
    LevelStorage& level(int k) { return levels_.at(k); }
    const LevelStorage& level(int k) const { return levels_.at(k); }
    /// The leaf's values (empty for a pattern leaf).
    Buffer& values() { return values_; }
    const Buffer& values() const { return values_; }

private:
    friend Tensor detail::unbuilt_tensor(std::vector<int64_t>, ValueType, Scalar, Format);
    // Takes storage assembled by the builders as it is (src/tensor/assemble.hpp).
    Tensor(std::vector<int64_t> shape, ValueType type, Scalar fill, Format format,
           std::vector<LevelStorage> levels, Buffer values);

    std::vector<int64_t> shape_;
    ValueType type_;
    Scalar fill_;
    Format format_;
    std::vector<LevelStorage> levels_;
    Buffer values_;
};

} // namespace siskin
