"""siskin arrays as Dask chunks (dask.array over siskin tensors).

Most of Dask's chunk work reaches siskin through NumPy's protocols (_numpy_protocols: np.sum,
np.matmul, operators, ...), which build lazy siskin Arrays. This module adds what Dask looks up
in its own tables, and one graph pass:

- concatenate_lookup, tensordot_lookup, einsum_lookup: siskin's concat, tensordot and einsum
  for chunks that are siskin tensors or arrays (Dask picks the function by the chunk's type);
- sizeof: a tensor's buffers, so the distributed scheduler sees how much memory a chunk holds;
- array_optimize: after Dask's own optimization (which fuses a chain of blockwise operations
  into one task per block), every task's result is computed if it is a lazy siskin Array. The
  chain inside a task is one lazy expression, so a block runs one kernel, not one per operator,
  and what a task hands on is a stored tensor, never an expression that keeps growing.

register() runs when siskin is imported after dask.array, or when a siskin array first meets
NumPy's protocols or slicing with dask.array loaded (a worker process that unpickles a chunk).
"""

import sys

_registered = False


def register_if_loaded():
    """Registers siskin with Dask when dask.array has been imported; cheap when it has not."""
    if not _registered and "dask.array" in sys.modules:
        register()


def register():
    global _registered
    if _registered:
        return
    _registered = True
    import dask
    from dask.array.dispatch import concatenate_lookup, einsum_lookup, tensordot_lookup
    from dask.sizeof import sizeof

    from ._arrays import Array
    from ._tensor import Tensor

    types = (Tensor, Array)
    concatenate_lookup.register(types, _concatenate)
    tensordot_lookup.register(types, _tensordot)
    einsum_lookup.register(types, _einsum)
    sizeof.register(Tensor, _tensor_bytes)
    sizeof.register(Array, lambda a: 64)  # an expression: its tensors are counted where they are stored
    global _previous_optimize
    previous = dask.config.get("array_optimize", None)
    if previous is not siskin_array_optimize:
        _previous_optimize = previous
    dask.config.set(array_optimize=siskin_array_optimize)


def _concatenate(arrays, axis=0):
    from ._arrays import concat

    return concat(list(arrays), axis)


def _tensordot(a, b, axes=2):
    from ._arrays import tensordot

    return tensordot(a, b, axes)


def _einsum(subscripts, *operands, **kwargs):
    import numpy as np

    return np.einsum(subscripts, *operands, **kwargs)  # through siskin's __array_function__


def _tensor_bytes(t):
    native = t._native
    total = native.values(writable=False).nbytes
    for level in native.levels():
        total += sum(buffer.nbytes for buffer in level.values())
    return total


def _materialized(value):
    """value with every lazy siskin Array in it computed (Dask's reductions hand on dicts and
    lists of partial results)."""
    from ._arrays import Array

    if isinstance(value, Array):
        return value.compute()
    if type(value) is dict:
        return {k: _materialized(v) for k, v in value.items()}
    if type(value) in (list, tuple):
        return type(value)(_materialized(v) for v in value)
    return value


def computed_task(function, *args):
    """A Dask task's function, its siskin result computed: one kernel for the whole task."""
    return _materialized(function(*args))


_previous_optimize = None  # an array_optimize the user had set: run instead of Dask's own


def siskin_array_optimize(dsk, keys, **kwargs):
    """Dask's array optimization (or the one set before siskin's), then every task wrapped in
    computed_task. Module-level: Dask's config travels to worker processes by pickle."""
    from dask.array.optimization import optimize as dask_optimize
    from dask.core import istask
    from dask.utils import ensure_dict

    optimized = (_previous_optimize or dask_optimize)(dsk, keys, **kwargs)
    graph = ensure_dict(optimized)
    return {key: (computed_task, *task) if istask(task) else task for key, task in graph.items()}
