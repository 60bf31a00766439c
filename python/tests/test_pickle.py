"""Tensors and lazy arrays through pickle: format, fill, dtype and shape kept, buffers handed out
of band by protocol 5 and borrowed in place on the way back; and basic slicing of tensors."""

import pickle

import numpy as np
import pytest

import siskin
from conftest import random_dense

LEVEL_FORMATS = ["csr", "csc", "coo(0,1)", "dense", "dcsr", "dense(0)/sparsebytemap(1)",
                 "dense(0)/runlist(1)", "dense(0)/sparseband(1)", "dense(0)/sparserunlist(1)",
                 "dense(0)/sparseblocklist(1)"]
FILLS = [0.0, np.nan, -np.inf]


def same_tensor(got, want):
    assert isinstance(got, siskin.Tensor)
    assert (got.shape, got.dtype, got.format) == (want.shape, want.dtype, want.format)
    assert got._native.fill == want._native.fill or (np.isnan(got.fill_value) and np.isnan(want.fill_value))
    assert got._native.equals(want._native)


@pytest.mark.parametrize("fill", FILLS)
@pytest.mark.parametrize("format", LEVEL_FORMATS)
def test_every_level_format_round_trips(rng, format, fill):
    t = siskin.asarray(random_dense(rng, (5, 7), fill=fill, specials=True), fill_value=fill).asformat(format)
    for protocol in (2, 5):
        same_tensor(pickle.loads(pickle.dumps(t, protocol=protocol)), t)


def test_protocol_5_buffers_are_borrowed_not_copied(rng):
    t = siskin.asarray(random_dense(rng, (60, 80)), format="csr")
    buffers = []
    data = pickle.dumps(t, protocol=5, buffer_callback=buffers.append)
    assert len(buffers) == 3  # pos, crd, values: out of band, none copied into the stream
    assert len(data) < 1000 < t.nnz * 8
    u = pickle.loads(data, buffers=buffers)
    same_tensor(u, t)
    values = np.frombuffer(buffers[-1], dtype=np.float64)
    assert u._native.values().ctypes.data == values.ctypes.data  # the tensor uses the buffer


def test_unaligned_buffers_are_copied(rng):
    t = siskin.asarray(random_dense(rng, (6, 8)), format="csr")
    buffers = []
    data = pickle.dumps(t, protocol=5, buffer_callback=buffers.append)
    shifted = []
    for b in buffers:  # the bytes one past an aligned address, as a network frame may hold them
        raw = bytes(b.raw())
        block = bytearray(len(raw) + 1)
        block[1:] = raw
        shifted.append(memoryview(block)[1:])
    same_tensor(pickle.loads(data, buffers=shifted), t)


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.uint64, np.float32])
def test_dtypes_scalars_and_patterns_round_trip(rng, dtype):
    t = siskin.asarray(random_dense(rng, (3, 4), dtype=dtype), format="coo(0,1)")
    same_tensor(pickle.loads(pickle.dumps(t)), t)
    scalar = siskin.asarray(np.asarray(7, dtype=dtype))
    same_tensor(pickle.loads(pickle.dumps(scalar)), scalar)
    if dtype == np.bool_:
        pattern = t.asformat("coo(0,1)/pattern")
        same_tensor(pickle.loads(pickle.dumps(pattern)), pattern)


def test_lazy_arrays_pickle_as_their_value(rng):
    a = random_dense(rng, (4, 5))
    x = siskin.lazy(siskin.asarray(a, format="csr")) * 2 + 1
    y = pickle.loads(pickle.dumps(x))
    assert isinstance(y, siskin.Array)
    np.testing.assert_array_equal(y.to_numpy(), a * 2 + 1)


KEYS = [(slice(1, 4), slice(0, 7, 2)), (slice(None, None, -2),), (3,), (Ellipsis, 4),
        (None, slice(2, 5), None), (2, 3), (slice(4, 0, -1), slice(6, 20)), (slice(0, 0),)]


@pytest.mark.parametrize("format", ["csr", "csc", "coo(0,1)", "dense", "dense(0)/runlist(1)"])
def test_slicing_a_tensor_matches_numpy(rng, format):
    a = random_dense(rng, (5, 7), fill=np.nan)
    t = siskin.asarray(a, fill_value=np.nan).asformat(format)
    before = siskin.kernel_counts()["compiled"]
    for key in KEYS:
        got = t[key]
        assert isinstance(got, siskin.Tensor) and got.shape == a[key].shape
        np.testing.assert_array_equal(got.to_numpy(), a[key])
        assert np.isnan(got.fill_value)
        if got.ndim == 2:
            assert got.format == t.format
    assert siskin.kernel_counts()["compiled"] == before  # no kernel per window


def test_slicing_errors(rng):
    t = siskin.asarray(random_dense(rng, (3, 4)), format="csr")
    for key in [(0, 0, 0), 5, (slice(None), -5), [0, 1], (Ellipsis, Ellipsis), 1.5]:
        with pytest.raises(IndexError):
            t[key]
