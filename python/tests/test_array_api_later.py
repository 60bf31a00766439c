"""The names later Array API revisions added that siskin composes from its lazy operations
(clip, moveaxis, unstack, reciprocal, count_nonzero, diff, __array_namespace_info__) against
NumPy on the densified inputs of test_array_api (formats, fills 0, NaN and inf, dtypes, empty
shapes); and the coverage list of python/tools/array_api_coverage.py against the namespace."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import siskin
from test_array_api import check, make, np_fill

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_clip_matches_numpy():
    for index, low, high in ((1, -0.5, 0.5), (3, None, 0.25), (4, 0.1, None), (5, -3, 4), (10, 0, 1)):
        x, d = make(index)
        want = np.clip(d, low, high)
        check(siskin.clip(x, low, high), want, np.clip(np_fill(x).astype(d.dtype), low, high))
    # Array bounds broadcast against x; the result keeps x's dtype.
    x, d = make(5)
    low = np.arange(d.shape[1], dtype=np.int64) - 2
    check(siskin.clip(x, min=low, max=3), np.clip(d, low, 3))
    with pytest.raises(siskin.SiskinError, match="broadcast"):
        siskin.clip(np.ones(3), np.zeros((2, 3)))


def test_moveaxis_and_unstack_match_numpy():
    d = np.arange(24.0).reshape(2, 3, 4)
    check(siskin.moveaxis(d, 0, -1), np.moveaxis(d, 0, -1))
    check(siskin.moveaxis(d, (0, 2), (2, 0)), np.moveaxis(d, (0, 2), (2, 0)))
    for index in (1, 3):
        x, dense = make(index)
        for axis in (0, 1, -1):
            parts = siskin.unstack(x, axis=axis)
            assert len(parts) == dense.shape[axis]
            for k, part in enumerate(parts):
                check(part, np.take(dense, k, axis=axis))
    assert siskin.unstack(make(10)[0], axis=0) == ()
    with pytest.raises(siskin.SiskinError, match="axis 3 is out of range"):
        siskin.unstack(d, axis=3)


def test_reciprocal_and_count_nonzero_match_numpy():
    for index in (1, 3, 4, 8):
        x, d = make(index)
        with np.errstate(all="ignore"):
            check(siskin.reciprocal(x), np.reciprocal(d), np.reciprocal(np_fill(x).astype(d.dtype)))
    for index in (1, 3, 5, 7, 10):
        x, d = make(index)
        for axis, keepdims in ((None, False), (0, False), (1, True)):
            got = siskin.count_nonzero(x, axis=axis, keepdims=keepdims)
            check(got, np.asarray(np.count_nonzero(d, axis=axis, keepdims=keepdims), dtype=np.int64))


def test_diff_matches_numpy():
    for index, axis, n in ((1, -1, 1), (3, 0, 1), (5, 1, 2), (7, -1, 1), (10, 1, 1), (1, 0, 0), (2, 1, 9)):
        x, d = make(index)
        check(siskin.diff(x, axis=axis, n=n), np.diff(d, axis=axis, n=n))
    x, d = make(1)
    edge = np.ones((d.shape[0], 1))
    check(siskin.diff(x, axis=1, prepend=edge, append=edge), np.diff(d, axis=1, prepend=edge, append=edge))
    with pytest.raises(siskin.SiskinError, match="non-negative"):
        siskin.diff(x, n=-1)
    with pytest.raises(siskin.SiskinError, match="dimension"):
        siskin.diff(siskin.asarray(np.float64(1.0)))


def test_namespace_info():
    info = siskin.__array_namespace_info__()
    assert info.default_device() == "cpu" and info.devices() == ["cpu"]
    assert info.capabilities()["data-dependent shapes"] is True
    assert info.default_dtypes()["real floating"] == np.float64
    assert set(info.dtypes()) == set(siskin._array_api.DTYPES)
    assert set(info.dtypes(kind="real floating")) == {"float32", "float64"}
    assert set(info.dtypes(kind=("bool", "unsigned integer"))) == {"bool", "uint8", "uint16", "uint32", "uint64"}
    with pytest.raises(siskin.SiskinError, match="CPU"):
        info.dtypes(device="gpu")


def test_coverage_list_matches_the_namespace():
    script = os.path.join(REPO, "python", "tools", "array_api_coverage.py")
    out = subprocess.run([sys.executable, script, "--json"], check=True, capture_output=True, text=True).stdout
    coverage = json.loads(out)
    absent = {name for names in coverage["absent"].values() for name in names}
    present = {name for names in coverage["present"].values() for name in names}
    assert present and not absent & present

    def found(name):  # "array.x": an attribute of both siskin.Tensor and siskin.Array
        if name.startswith("array."):
            return all(hasattr(cls, name[len("array."):]) for cls in (siskin.Tensor, siskin.Array))
        return hasattr(siskin, name)

    assert all(found(name) for name in present)
    assert all(not found(name) or name in coverage["refusing"] for name in absent)
    # Of the version siskin declares, what docs/python-api.md lists as absent: complex dtypes,
    # __setitem__ (immutable arrays) and the optional extensions.
    assert set(coverage["absent"][siskin.__array_api_version__]) == {
        "complex64", "complex128", "array.__complex__", "array.__setitem__", "linalg", "fft"}
