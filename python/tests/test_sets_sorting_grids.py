"""unique_all, unique_inverse, meshgrid, and np.unique / np.sort / np.argsort / np.meshgrid
dispatched to siskin, against NumPy on the densified inputs of test_array_api (formats, fills
0, 1, NaN and inf, dtypes, empty and size-1 shapes)."""

import numpy as np
import pytest
import scipy.sparse as sp

import siskin
from test_array_api import INPUTS, check, make


def numpy_unique_all(d, equal_nan=False):
    values, indices, inverse, counts = np.unique(d.reshape(-1), return_index=True, return_inverse=True,
                                                 return_counts=True, equal_nan=equal_nan)
    return values, indices.astype(np.int64), inverse.astype(np.int64), counts.astype(np.int64)


def test_unique_all_and_unique_inverse_match_numpy():
    for index in range(len(INPUTS)):
        for seed in (0, 1):
            x, d = make(index, seed=seed)
            values, indices, inverse, counts = numpy_unique_all(d)
            got = siskin.unique_all(x)
            check(got.values, values)
            check(got.indices, indices)
            check(got.inverse_indices, inverse.reshape(d.shape))
            check(got.counts, counts)
            got = siskin.unique_inverse(x)
            check(got.values, values)
            check(got.inverse_indices, inverse.reshape(d.shape))


def test_unique_inverse_of_a_sparse_tensor_stays_sparse():
    d = np.array([[0.0, 5.0, 0.0, -1.0], [0.0, 0.0, 5.0, 0.0]])
    x = siskin.asarray(d, format="csr")
    inverse = siskin.unique_inverse(x).inverse_indices
    assert inverse.format == x.format and inverse.nnz == x.nnz
    assert inverse.fill_value == 1  # the fill 0 is the second value, after -1
    check(inverse, np.array([[1, 2, 1, 0], [1, 1, 2, 1]]))
    # The fill's first position is the first coordinate nothing is stored at.
    y = siskin.asarray(np.array([[7.0, 7.0, 2.0], [7.0, 3.0, 7.0]]), format="csr", fill_value=7.0)
    check(siskin.unique_all(y).indices, np.array([2, 4, 0]))
    # Entries stored with the fill's value: counted with the unstored ones, the first of all
    # of them (stored or not) is the index.
    for rows, cols in (([0, 0, 1], [0, 2, 1]), ([0, 1, 1], [1, 0, 2])):
        m = sp.csr_array((np.array([0.0, 4.0, 0.0]), (rows, cols)), shape=(2, 3))
        assert m.nnz == 3
        values, indices, inverse, counts = numpy_unique_all(m.toarray())
        got = siskin.unique_all(siskin.asarray(m))
        for g, want in zip(got, (values, indices, inverse.reshape(m.shape), counts)):
            check(g, want)


@pytest.mark.parametrize("equal_nan", [True, False])
def test_np_unique_dispatches_to_siskin(equal_nan):
    for index in range(len(INPUTS)):
        x, d = make(index)
        values, indices, inverse, counts = numpy_unique_all(d, equal_nan)
        assert isinstance(np.unique(x, equal_nan=equal_nan), siskin.Tensor)
        check(np.unique(x, equal_nan=equal_nan), values)
        got = np.unique(x, return_index=True, return_inverse=True, return_counts=True, equal_nan=equal_nan)
        for g, want in zip(got, (values, indices, inverse, counts)):
            check(g, want)
        got = np.unique(siskin.lazy(x) * 1, return_counts=True, equal_nan=equal_nan)
        check(got[1], counts)
    with pytest.raises(TypeError):
        np.unique(make(1)[0], axis=0)  # unique rows: NumPy's, not siskin's


def test_np_sort_and_argsort_dispatch_to_siskin():
    for index in range(len(INPUTS)):
        x, d = make(index)
        for axis in (None, -1, 0):
            result = np.sort(x, axis=axis)
            assert isinstance(result, siskin.Tensor)
            check(result, np.sort(d, axis=axis))
            check(np.argsort(x, axis=axis, kind="stable"), np.argsort(d, axis=axis, kind="stable").astype(np.int64))
            # Any kind: an order that sorts (siskin's is stable, which every kind allows).
            order = np.asarray(np.argsort(x, axis=axis))
            flat = d.reshape(-1) if axis is None else d
            np.testing.assert_array_equal(np.take_along_axis(flat, order, axis=-1 if axis is None else axis),
                                          np.sort(d, axis=axis))
    x, d = make(1)
    assert np.sort(x, kind="heapsort").format == x.format  # a sparse tensor stays sparse
    with pytest.raises(TypeError):
        np.sort(x, order="field")


def test_meshgrid_matches_numpy():
    rng = np.random.default_rng(7)
    a = rng.standard_normal(4)
    b = np.where(rng.random(3) < 0.5, 1.0, rng.standard_normal(3))
    c = np.arange(2.0)
    xa = siskin.asarray(a)
    xb = siskin.asarray(b, format="sparselist(0)", fill_value=1.0)
    for indexing, arrays, dense in (("xy", (xa, xb), (a, b)), ("ij", (xb, xa, c), (b, a, c))):
        got = siskin.meshgrid(*arrays, indexing=indexing)
        want = np.meshgrid(*dense, indexing=indexing)
        assert len(got) == len(want)
        for g, w in zip(got, want):
            check(g, w)
    # NumPy's spelling, sparse=True too (the grids unrepeated).
    for sparse in (False, True):
        got = np.meshgrid(xa, xb, sparse=sparse)
        for g, w in zip(got, np.meshgrid(a, b, sparse=sparse)):
            check(g, w)
    with pytest.raises(siskin.SiskinError, match="one-dimensional"):
        siskin.meshgrid(siskin.asarray(np.ones((2, 2))))
    with pytest.raises(siskin.SiskinError, match="one dtype"):
        siskin.meshgrid(xa, siskin.asarray(np.arange(3)))
    with pytest.raises(siskin.SiskinError, match="indexing"):
        siskin.meshgrid(xa, indexing="xz")
