// Reading a tensor: element access, stored entries, dense copies and equality.
#include <algorithm>
#include <limits>
#include <new>

#include <fmt/format.h>

#include "levels/leaf_format.hpp"
#include "levels/level_format.hpp"
#include "siskin/error.hpp"
#include "siskin/tensor.hpp"
#include "tensor/describe.hpp"

namespace siskin {

namespace {

int64_t element_count(std::span<const int64_t> shape) {
    int64_t total = 1;
    for (int64_t n : shape) {
        if (n != 0 && total > std::numeric_limits<int64_t>::max() / n)
            throw Error(fmt::format("a tensor of shape {} has more than 2^63 elements: too large "
                                    "to make dense",
                                    detail::shape_text(shape)));
        total *= n;
    }
    return total;
}

} // namespace

Scalar Tensor::at(std::span<const int64_t> coordinate) const {
    if (coordinate.size() != shape_.size())
        throw Error(fmt::format("coordinate {} has {} indices, but the tensor has {} dimensions",
                                detail::coord_text(coordinate), coordinate.size(), ndims()));
    for (size_t m = 0; m < shape_.size(); ++m)
        if (coordinate[m] < 0 || coordinate[m] >= shape_[m])
            throw Error(fmt::format("coordinate {} is out of range for shape {}",
                                    detail::coord_text(coordinate), detail::shape_text(shape_)));
    int64_t small[8];
    std::vector<int64_t> large;
    int64_t* level_coords = small;
    if (shape_.size() > 8) {
        large.resize(shape_.size());
        level_coords = large.data();
    }
    int64_t position = 0;
    for (const LevelStorage& s : levels_) {
        size_t k = s.spec.modes.size();
        for (size_t j = 0; j < k; ++j)
            level_coords[j] = coordinate[static_cast<size_t>(s.spec.modes[j])];
        std::optional<int64_t> q = levels::level_format(s.spec.kind)
                                       .locate(s, shape_, position, {level_coords, k});
        if (!q) return fill_;
        position = *q;
    }
    return levels::leaf_format(format_.leaf()).value(values_, position);
}

int64_t Tensor::stored() const {
    // Positions of each level, and how many of them hold entries (fewer below a level with
    // unused slots, such as sparsebytemap).
    int64_t positions = 1, used = 1;
    for (const LevelStorage& s : levels_) {
        const levels::LevelFormat& f = levels::level_format(s.spec.kind);
        used = f.num_stored(s, shape_, positions, used);
        positions = f.num_positions(s, shape_, positions);
    }
    return used;
}

void Tensor::for_each_stored(
    const std::function<void(std::span<const int64_t>, const Scalar&)>& visit) const {
    const levels::LeafFormat& leaf = levels::leaf_format(format_.leaf());
    if (levels_.empty()) {
        visit({}, leaf.value(values_, 0));
        return;
    }
    std::vector<const levels::LevelFormat*> formats;
    for (const LevelStorage& s : levels_) formats.push_back(&levels::level_format(s.spec.kind));
    std::vector<int64_t> coord(shape_.size()), level_coords(shape_.size());
    // Depth-first over the level tree, so entries come in storage order. An entry covering a
    // run of coordinates is visited once per coordinate, each with the run's value.
    auto walk = [&](auto& self, size_t k, int64_t parent) -> void {
        const LevelStorage& s = levels_[k];
        size_t nk = s.spec.modes.size();
        int last_mode = s.spec.modes[nk - 1];
        levels::FibreRange r = formats[k]->fibre(s, shape_, parent);
        for (int64_t e = r.begin; e < r.end; ++e) {
            levels::FibreEntry entry =
                formats[k]->fibre_entry(s, shape_, parent, e, {level_coords.data(), nk});
            for (size_t j = 0; j < nk; ++j)
                coord[static_cast<size_t>(s.spec.modes[j])] = level_coords[j];
            int64_t first = coord[static_cast<size_t>(last_mode)];
            for (int64_t i = first; i < first + entry.length; ++i) {
                coord[static_cast<size_t>(last_mode)] = i;
                if (k + 1 == levels_.size()) visit(coord, leaf.value(values_, entry.position));
                else self(self, k + 1, entry.position);
            }
        }
    };
    walk(walk, 0, 0);
}

std::vector<Scalar> Tensor::to_dense() const {
    int64_t total = element_count(shape_);
    std::vector<Scalar> out;
    try {
        out.assign(static_cast<size_t>(total), fill_);
    } catch (const std::bad_alloc&) {
        throw Error(fmt::format("a tensor of shape {} ({} elements) is too large to make dense",
                                detail::shape_text(shape_), total));
    } catch (const std::length_error&) {
        throw Error(fmt::format("a tensor of shape {} ({} elements) is too large to make dense",
                                detail::shape_text(shape_), total));
    }
    for_each_stored([&](std::span<const int64_t> c, const Scalar& v) {
        int64_t i = 0;
        for (size_t m = 0; m < c.size(); ++m) i = i * shape_[m] + c[m];
        out[static_cast<size_t>(i)] = v;
    });
    return out;
}

bool Tensor::equals(const Tensor& other) const {
    if (type_ != other.type_ || shape_ != other.shape_) return false;
    if (fill_.same(other.fill_)) {
        // Elements outside both tensors' stored entries are the shared fill, so checking every
        // stored entry of each side against the other is enough.
        bool same = true;
        auto check = [&](const Tensor& a, const Tensor& b) {
            a.for_each_stored([&](std::span<const int64_t> c, const Scalar& v) {
                if (same && !v.same(a.fill_) && !b.at(c).same(v)) same = false;
            });
        };
        check(*this, other);
        if (same) check(other, *this);
        return same;
    }
    std::vector<Scalar> a = to_dense(), b = other.to_dense();
    for (size_t i = 0; i < a.size(); ++i)
        if (!a[i].same(b[i])) return false;
    return true;
}

} // namespace siskin
