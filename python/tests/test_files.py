"""siskin.read and siskin.write round trips, against what NumPy and SciPy read."""

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp

import siskin
from conftest import assert_same, random_dense


def test_matrix_market_both_ways(tmp_path, rng):
    dense = random_dense(rng, (6, 7))
    path = tmp_path / "a.mtx"
    siskin.write(path, sp.csr_array(dense))
    assert_same(scipy.io.mmread(str(path)).toarray(), dense)
    t = siskin.read(path, format="csc")
    assert t._native.has_format("csc")
    assert_same(t.to_numpy(), dense)


def test_frostt_keeps_the_fill(tmp_path, rng):
    dense = random_dense(rng, (3, 4, 2), fill=np.inf)
    path = tmp_path / "t.tns"
    siskin.write(path, siskin.asarray(dense, format="coo", fill_value=np.inf))
    t = siskin.read(path)
    assert t.fill_value == np.inf
    assert_same(t.to_numpy(), dense)


def test_npy_and_npz(tmp_path, rng):
    dense = random_dense(rng, (5, 4))
    siskin.write(tmp_path / "d.npy", dense)
    assert_same(np.load(tmp_path / "d.npy"), dense)
    assert_same(siskin.read(tmp_path / "d.npy").to_numpy(), dense)
    for kind in ("csr", "csc", "coo"):
        siskin.write(tmp_path / "m.npz", siskin.asarray(dense, format={"coo": "coo"}.get(kind, kind)))
        m = sp.load_npz(tmp_path / "m.npz")
        assert m.format == kind
        assert_same(m.toarray(), dense)
        assert_same(siskin.read(tmp_path / "m.npz").to_numpy(), dense)
    np.savez(tmp_path / "two.npz", a=dense, b=dense * 2)
    both = siskin.read(tmp_path / "two.npz")
    assert_same(both["b"].to_numpy(), dense * 2)


def test_file_errors(tmp_path):
    with pytest.raises(siskin.SiskinError, match="reads .mtx"):
        siskin.read(tmp_path / "x.csv")
    with pytest.raises(siskin.SiskinError, match="fill 0"):
        siskin.write(tmp_path / "x.npz", siskin.asarray(np.eye(2), fill_value=np.inf))
    with pytest.raises(siskin.SiskinError, match="cannot|no such|open"):
        siskin.read(tmp_path / "missing.mtx")
    assert not list(tmp_path.iterdir())  # nothing half-written
