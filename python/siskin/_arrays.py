"""Lazy arrays with NumPy semantics (docs/arrays.md): siskin.lazy(x) wraps a tensor (or anything
siskin.asarray takes) in an Array; operators, indexing, reductions and contractions only build
an expression, and compute() (or siskin.compute, to_numpy, np.asarray) runs it as one compiled
program, with shape operators fused in and nothing copied."""

import numpy as np

from . import _siskin
from ._tensor import Tensor, asarray

_BINARY = {"add": "+", "sub": "-", "mul": "*", "truediv": "/", "floordiv": "//", "mod": "%",
           "pow": "**", "and": "&", "or": "|", "xor": "^", "lshift": "<<", "rshift": ">>",
           "matmul": "@"}
_COMPARE = {"lt": "<", "le": "<=", "gt": ">", "ge": ">=", "eq": "==", "ne": "!="}


def _operand(x):
    if isinstance(x, Array):
        return x._native
    if isinstance(x, Tensor):
        return x._native
    if isinstance(x, (bool, int, float)):
        return x  # a weak scalar, as NumPy 2 treats Python numbers
    return asarray(x)._native  # NumPy scalars too: they have a dtype (a strong 0-d array)


def _wrap(native):
    return Array(native)


class Array:
    """An unevaluated expression over tensors with a shape, dtype and fill value."""

    __slots__ = ("_native",)
    __array_priority__ = 100  # ndarray op Array gives Array's reflected operator a turn

    def __init__(self, native):
        self._native = native

    shape = property(lambda self: self._native.shape)
    ndim = property(lambda self: len(self._native.shape))
    dtype = property(lambda self: np.dtype(self._native.dtype))
    fill_value = property(lambda self: self.dtype.type(self._native.fill))
    T = property(lambda self: _wrap(self._native.T))

    @property
    def program_text(self):
        """The siskin program compute() runs."""
        return self._native.program_text

    def compute(self, format=None, as_written=False):
        """Runs the expression as one compiled program: a siskin.Tensor (format: the result's;
        default dense for a dense result, else the leading sparse operand's format). The
        program runs in the planner's cheapest plan for these inputs (a product with a csc
        matrix reads it by columns); as_written=True runs program_text as it is."""
        return Tensor(self._native.compute(format, as_written))

    def to_numpy(self):
        return self.compute().to_numpy()

    def __array__(self, dtype=None, copy=None):
        return self.compute().__array__(dtype)

    def __repr__(self):
        return f"siskin.Array(shape={self.shape}, dtype={self.dtype}, fill_value={self._native.fill!r})"

    def __getitem__(self, key):
        if not isinstance(key, tuple):
            key = (key,)
        items = []
        for k in key:
            if k is None:
                items.append(("newaxis",))
            elif k is Ellipsis:
                items.append(("ellipsis",))
            elif isinstance(k, slice):
                items.append(("slice", k.start, k.stop, 1 if k.step is None else k.step))
            else:
                items.append(("int", int(k)))
        return _wrap(self._native.getitem(items))

    def __neg__(self):
        return _wrap(_siskin.unary("-", self._native))

    def __invert__(self):
        return _wrap(_siskin.unary("~", self._native))

    def __abs__(self):
        return _wrap(_siskin.unary("abs", self._native))

    def sum(self, axis=None, keepdims=False, dtype=None):
        return _reduce("sum", self, axis, keepdims, dtype)

    def prod(self, axis=None, keepdims=False, dtype=None):
        return _reduce("prod", self, axis, keepdims, dtype)

    def min(self, axis=None, keepdims=False):
        return _reduce("min", self, axis, keepdims)

    def max(self, axis=None, keepdims=False):
        return _reduce("max", self, axis, keepdims)

    def any(self, axis=None, keepdims=False):
        return _reduce("any", self, axis, keepdims)

    def all(self, axis=None, keepdims=False):
        return _reduce("all", self, axis, keepdims)

    def mean(self, axis=None, keepdims=False, dtype=None):
        return _reduce("mean", self, axis, keepdims, dtype)

    def argmin(self, axis=None, keepdims=False):
        return _wrap(_siskin.arg_reduce("argmin", self._native, axis, keepdims))

    def argmax(self, axis=None, keepdims=False):
        return _wrap(_siskin.arg_reduce("argmax", self._native, axis, keepdims))


def _binary_methods(name, op):
    def forward(self, other):
        return _wrap(_siskin.binary(op, self._native, _operand(other)))

    def reflected(self, other):
        return _wrap(_siskin.binary(op, _operand(other), self._native))

    setattr(Array, f"__{name}__", forward)
    setattr(Array, f"__r{name}__", reflected)


for _name, _op in _BINARY.items():
    _binary_methods(_name, _op)
for _name, _op in _COMPARE.items():
    setattr(Array, f"__{_name}__", (lambda op: lambda self, other: _wrap(
        _siskin.binary(op, self._native, _operand(other))))(_op))
Array.__hash__ = None


def _reduce(name, x, axis, keepdims, dtype=None):
    if axis is not None and not isinstance(axis, (tuple, list)):
        axis = [axis]
    dtype = None if dtype is None else np.dtype(dtype).name
    return _wrap(_siskin.reduce(name, _operand(x), None if axis is None else list(axis), keepdims, dtype))


def lazy(x):
    """x as a lazy siskin.Array (a tensor, or anything siskin.asarray takes, used in place)."""
    return x if isinstance(x, Array) else _wrap(_siskin.lazy(_operand(x)))


def compute(x, format=None, as_written=False):
    """The value of a lazy array as a siskin.Tensor (a tensor is returned as it is);
    as_written: as Array.compute."""
    return x.compute(format, as_written) if isinstance(x, Array) else asarray(x, format=format)


def einsum(subscripts, *operands):
    return _wrap(_siskin.einsum(subscripts, [_operand(x) for x in operands]))


def matmul(a, b):
    return _wrap(_siskin.binary("@", _operand(a), _operand(b)))


def tensordot(a, b, axes=2):
    if isinstance(axes, int):
        return _wrap(_siskin.tensordot(_operand(a), _operand(b), axes))
    axes_a, axes_b = axes
    axes_a = [axes_a] if isinstance(axes_a, int) else list(axes_a)
    axes_b = [axes_b] if isinstance(axes_b, int) else list(axes_b)
    return _wrap(_siskin.tensordot_pairs(_operand(a), _operand(b), axes_a, axes_b))


def where(condition, x, y):
    return _wrap(_siskin.where(_operand(condition), _operand(x), _operand(y)))


def ufunc(name, *args):
    """Any operator of siskin's registry by name, element by element: 'maximum', 'exp', 'gcd'."""
    return _wrap(_siskin.ufunc(name, [_operand(x) for x in args]))


def permute_dims(x, axes):
    return _wrap(_siskin.permute_dims(_operand(x), list(axes)))


def expand_dims(x, axis):
    return _wrap(_siskin.expand_dims(_operand(x), axis))


def squeeze(x, axis=None):
    if axis is not None and not isinstance(axis, (tuple, list)):
        axis = [axis]
    return _wrap(_siskin.squeeze(_operand(x), None if axis is None else list(axis)))


def broadcast_to(x, shape):
    return _wrap(_siskin.broadcast_to(_operand(x), list(shape)))



def concat(arrays, axis=0):
    """The arrays one after another along axis (the Array API's concat; NumPy's concatenate)."""
    return _wrap(_siskin.concatenate([_operand(x) for x in arrays], axis))


def stack(arrays, axis=0):
    return _wrap(_siskin.stack([_operand(x) for x in arrays], axis))


def reshape(x, shape):
    return _wrap(_siskin.reshape(_operand(x), list(shape)))


def flip(x, axis=None):
    """The elements in reverse order along axis: an int, a tuple of them (the Array API's), or
    None for every axis."""
    if isinstance(axis, (tuple, list)):
        x = lazy(x)
        for a in axis:
            x = _wrap(_siskin.flip(x._native, a))
        return x
    return _wrap(_siskin.flip(_operand(x), axis))


def tile(x, reps):
    return _wrap(_siskin.tile(_operand(x), [reps] if isinstance(reps, int) else list(reps)))


def pad(x, pad_width, constant_values=0):
    """Constant padding, NumPy's spelling: one (before, after) pair per dimension, or one pair
    (or one number) for all."""
    if isinstance(pad_width, int):
        pad_width = [(pad_width, pad_width)]
    widths = [tuple(w) for w in pad_width]
    if len(widths) == 2 and all(isinstance(w, int) for w in pad_width):
        widths = [tuple(pad_width)]
    return _wrap(_siskin.pad(_operand(x), widths, _operand(constant_values)))
