"""siskin.Tensor and asarray: stored tensors over NumPy, SciPy and pydata/sparse memory.

A tensor taken from another library uses that library's arrays in place whenever siskin has a
level format for their layout (a dense level over a NumPy array's buffer; sparselist levels over
a CSR or CSC matrix's indptr and indices; a coo level over COO coordinates): the arrays are kept
alive by the tensor, and a change to their values is seen by it. Otherwise (another dtype, a
non-contiguous array, unsorted or duplicate indices) the input is converted once.
"""

import numpy as np

from . import _siskin

SiskinError = _siskin.SiskinError


class Tensor:
    """A stored tensor: shape, dtype, a level format and a fill value (the value of every
    element that is not stored). Made by `siskin.asarray`, `siskin.read` and programs."""

    __slots__ = ("_native", "__weakref__")

    def __init__(self, native):
        if not isinstance(native, _siskin.Tensor):
            raise TypeError("siskin.Tensor is made by siskin.asarray, siskin.read or a program")
        self._native = native

    @property
    def shape(self):
        return self._native.shape

    @property
    def ndim(self):
        return len(self._native.shape)

    @property
    def size(self):
        return int(np.prod(self._native.shape, dtype=np.int64))

    @property
    def dtype(self):
        return np.dtype(self._native.dtype)

    @property
    def format(self):
        """The general spelling of the level format, e.g. 'dense(0)/sparselist(1)@32'."""
        return self._native.format

    @property
    def fill_value(self):
        return self.dtype.type(self._native.fill)

    @property
    def nnz(self):
        """Stored entries (every position of a dense level counts)."""
        return self._native.nnz

    def asformat(self, format):
        """The same tensor in another format (a compiled copy), or itself when already in it."""
        if self._native.has_format(format):
            return self
        return Tensor(self._native.convert(format))

    def to_numpy(self):
        """A NumPy array of the same values: a view of the tensor's memory when its levels are
        all dense (in any axis order; read-only when that memory is borrowed from another
        array), else a dense copy."""
        native = self._native
        order = native.dense_order
        if order is None:
            native = native.convert("dense")
            order = list(range(self.ndim))
        shape = native.shape
        values = native.values().reshape([shape[m] for m in order])
        if order != sorted(order):
            values = values.transpose([order.index(m) for m in range(len(order))])
        return values

    todense = to_numpy

    def __array__(self, dtype=None, copy=None):
        array = self.to_numpy()
        if dtype is not None and array.dtype != dtype:
            return array.astype(dtype)
        return array.copy() if copy else array

    def to_scipy(self, format="csr", matrix=False):
        """A scipy.sparse array ("csr", "csc" or "coo"; a scipy matrix with matrix=True) over the
        tensor's index and value arrays when it is stored in that format, else over a converted
        copy. Two dimensions and fill 0 only: SciPy reads every unstored entry as 0."""
        import scipy.sparse as sp

        if self.ndim != 2:
            raise SiskinError(f"to_scipy needs two dimensions, but the tensor has shape {self.shape}")
        if self._native.fill != 0:
            raise SiskinError(f"to_scipy needs fill 0 (SciPy reads unstored entries as 0), but the "
                              f"tensor's fill is {self._native.fill!r}")
        spelling = {"csr": "csr", "csc": "csc", "coo": "coo(0,1)"}.get(format)
        if spelling is None:
            raise SiskinError(f"to_scipy takes 'csr', 'csc' or 'coo', not {format!r}")
        t = self.asformat(spelling)._native
        levels = t.levels()
        data = t.values() if not t.format.endswith("/pattern") else np.ones(t.nnz, dtype=bool)
        kind = {"csr": "csr", "csc": "csc", "coo": "coo"}[format] + ("_matrix" if matrix else "_array")
        make = getattr(sp, kind)
        if format == "coo":
            return make((data, (levels[0]["crd0"], levels[0]["crd1"])), shape=self.shape, copy=False)
        return make((data, levels[1]["crd"], levels[1]["pos"]), shape=self.shape, copy=False)

    def to_pydata(self):
        """A pydata/sparse COO array with the same values and fill value."""
        import sparse

        spelling = "coo(" + ",".join(str(m) for m in range(self.ndim)) + ")" if self.ndim else "dense"
        t = self.asformat(spelling)._native
        if self.ndim == 0:
            return sparse.COO.from_numpy(self.to_numpy(), fill_value=self.fill_value)
        level = t.levels()[0]
        coords = np.stack([level[f"crd{m}"] for m in range(self.ndim)]).astype(np.int64)
        data = t.values() if not t.format.endswith("/pattern") else np.ones(t.nnz, dtype=bool)
        return sparse.COO(coords, data, shape=self.shape, fill_value=self.fill_value,
                          sorted=True, has_duplicates=False)

    def __repr__(self):
        return (f"siskin.Tensor(shape={self.shape}, dtype={self.dtype}, format='{self.format}', "
                f"fill_value={self._native.fill!r}, nnz={self.nnz})")

    def __str__(self):
        return self._native.to_string()


def _fill_for(fill_value, dtype):
    """The fill as a Python number (NumPy scalars unwrapped); 0 of the dtype when None."""
    if fill_value is None:
        return False if dtype == np.bool_ else 0
    if isinstance(fill_value, np.generic):
        return fill_value.item()
    return fill_value


def _native_layout(array):
    """The array in a layout siskin can borrow: aligned, native byte order, contiguous."""
    if not array.dtype.isnative:
        array = array.astype(array.dtype.newbyteorder("="))
    if not array.flags.aligned or not (array.flags.c_contiguous or array.flags.f_contiguous):
        array = array.copy(order="C")  # ascontiguousarray would keep a contiguous unaligned one
    return array


def _from_numpy(array, fill_value):
    array = _native_layout(array)
    ndim = array.ndim
    if array.flags.c_contiguous:
        order, flat = list(range(ndim)), array.reshape(-1)
    else:  # Fortran order: the dense levels run from the last axis to the first
        order, flat = list(range(ndim - 1, -1, -1)), array.reshape(-1, order="F")
    spelling = "/".join(f"dense({m})" for m in order) if ndim else "dense"
    native = _siskin.from_storage(list(array.shape), array.dtype,
                                  _fill_for(fill_value, array.dtype), spelling,
                                  [{} for _ in range(ndim)], flat)
    return Tensor(native)


def _index_arrays(*arrays):
    """Index arrays of one dtype, int32 or int64 (converted only when they are not)."""
    dtypes = {a.dtype for a in arrays}
    if len(dtypes) == 1 and next(iter(dtypes)) in (np.dtype(np.int32), np.dtype(np.int64)):
        return [_native_layout(a) for a in arrays]
    return [np.ascontiguousarray(a, dtype=np.int64) for a in arrays]


def _values(data):
    return _native_layout(data).reshape(-1)


def _compressed(shape, spelling, indptr, indices, data, fill):
    indptr, indices = _index_arrays(indptr, indices)
    return _siskin.from_storage(list(shape), data.dtype, fill, spelling,
                                [{}, {"pos": indptr, "crd": indices}], _values(data))


def _coo(shape, modes, coords, data, fill):
    """A coo level over coordinate arrays listed in the level's mode order."""
    if len(data) > np.iinfo(np.int32).max:
        coords = [np.asarray(c, dtype=np.int64) for c in coords]
    coords = _index_arrays(*coords)
    pos = np.array([0, len(data)], dtype=coords[0].dtype if coords else np.int64)
    level = {"pos": pos}
    level.update({f"crd{k}": c for k, c in enumerate(coords)})
    spelling = "coo(" + ",".join(str(m) for m in modes) + ")"
    return _siskin.from_storage(list(shape), data.dtype, fill, spelling, [level], _values(data))


def _canonical(coords, data):
    """Coordinates sorted lexicographically (coords[0] first) with duplicates summed."""
    order = np.lexsort(coords[::-1])
    coords = [np.asarray(c)[order] for c in coords]
    data = np.asarray(data)[order]
    if len(data) > 1:
        new = np.zeros(len(data), dtype=bool)  # where a coordinate starts
        new[0] = True
        for c in coords:
            new[1:] |= c[1:] != c[:-1]
        if not new.all():
            starts = np.flatnonzero(new)
            data = np.add.reduceat(data, starts, dtype=data.dtype)
            coords = [c[starts] for c in coords]
    return coords, data


def _borrow_or_convert(borrow, convert):
    """borrow() over the arrays as they are; when siskin refuses their order (unsorted or
    duplicate indices), borrow over convert()'s canonical copy."""
    try:
        return borrow(None)
    except SiskinError as refused:
        try:
            canonical = convert()
        except Exception:  # arrays the other library cannot read either: siskin's reason
            raise refused from None
        return borrow(canonical)


def _from_scipy(x, fill_value, dtype):
    if dtype is not None and x.dtype != dtype:
        x = x.astype(dtype)
    fill = _fill_for(fill_value, x.dtype)
    shape = x.shape
    if x.format in ("csr", "csc"):
        spelling = "dense(0)/sparselist(1)" if x.format == "csr" else "dense(1)/sparselist(0)"

        def borrow(canonical):
            m = x if canonical is None else canonical
            return _compressed(shape, spelling, m.indptr, m.indices, m.data, fill)

        def convert():
            m = x.copy()
            m.sum_duplicates()
            return m

        return Tensor(_borrow_or_convert(borrow, convert))
    if x.format != "coo":  # bsr, dia, lil, dok: one conversion
        return _from_scipy(x.tocsr(), fill_value, None)
    # SciPy's COO is sorted by row when made from a dense array, by column after
    # sum_duplicates, unsorted when built from arbitrary triplets: used in place in either order.
    try:
        return Tensor(_coo(shape, (0, 1), [x.row, x.col], x.data, fill))
    except SiskinError:
        pass

    def borrow(canonical):
        if canonical is None:
            return _coo(shape, (1, 0), [x.col, x.row], x.data, fill)
        return _coo(shape, (0, 1), canonical[0], canonical[1], fill)

    return Tensor(_borrow_or_convert(borrow, lambda: _canonical([x.row, x.col], x.data)))


def _from_pydata(x, fill_value, dtype):
    import sparse

    if dtype is not None and x.dtype != dtype:
        x = x.astype(dtype)
    own_fill = x.fill_value.item() if isinstance(x.fill_value, np.generic) else x.fill_value
    if fill_value is not None and not _same_value(fill_value, own_fill):
        raise SiskinError(f"the pydata/sparse array has fill_value {own_fill!r}; asarray cannot "
                          f"give it fill_value {fill_value!r} (that would change its values)")
    shape = x.shape
    if isinstance(x, sparse.GCXS) and x.ndim == 2 and tuple(x.compressed_axes) in ((0,), (1,)):
        spelling = "dense(0)/sparselist(1)" if x.compressed_axes[0] == 0 else "dense(1)/sparselist(0)"
        return Tensor(_compressed(shape, spelling, x.indptr, x.indices, x.data, own_fill))
    if not isinstance(x, sparse.COO):
        x = x.asformat("coo")
    if x.ndim == 0:
        return _from_numpy(x.todense(), own_fill)
    modes = tuple(range(x.ndim))

    def borrow(canonical):
        coords, data = ([x.coords[k] for k in modes], x.data) if canonical is None else canonical
        return _coo(shape, modes, coords, data, own_fill)

    return Tensor(_borrow_or_convert(borrow, lambda: _canonical([x.coords[k] for k in modes], x.data)))


def _same_value(a, b):
    return a == b or (a != a and b != b)


def _is_scipy_sparse(x):
    module = type(x).__module__
    return module.startswith("scipy.sparse") and hasattr(x, "format") and hasattr(x, "tocsr")


def _is_pydata_sparse(x):
    return type(x).__module__.startswith("sparse.") and hasattr(x, "fill_value")


def asarray(x, format=None, fill_value=None, dtype=None):
    """A siskin.Tensor of x: a NumPy array (or anything np.asarray takes), a scipy.sparse
    matrix or array, a pydata/sparse array, or a siskin.Tensor.

    The tensor uses x's memory in place where it can (see the module's doc): the result of
    asarray(numpy_array) shares its buffer, so writing the NumPy array is seen by siskin.
    format: a level format ('csr', 'dense(1)/sparselist(0)', ...); a tensor in another format is
    converted (a compiled copy). fill_value: the value of the unstored elements (default 0, or a
    pydata array's own fill); for a scipy matrix, fill_value=inf says its unstored entries are
    inf. dtype: a NumPy dtype to convert to first.
    """
    if isinstance(x, Tensor):
        if dtype is not None and np.dtype(dtype) != x.dtype:
            raise SiskinError(f"asarray cannot change a siskin.Tensor's dtype ({x.dtype}) to "
                              f"{np.dtype(dtype)}")
        if fill_value is not None and not _same_value(_fill_for(fill_value, x.dtype), x._native.fill):
            raise SiskinError(f"the tensor has fill_value {x._native.fill!r}; asarray cannot give "
                              f"it fill_value {fill_value!r} (that would change its values)")
        t = x
    elif _is_scipy_sparse(x):
        t = _from_scipy(x, fill_value, dtype)
    elif _is_pydata_sparse(x):
        t = _from_pydata(x, fill_value, dtype)
    else:
        t = _from_numpy(np.asarray(x, dtype=dtype), fill_value)
    return t if format is None else t.asformat(format)
