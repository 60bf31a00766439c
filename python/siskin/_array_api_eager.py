"""The Array API's functions whose result's shape or order depends on the values: nonzero, take,
sort and argsort (the unique functions are _array_api_unique's, on the helpers here). They run
at once (a lazy input is computed first) on the stored entries and the fill, with NumPy's
semantics over every element: a sparse tensor's unstored elements count as its fill (sort
places them as a block among the sorted stored values). Dense tensors go to NumPy over their
own memory.

NaN: sort puts NaNs last, as NumPy does."""

import math

import numpy as np

from ._arrays import Array
from ._tensor import SiskinError, Tensor, _coo, _fill_for, asarray


def _tensor(x):
    if isinstance(x, Array):
        return x.compute()
    return x if isinstance(x, Tensor) else asarray(x)


def _dense(t):
    return t._native.dense_order is not None


def _stored(t):
    """The stored entries in C order: one int64 coordinate array per dimension, and the values."""
    if t._native.format.endswith("/pattern"):
        raise SiskinError("this function needs a tensor with values, not a pattern: convert it to a "
                          "format with values first")
    native = t._native.convert("coo(" + ",".join(map(str, range(t.ndim))) + ")")
    level = native.levels()[0]
    coords = [np.asarray(level[f"crd{m}"], dtype=np.int64) for m in range(t.ndim)]
    return coords, np.asarray(native.values(writable=False))


def _from_entries(t, shape, coords, values, fill=None):
    """A tensor of the values' dtype holding the entries, in t's format where the rank is kept
    (else coo), with t's fill unless another is given."""
    order = np.lexsort(coords[::-1]) if coords else np.zeros(0, dtype=np.int64)
    coords = [c[order] for c in coords]
    values = np.ascontiguousarray(values[order])
    fill = _fill_for(t._native.fill if fill is None else fill, values.dtype)
    out = Tensor(_coo(shape, tuple(range(len(shape))), coords, values, fill))
    return out.asformat(t._native.format) if len(shape) == t.ndim else out


def _flat_positions(coords, shape):
    """Each entry's position in the tensor flattened in C order (int64; the size is checked)."""
    if math.prod(shape) > np.iinfo(np.int64).max:
        raise SiskinError(f"an array of shape {tuple(shape)} has more elements than int64 positions count")
    flat = np.zeros(len(coords[0]) if coords else 0, dtype=np.int64)
    for c, n in zip(coords, shape):
        flat = flat * n + c
    return flat


def flattened(x):
    """x's elements as one dimension in C order, without a kernel: a dense tensor's values (a
    view where they are in C order), a sparse tensor's entries at their flat positions."""
    t = _tensor(x)
    if _dense(t):
        return asarray(np.ascontiguousarray(t.to_numpy()).reshape(-1), fill_value=t._native.fill)
    coords, values = _stored(t)
    size = math.prod(t.shape)
    return _from_entries(t, (size,), [_flat_positions(coords, t.shape)], values)


def _axis(axis, ndim, name):
    if not -ndim <= axis < ndim:
        raise SiskinError(f"{name}: axis {axis} is out of range for {ndim} dimensions")
    return axis % ndim


def nonzero(x, /):
    """The coordinates of the elements that are not zero (False), one int64 array per
    dimension, in C order. Under a fill that is not zero every unstored element counts."""
    t = _tensor(x)
    if t.ndim == 0:
        raise SiskinError("nonzero takes an array of at least one dimension (NumPy deprecates 0-d)")
    if _dense(t) or t.fill_value != 0:
        return tuple(asarray(np.ascontiguousarray(c, dtype=np.int64)) for c in np.nonzero(t.to_numpy()))
    coords, values = _stored(t)
    keep = values != 0
    return tuple(asarray(np.ascontiguousarray(c[keep])) for c in coords)


def take(x, indices, /, *, axis=None):
    """The slices of x at the given positions along axis (NumPy's take; negative positions
    count from the end). axis may be left out for a 1-d x."""
    t = _tensor(x)
    if axis is None:
        if t.ndim != 1:
            raise SiskinError(f"take: give the axis for an array of {t.ndim} dimensions")
        axis = 0
    axis = _axis(axis, t.ndim, "take")
    idx = np.asarray(indices.compute() if isinstance(indices, Array) else indices)
    if idx.ndim != 1 or (idx.size and idx.dtype.kind not in "iu"):
        raise SiskinError(f"take: indices must be a one-dimensional integer array, got shape {idx.shape} "
                          f"of {idx.dtype}")
    n = t.shape[axis]
    idx = idx.astype(np.int64)
    if idx.size and (idx.min() < -n or idx.max() >= n):
        bad = idx[(idx < -n) | (idx >= n)][0]
        raise SiskinError(f"take: index {bad} is out of bounds for axis {axis} of size {n}")
    idx = np.where(idx < 0, idx + n, idx)
    shape = list(t.shape)
    shape[axis] = len(idx)
    if _dense(t):
        return asarray(np.ascontiguousarray(np.take(t.to_numpy(), idx, axis=axis)), fill_value=t._native.fill)
    coords, values = _stored(t)
    # The entries grouped by their coordinate along axis, then each position's group repeated.
    order = np.argsort(coords[axis], kind="stable")
    counts = np.bincount(coords[axis], minlength=n)
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int64)
    lengths = counts[idx]
    total = int(lengths.sum())
    first = np.repeat(starts[idx] - np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64), lengths)
    picked = order[first + np.arange(total, dtype=np.int64)]
    new = [c[picked] for c in coords]
    new[axis] = np.repeat(np.arange(len(idx), dtype=np.int64), lengths)
    return _from_entries(t, shape, new, values[picked])


def sort(x, /, *, axis=-1, descending=False, stable=True):
    """x's elements sorted along axis (NaNs last; descending reverses the order). A sparse
    tensor keeps its fill and format: in each fibre the unstored elements sit as one block
    where the fill sorts among the stored values, so only stored values move."""
    t = _tensor(x)
    if t.ndim == 0:
        raise SiskinError("sort takes an array of at least one dimension")
    axis = _axis(axis, t.ndim, "sort")
    if _dense(t):
        out = np.sort(t.to_numpy(), axis=axis, kind="stable")
        out = np.flip(out, axis=axis) if descending else out
        return asarray(np.ascontiguousarray(out), fill_value=t._native.fill)
    coords, values = _stored(t)
    others = [c for d, c in enumerate(coords) if d != axis]
    # By fibre (the other coordinates, C order), then by value (NaN last, as np.sort).
    order = np.lexsort([values] + others[::-1])
    coords = [c[order] for c in coords]
    values = values[order]
    others = [c for d, c in enumerate(coords) if d != axis]
    n = len(values)
    fibre_start = np.zeros(n, dtype=bool)
    if n:
        fibre_start[0] = True
        for c in others:
            fibre_start[1:] |= c[1:] != c[:-1]
    starts = np.flatnonzero(fibre_start)
    fibre_of = np.cumsum(fibre_start) - 1
    rank = np.arange(n) - starts[fibre_of]
    sizes = np.diff(np.append(starts, n))
    length = t.shape[axis]
    gap = length - sizes[fibre_of]  # unstored elements of each entry's fibre
    fill = t.fill_value
    after = values > fill
    if values.dtype.kind == "f":
        after |= np.isnan(values) & ~np.isnan(fill)
    position = rank + np.where(after, gap, 0)
    if descending:
        position = length - 1 - position
    coords[axis] = position.astype(np.int64)
    return _from_entries(t, list(t.shape), coords, values)


def argsort(x, /, *, axis=-1, descending=False, stable=True):
    """The positions that sort x along axis (int64; stable: equal elements keep their order,
    descending too). Every element has a position, so the result is dense."""
    t = _tensor(x)
    if t.ndim == 0:
        raise SiskinError("argsort takes an array of at least one dimension")
    axis = _axis(axis, t.ndim, "argsort")
    a = t.to_numpy()
    if descending:
        # Stable and descending: sort the reversed array, then map positions back.
        out = a.shape[axis] - 1 - np.flip(np.argsort(np.flip(a, axis=axis), axis=axis, kind="stable"), axis=axis)
    else:
        out = np.argsort(a, axis=axis, kind="stable")
    return asarray(np.ascontiguousarray(out, dtype=np.int64))


__all__ = ["argsort", "nonzero", "sort", "take"]
