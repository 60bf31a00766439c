"""The Array API standard (2022.12) over siskin: `x.__array_namespace__()` is the siskin module
itself, which holds the standard's names beside siskin's own (docs/python-api.md lists what is
present and absent).

Creation functions give stored siskin.Tensors and take siskin's two extras, `format=` and
(for `full`) a fill: `zeros((n, n), format="csr")` stores nothing, `full(shape, v,
format="csr")` is every element v with nothing stored. Every other function gives a lazy
siskin.Array (computed by .compute(), np.asarray, bool(), float(), ...), and takes Tensors,
Arrays, NumPy and SciPy arrays alike.
"""

import builtins
import math

import numpy as np

from . import _siskin
from ._arrays import Array, _operand, _reduce, _wrap, lazy
from ._tensor import SiskinError, Tensor, _fill_for, asarray as _asarray

__array_api_version__ = "2022.12"

_DTYPE_NAMES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                "float32", "float64")
DTYPES = {name: np.dtype(name) for name in _DTYPE_NAMES}


def _dtype(dtype):
    """dtype as a NumPy dtype siskin has; a SiskinError naming it otherwise."""
    try:
        d = np.dtype(dtype)
    except TypeError:
        raise SiskinError(f"{dtype!r} is not a dtype") from None
    if d.name not in DTYPES:
        raise SiskinError(f"siskin has no dtype {d.name} (it has {', '.join(_DTYPE_NAMES)})")
    return d


def _dtype_of(x):
    return x.dtype if isinstance(x, (Array, Tensor, np.ndarray, np.generic)) else _dtype(x)


def _shape(shape):
    return (shape,) if isinstance(shape, (int, np.integer)) else tuple(int(n) for n in shape)


def _scalar_dtype(value):
    """The default dtype of a Python number: bool, int64 or float64 (the standard's)."""
    if isinstance(value, (bool, np.bool_)):
        return DTYPES["bool"]
    if isinstance(value, (int, np.integer)):
        return DTYPES["int64"]
    return DTYPES["float64"]


# ---- creation ----

def full(shape, fill_value, *, dtype=None, device=None, format=None):
    """Every element fill_value. Dense by default (NumPy's layout, one stored value per
    element); with a format, nothing is stored and fill_value is the fill: O(1) values."""
    shape = _shape(shape)
    d = _dtype(dtype) if dtype is not None else _scalar_dtype(fill_value)
    if isinstance(fill_value, np.generic):
        fill_value = fill_value.item()
    if format is None:
        return _asarray(np.full(shape, fill_value, dtype=d))
    return Tensor(_siskin.filled(list(shape), d.name, fill_value, format))


def zeros(shape, *, dtype=None, device=None, format=None):
    """Zeros (float64 by default); with a format, an empty tensor of fill 0."""
    d = _dtype(dtype) if dtype is not None else DTYPES["float64"]
    return full(shape, d.type(0).item(), dtype=d, format=format)


def ones(shape, *, dtype=None, device=None, format=None):
    d = _dtype(dtype) if dtype is not None else DTYPES["float64"]
    return full(shape, d.type(1).item(), dtype=d, format=format)


def empty(shape, *, dtype=None, device=None, format=None):
    """As zeros: siskin has no uninitialised storage."""
    return zeros(shape, dtype=dtype, format=format)


def _like(x, dtype, format):
    d = _dtype(dtype) if dtype is not None else x.dtype
    if format is None and isinstance(x, Tensor) and x._native.dense_order is None:
        format = x.format  # a sparse tensor's like stays sparse: nothing stored
    return d, format


def full_like(x, fill_value, *, dtype=None, device=None, format=None):
    d, format = _like(x, dtype, format)
    return full(x.shape, d.type(fill_value).item(), dtype=d, format=format)


def zeros_like(x, *, dtype=None, device=None, format=None):
    d, format = _like(x, dtype, format)
    return zeros(x.shape, dtype=d, format=format)


def ones_like(x, *, dtype=None, device=None, format=None):
    d, format = _like(x, dtype, format)
    return ones(x.shape, dtype=d, format=format)


def empty_like(x, *, dtype=None, device=None, format=None):
    return zeros_like(x, dtype=dtype, format=format)


def eye(n_rows, n_cols=None, /, *, k=0, dtype=None, device=None, format=None):
    """Ones on diagonal k. With a format, only the diagonal is stored (built as coordinates)."""
    n_cols = n_rows if n_cols is None else n_cols
    d = _dtype(dtype) if dtype is not None else DTYPES["float64"]
    if format is None:
        return _asarray(np.eye(n_rows, n_cols, k=k, dtype=d))
    rows = np.arange(builtins.max(0, -k), builtins.min(n_rows, n_cols - k) if n_cols - k > 0 else 0,
                     dtype=np.int64)
    values = np.ones(len(rows), dtype=d)
    coo = Tensor(_siskin.from_storage([n_rows, n_cols], d, _fill_for(None, d), "coo(0,1)",
                                      [{"pos": np.array([0, len(rows)], dtype=np.int64),
                                        "crd0": rows, "crd1": rows + k}], values))
    return coo.asformat(format)


def arange(start, /, stop=None, step=1, *, dtype=None, device=None):
    if stop is None:
        start, stop = 0, start
    d = _dtype(dtype) if dtype is not None else None
    values = np.arange(start, stop, step, dtype=d)
    if d is None and values.dtype.kind == "f":
        values = values.astype(np.float64)
    return _asarray(values)


def linspace(start, stop, /, num, *, dtype=None, device=None, endpoint=True):
    d = _dtype(dtype) if dtype is not None else DTYPES["float64"]
    return _asarray(np.linspace(start, stop, num, endpoint=endpoint, dtype=d))


def asarray(obj, /, *, dtype=None, device=None, copy=None, format=None, fill_value=None):
    """siskin.asarray with the standard's arguments: a lazy Array is computed; copy=True copies
    the values into siskin's own memory (siskin otherwise uses NumPy and SciPy memory in place,
    which is scanned for inf and NaN on every call of a kernel that relies on finite values;
    its own, once); copy=False refuses an input that would need converting."""
    if isinstance(obj, Array):
        obj = obj.compute()
        if dtype is not None and _dtype(dtype) != obj.dtype:
            obj = astype(obj, dtype).compute()
        return _asarray(obj, format=format, fill_value=fill_value)
    if isinstance(obj, Tensor) and dtype is not None and _dtype(dtype) != obj.dtype:
        if copy is False:
            raise SiskinError(f"asarray(copy=False) cannot change a tensor's dtype {obj.dtype} to {_dtype(dtype)}")
        return astype(obj, dtype).compute(obj.format)
    if dtype is not None:
        dtype = _dtype(dtype)
    if copy and isinstance(obj, Tensor):
        return Tensor(obj._native.copy()) if format is None else obj.asformat(format)
    t = _asarray(obj, format=format, fill_value=fill_value, dtype=dtype)
    if copy is False and isinstance(obj, np.ndarray) and obj.size and \
            not np.may_share_memory(t._native.values(writable=False), obj):
        raise SiskinError("asarray(copy=False): the NumPy array needs converting (its dtype or layout), "
                          "so it cannot be used in place")
    if t.dtype.name not in DTYPES:
        raise SiskinError(f"siskin has no dtype {t.dtype.name} (it has {', '.join(_DTYPE_NAMES)})")
    # A copy in siskin's own memory, which NumPy cannot write behind its back: a kernel that
    # relies on finite values scans it once rather than on every call.
    return Tensor(t._native.copy()) if copy else t


# ---- data types ----

def astype(x, dtype, /, *, copy=True):
    """x's values converted to dtype (NumPy's casting: integers wrap, floats truncate toward 0;
    a NaN or a float out of the 64-bit range becomes 0 or saturates first, where NumPy's value is
    undefined). Lazy, fused with what reads it."""
    return _wrap(_siskin.astype(_operand(x), _dtype(dtype).name))


def result_type(*arrays_and_dtypes):
    """NumPy's promotion of the dtypes (of arrays and dtypes alike)."""
    if not arrays_and_dtypes:
        raise SiskinError("result_type needs at least one array or dtype")
    out = None
    for x in arrays_and_dtypes:
        d = _dtype_of(x)
        out = d if out is None else np.promote_types(out, d)
    return _dtype(out)


def can_cast(from_, to, /):
    """Whether from_ (an array or dtype) converts to `to` without losing values (NumPy's safe
    casting, the standard's promotion lattice)."""
    return bool(np.can_cast(_dtype_of(from_), _dtype(to), casting="safe"))


def finfo(type):
    d = _dtype_of(type)
    if d.kind != "f":
        raise SiskinError(f"finfo takes a float dtype, not {d.name}")
    return np.finfo(d)


def iinfo(type):
    d = _dtype_of(type)
    if d.kind not in "iu":
        raise SiskinError(f"iinfo takes an integer dtype, not {d.name}")
    return np.iinfo(d)


def isdtype(dtype, kind):
    """The standard's dtype kinds: 'bool', 'signed integer', 'unsigned integer', 'integral',
    'real floating', 'numeric', or a dtype, or a tuple of these."""
    d = _dtype(dtype)
    if isinstance(kind, tuple):
        return builtins.any(isdtype(d, k) for k in kind)
    if not isinstance(kind, str):
        return d == _dtype(kind)
    kinds = {"bool": "b", "signed integer": "i", "unsigned integer": "u", "integral": "iu",
             "real floating": "f", "numeric": "iuf"}
    if kind not in kinds:
        raise SiskinError(f"isdtype: no kind {kind!r} (one of {', '.join(kinds)})")
    return d.kind in kinds[kind]


# ---- element-wise functions (the operators of docs/ufuncs.md) ----

def _ufunc(name, siskin_name=None):
    def f(*args):
        return _wrap(_siskin.ufunc(siskin_name or name, [_operand(x) for x in args]))
    f.__name__ = name
    f.__qualname__ = name
    f.__doc__ = f"The Array API's {name}, element by element (siskin's '{siskin_name or name}')."
    return f


# name in the standard -> siskin's operator (docs/ufuncs.md)
_ELEMENTWISE = {
    "abs": "abs", "add": "add", "bitwise_and": "bitwise_and", "bitwise_invert": "bitwise_not",
    "bitwise_left_shift": "shl", "bitwise_or": "bitwise_or", "bitwise_right_shift": "shr",
    "bitwise_xor": "bitwise_xor", "divide": "div", "equal": "eq", "exp": "exp",
    "floor_divide": "floordiv", "greater": "gt", "greater_equal": "ge", "isfinite": "isfinite",
    "isinf": "isinf", "isnan": "isnan", "less": "lt", "less_equal": "le", "log": "log",
    "logical_and": "and", "logical_not": "not", "logical_or": "or", "logical_xor": "xor",
    "maximum": "max", "minimum": "min", "multiply": "mul", "negative": "neg", "not_equal": "ne",
    "pow": "pow", "remainder": "mod", "sqrt": "sqrt", "subtract": "sub",
    "sin": "sin", "cos": "cos", "tan": "tan", "asin": "asin", "acos": "acos", "atan": "atan",
    "atan2": "atan2", "sinh": "sinh", "cosh": "cosh", "tanh": "tanh", "asinh": "asinh",
    "acosh": "acosh", "atanh": "atanh", "expm1": "expm1", "log1p": "log1p", "log2": "log2",
    "log10": "log10", "floor": "floor", "ceil": "ceil", "trunc": "trunc", "round": "round",
    "sign": "sign", "logaddexp": "logaddexp", "copysign": "copysign", "hypot": "hypot",
    "nextafter": "nextafter", "signbit": "signbit",
}
ELEMENTWISE = {name: _ufunc(name, op) for name, op in _ELEMENTWISE.items()}


def positive(x, /):
    return lazy(x)


def square(x, /):
    x = lazy(x)
    return x * x


# ---- reductions ----

def _reduction(name, has_dtype):
    def f(x, /, *, axis=None, keepdims=False, **kwargs):
        dtype = kwargs.pop("dtype", None) if has_dtype else None
        if kwargs:
            raise SiskinError(f"{name}() takes no argument {next(iter(kwargs))!r}")
        return _reduce(name, x, axis, keepdims, dtype)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = (f"{name} over axis (all when None), keeping the reduced axes as size 1 with "
                 f"keepdims" + ("; dtype: convert the elements to it and reduce in it." if has_dtype else "."))
    return f


REDUCTIONS = {name: _reduction(name, name in ("sum", "prod", "mean"))
              for name in ("sum", "prod", "max", "min", "mean", "all", "any")}


def var(x, /, *, axis=None, correction=0.0, keepdims=False):
    """The mean squared deviation from the mean over axis, divided by N - correction instead
    of N (two reductions: the mean, then the squares)."""
    x = lazy(x)
    if x.dtype.kind != "f":
        raise SiskinError(f"var takes a float array, not {x.dtype}")
    axes = range(x.ndim) if axis is None else [axis] if isinstance(axis, int) else axis
    n = int(np.prod([x.shape[a] for a in axes], dtype=np.int64))
    deviation = x - _reduce("mean", x, axis, True)
    total = _reduce("sum", deviation * deviation, axis, keepdims)
    return total / x.dtype.type(n - correction)


def std(x, /, *, axis=None, correction=0.0, keepdims=False):
    return ELEMENTWISE["sqrt"](var(x, axis=axis, correction=correction, keepdims=keepdims))


def argmax(x, /, *, axis=None, keepdims=False):
    return _wrap(_siskin.arg_reduce("argmax", _operand(x), axis, keepdims))


def argmin(x, /, *, axis=None, keepdims=False):
    return _wrap(_siskin.arg_reduce("argmin", _operand(x), axis, keepdims))


def vecdot(x1, x2, /, *, axis=-1):
    """The dot products along axis (after broadcasting): sum(x1 * x2, axis)."""
    return _reduce("sum", ELEMENTWISE["multiply"](x1, x2), axis, False, result_type(x1, x2))


e, inf, nan, pi, newaxis = math.e, math.inf, math.nan, math.pi, None


# ---- shapes ----

def matrix_transpose(x, /):
    """The last two axes swapped."""
    x = lazy(x)
    if x.ndim < 2:
        raise SiskinError(f"matrix_transpose needs at least two dimensions, got shape {x.shape}")
    axes = list(range(x.ndim))
    axes[-2], axes[-1] = axes[-1], axes[-2]
    return _wrap(_siskin.permute_dims(x._native, axes))


def broadcast_arrays(*arrays):
    arrays = [lazy(x) for x in arrays]
    try:
        shape = np.broadcast_shapes(*(x.shape for x in arrays))
    except ValueError:
        raise SiskinError("broadcast_arrays: shapes " + ", ".join(str(x.shape) for x in arrays)
                          + " do not broadcast together") from None
    return [_wrap(_siskin.broadcast_to(x._native, list(shape))) for x in arrays]


# ---- the array object: methods the standard asks of arrays, on Array and Tensor ----

def _compute_scalar(x, convert):
    value = np.asarray(x)
    if value.size != 1:
        raise SiskinError(f"only a one-element array converts to a Python number; this one has "
                          f"shape {x.shape}")
    return convert(value.reshape(()).item())


def _index(x):
    if x.dtype.kind not in "iu":
        raise SiskinError(f"only an integer array is an index, not {x.dtype}")
    return _compute_scalar(x, int)


_ARRAY_METHODS = {
    "__array_namespace__": lambda self, api_version=None: _namespace(api_version),
    "__pos__": lambda self: lazy(self),
    "__bool__": lambda self: _compute_scalar(self, builtins.bool),
    "__int__": lambda self: _compute_scalar(self, int),
    "__float__": lambda self: _compute_scalar(self, float),
    "__index__": _index,
    "astype": lambda self, dtype, copy=True: astype(self, dtype, copy=copy),
    "to_device": lambda self, device, /, stream=None: _to_device(self, device),
    "mT": property(matrix_transpose),
    "device": property(lambda self: "cpu"),
    "size": property(lambda self: int(np.prod(self.shape, dtype=np.int64))),
}


def _to_device(x, device):
    if device != "cpu":
        raise SiskinError(f"siskin arrays live on the CPU; to_device({device!r}) cannot move them")
    return x


def _namespace(api_version):
    if api_version not in (None, "2021.12", "2022.12"):
        raise SiskinError(f"siskin implements the Array API 2022.12, not {api_version!r}")
    import siskin
    return siskin


def install():
    """Gives Array and Tensor the standard's array attributes they lack (Tensor's operators and
    indexing are _numpy_protocols' and _tensor_slicing's)."""
    for cls in (Array, Tensor):
        for name, method in _ARRAY_METHODS.items():
            if name not in cls.__dict__:
                setattr(cls, name, method)


__all__ = (["DTYPES", "ELEMENTWISE", "REDUCTIONS", "arange", "argmax", "argmin", "std", "var",
            "vecdot", "e", "inf", "nan", "pi", "newaxis", "asarray", "astype", "broadcast_arrays",
            "can_cast", "empty", "empty_like", "eye", "finfo", "full", "full_like", "iinfo", "isdtype",
            "linspace", "matrix_transpose", "ones", "ones_like", "positive", "result_type",
            "square", "zeros", "zeros_like"])
