"""The Array API's functions that are views or masks of their input, lazy and fused with what
reads them: tril and triu (a mask of row and column numbers, so a sparse input is read at its
stored entries and nothing is densified), roll (the two pieces of each rolled axis
concatenated), meshgrid (broadcast views of the vectors), and real, imag and conj for real
dtypes (siskin has no complex dtypes). Arrays are immutable: __setitem__ raises."""

import numpy as np

from ._arrays import Array, broadcast_to, concat, lazy, reshape, where
from ._tensor import SiskinError, Tensor, asarray


def _real_operand(x, name):
    if isinstance(x, (np.ndarray, np.generic)) and np.iscomplexobj(x):
        raise SiskinError(f"{name}: siskin has no complex dtypes ({x.dtype}); it takes real arrays, "
                          f"whose {name} NumPy defines too")
    return lazy(x)


def real(x, /):
    """x itself (a real array is its own real part)."""
    return _real_operand(x, "real")


def conj(x, /):
    """x itself (a real array is its own conjugate)."""
    return _real_operand(x, "conj")


def imag(x, /):
    """Zeros of x's shape and dtype, stored as nothing (a fill of 0)."""
    from ._array_api import full

    x = _real_operand(x, "imag")
    stores_nothing = "coo(" + ",".join(map(str, range(x.ndim))) + ")" if x.ndim else None
    return lazy(full(x.shape, x.dtype.type(0).item(), dtype=x.dtype, format=stores_nothing))


def _index_vector(n):
    return lazy(asarray(np.arange(n, dtype=np.int64)))


def _triangle(x, k, lower, name):
    x = lazy(x)
    if x.ndim < 2:
        raise SiskinError(f"{name} needs at least two dimensions, got shape {x.shape}")
    rows = _index_vector(x.shape[-2])[:, None]
    cols = _index_vector(x.shape[-1])[None, :]
    keep = (cols <= rows + int(k)) if lower else (cols >= rows + int(k))
    return where(keep, x, x.dtype.type(0).item())


def tril(x, /, *, k=0):
    """The elements on and below diagonal k of the last two axes; zeros above."""
    return _triangle(x, k, True, "tril")


def triu(x, /, *, k=0):
    """The elements on and above diagonal k of the last two axes; zeros below."""
    return _triangle(x, k, False, "triu")


def _roll_axis(x, shift, axis):
    if not -x.ndim <= axis < x.ndim:
        raise SiskinError(f"roll: axis {axis} is out of range for {x.ndim} dimensions")
    axis %= x.ndim
    n = x.shape[axis]
    if n == 0 or shift % n == 0:
        return x
    shift %= n
    before = (slice(None),) * axis
    return concat([x[before + (slice(n - shift, None),)], x[before + (slice(0, n - shift),)]], axis=axis)


def roll(x, /, shift, *, axis=None):
    """The elements shifted by `shift` along axis, those pushed off the end coming back at the
    start; axis None rolls the flattened array. shift and axis may be tuples (one shift per
    axis, or one shift for all)."""
    x = lazy(x)
    if axis is None:
        if isinstance(shift, (tuple, list)):
            raise SiskinError("roll: a tuple of shifts needs a tuple of axes")
        size = int(np.prod(x.shape, dtype=np.int64))
        return reshape(_roll_axis(reshape(x, (size,)), int(shift), 0), x.shape)
    axes = tuple(axis) if isinstance(axis, (tuple, list)) else (axis,)
    shifts = tuple(shift) if isinstance(shift, (tuple, list)) else (shift,) * len(axes)
    if len(shifts) != len(axes):
        raise SiskinError(f"roll: {len(shifts)} shifts for {len(axes)} axes")
    for s, a in zip(shifts, axes):
        x = _roll_axis(x, int(s), int(a))
    return x


def meshgrid(*arrays, indexing="xy"):
    """Coordinate grids of one-dimensional arrays: the k-th result holds arrays[k]'s values along
    its own axis, repeated along the others (broadcast views, lazy). indexing "xy" swaps the
    first two axes (Cartesian), "ij" keeps the arrays' order (matrix)."""
    return grids(arrays, indexing, broadcast=True)


def grids(arrays, indexing, broadcast):
    """meshgrid's grids; broadcast=False leaves them unrepeated (size 1 along the other axes,
    NumPy's meshgrid(sparse=True))."""
    if indexing not in ("xy", "ij"):
        raise SiskinError(f"meshgrid: indexing is 'xy' or 'ij', not {indexing!r}")
    arrays = [lazy(x) for x in arrays]
    for k, x in enumerate(arrays):
        if x.ndim != 1:
            raise SiskinError(f"meshgrid takes one-dimensional arrays; array {k} has shape {x.shape}")
    if len({x.dtype for x in arrays}) > 1:
        raise SiskinError("meshgrid takes arrays of one dtype, not " + ", ".join(str(x.dtype) for x in arrays))
    axes = list(range(len(arrays)))
    if indexing == "xy" and len(arrays) >= 2:
        axes[0], axes[1] = 1, 0
    shape = [0] * len(arrays)
    for x, axis in zip(arrays, axes):
        shape[axis] = x.shape[0]
    grids = []
    for x, axis in zip(arrays, axes):
        grid = x[(None,) * axis + (slice(None),) + (None,) * (len(arrays) - 1 - axis)]
        grids.append(broadcast_to(grid, shape) if broadcast else grid)
    return grids


def _setitem(self, key, value):
    raise SiskinError("siskin arrays are immutable: build the changed array instead (siskin.where with "
                      "a mask, concat of pieces), or change the NumPy or SciPy array a tensor uses in place")


def install():
    for cls in (Array, Tensor):
        cls.__setitem__ = _setitem


__all__ = ["conj", "imag", "meshgrid", "real", "roll", "tril", "triu"]
