// Tensor construction: empty, from coordinates, from a dense array, and by conversion.
#include "siskin/tensor.hpp"

#include <algorithm>
#include <cstdint>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "levels/leaf_format.hpp"
#include "siskin/error.hpp"
#include "siskin/limits.hpp"
#include "tensor/assemble.hpp"
#include "tensor/describe.hpp"
#include "tensor/transpose.hpp"

namespace siskin {

// Checks what every constructor needs and returns the fill as a value of `type`.
Scalar detail::check_tensor(std::span<const int64_t> shape, ValueType type, const Scalar& fill,
                    const Format& format) {
    check_rank(static_cast<int64_t>(shape.size()), "the tensor");
    for (int64_t n : shape)
        if (n < 0)
            throw Error(fmt::format("shape {} has a negative extent", detail::shape_text(shape)));
    if (format.ndims() != static_cast<int>(shape.size()))
        throw Error(fmt::format("format '{}' stores {} dimensions, but the shape {} has {}",
                                format.to_string(), format.ndims(), detail::shape_text(shape),
                                shape.size()));
    Scalar f = fill.cast(type);
    // Floats take any number, rounded; other types only values they hold exactly.
    if (!is_float(type) && !f.same_value(fill))
        throw Error(fmt::format("fill value {} is not a value of type {}", fill.to_string(),
                                type_name(type)));
    levels::leaf_format(format.leaf()).check(type, f, format);
    return f;
}

using detail::check_tensor;

void CoordinateList::add(std::span<const int64_t> coordinate, const Scalar& value) {
    if (static_cast<int>(coordinate.size()) != ndims)
        throw Error(fmt::format("coordinate {} has {} indices, but the list holds {}-dimensional "
                                "entries",
                                detail::coord_text(coordinate), coordinate.size(), ndims));
    coords.insert(coords.end(), coordinate.begin(), coordinate.end());
    values.push_back(value);
}

Buffer& LevelStorage::buffer(std::string_view name) {
    return const_cast<Buffer&>(static_cast<const LevelStorage&>(*this).buffer(name));
}

const Buffer& LevelStorage::buffer(std::string_view name) const {
    for (size_t i = 0; i < names.size() && i < buffers.size(); ++i)
        if (names[i] == name) return buffers[i];
    throw Error(fmt::format("a {} level has no buffer '{}' (it has: {})", spec.kind, name,
                            fmt::join(names, ", ")));
}

Tensor::Tensor(std::vector<int64_t> shape, ValueType type, Scalar fill, Format format)
    : shape_(std::move(shape)), type_(type), fill_(check_tensor(shape_, type, fill, format)) {
    detail::Entries none;
    none.ndims = ndims();
    detail::Assembled a = detail::assemble(shape_, type_, fill_, format, none);
    format_ = std::move(a.format);
    levels_ = std::move(a.levels);
    values_ = std::move(a.values);
}

Tensor::Tensor(std::vector<int64_t> shape, ValueType type, Scalar fill, Format format,
               std::vector<LevelStorage> levels, Buffer values)
    : shape_(std::move(shape)), type_(type), fill_(std::move(fill)), format_(std::move(format)),
      levels_(std::move(levels)), values_(std::move(values)) {}

Tensor detail::unbuilt_tensor(std::vector<int64_t> shape, ValueType type, Scalar fill,
                              Format format) {
    Scalar f = check_tensor(shape, type, fill, format);
    detail::Assembled a = detail::assemble_unbuilt(shape, type, f, format);
    return Tensor(std::move(shape), type, std::move(f), std::move(a.format), std::move(a.levels),
                  std::move(a.values));
}

Tensor Tensor::from_coordinates(std::vector<int64_t> shape, ValueType type, Scalar fill,
                                Format format, const CoordinateList& entries,
                                Duplicates duplicates) {
    Scalar f = check_tensor(shape, type, fill, format);
    const int nd = static_cast<int>(shape.size());
    if (entries.ndims != nd)
        throw Error(fmt::format("the coordinate list holds {}-dimensional entries, but the shape "
                                "{} has {} dimensions",
                                entries.ndims, detail::shape_text(shape), nd));
    if (entries.coords.size() != static_cast<size_t>(entries.size()) * static_cast<size_t>(nd))
        throw Error(fmt::format("the coordinate list has {} coordinates for {} values of {} "
                                "dimensions",
                                entries.coords.size(), entries.size(), nd));
    for (size_t e = 0; e < static_cast<size_t>(entries.size()); ++e) {
        const int64_t* c = entries.coords.data() + e * static_cast<size_t>(nd);
        for (int m = 0; m < nd; ++m)
            if (c[m] < 0 || c[m] >= shape[static_cast<size_t>(m)])
                throw Error(fmt::format(
                    "coordinate {} is out of range for shape {}",
                    detail::coord_text(std::span<const int64_t>(c, static_cast<size_t>(nd))),
                    detail::shape_text(shape)));
    }

    detail::Entries list;
    list.ndims = nd;
    list.coords = entries.coords;
    list.values.reserve(entries.values.size());
    for (const Scalar& v : entries.values) list.values.push_back(v.cast(type));
    std::vector<int> order = format.mode_order();
    detail::sort_and_merge(list, order, shape, type, duplicates);

    // A leaf may not keep every value (pattern drops false, which reads as the fill anyway).
    const levels::LeafFormat& leaf = levels::leaf_format(format.leaf());
    int64_t kept = 0;
    for (int64_t e = 0; e < list.size(); ++e) {
        if (!leaf.keeps(list.values[static_cast<size_t>(e)])) continue;
        if (kept != e) {
            std::copy_n(list.coords.begin() + e * nd, nd, list.coords.begin() + kept * nd);
            list.values[static_cast<size_t>(kept)] = list.values[static_cast<size_t>(e)];
        }
        ++kept;
    }
    list.coords.resize(static_cast<size_t>(kept * nd));
    list.values.resize(static_cast<size_t>(kept));

    detail::Assembled a = detail::assemble(shape, type, f, format, list);
    return Tensor(std::move(shape), type, f, std::move(a.format), std::move(a.levels),
                  std::move(a.values));
}

Tensor Tensor::from_dense(std::vector<int64_t> shape, ValueType type, Scalar fill, Format format,
                          std::span<const Scalar> values) {
    Scalar f = check_tensor(shape, type, fill, format);
    int64_t total = 1;
    for (int64_t n : shape) {
        if (n != 0 && total > INT64_MAX / n)
            throw Error(fmt::format("shape {} has more than 2^63 elements",
                                    detail::shape_text(shape)));
        total *= n;
    }
    if (static_cast<int64_t>(values.size()) != total)
        throw Error(fmt::format("a dense array of shape {} has {} elements, not {}",
                                detail::shape_text(shape), total, values.size()));
    CoordinateList list;
    list.ndims = static_cast<int>(shape.size());
    std::vector<int64_t> coord(shape.size(), 0);
    for (int64_t i = 0; i < total; ++i) {
        if (!values[static_cast<size_t>(i)].cast(type).same(f)) list.add(coord, values[static_cast<size_t>(i)]);
        // Row-major: the last dimension moves fastest.
        for (size_t m = shape.size(); m-- > 0;) {
            if (++coord[m] < shape[m]) break;
            coord[m] = 0;
        }
    }
    return from_coordinates(std::move(shape), type, f, std::move(format), list);
}

Tensor Tensor::convert(const Format& format) const {
    // Only entries that differ from the fill move over; explicit fills are dropped.
    if (auto flipped = detail::transpose_compressed(*this, format))
        return Tensor(shape_, type_, fill_, std::move(flipped->format), std::move(flipped->levels),
                      std::move(flipped->values));
    CoordinateList list;
    list.ndims = ndims();
    for_each_stored([&](std::span<const int64_t> c, const Scalar& v) {
        if (!v.same(fill_)) list.add(c, v);
    });
    return from_coordinates(shape_, type_, fill_, format, list);
}

} // namespace siskin
