"""Shared inputs: random sparse matrices as NumPy, SciPy and pydata/sparse objects."""

import numpy as np
import pytest
import scipy.sparse as sp


@pytest.fixture
def rng():
    return np.random.default_rng(20)


def random_dense(rng, shape, density=0.3, dtype=np.float64, fill=0, specials=False):
    """A dense array with about `density` of its elements different from `fill`; specials puts
    NaN and inf among the stored values of float arrays."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        values = rng.random(shape) < 0.5
    elif dtype.kind in "iu":
        values = rng.integers(1, 9, size=shape).astype(dtype)
    else:
        values = rng.standard_normal(shape).astype(dtype)
        if specials and values.size:
            flat = values.reshape(-1)
            flat[rng.integers(0, flat.size, size=max(1, flat.size // 10))] = np.inf
            flat[rng.integers(0, flat.size, size=max(1, flat.size // 10))] = np.nan
    keep = rng.random(shape) < density
    return np.where(keep, values, np.asarray(fill).astype(dtype))


def scipy_of(dense, format):
    return {"csr": sp.csr_array, "csc": sp.csc_array, "coo": sp.coo_array}[format](dense)


def assert_same(got, want, rtol=1e-12):
    """Same dtype, shape and values (NaN equal to NaN; float sums may round differently)."""
    got = np.asarray(got)
    want = np.asarray(want)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape, (got.shape, want.shape)
    if want.dtype.kind == "f":
        np.testing.assert_allclose(got, want, rtol=rtol, atol=0, equal_nan=True)
    else:
        np.testing.assert_array_equal(got, want)
