"""DLPack: Tensor.__dlpack__ and siskin.from_dlpack against NumPy's consumer and producer (NumPy
1.24 speaks DLPack 0.6): values, dtype and shape across dtypes, axis orders and fills; the
memory is shared, not copied; lifetimes; what is refused and why."""

import ctypes
import gc

import numpy as np
import pytest

import siskin
from conftest import assert_same, random_dense

DTYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32", "float64"]
# Dense formats of a 3-d tensor in several axis orders (the strides follow the order).
ORDERS = ["dense", "dense(2)/dense(1)/dense(0)", "dense(1)/dense(0)/dense(2)"]


def address(array):
    return array.__array_interface__["data"][0]


@pytest.mark.parametrize("dtype", DTYPES)
def test_dense_tensors_export_their_own_memory(dtype):
    rng = np.random.default_rng(DTYPES.index(dtype))
    for k, (order, fill) in enumerate(zip(ORDERS, (0, np.nan, 1))):
        dense = random_dense(rng, (2, 3, 4), density=0.6, dtype=dtype, fill=0)
        fill = fill if np.dtype(dtype).kind == "f" else int(fill == 1)
        t = siskin.asarray(dense, format=order, fill_value=fill)
        out = np.from_dlpack(t)
        assert_same(out, dense)
        assert np.shares_memory(out, t.to_numpy())  # the tensor's values, in place
        assert t.__dlpack_device__() == (1, 0)


def test_borrowed_memory_is_handed_on_in_place():
    a = np.arange(12.0).reshape(3, 4)
    for source in (a, np.asfortranarray(a)):
        t = siskin.asarray(source)
        out = np.from_dlpack(t)
        assert address(out) == address(source) and out.strides == source.strides
        source[1, 2] = -7.0
        assert out[1, 2] == -7.0


def test_the_consumer_keeps_the_tensor_alive():
    t = (siskin.lazy(np.arange(6.0).reshape(2, 3)) * 2).compute()
    out = np.from_dlpack(t)
    del t
    gc.collect()
    assert_same(out, np.arange(6.0).reshape(2, 3) * 2)
    capsule = siskin.asarray(np.ones(4)).__dlpack__()
    del capsule  # never consumed: the capsule releases the tensor itself
    gc.collect()


def test_from_dlpack_uses_the_producers_memory():
    rng = np.random.default_rng(3)
    a = rng.standard_normal((3, 5))
    t = siskin.from_dlpack(a)
    assert isinstance(t, siskin.Tensor)
    assert address(t.to_numpy()) == address(a)
    b = siskin.asarray(a, format="csr")
    assert_same(np.asarray(siskin.multiply(t, b)), a * a)
    a[0, 0] = 100.0
    assert t.to_numpy()[0, 0] == 100.0
    # The producer's array deleted: the tensor keeps its memory alive.
    c = np.arange(4, dtype=np.int32)
    u = siskin.from_dlpack(c)
    del c
    gc.collect()
    assert_same(np.asarray(u + 1), np.arange(1, 5, dtype=np.int32))
    # A siskin tensor is a producer too: the round trip shares memory.
    assert address(siskin.from_dlpack(t).to_numpy()) == address(a)


def test_a_lazy_array_is_computed_dense():
    d = random_dense(np.random.default_rng(4), (4, 5), fill=0)
    x = siskin.asarray(d, format="csr")
    assert_same(np.from_dlpack(siskin.lazy(x) * 2), d * 2)


def test_a_consumer_may_write_so_finiteness_is_scanned_again():
    # A * c with c finite skips c where A stores nothing; after the export a consumer (DLPack
    # cannot say read-only) writes inf into c, which the next kernel call must see.
    a = siskin.asarray(np.array([[2.0, 0.0], [0.0, 3.0]]), format="csr")
    c = (siskin.lazy(np.ones((2, 2))) + 0.0).compute()
    assert_same(np.asarray(siskin.multiply(a, c)), np.array([[2.0, 0.0], [0.0, 3.0]]))
    out = np.from_dlpack(c)
    (ctypes.c_double * 4).from_address(address(out))[1] = np.inf  # a writing consumer
    assert_same(np.asarray(siskin.multiply(a, c)), np.array([[2.0, np.nan], [0.0, 3.0]]))


def test_what_dlpack_cannot_carry_is_refused():
    sparse = siskin.asarray(np.eye(3), format="csr")
    with pytest.raises(siskin.SiskinError, match="dense memory.*asformat"):
        np.from_dlpack(sparse)
    with pytest.raises(siskin.SiskinError, match="bool"):
        np.from_dlpack(siskin.asarray(np.array([True, False])))
    with pytest.raises(siskin.SiskinError, match="stream"):
        siskin.asarray(np.ones(2)).__dlpack__(stream=1)
    with pytest.raises(siskin.SiskinError, match="__dlpack__"):
        siskin.from_dlpack([1.0, 2.0])
    assert np.from_dlpack(siskin.asarray(np.zeros((0, 3)))).shape == (0, 3)
