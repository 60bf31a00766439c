"""NumPy's dispatch protocols on siskin.Tensor and siskin.Array: np.add(a, b), np.sum(a, axis=0),
np.matmul, np.concatenate, ... called with siskin operands run siskin's operations and return a
lazy siskin.Array (computed as one program by .compute(), np.asarray or a pickle). What siskin
does not implement returns NotImplemented, so NumPy raises its TypeError: nothing is densified
behind the caller's back. Tensors also get Python's operators here (`t * 2` is lazy, as NumPy's
operators on ndarrays are ufuncs).

NumPy arrays and NumPy scalars among the operands become dense siskin tensors over their memory
(strong types); Python numbers stay weak scalars, as NumPy 2 treats them.
"""

import numbers

import numpy as np

from . import _arrays, _dask
from ._array_api import astype
from ._array_api_eager import argsort, flattened, sort
from ._array_api_unique import numpy_unique
from ._array_api_views import grids
from ._arrays import Array
from ._tensor import Tensor, asarray


class _Unsupported(Exception):
    """Raised inside a handler for a call siskin cannot do as NumPy would: NotImplemented."""


def _siskin_operand(x):
    """x as something siskin's operations take, or _Unsupported for foreign array types."""
    if isinstance(x, (Array, Tensor)):
        return x
    if isinstance(x, (bool, int, float)) and not isinstance(x, np.generic):
        return x
    if isinstance(x, (np.ndarray, np.generic)):
        if x.dtype.kind not in "biuf":
            raise _Unsupported
        return asarray(x)
    raise _Unsupported


def _dtype_of(x):
    return x.dtype if hasattr(x, "dtype") else np.result_type(x)


def _cast(x, dtype):
    """x converted to dtype as NumPy's default casting ('same_kind') allows (a lazy astype,
    fused with what reads it); _Unsupported for a cast NumPy would refuse."""
    if dtype is None:
        return x
    dtype = np.dtype(dtype)
    if isinstance(x, (bool, int, float)):
        return dtype.type(x).item() if dtype.kind in "biuf" else x
    if x.dtype == dtype:
        return x
    if dtype.kind not in "biuf" or not np.can_cast(x.dtype, dtype, casting="same_kind"):
        raise _Unsupported
    return astype(x, dtype)


# ---- ufuncs: every ufunc of docs/ufuncs.md, by NumPy's name (siskin's registry knows them) ----

_UFUNCS = {
    "add", "subtract", "multiply", "divide", "true_divide", "floor_divide", "remainder",
    "power", "ldexp", "left_shift", "right_shift", "logical_and", "logical_or", "logical_xor",
    "logical_not", "bitwise_and", "bitwise_or", "bitwise_xor", "invert", "bitwise_not",
    "maximum", "minimum", "fmax", "fmin", "equal", "not_equal", "less", "less_equal", "greater",
    "greater_equal", "absolute", "negative", "exp", "log", "sqrt", "sin", "cos", "tan", "arcsin",
    "arccos", "arctan", "arctan2", "sinh", "cosh", "tanh", "arcsinh", "arccosh", "arctanh",
    "expm1", "log1p", "log2", "log10", "floor", "ceil", "trunc", "rint", "sign", "logaddexp",
    "copysign", "hypot", "nextafter", "signbit", "isnan", "isinf", "isfinite",
}
_BOOL_RESULT = {"logical_and", "logical_or", "logical_xor", "logical_not", "equal", "not_equal",
                "less", "less_equal", "greater", "greater_equal", "signbit", "isnan", "isinf",
                "isfinite"}

# ufunc.reduce as siskin's reductions (their identities make empty reductions NumPy's).
_REDUCTIONS = {"add": "sum", "multiply": "prod", "maximum": "max", "minimum": "min",
               "logical_and": "all", "logical_or": "any"}


def _call_ufunc(ufunc, inputs, kwargs):
    name = ufunc.__name__
    dtype = kwargs.pop("dtype", None)
    if kwargs.pop("casting", "same_kind") != "same_kind" or kwargs.pop("order", "K") != "K":
        raise _Unsupported
    if kwargs.pop("subok", True) is not True or kwargs.pop("where", True) is not True or kwargs:
        raise _Unsupported  # out=, signature=, axes=: NumPy's machinery, not siskin's
    args = [_cast(_siskin_operand(x), dtype) for x in inputs]
    if name == "matmul":
        result = _arrays.matmul(*args)
    elif name in _UFUNCS:
        result = _arrays.ufunc(name, *args)
    else:
        raise _Unsupported
    if dtype is not None and name not in _BOOL_RESULT and result.dtype != np.dtype(dtype):
        raise _Unsupported  # e.g. divide of integers with dtype=int: NumPy has no such loop
    return result


def _axes(axis, ndim):
    if axis is None:
        return None
    axes = list(axis) if isinstance(axis, (tuple, list)) else [axis]
    return [_axis_index(a) for a in axes]


def _axis_index(a):
    if not isinstance(a, numbers.Integral):
        raise TypeError(f"an axis must be an integer, not {a!r}")
    return int(a)


def _reduce(name, a, axis=None, dtype=None, keepdims=False):
    a = _siskin_operand(a)
    if isinstance(a, (bool, int, float)):
        a = asarray(np.asarray(a))
    if dtype is not None and (name in ("any", "all") or np.dtype(dtype).kind not in "biuf"):
        raise _Unsupported
    return _arrays._reduce(name, a, _axes(axis, a.ndim), bool(keepdims), dtype)


def _ufunc_reduce(ufunc, inputs, kwargs):
    name = _REDUCTIONS.get(ufunc.__name__)
    if name is None or len(inputs) != 1:
        raise _Unsupported
    axis = kwargs.pop("axis", 0)
    dtype = kwargs.pop("dtype", None)
    keepdims = kwargs.pop("keepdims", False)
    if kwargs.pop("where", True) is not True or kwargs:  # out=, initial=
        raise _Unsupported
    return _reduce(name, inputs[0], axis, dtype, keepdims)


def array_ufunc(self, ufunc, method, *inputs, **kwargs):
    _dask.register_if_loaded()
    try:
        if method == "__call__":
            return _call_ufunc(ufunc, inputs, kwargs)
        if method == "reduce":
            return _ufunc_reduce(ufunc, inputs, kwargs)
    except _Unsupported:
        pass
    return NotImplemented  # accumulate, outer, at, reduceat; unsupported arguments


# ---- functions: NumPy's signatures, siskin's operations ----

_NoValue = np._NoValue


def _no_out(out):
    if out is not None:
        raise _Unsupported


def _given(value, default):
    return default if value is _NoValue else value


def _plain(where=_NoValue, initial=_NoValue):
    if where is not _NoValue and where is not True:
        raise _Unsupported
    if initial is not _NoValue:
        raise _Unsupported


def _reduction(name, takes_dtype):
    if takes_dtype:
        def numpy_reduction(a, axis=None, dtype=None, out=None, keepdims=_NoValue, **rest):
            _no_out(out)
            _plain(**rest)
            return _reduce(name, a, axis, dtype, _given(keepdims, False))
    else:
        def numpy_reduction(a, axis=None, out=None, keepdims=_NoValue, **rest):
            _no_out(out)
            _plain(**rest)
            return _reduce(name, a, axis, None, _given(keepdims, False))
    return numpy_reduction


def _arg_reduction(name):
    def numpy_arg_reduction(a, axis=None, out=None, *, keepdims=_NoValue):
        _no_out(out)
        a = _siskin_operand(a)
        return getattr(_arrays.lazy(a), name)(axis=axis, keepdims=_given(keepdims, False))
    return numpy_arg_reduction


def _operands(arrays):
    return [_siskin_operand(x) for x in arrays]


def _concatenate(arrays, axis=0, out=None, *, dtype=None, casting="same_kind"):
    _no_out(out)
    if axis is None or casting != "same_kind":
        raise _Unsupported
    return _arrays.concat([_cast(x, dtype) for x in _operands(arrays)], axis)


def _stack(arrays, axis=0, out=None, *, dtype=None, casting="same_kind"):
    _no_out(out)
    if casting != "same_kind":
        raise _Unsupported
    return _arrays.stack([_cast(x, dtype) for x in _operands(arrays)], axis)


def _transpose(a, axes=None):
    a = _siskin_operand(a)
    if axes is None:
        axes = range(a.ndim - 1, -1, -1)
    return _arrays.permute_dims(a, [_axis_index(x) for x in axes])


def _moved_axes(ndim, source, destination):
    source = [s % ndim for s in _axes(source, ndim)]
    destination = [d % ndim for d in _axes(destination, ndim)]
    order = [n for n in range(ndim) if n not in source]
    for d, s in sorted(zip(destination, source)):
        order.insert(d, s)
    return order


def _moveaxis(a, source, destination):
    a = _siskin_operand(a)
    return _arrays.permute_dims(a, _moved_axes(a.ndim, source, destination))


def _swapaxes(a, axis1, axis2):
    a = _siskin_operand(a)
    order = list(range(a.ndim))
    order[axis1], order[axis2] = order[axis2], order[axis1]
    return _arrays.permute_dims(a, order)


def _reshape(a, newshape, order="C"):
    if order != "C":
        raise _Unsupported
    shape = [newshape] if isinstance(newshape, numbers.Integral) else list(newshape)
    return _arrays.reshape(_siskin_operand(a), shape)


def _where(condition, x=_NoValue, y=_NoValue):
    if x is _NoValue or y is _NoValue:
        raise _Unsupported  # where(condition) alone is nonzero: coordinates, not an array
    return _arrays.where(*_operands([condition, x, y]))


def _expand_dims(a, axis):
    a = _siskin_operand(a)
    axes = _axes(axis, a.ndim)
    ndim = a.ndim + len(axes)
    for ax in sorted(x % ndim for x in axes):
        a = _arrays.expand_dims(a, ax)
    return a


def _squeeze(a, axis=None):
    return _arrays.squeeze(_siskin_operand(a), axis)


def _broadcast_to(array, shape, subok=False):
    shape = [shape] if isinstance(shape, numbers.Integral) else list(shape)
    return _arrays.broadcast_to(_siskin_operand(array), shape)


def _flip(m, axis=None):
    a = _siskin_operand(m)
    if isinstance(axis, (tuple, list)):
        for ax in axis:
            a = _arrays.flip(a, ax)
        return a
    return _arrays.flip(a, axis)


def _tile(A, reps):
    return _arrays.tile(_siskin_operand(A), reps)


def _pad(array, pad_width, mode="constant", **kwargs):
    constant = kwargs.pop("constant_values", 0)
    if mode != "constant" or kwargs or not isinstance(constant, (bool, int, float)):
        raise _Unsupported
    return _arrays.pad(_siskin_operand(array), pad_width, constant)


def _matmul_like(a, b, out=None):
    _no_out(out)
    return _arrays.matmul(*_operands([a, b]))


def _dot(a, b, out=None):
    _no_out(out)
    a, b = _operands([a, b])
    ndims = [getattr(x, "ndim", 0) for x in (a, b)]
    if 0 in ndims:
        return _arrays.ufunc("multiply", a, b)
    if ndims[1] <= 2:
        return _arrays.matmul(a, b)
    return _arrays.tensordot(a, b, axes=([ndims[0] - 1], [ndims[1] - 2]))


def _tensordot(a, b, axes=2):
    return _arrays.tensordot(*_operands([a, b]), axes=axes)


def _explicit_subscripts(subscripts):
    """NumPy's implicit einsum output (the labels used once, in alphabetical order) spelled out."""
    subscripts = subscripts.replace(" ", "")
    if "." in subscripts:
        raise _Unsupported  # ellipsis
    if "->" in subscripts:
        return subscripts
    labels = subscripts.replace(",", "")
    once = sorted(c for c in set(labels) if labels.count(c) == 1)
    return subscripts + "->" + "".join(once)


def _einsum(subscripts, *operands, out=None, dtype=None, order="K", casting="safe",
            optimize=False):
    _no_out(out)
    if not isinstance(subscripts, str) or casting != "safe":
        raise _Unsupported  # the interleaved (operand, labels) spelling
    args = [_cast(x, dtype) for x in _operands(operands)]
    return _arrays.einsum(_explicit_subscripts(subscripts), *args)


def _sorted(kind, order):
    """Any kind sorts values alike (siskin's sorts are stable, a valid order for every kind);
    order= names fields of structured dtypes, which siskin has none of."""
    if order is not None or kind not in (None, "quicksort", "mergesort", "heapsort", "stable"):
        raise _Unsupported


def _sort(a, axis=-1, kind=None, order=None):
    _sorted(kind, order)
    return sort(flattened(a), axis=0) if axis is None else sort(_siskin_operand(a), axis=axis)


def _argsort(a, axis=-1, kind=None, order=None):
    _sorted(kind, order)
    return argsort(flattened(a), axis=0) if axis is None else argsort(_siskin_operand(a), axis=axis)


def _unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None, *,
            equal_nan=True):
    result = numpy_unique(_siskin_operand(ar), return_index, return_inverse, return_counts, axis,
                          equal_nan=equal_nan)
    if result is None:
        raise _Unsupported  # unique rows or columns (axis=): NumPy's
    return result


def _meshgrid(*xi, copy=True, sparse=False, indexing="xy"):
    if indexing not in ("xy", "ij"):
        raise _Unsupported
    arrays = _operands(xi)
    if any(getattr(x, "ndim", 0) != 1 for x in arrays):
        raise _Unsupported  # NumPy flattens other shapes; the standard takes vectors only
    return grids(arrays, indexing, broadcast=not sparse)


def _ndim(a):
    return a.ndim


def _shape(a):
    return a.shape


def _size(a, axis=None):
    return a.size if axis is None else a.shape[axis]


def _result_type(*arrays_and_dtypes):
    return np.result_type(*[x.dtype if isinstance(x, (Array, Tensor)) else x
                            for x in arrays_and_dtypes])


_FUNCTIONS = {
    np.sum: _reduction("sum", True), np.prod: _reduction("prod", True),
    np.max: _reduction("max", False), np.min: _reduction("min", False),
    np.amax: _reduction("max", False), np.amin: _reduction("min", False),
    np.mean: _reduction("mean", True), np.any: _reduction("any", False),
    np.all: _reduction("all", False),
    np.argmin: _arg_reduction("argmin"), np.argmax: _arg_reduction("argmax"),
    np.concatenate: _concatenate, np.stack: _stack, np.transpose: _transpose,
    np.moveaxis: _moveaxis, np.swapaxes: _swapaxes, np.reshape: _reshape, np.where: _where,
    np.expand_dims: _expand_dims, np.squeeze: _squeeze, np.broadcast_to: _broadcast_to,
    np.flip: _flip, np.tile: _tile, np.pad: _pad, np.dot: _dot, np.tensordot: _tensordot,
    np.einsum: _einsum, np.sort: _sort, np.argsort: _argsort, np.unique: _unique,
    np.meshgrid: _meshgrid, np.ndim: _ndim, np.shape: _shape, np.size: _size,
    np.result_type: _result_type,
}


def array_function(self, func, types, args, kwargs):
    _dask.register_if_loaded()
    handler = _FUNCTIONS.get(func)
    if handler is None:
        return NotImplemented
    try:
        return handler(*args, **kwargs)
    except _Unsupported:
        return NotImplemented


# ---- Python's operators on tensors: the lazy Array's, so `t * 2 + u` fuses ----

_OPERATORS = ["add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "and", "or", "xor",
              "lshift", "rshift", "matmul"]
_COMPARISONS = ["lt", "le", "gt", "ge", "eq", "ne"]


def _lazy_operator(name):
    def operator(self, *other):
        return getattr(_arrays.lazy(self), name)(*other)
    operator.__name__ = name
    return operator


# NumPy's array methods by their functions, for code that calls x.sum(axis=..., dtype=...) or
# x.squeeze(0) on a chunk (Dask's reductions do): given to a class only where it has none.
_METHODS = {"sum": np.sum, "prod": np.prod, "min": np.min, "max": np.max, "mean": np.mean,
            "any": np.any, "all": np.all, "argmin": np.argmin, "argmax": np.argmax,
            "squeeze": np.squeeze, "transpose": np.transpose, "reshape": np.reshape}


def _method(name, func):
    def method(self, *args, **kwargs):
        if name in ("transpose", "reshape") and len(args) > 1:
            args = (args,)  # x.reshape(2, 3) and x.transpose(1, 0) as NumPy allows
        try:
            return _FUNCTIONS[func](self, *args, **kwargs)
        except _Unsupported:
            raise TypeError(f"siskin cannot do {name} with these arguments") from None
    method.__name__ = name
    return method


def install():
    """Puts the protocols on Tensor and Array, and the lazy operators on Tensor."""
    for cls in (Tensor, Array):
        for name, func in _METHODS.items():
            if not hasattr(cls, name):
                setattr(cls, name, _method(name, func))
    Tensor.__array_priority__ = 100  # as Array's: ahead of ndarray (Dask picks chunk types by it)
    for cls in (Tensor, Array):
        cls.__array_ufunc__ = array_ufunc
        cls.__array_function__ = array_function
    names = [f"__{n}__" for n in _OPERATORS] + [f"__r{n}__" for n in _OPERATORS]
    names += [f"__{n}__" for n in _COMPARISONS] + ["__neg__", "__invert__", "__abs__"]
    for name in names:
        setattr(Tensor, name, _lazy_operator(name))
    Tensor.__hash__ = object.__hash__  # comparisons build arrays, identity stays the hash
    Tensor.T = property(lambda self: _arrays.lazy(self).T)
