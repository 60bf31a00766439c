#pragma once
// A direct model of NumPy on small dense arrays, written without siskin's array layer: the
// oracle the lazy-array tests compare against. Element values are Scalars computed by the
// operator registry (whose NumPy agreement tests/ufuncs_numpy_test.cpp checks); shapes,
// broadcasting, views and reductions are done here, the naive way.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <numeric>
#include <string>
#include <vector>

#include "siskin/error.hpp"
#include "siskin/operators.hpp"
#include "siskin/tensor.hpp"

namespace siskin::testing {

struct NdArray {
    std::vector<int64_t> shape;
    ValueType type = ValueType::Float64;
    std::vector<Scalar> data; // C order

    static NdArray of(const Tensor& t) { return {t.shape(), t.type(), t.to_dense()}; }
    int64_t size() const {
        return std::accumulate(shape.begin(), shape.end(), int64_t{1}, std::multiplies<>());
    }
    int ndim() const { return static_cast<int>(shape.size()); }
    std::vector<int64_t> coord(int64_t flat) const {
        std::vector<int64_t> c(shape.size());
        for (int d = ndim() - 1; d >= 0; --d) {
            c[d] = shape[d] == 0 ? 0 : flat % shape[d];
            flat = shape[d] == 0 ? 0 : flat / shape[d];
        }
        return c;
    }
    int64_t flat(const std::vector<int64_t>& c) const {
        int64_t f = 0;
        for (int d = 0; d < ndim(); ++d) f = f * shape[d] + c[d];
        return f;
    }
    /// out[c] = this[map(c)] over `out_shape`.
    NdArray gather(std::vector<int64_t> out_shape,
                   const std::function<std::vector<int64_t>(const std::vector<int64_t>&)>& map) const {
        NdArray r{std::move(out_shape), type, {}};
        for (int64_t f = 0; f < r.size(); ++f) r.data.push_back(data[flat(map(r.coord(f)))]);
        return r;
    }
};

/// What `f` throws (Error::what()), or "no error".
template <class F> std::string error_message(F&& f) {
    try {
        f();
    } catch (const Error& e) {
        return e.what();
    }
    return "no error";
}

inline NdArray np_transpose(const NdArray& a, std::vector<int> axes) {
    std::vector<int64_t> s;
    for (int ax : axes) s.push_back(a.shape[ax]);
    return a.gather(s, [&](const std::vector<int64_t>& c) {
        std::vector<int64_t> in(a.ndim());
        for (size_t o = 0; o < axes.size(); ++o) in[axes[o]] = c[o];
        return in;
    });
}

/// a[start:stop:step] along `axis` with Python's clamping (start/stop given explicitly).
inline NdArray np_slice(const NdArray& a, int axis, int64_t start, int64_t stop, int64_t step) {
    const int64_t n = a.shape[axis];
    auto norm = [&](int64_t v) {
        if (v < 0) v += n;
        return step > 0 ? std::clamp<int64_t>(v, 0, n) : std::clamp<int64_t>(v, -1, n - 1);
    };
    int64_t lo = norm(start), hi = norm(stop);
    std::vector<int64_t> picked;
    for (int64_t i = lo; step > 0 ? i < hi : i > hi; i += step) picked.push_back(i);
    auto s = a.shape;
    s[axis] = static_cast<int64_t>(picked.size());
    return a.gather(s, [&](const std::vector<int64_t>& c) {
        auto in = c;
        in[axis] = picked[c[axis]];
        return in;
    });
}

inline NdArray np_take(const NdArray& a, int axis, int64_t i) {
    auto s = a.shape;
    s.erase(s.begin() + axis);
    return a.gather(s, [&](const std::vector<int64_t>& c) {
        auto in = c;
        in.insert(in.begin() + axis, i < 0 ? i + a.shape[axis] : i);
        return in;
    });
}

inline NdArray np_expand(const NdArray& a, int axis) {
    auto s = a.shape;
    s.insert(s.begin() + axis, 1);
    return a.gather(s, [&](const std::vector<int64_t>& c) {
        auto in = c;
        in.erase(in.begin() + axis);
        return in;
    });
}

inline NdArray np_broadcast_to(const NdArray& a, const std::vector<int64_t>& shape) {
    const size_t lead = shape.size() - a.shape.size();
    return a.gather(shape, [&](const std::vector<int64_t>& c) {
        std::vector<int64_t> in;
        for (size_t d = 0; d < a.shape.size(); ++d) in.push_back(a.shape[d] == 1 ? 0 : c[lead + d]);
        return in;
    });
}

inline NdArray np_ufunc(const std::string& name, std::vector<NdArray> args) {
    const Operator& op = find_operator(name);
    size_t rank = 0;
    for (const auto& a : args) rank = std::max(rank, a.shape.size());
    std::vector<int64_t> shape(rank, 1);
    for (const auto& a : args)
        for (size_t d = 0; d < a.shape.size(); ++d)
            if (a.shape[d] != 1) shape[rank - a.shape.size() + d] = a.shape[d];
    std::vector<ValueType> types;
    for (auto& a : args) {
        types.push_back(a.type);
        a = np_broadcast_to(a, shape);
    }
    NdArray r{shape, op.result_type_of(types), {}};
    for (int64_t f = 0; f < r.size(); ++f) {
        std::vector<Scalar> v;
        for (const auto& a : args) v.push_back(a.data[f]);
        r.data.push_back(op.apply(v).cast(r.type));
    }
    return r;
}

/// Reduces `axes` (sorted, distinct) by `op` starting from `init`, in `type`.
inline NdArray np_reduce(const NdArray& a, const std::string& op, std::vector<int> axes,
                         bool keepdims, ValueType type, Scalar init) {
    const Operator& o = find_operator(op);
    std::vector<int64_t> s;
    for (int d = 0; d < a.ndim(); ++d) {
        bool red = std::count(axes.begin(), axes.end(), d) > 0;
        if (!red) s.push_back(a.shape[d]);
        else if (keepdims) s.push_back(1);
    }
    NdArray r{s, type, {}};
    r.data.assign(r.size(), init.cast(type));
    for (int64_t f = 0; f < a.size(); ++f) {
        auto c = a.coord(f);
        std::vector<int64_t> rc;
        for (int d = 0; d < a.ndim(); ++d) {
            bool red = std::count(axes.begin(), axes.end(), d) > 0;
            if (!red) rc.push_back(c[d]);
            else if (keepdims) rc.push_back(0);
        }
        Scalar& acc = r.data[r.flat(rc)];
        acc = o.apply(std::vector<Scalar>{acc, a.data[f]}).cast(type);
    }
    return r;
}

inline NdArray np_concatenate(const std::vector<NdArray>& parts, int axis) {
    std::vector<int64_t> shape = parts[0].shape;
    shape[axis] = 0;
    ValueType type = parts[0].type;
    for (const auto& p : parts) {
        shape[axis] += p.shape[axis];
        type = promote(type, p.type);
    }
    NdArray r{shape, type, {}};
    for (int64_t f = 0; f < r.size(); ++f) {
        auto c = r.coord(f);
        size_t k = 0;
        while (c[axis] >= parts[k].shape[axis]) c[axis] -= parts[k++].shape[axis];
        r.data.push_back(parts[k].data[parts[k].flat(c)].cast(type));
    }
    return r;
}

/// The same elements in C order, in another shape.
inline NdArray np_reshape(const NdArray& a, std::vector<int64_t> shape) {
    return {std::move(shape), a.type, a.data};
}

inline NdArray np_constant(std::vector<int64_t> shape, Scalar v) {
    NdArray r{std::move(shape), v.type(), {}};
    r.data.assign(r.size(), v);
    return r;
}

inline NdArray np_matmul2(const NdArray& a, const NdArray& b) {
    ValueType ts[] = {a.type, b.type};
    NdArray r{{a.shape[0], b.shape[1]}, find_operator("mul").result_type_of(ts), {}};
    const Operator& mul = find_operator("mul");
    const Operator& add = find_operator("add");
    for (int64_t i = 0; i < a.shape[0]; ++i)
        for (int64_t j = 0; j < b.shape[1]; ++j) {
            Scalar acc = Scalar::zero(r.type);
            for (int64_t k = 0; k < a.shape[1]; ++k)
                acc = add.apply(std::vector<Scalar>{acc, mul.apply(std::vector<Scalar>{
                                                             a.data[i * a.shape[1] + k],
                                                             b.data[k * b.shape[1] + j]})})
                          .cast(r.type);
            r.data.push_back(acc);
        }
    return r;
}

} // namespace siskin::testing
