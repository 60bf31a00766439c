"""Basic indexing of a stored tensor: t[1:3, ::2], t[0], t[None, ...] give a new siskin.Tensor
at once, in the tensor's format and with its fill (Dask cuts chunks out of a tensor this way).

A lazy window (siskin.lazy(t)[1:3]) compiles its bounds into the program, so every block of a
chunked tensor would compile a kernel of its own; this copy compiles nothing block by block:
dense tensors are sliced as NumPy arrays, sparse ones through their coordinates (a coo copy
made by the format conversion, whose kernel does not depend on the shape), then converted back.
"""

import numbers

import numpy as np

from . import _dask
from ._tensor import SiskinError, Tensor, _coo, _fill_for, asarray


def _normalized(key, ndim):
    """The key as one item per result position: ints, slices and None, Ellipsis expanded."""
    if not isinstance(key, tuple):
        key = (key,)
    for k in key:
        if not (k is None or k is Ellipsis or isinstance(k, (slice, numbers.Integral))) or isinstance(k, bool):
            raise IndexError(f"a siskin.Tensor takes integers, slices, None and ... as indices, "
                             f"not {k!r} (siskin.lazy(t)[...] for more)")
    if sum(k is Ellipsis for k in key) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    used = sum(k is not None and k is not Ellipsis for k in key)
    if used > ndim:
        raise IndexError(f"too many indices: the tensor has {ndim} dimensions, {used} were indexed")
    if Ellipsis in key:
        at = key.index(Ellipsis)
        return key[:at] + (slice(None),) * (ndim - used) + key[at + 1:]
    return key + (slice(None),) * (ndim - used)


def _window(item, size, dim):
    """(start, step, length) of a slice, or (index, None, None) of an integer, on one dimension."""
    if isinstance(item, slice):
        start, stop, step = item.indices(size)
        return start, step, len(range(start, stop, step))
    index = int(item)
    if not -size <= index < size:
        raise IndexError(f"index {index} is out of bounds for dimension {dim} with size {size}")
    return index % size, None, None


def _sliced_sparse(tensor, key):
    native = tensor._native
    ndim = tensor.ndim
    if native.format.endswith("/pattern"):
        raise SiskinError("slicing a tensor with a pattern leaf is not supported: convert it to "
                          "a format with values first")
    coo = native.convert("coo(" + ",".join(map(str, range(ndim))) + ")")
    level = coo.levels()[0]
    coords = [np.asarray(level[f"crd{m}"], dtype=np.int64) for m in range(ndim)]
    values = coo.values(writable=False)
    keep = np.ones(len(values), dtype=bool)
    new_coords, shape, dim = [], [], 0
    for item in key:
        if item is None:
            shape.append(1)
            new_coords.append(None)  # zeros, made once the entries are known
            continue
        start, step, length = _window(item, tensor.shape[dim], dim)
        c = coords[dim]
        if step is None:
            keep &= c == start
        else:
            offset = c - start
            keep &= (offset % step == 0) & (offset // step >= 0) & (offset // step < length)
            new_coords.append((dim, start, step))
            shape.append(length)
        dim += 1
    kept = np.flatnonzero(keep)
    out = []
    for entry in new_coords:
        if entry is None:
            out.append(np.zeros(len(kept), dtype=np.int64))
        else:
            d, start, step = entry
            out.append((coords[d][kept] - start) // step)
    data = np.ascontiguousarray(values[kept])
    if not shape:  # every dimension indexed by an integer: one element
        value = data[0] if len(data) else tensor.dtype.type(native.fill)
        return asarray(np.asarray(value, dtype=tensor.dtype), fill_value=native.fill)
    # Entries stay in lexicographic order: slices with a negative step reverse a dimension.
    order = np.lexsort(out[::-1])
    out = [c[order] for c in out]
    data = data[order]
    result = Tensor(_coo(shape, tuple(range(len(shape))), out, data, _fill_for(native.fill, tensor.dtype)))
    return result.asformat(native.format) if len(shape) == ndim else result


def getitem(self, key):
    _dask.register_if_loaded()  # Dask cuts a tensor into chunks before any protocol is called
    key = _normalized(key, self.ndim)
    if self._native.dense_order is not None:
        dense = self.to_numpy()[key]
        return asarray(np.array(dense), fill_value=self._native.fill)  # a copy, 0-d for a scalar
    return _sliced_sparse(self, key)


def install():
    Tensor.__getitem__ = getitem
