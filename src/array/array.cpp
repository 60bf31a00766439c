// Arrays from tensors and scalars, their accessors, and the views that rename indices.
#include <algorithm>
#include <numeric>

#include <fmt/format.h>

#include "array/node.hpp"
#include "io/checked.hpp"
#include "siskin/error.hpp"

namespace siskin {
namespace array_detail {

std::shared_ptr<Array::Node> make_node(Array::Node::Kind kind, std::vector<int64_t> shape,
                                       ValueType type, Scalar fill, std::vector<Array> children) {
    auto n = std::make_shared<Array::Node>();
    n->kind = kind;
    n->shape = std::move(shape);
    n->type = type;
    n->fill = fill;
    n->children = std::move(children);
    return n;
}

std::string shape_text(const std::vector<int64_t>& shape) {
    if (shape.size() == 1) return fmt::format("({},)", shape[0]);
    return fmt::format("({})", fmt::join(shape, ", "));
}

std::string describe(const Array& a) {
    const auto& n = a.node();
    if (n.kind == Array::Node::Kind::Tensor && !n.name.empty())
        return fmt::format("{} (shape {})", n.name, shape_text(n.shape));
    return fmt::format("an operand of shape {}", shape_text(n.shape));
}

int normalize_axis(int axis, int ndim, const std::string& what) {
    if (axis < -ndim || axis >= ndim)
        throw Error(fmt::format("{}: axis {} is out of bounds for an array of {} dimensions", what,
                                axis, ndim));
    return axis < 0 ? axis + ndim : axis;
}

Array make_view(const Array& a, std::vector<int64_t> shape, std::vector<DimSource> sources) {
    const Array::Node& child = a.node();
    SISKIN_ASSERT(sources.size() == child.shape.size(), "a view needs a source per dimension");
    // A view of a view reads the inner child directly: compose the coordinate maps.
    if (child.kind == Array::Node::Kind::View) {
        std::vector<DimSource> composed;
        for (const DimSource& inner : child.sources) {
            if (!inner.from) {
                composed.push_back(inner);
                continue;
            }
            const DimSource& outer = sources[*inner.from];
            composed.push_back({outer.from, inner.offset + inner.stride * outer.offset,
                                inner.stride * outer.stride});
        }
        return make_view(child.children[0], std::move(shape), std::move(composed));
    }
    // A view that changes nothing is its child.
    bool identity = shape == child.shape;
    for (size_t d = 0; identity && d < sources.size(); ++d)
        identity = sources[d].from == static_cast<int>(d) && sources[d].offset == 0 &&
                   sources[d].stride == 1;
    if (identity) return a;
    auto n = make_node(Array::Node::Kind::View, std::move(shape), child.type, child.fill, {a});
    n->sources = std::move(sources);
    return Array(std::shared_ptr<const Array::Node>(std::move(n)));
}

std::vector<int64_t> broadcast_shapes(const std::vector<Array>& arrays, const std::string& what) {
    size_t rank = 0;
    for (const Array& a : arrays) rank = std::max(rank, a.shape().size());
    std::vector<int64_t> out(rank, 1);
    for (const Array& a : arrays) {
        const auto& s = a.shape();
        for (size_t k = 0; k < s.size(); ++k) {
            int64_t& o = out[rank - s.size() + k];
            if (s[k] == o || s[k] == 1) continue;
            if (o == 1) {
                o = s[k];
                continue;
            }
            std::vector<std::string> names;
            for (const Array& b : arrays) names.push_back(describe(b));
            throw Error(fmt::format("{}: operands could not be broadcast together: {} (dimension "
                                    "{} from the end has sizes {} and {})",
                                    what, fmt::join(names, ", "), rank - (rank - s.size() + k),
                                    o, s[k]));
        }
    }
    return out;
}

} // namespace array_detail

using namespace array_detail;
using Kind = Array::Node::Kind;

Array::Array(std::shared_ptr<const Tensor> t, std::string name) {
    SISKIN_ASSERT(t != nullptr, "an Array needs a tensor");
    auto n = make_node(Kind::Tensor, t->shape(), t->type(), t->fill(), {});
    n->tensor = std::move(t);
    n->name = std::move(name);
    node_ = std::move(n);
}

Array::Array(Tensor t, std::string name)
    : Array(std::make_shared<const Tensor>(std::move(t)), std::move(name)) {}

Array::Array(Scalar v) : node_(make_node(Kind::Scalar, {}, v.type(), v, {})) {}

Array Array::weak_scalar(Scalar v) {
    auto n = make_node(Kind::Scalar, {}, v.type(), v, {});
    n->weak = true;
    return Array(std::shared_ptr<const Node>(std::move(n)));
}

const std::vector<int64_t>& Array::shape() const { return node_->shape; }
ValueType Array::dtype() const { return node_->type; }
const Scalar& Array::fill() const { return node_->fill; }

int64_t Array::size() const {
    int64_t n = 1;
    for (int64_t d : shape()) {
        auto p = io::checked_mul(n, d);
        if (!p) throw Error(fmt::format("an array of shape {} has more elements than 64 bits count",
                                        shape_text(shape())));
        n = *p;
    }
    return n;
}

Array permute_dims(const Array& a, std::vector<int> axes) {
    const int n = a.ndim();
    if (static_cast<int>(axes.size()) != n)
        throw Error(fmt::format("permute_dims: {} axes given for {} with {} dimensions",
                                axes.size(), describe(a), n));
    std::vector<bool> seen(n, false);
    for (int& ax : axes) {
        ax = normalize_axis(ax, n, "permute_dims");
        if (seen[ax]) throw Error(fmt::format("permute_dims: axis {} repeats in the axes", ax));
        seen[ax] = true;
    }
    std::vector<int64_t> shape(n);
    std::vector<DimSource> sources(n);
    for (int o = 0; o < n; ++o) {
        shape[o] = a.shape()[axes[o]];
        sources[axes[o]] = {o, 0, 1};
    }
    return make_view(a, std::move(shape), std::move(sources));
}

Array transpose(const Array& a) {
    std::vector<int> axes(a.ndim());
    std::iota(axes.rbegin(), axes.rend(), 0);
    return permute_dims(a, std::move(axes));
}

Array Array::T() const { return transpose(*this); }

Array swapaxes(const Array& a, int axis1, int axis2) {
    std::vector<int> axes(a.ndim());
    std::iota(axes.begin(), axes.end(), 0);
    std::swap(axes[normalize_axis(axis1, a.ndim(), "swapaxes")],
              axes[normalize_axis(axis2, a.ndim(), "swapaxes")]);
    return permute_dims(a, std::move(axes));
}

Array moveaxis(const Array& a, int source, int destination) {
    int s = normalize_axis(source, a.ndim(), "moveaxis");
    int d = normalize_axis(destination, a.ndim(), "moveaxis");
    std::vector<int> axes;
    for (int k = 0; k < a.ndim(); ++k)
        if (k != s) axes.push_back(k);
    axes.insert(axes.begin() + d, s);
    return permute_dims(a, std::move(axes));
}

Array expand_dims(const Array& a, int axis) {
    int ax = normalize_axis(axis, a.ndim() + 1, "expand_dims");
    std::vector<int64_t> shape = a.shape();
    shape.insert(shape.begin() + ax, 1);
    std::vector<DimSource> sources;
    for (int k = 0; k < a.ndim(); ++k) sources.push_back({k < ax ? k : k + 1, 0, 1});
    return make_view(a, std::move(shape), std::move(sources));
}

Array squeeze(const Array& a, std::optional<std::vector<int>> axes) {
    std::vector<bool> drop(a.ndim(), false);
    if (axes) {
        for (int ax : *axes) {
            int k = normalize_axis(ax, a.ndim(), "squeeze");
            if (a.shape()[k] != 1)
                throw Error(fmt::format("squeeze: axis {} of {} has size {}, not 1", ax,
                                        describe(a), a.shape()[k]));
            drop[k] = true;
        }
    } else {
        for (int k = 0; k < a.ndim(); ++k) drop[k] = a.shape()[k] == 1;
    }
    std::vector<int64_t> shape;
    std::vector<DimSource> sources;
    for (int k = 0; k < a.ndim(); ++k) {
        if (drop[k]) {
            sources.push_back({std::nullopt, 0, 0});
        } else {
            sources.push_back({static_cast<int>(shape.size()), 0, 1});
            shape.push_back(a.shape()[k]);
        }
    }
    return make_view(a, std::move(shape), std::move(sources));
}

Array broadcast_to(const Array& a, const std::vector<int64_t>& shape) {
    const auto& s = a.shape();
    bool ok = s.size() <= shape.size();
    const size_t lead = ok ? shape.size() - s.size() : 0;
    for (size_t k = 0; ok && k < s.size(); ++k) ok = s[k] == shape[lead + k] || s[k] == 1;
    for (int64_t d : shape)
        if (d < 0) ok = false;
    if (!ok)
        throw Error(fmt::format("broadcast_to: {} cannot be broadcast to shape {}", describe(a),
                                shape_text(shape)));
    std::vector<DimSource> sources;
    for (size_t k = 0; k < s.size(); ++k) {
        if (s[k] == 1 && shape[lead + k] != 1) sources.push_back({std::nullopt, 0, 0});
        else sources.push_back({static_cast<int>(lead + k), 0, 1});
    }
    return make_view(a, shape, std::move(sources));
}

namespace {

/// Python's slice.indices(n): first coordinate and length, bounds clamped.
std::pair<int64_t, int64_t> slice_window(const IndexItem& item, int64_t n) {
    const int64_t step = item.step;
    auto clamp = [&](std::optional<int64_t> v, int64_t absent) {
        if (!v) return absent;
        int64_t x = *v < 0 ? *v + n : *v;
        if (step > 0) return std::clamp<int64_t>(x, 0, n);
        return std::clamp<int64_t>(x, -1, n - 1);
    };
    int64_t start = clamp(item.start, step > 0 ? 0 : n - 1);
    int64_t stop = clamp(item.stop, step > 0 ? n : -1);
    int64_t length = 0;
    if (step > 0 && stop > start) length = (stop - start + step - 1) / step;
    if (step < 0 && start > stop) length = (start - stop + (-step) - 1) / (-step);
    return {start, length};
}

} // namespace

Array Array::operator[](const std::vector<IndexItem>& items) const {
    int consumed = 0, ellipses = 0;
    for (const IndexItem& it : items) {
        if (it.kind == IndexItem::Kind::Integer || it.kind == IndexItem::Kind::Slice) ++consumed;
        if (it.kind == IndexItem::Kind::Ellipsis) ++ellipses;
    }
    if (ellipses > 1) throw Error("indexing: an index can only have a single ellipsis ('...')");
    if (consumed > ndim())
        throw Error(fmt::format("indexing: too many indices for {}: {} dimensions but {} indexed",
                                describe(*this), ndim(), consumed));
    std::vector<IndexItem> full;
    for (const IndexItem& it : items) {
        if (it.kind == IndexItem::Kind::Ellipsis) {
            for (int k = 0; k < ndim() - consumed; ++k) full.push_back(IndexItem::all());
        } else {
            full.push_back(it);
        }
    }
    if (ellipses == 0)
        for (int k = consumed; k < ndim(); ++k) full.push_back(IndexItem::all());

    std::vector<int64_t> shape;
    std::vector<DimSource> sources;
    int dim = 0;
    for (const IndexItem& it : full) {
        switch (it.kind) {
        case IndexItem::Kind::NewAxis:
            shape.push_back(1);
            break;
        case IndexItem::Kind::Integer: {
            const int64_t n = this->shape()[dim];
            int64_t i = it.integer < 0 ? it.integer + n : it.integer;
            if (i < 0 || i >= n)
                throw Error(fmt::format("indexing: index {} is out of bounds for axis {} of {} "
                                        "(size {})", it.integer, dim, describe(*this), n));
            sources.push_back({std::nullopt, i, 0});
            ++dim;
            break;
        }
        case IndexItem::Kind::Slice: {
            if (it.step == 0) throw Error("indexing: slice step cannot be zero");
            auto [first, length] = slice_window(it, this->shape()[dim]);
            sources.push_back({static_cast<int>(shape.size()), first, it.step});
            shape.push_back(length);
            ++dim;
            break;
        }
        case IndexItem::Kind::Ellipsis:
            break;
        }
    }
    return make_view(*this, std::move(shape), std::move(sources));
}

} // namespace siskin
