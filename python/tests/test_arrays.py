"""Lazy arrays from Python against NumPy on the densified inputs."""

import numpy as np
import pytest

import siskin
from conftest import assert_same, random_dense


@pytest.fixture
def operands(rng):
    a = random_dense(rng, (5, 6))
    b = random_dense(rng, (6, 5))
    x = random_dense(rng, (6,), density=1.0)
    return a, b, x


@pytest.mark.parametrize("format", ["numpy", "csr"])
def test_fused_expression(operands, format):
    a, b, x = operands
    A = siskin.lazy(a if format == "numpy" else siskin.asarray(a, format="csr"))
    B, X = siskin.lazy(b), siskin.lazy(x)
    y = (A * B.T).sum(axis=1) + 2 * (A @ X)
    assert isinstance(y, siskin.Array) and y.shape == (5,)
    assert_same(y.to_numpy(), (a * b.T).sum(axis=1) + 2 * (a @ x), rtol=1e-10)
    assert "for" in y.program_text or "[" in y.program_text


def test_operators_indexing_and_reductions(operands):
    a, b, x = operands
    A = siskin.lazy(a)
    assert_same(np.asarray(siskin.where(A > 0, A, 0)), np.where(a > 0, a, 0))
    assert_same(A[1:5:2, ::2].to_numpy(), a[1:5:2, ::2])
    assert_same(A[None, 2, ...].to_numpy(), a[None, 2, ...])
    assert_same((-A).to_numpy(), -a)
    assert_same(abs(A).to_numpy(), np.abs(a))
    assert_same(A.max(axis=0, keepdims=True).to_numpy(), a.max(axis=0, keepdims=True))
    assert_same(A.argmax(axis=1).to_numpy(), a.argmax(axis=1))
    assert_same(A.mean().to_numpy(), np.asarray(a.mean()), rtol=1e-10)
    assert_same(siskin.einsum("ij,jk->ik", A, b).to_numpy(), np.einsum("ij,jk->ik", a, b), rtol=1e-10)
    assert_same(siskin.tensordot(A, b, axes=([1], [0])).to_numpy(), np.tensordot(a, b, axes=([1], [0])),
                rtol=1e-10)
    assert_same(siskin.expand_dims(A, 0).to_numpy(), a[None])
    assert_same(siskin.squeeze(siskin.lazy(a[None])).to_numpy(), a)
    assert_same(siskin.broadcast_to(siskin.lazy(x), (3, 6)).to_numpy(), np.broadcast_to(x, (3, 6)))
    assert_same(siskin.permute_dims(A, (1, 0)).to_numpy(), a.T)
    assert_same(siskin.ufunc("maximum", A, 0.5).to_numpy(), np.maximum(a, 0.5))


def test_python_numbers_are_weak_scalars():
    a = np.arange(4, dtype=np.float32)
    y = siskin.lazy(a) * 2.0
    assert y.dtype == np.float32
    assert_same(y.to_numpy(), a * np.float32(2))
    assert (siskin.lazy(np.arange(3, dtype=np.int8)) + 1).dtype == np.int8


def test_fills_flow_through_expressions(rng):
    a = random_dense(rng, (4, 5), fill=np.inf)
    A = siskin.lazy(siskin.asarray(a, format="csr", fill_value=np.inf))
    assert A.fill_value == np.inf
    assert_same(A.min(axis=1).to_numpy(), a.min(axis=1))
    assert_same(siskin.compute(siskin.ufunc("minimum", A, 1.0)).to_numpy(), np.minimum(a, 1.0))


def test_shape_errors_raise_siskin_errors():
    with pytest.raises(siskin.SiskinError):
        (siskin.lazy(np.ones((2, 3))) + np.ones((4,))).compute()
    with pytest.raises(siskin.SiskinError):
        siskin.lazy(np.ones((2, 3)))[5]


def test_shape_operators_that_move_elements(operands):
    a, b, x = operands
    A = siskin.lazy(siskin.asarray(a, format="csr"))
    assert_same(siskin.concat([A, a], axis=0).to_numpy(), np.concatenate([a, a], axis=0))
    assert_same(siskin.stack([A, a], axis=1).to_numpy(), np.stack([a, a], axis=1))
    assert_same(siskin.reshape(A, (3, 10)).to_numpy(), a.reshape(3, 10))
    assert_same(siskin.flip(siskin.lazy(a), 1).to_numpy(), np.flip(a, 1))
    assert_same(siskin.flip(A, 0).to_numpy(), np.flip(a, 0))
    assert_same(siskin.lazy(a)[::-2, 5:1:-2].to_numpy(), a[::-2, 5:1:-2])
    assert_same(siskin.tile(siskin.lazy(x), 2).to_numpy(), np.tile(x, 2))
    assert_same(siskin.pad(A, [(1, 0), (0, 2)], 7.0).to_numpy(), np.pad(a, [(1, 0), (0, 2)], constant_values=7.0))
    assert_same((siskin.reshape(A, (30,)) * 2).sum().to_numpy(), np.asarray((a.reshape(30) * 2).sum()), rtol=1e-10)
