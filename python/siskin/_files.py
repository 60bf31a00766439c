"""siskin.read and siskin.write: Matrix Market (.mtx) and FROSTT (.tns) files through siskin's
readers and writers, NumPy's .npy, and .npz (SciPy's sparse matrices, or NumPy arrays)."""

import os
import tempfile

import numpy as np

from . import _siskin
from ._tensor import SiskinError, Tensor, _fill_for, asarray


def _extension(path):
    return os.path.splitext(os.fspath(path))[1].lower()


def read(path, format=None, fill_value=None, dtype=None, shape=None, ndims=None):
    """The tensor in the file at path, by its extension: .mtx and .tns (format, fill_value,
    dtype, shape and ndims as `siskin run -i` reads them), .npy (a dense array, used in place),
    .npz (a SciPy sparse matrix saved by scipy.sparse.save_npz; a NumPy .npz of one array gives
    that array, of several a dict of them by name)."""
    path = os.fspath(path)
    ext = _extension(path)
    if ext in (".mtx", ".tns"):
        return Tensor(_siskin.read(path, format, _fill_for(fill_value, None) if fill_value is not None
                                   else None, np.dtype(dtype).name if dtype is not None else None,
                                   list(shape) if shape is not None else None, ndims))
    if ext == ".npy":
        return asarray(np.load(path), format=format, fill_value=fill_value, dtype=dtype)
    if ext == ".npz":
        with np.load(path) as archive:
            names = archive.files
            if "format" in names and "shape" in names and "data" in names:
                import scipy.sparse as sp

                return asarray(sp.load_npz(path), format=format, fill_value=fill_value, dtype=dtype)
            arrays = {name: archive[name] for name in names}
        tensors = {name: asarray(a, format=format, fill_value=fill_value, dtype=dtype)
                   for name, a in arrays.items()}
        return next(iter(tensors.values())) if len(tensors) == 1 else tensors
    raise SiskinError(f"{path}: siskin reads .mtx, .tns, .npy and .npz files, not '{ext or path}'")


def _replace_atomically(path, suffix, save):
    """save(temporary path) in path's folder, then the temporary renamed into place: a failure
    leaves the old file (or none), as siskin's own writers do."""
    folder = os.path.dirname(os.path.abspath(path))
    handle, temporary = tempfile.mkstemp(prefix=".siskin-", suffix=suffix, dir=folder)
    os.close(handle)
    try:
        save(temporary)
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.remove(temporary)
        raise


def write(path, x, fill_comment=False):
    """Writes x (anything siskin.asarray takes) to path, by its extension: .mtx and .tns as
    `siskin run -o` writes them (fill_comment: see the README), .npy as the dense array, .npz as
    a SciPy sparse matrix (scipy.sparse.load_npz reads it; two dimensions, fill 0; csr, csc or
    coo as the tensor is stored, else csr)."""
    path = os.fspath(path)
    t = asarray(x)
    ext = _extension(path)
    if ext in (".mtx", ".tns"):
        _siskin.write(t._native, path, fill_comment)
    elif ext == ".npy":
        _replace_atomically(path, ".npy", lambda tmp: np.save(tmp, t.to_numpy()))
    elif ext == ".npz":
        import scipy.sparse as sp

        if t.ndim != 2 or t._native.fill != 0:
            raise SiskinError(f"{path}: a .npz file holds a SciPy sparse matrix: two dimensions and "
                              f"fill 0, but the tensor has shape {t.shape} and fill "
                              f"{t._native.fill!r} (write a .npy or .tns file instead)")
        kind = next((k for k, s in (("csr", "csr"), ("csc", "csc"), ("coo", "coo(0,1)"))
                     if t._native.has_format(s)), "csr")
        matrix = t.to_scipy(kind)
        _replace_atomically(path, ".npz", lambda tmp: sp.save_npz(tmp, matrix))
    else:
        raise SiskinError(f"{path}: siskin writes .mtx, .tns, .npy and .npz files, not "
                          f"'{ext or path}'")
