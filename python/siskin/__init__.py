"""siskin: a compiler and runtime for sparse and structured arrays, from Python.

    import numpy as np, scipy.sparse as sp, siskin
    A = siskin.asarray(sp.random(1000, 1000, density=0.01, format="csr"))  # uses A's arrays
    x = np.ones(1000)
    y = siskin.run("y[i] += A[i,j] * x[j]", A=A, x=x)["y"].to_numpy()
    spmv = siskin.compile("y[i] += A[i,j] * x[j]")          # compiled once per kind of input
    y = spmv(A=A, x=x)["y"]
    print(siskin.c("y[i] += A[i,j] * x[j]", formats={"A": "csr"}))

Lazy arrays: siskin.lazy(A) builds NumPy-style expressions (operators, indexing, reductions,
einsum, matmul) computed as one compiled program by .compute() or siskin.compute().

Tensors (siskin.Tensor) have a shape, a dtype, a level format ('csr',
'dense(0)/sparselist(1)', ...) and a fill value: every element that is not stored equals it.
Every error is a siskin.SiskinError (a ValueError) carrying siskin's message.
"""

from ._tensor import SiskinError, Tensor, asarray
from ._programs import Function, Kernel, c, compile, function, kernel_counts, run
from ._files import read, write
from ._arrays import (Array, broadcast_to, compute, concat, einsum, expand_dims, flip, lazy, matmul,
                      pad, permute_dims, reshape, squeeze, stack, tensordot, tile, ufunc, where)
from . import _dask, _numpy_protocols, _pickling, _tensor_slicing

_numpy_protocols.install()  # np.add(t, u), np.sum(t, axis=0), t * 2: siskin's lazy operations
_pickling.install()  # tensors pickle with their format and fill, buffers out of band
_tensor_slicing.install()  # t[1:3, ::2]: a tensor at once, in t's format (Dask's chunks)
_dask.register_if_loaded()  # siskin arrays as Dask chunks (again on first use, see _dask)

from . import _array_api
from ._array_api import (__array_api_version__, arange, argmax, argmin, e, inf, nan, newaxis, pi, std,
                         var, vecdot, asarray, astype, broadcast_arrays, can_cast,
                         empty, empty_like, eye, finfo, full, full_like, iinfo, isdtype, linspace,
                         matrix_transpose, ones, ones_like, positive, result_type, square, zeros,
                         zeros_like)

# The Array API namespace is this module (docs/python-api.md): its dtypes, element-wise
# functions and reductions by the standard's names (some shadow builtins here: max, bool, ...).
globals().update(_array_api.DTYPES)
globals().update(_array_api.ELEMENTWISE)
globals().update(_array_api.REDUCTIONS)
_array_api.install()
from ._array_api_views import conj, imag, meshgrid, real, roll, tril, triu
from ._array_api_eager import argsort, nonzero, repeat, searchsorted, sort, take, take_along_axis
from ._array_api_unique import unique_all, unique_counts, unique_inverse, unique_values
from ._array_api_later import (__array_namespace_info__, clip, count_nonzero, diff, moveaxis, reciprocal,
                               unstack)
from . import _array_api_eager, _array_api_later, _array_api_unique, _array_api_views
_array_api_views.install()  # __setitem__ raises: siskin arrays are immutable
from ._dlpack import from_dlpack
from . import _dlpack
_dlpack.install()  # __dlpack__: dense tensors handed out in place

SiskinError.kind = "user"  # class defaults: errors raised from Python have no location
SiskinError.file = None
SiskinError.line = None
SiskinError.column = None

__all__ = ["SiskinError", "Tensor", "asarray", "Function", "Kernel", "c", "compile", "function",
           "run", "kernel_counts", "read", "write", "Array", "lazy", "compute", "einsum", "matmul", "tensordot",
           "where", "ufunc", "permute_dims", "expand_dims", "squeeze", "broadcast_to", "concat",
           "stack", "reshape", "flip", "tile", "pad"] + [
           n for n in _array_api.__all__ if n not in ("DTYPES", "ELEMENTWISE", "REDUCTIONS")] + [
           *_array_api.DTYPES, *_array_api.ELEMENTWISE, *_array_api.REDUCTIONS,
           *_array_api_views.__all__, *_array_api_eager.__all__, *_array_api_later.__all__, *_array_api_unique.__all__, *_dlpack.__all__]
