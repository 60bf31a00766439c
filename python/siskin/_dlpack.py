"""DLPack on siskin arrays: Tensor.__dlpack__ hands out a dense tensor's values in place (a
capsule made by the extension module, python/src/dlpack_binding.cpp); a lazy Array is computed
dense first. siskin.from_dlpack(x) reads any DLPack producer through NumPy's consumer and uses
that memory in place, as asarray does a NumPy array's.

Only dense memory is exchanged: DLPack describes strided arrays, so a sparse tensor is refused
(converting it would be a copy the caller did not ask for). DLPack 0.6 (NumPy 1.24's) has no
bool type, and CPU memory is all siskin has."""

import numpy as np

from . import _siskin
from ._arrays import Array
from ._tensor import SiskinError, Tensor, asarray

_CPU = 1  # DLPack's kDLCPU


def _dlpack(self, *, stream=None):
    if stream is not None:
        raise SiskinError(f"__dlpack__: siskin arrays live on the CPU, which has no streams (got stream={stream!r})")
    tensor = self.compute("dense") if isinstance(self, Array) else self
    return _siskin.to_dlpack(tensor._native)


def _dlpack_device(self):
    return (_CPU, 0)


def from_dlpack(x, /):
    """A dense siskin.Tensor over the memory of x, any object with __dlpack__ (a NumPy array, a
    siskin tensor, a CPU tensor of another library): no copy; x's memory stays alive as long as
    the tensor uses it."""
    if not hasattr(x, "__dlpack__"):
        raise SiskinError(f"from_dlpack takes an object with __dlpack__, not {type(x).__name__}")
    return asarray(np.from_dlpack(x))


def install():
    for cls in (Tensor, Array):
        cls.__dlpack__ = _dlpack
        cls.__dlpack_device__ = _dlpack_device


__all__ = ["from_dlpack"]
