"""Pickling tensors and lazy arrays (Dask moves chunks between processes this way).

A tensor pickles as its shape, dtype, fill value, format and its level and value buffers as
NumPy arrays, so pickle protocol 5 hands the buffers out of band without copying them
(pickle.dumps(t, protocol=5, buffer_callback=...); Dask's and multiprocessing's serializers do).
Unpickling borrows the arrays in place (Tensor::from_storage, which checks the index arrays once).
Levels other than dense, sparselist and coo cannot be borrowed: such a tensor travels as a coo
copy in its storage order and is converted back to its format on arrival. A lazy Array pickles
as the tensor it computes.
"""

import re

from . import _siskin
from ._arrays import Array, lazy
from ._tensor import Tensor, _native_layout

_BORROWABLE_LEVELS = {"dense", "sparselist", "coo"}


def _levels_of(format):
    """The level kinds and their modes, outermost first: 'dense(0)@32/coo(1,2)' gives
    [('dense', [0]), ('coo', [1, 2])]."""
    return [(kind, [int(m) for m in modes.split(",")])
            for kind, modes in re.findall(r"([a-z]+)\(([0-9,]+)\)", format)]


def _rebuild_tensor(shape, dtype, fill, format, levels, values, target_format):
    # Buffers that arrive unaligned (Dask's frames may be) are copied; the others are borrowed.
    levels = [{name: _native_layout(a) for name, a in level.items()} for level in levels]
    values = None if values is None else _native_layout(values)
    native = _siskin.from_storage(list(shape), dtype, fill, format, levels, values)
    if target_format is not None:
        native = native.convert(target_format)
    return Tensor(native)


def _reduce_tensor(self, protocol=2):
    native = self._native
    format = native.format
    pattern = format.endswith("/pattern")
    levels = _levels_of(format)
    target = None
    if any(kind not in _BORROWABLE_LEVELS for kind, _ in levels):
        target = format
        modes = [m for _, level_modes in levels for m in level_modes]
        native = native.convert("coo(" + ",".join(map(str, modes)) + ")" + ("/pattern" if pattern else ""))
        format = native.format
    values = None if pattern else native.values(writable=False)
    return (_rebuild_tensor, (tuple(native.shape), native.dtype, native.fill, format,
                              native.levels(), values, target))


def _reduce_array(self, protocol=2):
    return (lazy, (self.compute(),))


def install():
    Tensor.__reduce_ex__ = _reduce_tensor
    Array.__reduce_ex__ = _reduce_array
