"""NumPy's functions and ufuncs on siskin tensors and arrays (__array_ufunc__, __array_function__)
against NumPy on the densified inputs, across formats and fills. Results of one kind are stacked
and computed together, so each case compiles a few kernels, not one per function."""

import numpy as np
import pytest

import siskin
from conftest import assert_same, random_dense

# (format, fill): sparse formats with fills 0 and NaN, and a dense tensor filled with inf
# (coo kernels compile slowest: coo is covered by the pickling and Dask tests).
CASES = [("csr", 0.0), ("csc", np.nan), ("dense", np.inf)]

FLOAT_BINARY = ["add", "subtract", "multiply", "divide", "true_divide", "power", "maximum",
                "minimum", "fmax", "fmin"]
FLOAT_UNARY = ["negative", "absolute", "exp", "log", "sqrt"]
TO_BOOL = ["equal", "not_equal", "less", "less_equal", "greater", "greater_equal", "logical_and",
           "logical_or", "logical_xor"]
INT_BINARY = ["floor_divide", "remainder", "left_shift", "right_shift", "bitwise_and",
              "bitwise_or", "bitwise_xor"]


def tensors(case, *dense):
    format, fill = case
    return [siskin.asarray(d, fill_value=fill).asformat(format) for d in dense]


@pytest.fixture(params=CASES, ids=lambda c: f"{c[0]}-fill{c[1]}")
def case(request):
    return request.param


@pytest.fixture
def pair(rng, case):
    fill = case[1]
    a = random_dense(rng, (4, 5), fill=fill)
    b = random_dense(rng, (4, 5), fill=fill)
    return a, b, *tensors(case, a, b)


def computed_together(results):
    """The results (lazy arrays of one shape) computed as one program: one kernel."""
    return siskin.stack(results).to_numpy()


def assert_all_match(checks, rtol=1e-10):
    """Each (siskin result, NumPy result) pair agrees; results of one shape and dtype are
    computed together (one kernel per group)."""
    groups = {}
    for got, want in checks:
        assert isinstance(got, siskin.Array)
        want = np.asarray(want)
        groups.setdefault((got.shape, got.dtype), []).append((got, want))
    for members in groups.values():
        assert_same(computed_together([g for g, _ in members]), np.stack([w for _, w in members]),
                    rtol=rtol)


def test_ufuncs_match_numpy(pair):
    a, b, A, B = pair
    # The second operand a NumPy array (used in place as a dense tensor): a kernel that walks
    # one sparse operand compiles in a fraction of the time two coiterated ones take.
    with np.errstate(all="ignore"):
        floats = [getattr(np, f)(A, b) for f in FLOAT_BINARY] + [getattr(np, f)(A) for f in FLOAT_UNARY]
        want = [getattr(np, f)(a, b) for f in FLOAT_BINARY] + [getattr(np, f)(a) for f in FLOAT_UNARY]
        assert all(isinstance(r, siskin.Array) for r in floats)
        assert_same(computed_together(floats), np.stack(want), rtol=1e-12)
        bools = [getattr(np, f)(A, b) for f in TO_BOOL] + [np.logical_not(A)]
        want = [getattr(np, f)(a, b) for f in TO_BOOL] + [np.logical_not(a)]
        assert_same(computed_together(bools), np.stack(want))
        # Two sparse operands of the case's format: one kernel of a few ufuncs.
        both = [np.add(A, B), np.maximum(A, B), np.multiply(A, B)]
        assert_same(computed_together(both), np.stack([a + b, np.maximum(a, b), a * b]), rtol=1e-12)


def test_integer_ufuncs_match_numpy(rng):
    a = random_dense(rng, (4, 5), dtype=np.int32, fill=3)
    b = random_dense(rng, (4, 5), dtype=np.int32, density=0.8) % 5
    A = siskin.asarray(a, fill_value=3).asformat("csr")
    got = [getattr(np, f)(A, b) for f in INT_BINARY] + [np.invert(A), np.negative(A)]
    with np.errstate(divide="ignore"):  # x // 0 and x % 0 are 0 in both
        want = [getattr(np, f)(a, b) for f in INT_BINARY] + [np.invert(a), np.negative(a)]
    assert_same(computed_together(got), np.stack(want))
    assert_same(np.ldexp(A * 1.0, b).to_numpy(), np.ldexp(a * 1.0, b))


def test_reductions_match_numpy(pair):
    a, b, A, B = pair
    checks = []
    for axis, keepdims in ((None, False), (0, False), (1, True), ((0, 1), True)):
        for f in ("sum", "max", "min", "prod", "mean"):
            checks.append((getattr(np, f)(A, axis=axis, keepdims=keepdims),
                           getattr(np, f)(a, axis=axis, keepdims=keepdims)))
    checks += [(np.add.reduce(A, axis=1), np.add.reduce(a, axis=1)),
               (np.maximum.reduce(A), np.maximum.reduce(a)),
               (np.any(A > 0, axis=0), np.any(a > 0, axis=0)),
               (np.all(A > 0, axis=0), np.all(a > 0, axis=0))]
    assert_all_match(checks)
    assert_same(np.argmax(A, axis=1).to_numpy(), np.argmax(a, axis=1))


def test_reduction_dtypes(rng):
    a = random_dense(rng, (3, 4), dtype=np.int16)
    A = siskin.asarray(a, format="csr")
    assert_same(np.sum(A, axis=0, dtype=np.float64).to_numpy(), np.sum(a, axis=0, dtype=np.float64))
    assert_same(np.mean(A, axis=1, dtype=np.float64).to_numpy(), np.mean(a, axis=1, dtype=np.float64))
    assert_same(np.sum(A).to_numpy(), np.asarray(np.sum(a)))  # int16 sums in int64, as NumPy
    assert_same(np.add(A, A, dtype=np.int64).to_numpy(), np.add(a, a, dtype=np.int64))
    f = random_dense(rng, (3, 4))
    F = siskin.asarray(f, format="csr")
    assert_same(np.sum(F, axis=1, dtype=np.float32).to_numpy(), np.sum(f, axis=1, dtype=np.float32),
                rtol=1e-6)  # summed in float32, as NumPy's dtype= does
    assert_same(np.multiply(F, F, dtype=np.float32).to_numpy(), np.multiply(f, f, dtype=np.float32),
                rtol=1e-6)


@pytest.mark.parametrize("case", CASES[:2], ids=lambda c: f"{c[0]}-fill{c[1]}")
def test_contractions_and_shapes_match_numpy(pair, rng):
    a, b, A, B = pair
    x = random_dense(rng, (5,), density=1.0)
    c = random_dense(rng, (5, 3), density=0.5)
    with np.errstate(all="ignore"):
        checks = [
            (np.matmul(A, c), a @ c), (A @ c, a @ c), (np.dot(A, x), np.dot(a, x)),
            (np.tensordot(A, B, axes=([1], [1])), np.tensordot(a, b, axes=([1], [1]))),
            (np.einsum("ij,kj", A, B), np.einsum("ij,kj", a, b)),
            (np.einsum("ij,j->i", A, x), np.einsum("ij,j->i", a, x)),
            (np.concatenate([A, B], axis=1), np.concatenate([a, b], axis=1)),
            (np.concatenate([A, b]), np.concatenate([a, b])),
            (np.stack([A, B], axis=2), np.stack([a, b], axis=2)),
            (np.transpose(A), a.T), (A.T, a.T), (np.moveaxis(A, 0, 1), np.moveaxis(a, 0, 1)),
            (np.swapaxes(A, 0, 1), np.swapaxes(a, 0, 1)),
            (np.reshape(A, (2, 10)), np.reshape(a, (2, 10))), (np.reshape(A, 20), a.reshape(20)),
            (np.where(A > B, A, B), np.where(a > b, a, b)),
            (np.expand_dims(A, (0, 3)), np.expand_dims(a, (0, 3))),
            (np.squeeze(np.expand_dims(A, 0)), a), (np.broadcast_to(x, (4, 5)) * A, x * a),
            (np.tile(A, (1, 2)), np.tile(a, (1, 2))),
            (np.pad(A, [(1, 0), (0, 2)], constant_values=7.0), np.pad(a, [(1, 0), (0, 2)], constant_values=7.0)),
        ]
        assert_all_match(checks)
    assert_all_match([(np.flip(A, 1), np.flip(a, 1)), (np.flip(A), np.flip(a))])
    assert np.ndim(A) == 2 and np.shape(A) == (4, 5) and np.size(A) == 20
    assert np.result_type(A, np.float32) == np.float64


def test_numpy_operands_and_operators(pair):
    a, b, A, B = pair
    with np.errstate(all="ignore"):
        assert isinstance(a + A, siskin.Array)  # ndarray.__add__ defers through __array_ufunc__
        got = [A * 2 + B, 2 - A, a * A, -A, abs(A) ** 2, A / B]
        want = [a * 2 + b, 2 - a, a * a, -a, np.abs(a) ** 2, a / b]
        assert_same(computed_together(got), np.stack(want), rtol=1e-12)
        assert_same(computed_together([A < B, A == B]), np.stack([a < b, a == b]))


def test_a_fused_chain_runs_one_kernel(rng):
    a = random_dense(rng, (6, 7))
    A, B = siskin.asarray(a, format="csr"), siskin.asarray(a.T.copy(), format="csr")
    before = siskin.kernel_counts()["runs"]
    y = np.sum(np.add(np.multiply(A, 2), B.T), axis=1).to_numpy()
    assert siskin.kernel_counts()["runs"] - before == 1
    assert_same(y, (a * 2 + a).sum(axis=1), rtol=1e-12)
    # Another shape, the same kernel (its loops take their bounds from the tensors) for the same
    # plan: the program as written here, since the planner's cheapest plan depends on the data.
    np.sum(np.add(np.multiply(A, 2), B.T), axis=1).compute(as_written=True)
    c = random_dense(rng, (3, 9))
    C, D = siskin.asarray(c, format="csr"), siskin.asarray(c.T.copy(), format="csr")
    counts = siskin.kernel_counts()
    z = np.sum(np.add(np.multiply(C, 2), D.T), axis=1).compute(as_written=True).to_numpy()
    after = siskin.kernel_counts()
    assert after["compiled"] + after["loaded_from_disk"] == counts["compiled"] + counts["loaded_from_disk"]
    assert_same(z, (c * 2 + c).sum(axis=1), rtol=1e-12)


def test_what_siskin_does_not_do_is_numpys_type_error(pair):
    a, b, A, B = pair
    out = np.empty(a.shape)
    for call in [lambda: np.cumsum(A), lambda: np.sort(A, order="x"), lambda: np.add.accumulate(A),
                 lambda: np.add(A, B, out=out), lambda: np.sum(A, out=np.empty(())),
                 lambda: np.cbrt(A), lambda: np.divide(A, B, dtype=np.int64),
                 lambda: np.where(A), lambda: np.add.outer(A, B),
                 lambda: np.sum(A, where=a > 0), lambda: np.add(A, "x")]:
        with pytest.raises(TypeError):
            call()
