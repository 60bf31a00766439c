"""asarray and back: values, zero-copy views, lifetimes, across formats, dtypes and shapes."""

import gc
import weakref

import numpy as np
import pytest
import scipy.sparse as sp

import siskin
from conftest import assert_same, random_dense, scipy_of

DTYPES = [np.float64, np.float32, np.int64, np.int32, np.int8, np.uint16, np.bool_]
SHAPES = [(0, 0), (0, 3), (3, 0), (1, 1), (1, 5), (4, 6)]


def address(array):
    return array.__array_interface__["data"][0]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(), (0,), (1,), (7,), (3, 4), (2, 3, 4), (0, 2, 3)])
def test_numpy_round_trip_shares_the_buffer(rng, dtype, shape):
    x = np.asarray(random_dense(rng, shape, density=0.7, dtype=dtype))
    t = siskin.asarray(x)
    assert t.shape == x.shape and t.dtype == x.dtype and t.ndim == x.ndim
    assert t.nnz == x.size
    assert t.fill_value == np.zeros((), dtype)
    y = t.to_numpy()
    assert_same(y, x)
    assert_same(np.asarray(t), x)
    if x.size:
        assert address(y) == address(x)
        assert t._native.borrowed


def test_fortran_order_is_used_in_place(rng):
    x = np.asfortranarray(random_dense(rng, (3, 5), density=1.0))
    t = siskin.asarray(x)
    assert t._native.has_format("dense(1)/dense(0)")
    assert address(t.to_numpy()) == address(x)
    assert_same(t.to_numpy(), x)
    # A program reads it with its axes right.
    assert_same(siskin.run("y[i] += A[i,j]", A=t)["y"].to_numpy(), x.sum(axis=1))


def test_strided_and_byteswapped_arrays_are_copied_once(rng):
    x = random_dense(rng, (6, 8), density=1.0)
    view = x[::2, 1::3]
    t = siskin.asarray(view)
    assert_same(t.to_numpy(), view)
    swapped = x.astype(x.dtype.newbyteorder(">"))
    assert_same(siskin.asarray(swapped).to_numpy(), x)


def test_mutating_the_numpy_array_is_seen(rng):
    x = np.arange(6, dtype=np.float64)
    t = siskin.asarray(x)
    x[2] = 100.0
    assert t.to_numpy()[2] == 100.0
    assert siskin.run("s[] += x[i]", x=t)["s"].to_numpy() == x.sum()


def test_the_numpy_owner_lives_as_long_as_the_tensor():
    x = np.arange(1000, dtype=np.float64)
    owner = weakref.ref(x)
    t = siskin.asarray(x)
    del x
    gc.collect()
    assert owner() is not None  # kept by the tensor's buffer
    assert siskin.run("s[] += x[i]", x=t)["s"].to_numpy() == sum(range(1000))
    del t
    gc.collect()
    assert owner() is None


def test_a_view_outlives_its_tensor():
    y = siskin.run("y[i] = x[i] * 2", x=np.arange(4.0))["y"].to_numpy()
    gc.collect()
    assert_same(y, np.arange(4.0) * 2)


@pytest.mark.parametrize("format", ["csr", "csc", "coo"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.bool_])
@pytest.mark.parametrize("shape", SHAPES)
def test_scipy_round_trip(rng, format, dtype, shape):
    dense = random_dense(rng, shape, dtype=dtype)
    m = scipy_of(dense, format)
    t = siskin.asarray(m)
    assert t.shape == shape and t.dtype == np.dtype(dtype)
    assert_same(t.to_numpy(), dense)
    assert t.nnz == m.nnz
    for out in ("csr", "csc", "coo"):
        back = t.to_scipy(out)
        assert back.format == out
        assert_same(back.toarray(), dense)


@pytest.mark.parametrize("kind", [sp.csr_matrix, sp.csr_array, sp.csc_matrix])
def test_scipy_compressed_arrays_are_used_in_place(rng, kind):
    m = kind(random_dense(rng, (20, 30)))
    t = siskin.asarray(m)
    level = t._native.levels()[1]
    assert address(level["pos"]) == address(m.indptr)
    assert address(level["crd"]) == address(m.indices)
    assert address(t._native.values()) == address(m.data)
    m.data[:] *= 3  # values may change freely: seen by the tensor
    assert_same(t.to_numpy(), m.toarray())
    back = t.to_scipy("csr" if m.format == "csr" else "csc")
    assert address(back.indices) == address(m.indices)


def test_scipy_with_unsorted_and_duplicate_indices_is_converted_once():
    indptr = np.array([0, 3, 4])
    indices = np.array([2, 0, 2, 1])
    m = sp.csr_matrix((np.array([1.0, 2.0, 3.0, 4.0]), indices, indptr), shape=(2, 3))
    t = siskin.asarray(m)
    assert_same(t.to_numpy(), m.toarray())
    assert t.nnz == 3
    coo = sp.coo_matrix((np.array([1.0, 2.0, 5.0]), (np.array([1, 0, 1]), np.array([0, 2, 0]))), shape=(2, 3))
    assert_same(siskin.asarray(coo).to_numpy(), coo.toarray())


def test_scipy_coo_sorted_by_column_is_used_in_place_in_that_order(rng):
    m = sp.csc_matrix(random_dense(rng, (10, 12))).tocoo()
    t = siskin.asarray(m)
    assert t._native.has_format("coo(1,0)")
    assert address(t._native.levels()[0]["crd0"]) == address(m.col)
    assert_same(t.to_numpy(), m.toarray())


@pytest.mark.parametrize("kind", ["lil", "dok", "bsr", "dia"])
def test_other_scipy_formats(rng, kind):
    dense = random_dense(rng, (6, 6))
    m = sp.csr_matrix(dense).asformat(kind)
    assert_same(siskin.asarray(m).to_numpy(), dense)


def test_scipy_fill_value_says_what_unstored_entries_are():
    m = sp.csr_array(np.array([[0.0, 2.0], [3.0, 0.0]]))
    t = siskin.asarray(m, fill_value=np.inf)
    assert t.fill_value == np.inf
    assert_same(t.to_numpy(), np.array([[np.inf, 2.0], [3.0, np.inf]]))
    with pytest.raises(siskin.SiskinError, match="fill 0"):
        t.to_scipy()


@pytest.mark.parametrize("fill", [0.0, 1.5, np.inf, np.nan])
@pytest.mark.parametrize("shape", [(5,), (4, 3), (3, 4, 2), (0, 3)])
def test_pydata_coo_keeps_its_fill(rng, fill, shape):
    sparse = pytest.importorskip("sparse")
    dense = random_dense(rng, shape, fill=fill)
    x = sparse.COO.from_numpy(dense, fill_value=fill)
    t = siskin.asarray(x)
    assert _same(t.fill_value, fill)
    assert_same(t.to_numpy(), dense)
    if x.nnz:
        assert address(t._native.values()) == address(x.data)
    back = t.to_pydata()
    assert _same(back.fill_value, fill)
    assert_same(back.todense(), dense)


def _same(a, b):
    return a == b or (np.isnan(a) and np.isnan(b))


@pytest.mark.parametrize("axis", [0, 1])
def test_pydata_gcxs(rng, axis):
    sparse = pytest.importorskip("sparse")
    dense = random_dense(rng, (5, 7))
    x = sparse.GCXS.from_numpy(dense, compressed_axes=[axis])
    t = siskin.asarray(x)
    assert_same(t.to_numpy(), dense)
    assert address(t._native.levels()[1]["crd"]) == address(x.indices)


@pytest.mark.parametrize("format", ["csr", "csc", "coo", "dcsr", "dense(1)/sparselist(0)@64", "csr/pattern"])
def test_asarray_converts_to_the_format_asked_for(rng, format):
    dense = random_dense(rng, (6, 5), dtype=np.bool_ if "pattern" in format else np.float64)
    t = siskin.asarray(dense, format=format)
    assert t._native.has_format(format)
    assert_same(t.to_numpy(), dense)
    assert siskin.asarray(t, format=format) is t


def test_dense_numpy_with_a_fill_stores_the_other_elements_in_a_sparse_format():
    dense = np.array([[np.inf, 1.0], [2.0, np.inf]])
    t = siskin.asarray(dense, format="csr", fill_value=np.inf)
    assert t.nnz == 2
    assert_same(t.to_numpy(), dense)


def test_dtype_conversion_and_repr():
    t = siskin.asarray([[1, 0], [0, 2]], dtype=np.float32, format="csr")
    assert t.dtype == np.float32
    assert "shape=(2, 2)" in repr(t) and "float32" in repr(t) and "nnz=2" in repr(t)
    assert "2" in str(t)


def test_large_tensors_convert_through_compiled_copies(rng):
    dense = random_dense(rng, (300, 300), density=0.9)  # above the runtime copy's limit
    t = siskin.asarray(dense, format="csr")
    assert t.nnz > 1 << 16
    assert_same(t.to_numpy(), dense)
    assert_same(t.to_scipy("csc").toarray(), dense)
