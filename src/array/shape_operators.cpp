// Shape operators that move elements: concatenate and what is built from it (stack, hstack,
// vstack, pad, tile), flip, and reshape.
#include <fmt/format.h>

#include "array/node.hpp"
#include "io/checked.hpp"
#include "siskin/error.hpp"
#include "siskin/operators.hpp"

namespace siskin {

using namespace array_detail;
using Kind = Array::Node::Kind;

Array concatenate(const std::vector<Array>& arrays, int axis) {
    if (arrays.empty()) throw Error("concatenate: need at least one array to concatenate");
    const Array& first = arrays[0];
    if (first.ndim() == 0) throw Error("concatenate: zero-dimensional arrays cannot be concatenated");
    const int ax = normalize_axis(axis, first.ndim(), "concatenate");
    if (arrays.size() == 1) return first;
    std::vector<int64_t> shape = first.shape();
    shape[ax] = 0;
    std::vector<ValueType> types;
    for (const Array& a : arrays) {
        if (a.ndim() != first.ndim())
            throw Error(fmt::format("concatenate: all arrays must have the same number of "
                                    "dimensions, but {} has {} and {} has {}", describe(first),
                                    first.ndim(), describe(a), a.ndim()));
        for (int d = 0; d < a.ndim(); ++d)
            if (d != ax && a.shape()[d] != first.shape()[d])
                throw Error(fmt::format("concatenate: along axis {}, dimension {} of {} has size "
                                        "{} but {} has size {}", ax, d, describe(first),
                                        first.shape()[d], describe(a), a.shape()[d]));
        auto n = io::checked_add(shape[ax], a.shape()[ax]);
        if (!n) throw Error("concatenate: the result's size does not fit 64 bits");
        shape[ax] = *n;
        types.push_back(a.dtype());
    }
    // NumPy's result type; a piece of another type is converted element by element (the
    // concatenation reads it through the identity of its type: add with a zero of the result's).
    ValueType type = types[0];
    for (ValueType t : types) type = promote(type, t);
    std::vector<Array> pieces;
    for (const Array& a : arrays) {
        if (a.dtype() == type) {
            pieces.push_back(a);
            continue;
        }
        // The promoted type holds every value of a's type, so a + zero(type) is a's value.
        pieces.push_back(ufunc("add", {a, Array(Scalar::zero(type))}));
    }
    Scalar fill = pieces[0].fill();
    auto n = make_node(Kind::Concat, std::move(shape), type, fill, std::move(pieces));
    n->axis = ax;
    return Array(std::shared_ptr<const Array::Node>(std::move(n)));
}

Array stack(const std::vector<Array>& arrays, int axis) {
    if (arrays.empty()) throw Error("stack: need at least one array to stack");
    const int ax = normalize_axis(axis, arrays[0].ndim() + 1, "stack");
    std::vector<Array> expanded;
    for (const Array& a : arrays) {
        if (a.shape() != arrays[0].shape())
            throw Error(fmt::format("stack: all input arrays must have the same shape, but {} "
                                    "and {} differ", describe(arrays[0]), describe(a)));
        expanded.push_back(expand_dims(a, ax));
    }
    return concatenate(expanded, ax);
}

Array hstack(const std::vector<Array>& arrays) {
    if (!arrays.empty() && arrays[0].ndim() == 1) return concatenate(arrays, 0);
    return concatenate(arrays, 1);
}

Array vstack(const std::vector<Array>& arrays) {
    std::vector<Array> rows;
    for (const Array& a : arrays) rows.push_back(a.ndim() == 1 ? expand_dims(a, 0) : a);
    return concatenate(rows, 0);
}

Array pad(const Array& a, std::vector<std::pair<int64_t, int64_t>> widths, const Array& value) {
    if (widths.size() == 1 && a.ndim() > 1) widths.assign(a.ndim(), widths[0]);
    if (static_cast<int>(widths.size()) != a.ndim())
        throw Error(fmt::format("pad: {} pairs of widths for {} with {} dimensions",
                                widths.size(), describe(a), a.ndim()));
    if (value.ndim() != 0) throw Error("pad: the constant value must be a scalar");
    // The pad value takes a's type (NumPy casts it).
    Array constant(value.fill().cast(a.dtype()));
    Array out = a;
    for (int d = 0; d < a.ndim(); ++d) {
        auto [before, after] = widths[d];
        if (before < 0 || after < 0)
            throw Error(fmt::format("pad: widths must be non-negative, got ({}, {}) for axis {}",
                                    before, after, d));
        std::vector<Array> pieces;
        auto block = [&](int64_t width) {
            std::vector<int64_t> s = out.shape();
            s[d] = width;
            return broadcast_to(constant, s);
        };
        if (before > 0) pieces.push_back(block(before));
        pieces.push_back(out);
        if (after > 0) pieces.push_back(block(after));
        out = concatenate(pieces, d);
    }
    return out;
}

Array tile(const Array& a, std::vector<int64_t> reps) {
    Array out = a;
    while (out.ndim() < static_cast<int>(reps.size())) out = expand_dims(out, 0);
    while (static_cast<int>(reps.size()) < out.ndim()) reps.insert(reps.begin(), 1);
    for (int d = 0; d < out.ndim(); ++d) {
        if (reps[d] < 0) throw Error(fmt::format("tile: negative repetition {}", reps[d]));
        if (reps[d] == 1) continue;
        if (reps[d] == 0) {
            std::vector<IndexItem> items(d, IndexItem::all());
            items.push_back(IndexItem::slice(0, 0));
            out = out[items];
            continue;
        }
        out = concatenate(std::vector<Array>(reps[d], out), d);
    }
    return out;
}

Array flip(const Array& a, std::optional<int> axis) {
    std::vector<IndexItem> items;
    const int only = axis ? normalize_axis(*axis, a.ndim(), "flip") : -1;
    for (int d = 0; d < a.ndim(); ++d)
        items.push_back(only < 0 || d == only ? IndexItem::slice({}, {}, -1) : IndexItem::all());
    return a[items];
}

Array reshape(const Array& a, std::vector<int64_t> shape) {
    const int64_t size = a.size();
    int unknown = -1;
    int64_t known = 1;
    for (size_t d = 0; d < shape.size(); ++d) {
        if (shape[d] == -1) {
            if (unknown >= 0) throw Error("reshape: can only specify one unknown dimension");
            unknown = static_cast<int>(d);
            continue;
        }
        if (shape[d] < 0) throw Error(fmt::format("reshape: negative size {} in the new shape", shape[d]));
        auto p = io::checked_mul(known, shape[d]);
        if (!p) throw Error(fmt::format("reshape: shape {} has more elements than 64 bits count",
                                        shape_text(shape)));
        known = *p;
    }
    if (unknown >= 0 && known != 0 && size % known == 0) shape[unknown] = size / known;
    if ((unknown >= 0 && (known == 0 || size % known != 0)) || (unknown < 0 && known != size))
        throw Error(fmt::format("reshape: cannot reshape {} ({} elements) into shape {}",
                                describe(a), size, shape_text(shape)));
    if (shape == a.shape()) return a;
    auto n = make_node(Kind::Reshape, std::move(shape), a.dtype(), a.fill(), {a});
    return Array(std::shared_ptr<const Array::Node>(std::move(n)));
}

} // namespace siskin
