"""The Array API's functions whose result's shape or order depends on the values: nonzero, take,
repeat, take_along_axis, searchsorted, sort and argsort (the unique functions are _array_api_unique's, on the helpers here). They run
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


def _index_array(indices, name):
    # A Tensor converts through __array__; only a lazy Array is computed first.
    idx = np.asarray(indices.compute() if isinstance(indices, Array) else indices)
    if idx.size and idx.dtype.kind not in "iu":
        raise SiskinError(f"{name}: indices must be integers, got {idx.dtype}")
    return idx.astype(np.int64)


def repeat(x, repeats, /, *, axis=None):
    """Each element (axis=None: of x flattened in C order) or each slice along axis repeated
    `repeats` times (an integer, or one count per position): take of the positions repeated,
    so a sparse tensor's entries are copied, nothing densified."""
    t = _tensor(x)
    if axis is None:
        t, axis = flattened(t), 0
    if t.ndim == 0:
        raise SiskinError("repeat takes an array of at least one dimension, or axis=None")
    axis = _axis(axis, t.ndim, "repeat")
    n = t.shape[axis]
    counts = _index_array(repeats, "repeat")
    if counts.ndim > 1 or (counts.ndim == 1 and len(counts) not in (1, n)):
        raise SiskinError(f"repeat: give one count or {n} (one per position along axis {axis}), "
                          f"got shape {counts.shape}")
    if counts.size and counts.min() < 0:
        raise SiskinError(f"repeat: counts must not be negative, got {counts.min()}")
    positions = np.repeat(np.arange(n, dtype=np.int64), np.broadcast_to(counts.reshape(-1), (n,)) if n else 0)
    return take(t, positions, axis=axis)


def take_along_axis(x, indices, /, *, axis=-1):
    """NumPy's take_along_axis: out[..., k, ...] = x[..., indices[..., k, ...], ...] along axis,
    indices of x's rank (negative ones count from the end). The result has the indices' shape
    and is dense (every position picks an element); a sparse x is read at its stored entries,
    each pick found by a binary search among their flat positions."""
    t = _tensor(x)
    if t.ndim == 0:
        raise SiskinError("take_along_axis takes an array of at least one dimension")
    axis = _axis(axis, t.ndim, "take_along_axis")
    idx = _index_array(indices, "take_along_axis")
    if idx.ndim != t.ndim:
        raise SiskinError(f"take_along_axis: indices need {t.ndim} dimensions as x has, got {idx.ndim}")
    try:
        out_shape = np.broadcast_shapes(tuple(idx.shape[:axis]) + (1,) + tuple(idx.shape[axis + 1:]),
                                        tuple(t.shape[:axis]) + (1,) + tuple(t.shape[axis + 1:]))
    except ValueError:
        raise SiskinError(f"take_along_axis: indices of shape {idx.shape} do not broadcast against x of "
                          f"shape {t.shape} outside axis {axis}") from None
    out_shape = out_shape[:axis] + (idx.shape[axis],) + out_shape[axis + 1:]
    n = t.shape[axis]
    if idx.size and (idx.min() < -n or idx.max() >= n):
        bad = idx[(idx < -n) | (idx >= n)][0]
        raise SiskinError(f"take_along_axis: index {bad} is out of bounds for axis {axis} of size {n}")
    idx = np.broadcast_to(np.where(idx < 0, idx + n, idx), out_shape)
    if _dense(t):
        return asarray(np.ascontiguousarray(np.take_along_axis(t.to_numpy(), idx, axis=axis)))
    coords, values = _stored(t)
    flat = _flat_positions(coords, t.shape)  # sorted: the entries are in C order
    source = list(np.indices(out_shape, dtype=np.int64)) if len(out_shape) else []
    for d in range(t.ndim):  # a broadcast dimension of size 1 in x reads its only position
        if d != axis and t.shape[d] == 1:
            source[d] = np.zeros_like(source[d])
    source[axis] = idx
    wanted = _flat_positions([c.reshape(-1) for c in source], t.shape)
    at = np.searchsorted(flat, wanted)
    found = at < len(flat)
    found[found] = flat[at[found]] == wanted[found]
    out = np.full(len(wanted), t.fill_value, dtype=t.dtype)
    out[found] = values[at[found]]
    return asarray(out.reshape(out_shape))


def searchsorted(x1, x2, /, *, side="left", sorter=None):
    """Where each of x2's values would go in the sorted one-dimensional x1 to keep it sorted
    (NumPy's searchsorted: int64 positions of x2's shape; side "left" or "right"; sorter the
    positions that sort x1). x1 is read as a NumPy array (one dimension: no matrix is densified)."""
    if side not in ("left", "right"):
        raise SiskinError(f"searchsorted: side is 'left' or 'right', not {side!r}")
    a = np.asarray(_tensor(x1).to_numpy())
    if a.ndim != 1:
        raise SiskinError(f"searchsorted: x1 must have one dimension, got {a.ndim}")
    v = np.asarray(_tensor(x2).to_numpy())
    order = None if sorter is None else _index_array(sorter, "searchsorted")
    return asarray(np.ascontiguousarray(np.searchsorted(a, v, side=side, sorter=order), dtype=np.int64))


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


__all__ = ["argsort", "nonzero", "repeat", "searchsorted", "sort", "take", "take_along_axis"]
