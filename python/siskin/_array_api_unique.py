"""The Array API's set functions (unique_values, unique_counts, unique_inverse, unique_all) and
NumPy's np.unique on siskin tensors. They run at once (a lazy input is computed first) with
NumPy's semantics over every element, computed from the stored entries and the fill: the
unstored elements count as one more value (the fill), whose first position is the first
coordinate (C order) nothing is stored at. The inverse of a sparse tensor stays sparse: its fill
is the fill's position among the values.

NaN: the standard keeps every NaN apart (NumPy's equal_nan=False), so each unstored NaN is a
value of its own and a NaN-filled tensor is densified (the result has an entry per element
anyway); np.unique's default, equal_nan=True, makes all NaNs one value."""

from collections import namedtuple

import numpy as np

from ._array_api_eager import _dense, _flat_positions, _from_entries, _stored, _tensor
from ._tensor import asarray

UniqueAllResult = namedtuple("UniqueAllResult", ["values", "indices", "inverse_indices", "counts"])
UniqueCountsResult = namedtuple("UniqueCountsResult", ["values", "counts"])
UniqueInverseResult = namedtuple("UniqueInverseResult", ["values", "inverse_indices"])

_Parts = namedtuple("_Parts", ["values", "indices", "inverse", "counts"])


def _same(a, b):
    return a == b or (a != a and b != b)


def _dense_parts(t, equal_nan, flat_inverse):
    d = t.to_numpy()
    values, indices, inverse, counts = np.unique(d.reshape(-1), return_index=True, return_inverse=True,
                                                 return_counts=True, equal_nan=equal_nan)
    inverse = inverse.astype(np.int64).reshape(-1 if flat_inverse else d.shape)
    return _Parts(values, indices.astype(np.int64), asarray(np.ascontiguousarray(inverse)), counts)


def _first_unstored(flat):
    """The smallest position missing from flat (ascending, unique positions)."""
    gaps = np.flatnonzero(flat != np.arange(len(flat), dtype=flat.dtype))
    return int(gaps[0]) if len(gaps) else len(flat)


def _sparse_parts(t, equal_nan, flat_inverse):
    coords, stored = _stored(t)
    flat = _flat_positions(coords, t.shape)
    values, first, inverse, counts = np.unique(stored, return_index=True, return_inverse=True,
                                               return_counts=True, equal_nan=equal_nan)
    indices = flat[first] if len(first) else np.zeros(0, dtype=np.int64)
    inverse = inverse.astype(np.int64)
    size = int(np.prod(t.shape, dtype=np.int64))
    unstored = size - len(stored)
    fill = t.dtype.type(t._native.fill)
    at = int(np.searchsorted(values, fill))  # NaN sorts last, as in values
    if unstored:
        gap = _first_unstored(flat)
        if at < len(values) and _same(values[at], fill):
            counts[at] += unstored
            indices[at] = min(indices[at], gap)
        else:
            values = np.insert(values, at, fill)
            indices = np.insert(indices, at, gap)
            counts = np.insert(counts, at, unstored)
            inverse[inverse >= at] += 1
    elif not (at < len(values) and _same(values[at], fill)):
        at = 0  # no element is the fill: the inverse's fill is never read
    if flat_inverse:
        shape, coords = (size,), [flat]
    else:
        shape = t.shape
    inverse_tensor = _from_entries(t, shape, coords, inverse, fill=at)
    return _Parts(values.astype(t.dtype), indices.astype(np.int64), inverse_tensor, counts)


def _unique(x, equal_nan=False, flat_inverse=False):
    """Sorted distinct values, the first position of each (C order), every element's position
    among the values (x's shape, or one dimension with flat_inverse) and the counts."""
    t = _tensor(x)
    nan_fill = t.dtype.kind == "f" and np.isnan(t._native.fill)
    if _dense(t) or (nan_fill and not equal_nan):
        parts = _dense_parts(t, equal_nan, flat_inverse)
    else:
        parts = _sparse_parts(t, equal_nan, flat_inverse)
    return parts._replace(counts=parts.counts.astype(np.int64))


def _vector(values):
    return asarray(np.ascontiguousarray(values))


def unique_values(x, /):
    """The distinct values of x's elements, sorted (each NaN apart), as a 1-d tensor."""
    return _vector(_unique(x).values)


def unique_counts(x, /):
    """The distinct values (as unique_values) and how many elements hold each (int64)."""
    parts = _unique(x)
    return UniqueCountsResult(_vector(parts.values), _vector(parts.counts))


def unique_inverse(x, /):
    """The distinct values and, for every element of x, its value's position among them (x's
    shape, int64; sparse when x is)."""
    parts = _unique(x)
    return UniqueInverseResult(_vector(parts.values), parts.inverse)


def unique_all(x, /):
    """The distinct values, the first position of each in x flattened (C order), the inverse
    (as unique_inverse) and the counts."""
    parts = _unique(x)
    return UniqueAllResult(_vector(parts.values), _vector(parts.indices), parts.inverse,
                           _vector(parts.counts))


def numpy_unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None, *,
                 equal_nan=True):
    """np.unique with axis None (other axes: None, for NumPy's dispatch to refuse): a tensor, or
    a tuple of the tensors asked for, in NumPy's order. The inverse is one-dimensional where the
    installed NumPy's is."""
    if axis is not None:
        return None
    parts = _unique(ar, equal_nan=equal_nan, flat_inverse=_numpy_inverse_is_flat())
    out = [_vector(parts.values)]
    if return_index:
        out.append(_vector(parts.indices))
    if return_inverse:
        out.append(parts.inverse)
    if return_counts:
        out.append(_vector(parts.counts))
    return out[0] if len(out) == 1 else tuple(out)


_inverse_is_flat = None


def _numpy_inverse_is_flat():
    # NumPy 1.x flattens np.unique's inverse; NumPy 2 gives it the input's shape (2.0.1 on).
    global _inverse_is_flat
    if _inverse_is_flat is None:
        _inverse_is_flat = np.unique(np.zeros((1, 1)), return_inverse=True)[1].ndim == 1
    return _inverse_is_flat


__all__ = ["unique_all", "unique_counts", "unique_inverse", "unique_values"]
