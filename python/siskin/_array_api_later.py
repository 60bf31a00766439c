"""Names later revisions of the Array API added (2023.12: clip, moveaxis, unstack,
__array_namespace_info__; 2024.12: reciprocal, count_nonzero, diff) that compose from siskin's
lazy operations: each gives a lazy Array, fused with what reads it, and computes nothing."""

import numpy as np

from ._arrays import _reduce, concat, lazy
from ._tensor import SiskinError


def _axis(axis, ndim, name):
    if not -ndim <= axis < ndim:
        raise SiskinError(f"{name}: axis {axis} is out of range for {ndim} dimensions")
    return axis % ndim


def _elementwise(name):
    from ._array_api import ELEMENTWISE

    return ELEMENTWISE[name]


def clip(x, /, min=None, max=None):
    """x limited to [min, max] element by element, in x's dtype (NumPy's clip: maximum with min,
    then minimum with max, so a NaN stays NaN); min and max are numbers or arrays that broadcast
    with x, and either may be None."""
    x = lazy(x)
    out = x
    if min is not None:
        out = _elementwise("maximum")(out, min)
    if max is not None:
        out = _elementwise("minimum")(out, max)
    if out.shape != x.shape:
        raise SiskinError(f"clip: min and max must broadcast to x's shape {x.shape}, not give {out.shape}")
    return out if out.dtype == x.dtype else out.astype(x.dtype)


def moveaxis(x, source, destination, /):
    """The axes in source moved to the positions in destination (a permute_dims view)."""
    from ._numpy_protocols import _moveaxis

    return _moveaxis(x, source, destination)


def unstack(x, /, *, axis=0):
    """The slices of x along axis, as a tuple of lazy views."""
    x = lazy(x)
    if x.ndim == 0:
        raise SiskinError("unstack needs at least one dimension")
    axis = _axis(axis, x.ndim, "unstack")
    before = (slice(None),) * axis
    return tuple(x[before + (k,)] for k in range(x.shape[axis]))


def reciprocal(x, /):
    """1 / x element by element (an integer x gives float64, as divide does)."""
    return _elementwise("divide")(1.0, x)


def count_nonzero(x, /, *, axis=None, keepdims=False):
    """How many elements are not zero (NaN counts), over axis (all when None), as int64."""
    return _reduce("sum", _elementwise("not_equal")(x, 0), axis, keepdims, np.int64)


def diff(x, /, *, axis=-1, n=1, prepend=None, append=None):
    """The n-th forward difference along axis, after prepend and append are joined on there:
    x[1:] - x[:-1], n times (bool arrays: not_equal, as NumPy's diff)."""
    x = lazy(x)
    if x.ndim == 0:
        raise SiskinError("diff needs at least one dimension")
    if not isinstance(n, int) or n < 0:
        raise SiskinError(f"diff: n must be a non-negative integer, not {n!r}")
    axis = _axis(axis, x.ndim, "diff")
    parts = [lazy(p) for p in (prepend, x, append) if p is not None]
    if len(parts) > 1:
        x = concat(parts, axis=axis)
    before = (slice(None),) * axis
    step = _elementwise("not_equal") if x.dtype == np.bool_ else _elementwise("subtract")
    for _ in range(n):
        if x.shape[axis] == 0:
            break
        x = step(x[before + (slice(1, None),)], x[before + (slice(None, -1),)])
    return x


class _NamespaceInfo:
    """What __array_namespace_info__() answers: siskin's devices (the CPU) and dtypes."""

    def capabilities(self):
        # Boolean masks are not indices of siskin's arrays; nonzero and unique_* give shapes that
        # depend on the values.
        return {"boolean indexing": False, "data-dependent shapes": True, "max dimensions": None}

    def default_device(self):
        return "cpu"

    def devices(self):
        return ["cpu"]

    def default_dtypes(self, *, device=None):
        _check_device(device)
        # siskin has no complex dtypes (docs/python-api.md): no "complex floating" entry.
        return {"real floating": np.dtype("float64"), "integral": np.dtype("int64"),
                "indexing": np.dtype("int64")}

    def dtypes(self, *, device=None, kind=None):
        from ._array_api import DTYPES, isdtype

        _check_device(device)
        return {name: d for name, d in DTYPES.items() if kind is None or isdtype(d, kind)}


def _check_device(device):
    if device not in (None, "cpu"):
        raise SiskinError(f"siskin arrays live on the CPU, not on {device!r}")


def __array_namespace_info__():
    return _NamespaceInfo()


__all__ = ["clip", "count_nonzero", "diff", "moveaxis", "reciprocal", "unstack", "__array_namespace_info__"]
