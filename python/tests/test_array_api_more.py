"""The Array API functions added after the first namespace (sign, logaddexp, real, imag, conj,
tril, triu, roll, nonzero, take, unique_values, unique_counts, sort, argsort, __setitem__)
against NumPy on the densified inputs, over the inputs of test_array_api (formats, fills 0, 1,
NaN and inf, dtypes, empty and size-1 shapes); and the compute cache: an expression computed
again runs the kernel it compiled, and an input that turns non-finite is not given the kernel
compiled for finite values."""

import numpy as np
import pytest

import siskin
from test_array_api import INPUTS, check, close, make, np_fill


def test_sign_matches_numpy():
    for index in (1, 3, 5, 8, 10):
        x, d = make(index)
        want, fill = np.sign(d), np.sign(np_fill(x).astype(d.dtype))
        for result in (siskin.sign(x), np.sign(x)):
            check(result, want, fill)
    with pytest.raises(siskin.SiskinError, match="sign"):
        siskin.sign(make(7)[0]).compute()  # bool: NumPy has no sign of bool either


def test_logaddexp_matches_numpy():
    for index in (1, 3, 8):
        (x, dx), (y, dy) = make(index), make(index, seed=1)
        with np.errstate(all="ignore"):
            want = np.logaddexp(dx, dy)
            fill = np.logaddexp(np_fill(x).astype(dx.dtype), np_fill(y).astype(dy.dtype))
        for result in (siskin.logaddexp(x, y), np.logaddexp(x, y)):
            close(np.asarray(result), want)
            close(result.fill_value, fill)
    # -inf is the identity: a -inf-filled operand leaves the other one's entries as they are.
    a = siskin.asarray(np.array([-np.inf, 2.0, -np.inf, 5.0]), format="sparselist(0)", fill_value=-np.inf)
    b = siskin.asarray(np.array([-np.inf, -np.inf, 3.0, 7.0]), format="sparselist(0)", fill_value=-np.inf)
    close(np.asarray(siskin.logaddexp(a, b)), np.logaddexp(np.asarray(a), np.asarray(b)))


def test_real_imag_conj_of_real_dtypes():
    for index in (1, 3, 5, 7, 10):
        x, d = make(index)
        check(siskin.real(x), np.real(d))
        check(siskin.conj(x), d)  # the array itself (NumPy 1.24 turns bool into int8)
        if d.dtype != bool:
            check(siskin.conj(x), np.conj(d))
        check(siskin.imag(x), np.imag(d))
        assert siskin.imag(x).compute().nnz == 0 or d.size == 0
    check(siskin.imag(siskin.asarray(np.float32(2.5))), np.imag(np.float32(2.5)))
    for f in (siskin.real, siskin.imag, siskin.conj):
        with pytest.raises(siskin.SiskinError, match="complex"):
            f(np.ones(3, dtype=np.complex128))


def test_tril_triu_match_numpy():
    # Each input meets one diagonal (a kernel per input and function).
    for index, k in ((1, 0), (2, 1), (4, -2), (7, 0), (11, 1)):
        x, d = make(index)
        check(siskin.tril(x, k=k), np.tril(d, k=k))
        check(siskin.triu(x, k=k), np.triu(d, k=k))
    # Batched: the last two axes.
    d3 = np.arange(24.0).reshape(2, 3, 4)
    check(siskin.triu(siskin.asarray(d3), k=1), np.triu(d3, k=1))
    with pytest.raises(siskin.SiskinError, match="two dimensions"):
        siskin.tril(siskin.asarray(np.ones(3)))


def test_tril_of_a_sparse_matrix_stays_sparse():
    x, d = make(1, specials=False)
    lower = siskin.tril(x).compute()
    assert lower.format == x.format
    assert lower.nnz == np.count_nonzero(np.tril(d))


def test_roll_matches_numpy():
    cases = ((1, 0), (-2, 1), (7, -1), (3, None), ((1, 2), (0, 1)), (2, (0, 1)))
    for k, index in enumerate((0, 1, 3, 7, 9, 11)):  # each input meets two of the cases
        x, d = make(index)
        for shift, axis in (cases[k % len(cases)], cases[(k + 3) % len(cases)]):
            check(siskin.roll(x, shift, axis=axis), np.roll(d, shift, axis=axis))
    with pytest.raises(siskin.SiskinError, match="out of range"):
        siskin.roll(make(1)[0], 1, axis=2)


def test_nonzero_matches_numpy():
    for index in range(len(INPUTS)):
        x, d = make(index)
        got = siskin.nonzero(x)
        want = np.nonzero(d)
        assert len(got) == len(want)
        for g, w in zip(got, want):
            check(g, w.astype(np.int64))
    with pytest.raises(siskin.SiskinError, match="at least one dimension"):
        siskin.nonzero(siskin.asarray(np.float64(1)))


def test_take_matches_numpy():
    for index in range(len(INPUTS)):
        x, d = make(index)
        for axis in range(d.ndim):
            n = d.shape[axis]
            idx = np.array([n - 1, 0, -1, 0] if n else [], dtype=np.int64)
            result = siskin.take(x, idx, axis=axis)
            check(result, np.take(d, idx, axis=axis))
            assert result.fill_value == x.fill_value or np.isnan(x.fill_value)
    x, d = make(1)
    with pytest.raises(siskin.SiskinError, match="out of bounds"):
        siskin.take(x, np.array([5]), axis=0)
    with pytest.raises(siskin.SiskinError, match="give the axis"):
        siskin.take(x, np.array([0]))
    v = siskin.asarray(np.arange(5.0), format="sparselist(0)")
    check(siskin.take(v, np.array([4, 4, 1])), np.array([4.0, 4.0, 1.0]))


def test_unique_matches_numpy():
    for index in range(len(INPUTS)):
        x, d = make(index)
        want, counts = np.unique(d, return_counts=True, equal_nan=False)
        check(siskin.unique_values(x), want)
        got = siskin.unique_counts(x)
        check(got.values, want)
        check(got.counts, counts.astype(np.int64))
    # The fill counts once per unstored element, stored entries of its value beside them.
    x = siskin.asarray(np.array([[0.0, 2.0], [2.0, 0.0]]), format="csr")
    got = siskin.unique_counts(x)
    check(got.values, np.array([0.0, 2.0]))
    check(got.counts, np.array([2, 2]))


@pytest.mark.parametrize("descending", [False, True])
def test_sort_and_argsort_match_numpy(descending):
    for index in range(len(INPUTS)):
        x, d = make(index)
        for axis in range(-d.ndim, d.ndim):
            want = np.sort(d, axis=axis)
            if descending:
                want = np.flip(want, axis=axis)
            result = siskin.sort(x, axis=axis, descending=descending)
            check(result, want)
            assert result.fill_value == x.fill_value or np.isnan(x.fill_value)
            order = np.argsort(d, axis=axis, kind="stable")
            if descending:
                order = d.shape[axis] - 1 - np.flip(np.argsort(np.flip(d, axis=axis), axis=axis, kind="stable"),
                                                    axis=axis)
            check(siskin.argsort(x, axis=axis, descending=descending), order.astype(np.int64))
    with pytest.raises(siskin.SiskinError, match="at least one dimension"):
        siskin.sort(siskin.asarray(np.float64(1)))


def test_sort_keeps_a_sparse_tensor_sparse():
    d = np.array([[0.0, -3.0, 0.0, 2.0], [5.0, 0.0, 0.0, -1.0], [0.0, 0.0, 0.0, 0.0]])
    x = siskin.asarray(d, format="csr")
    result = siskin.sort(x)
    assert result.format == x.format and result.nnz == x.nnz
    check(result, np.sort(d))


def test_setitem_raises():
    x, _ = make(1)
    for target in (x, siskin.lazy(x)):
        with pytest.raises(siskin.SiskinError, match="immutable"):
            target[0, 0] = 1.0


def test_compute_runs_the_kernel_it_compiled_before():
    x, d = make(1, specials=False)
    y, e = make(1, seed=1, specials=False)
    check((x * 2 + y).sum(axis=1), (d * 2 + e).sum(axis=1))
    before = siskin.kernel_counts()
    # Other tensors of the same kind: no compile, no disk lookup, one run.
    x2, d2 = make(1, seed=2, specials=False)
    check((x2 * 2 + y).sum(axis=1), (d2 * 2 + e).sum(axis=1))
    after = siskin.kernel_counts()
    assert after["compiled"] == before["compiled"]
    assert after["loaded_from_disk"] == before["loaded_from_disk"]
    assert after["runs"] == before["runs"] + 1


def test_a_numpy_array_changed_to_inf_is_seen_by_a_cached_kernel():
    # A * b: for finite b the kernel skips b where A stores nothing (0 * b = 0). NumPy memory
    # siskin uses in place may change at any time, so it is scanned on every compute.
    a = siskin.asarray(np.array([[2.0, 0.0], [0.0, 3.0]]), format="csr")
    b_numpy = np.ones((2, 2))
    b = siskin.asarray(b_numpy)
    check(siskin.multiply(a, b), np.array([[2.0, 0.0], [0.0, 3.0]]))
    b_numpy[0, 1] = np.inf
    check(siskin.multiply(a, b), np.array([[2.0, np.nan], [0.0, 3.0]]))
    # A tensor siskin owns, written through a writable NumPy view of its values.
    c = (siskin.lazy(np.ones((2, 2))) + 0.0).compute()
    check(siskin.multiply(a, c), np.array([[2.0, 0.0], [0.0, 3.0]]))
    c.to_numpy()[1, 0] = -np.inf
    check(siskin.multiply(a, c), np.array([[2.0, 0.0], [np.nan, 3.0]]))


def test_copysign_hypot_nextafter_signbit_match_numpy():
    # Compiled as siskin's operators (docs/ufuncs.md), under fills 0, 1, NaN and inf (NaN and
    # inf stored too), float64, int64 and int32 (float64 results, as NumPy's; float32 below),
    # a size-1 and an empty shape; through the namespace and NumPy's ufuncs alike (one kernel
    # for both).
    for index in (1, 2, 3, 4, 5, 9, 11):
        (x, dx), (y, dy) = make(index), make(index, seed=1)
        fx, fy = np_fill(x).astype(dx.dtype), np_fill(y).astype(dy.dtype)
        for name in ("copysign", "hypot", "nextafter"):
            ufunc = getattr(np, name)
            for result in (getattr(siskin, name)(x, y), ufunc(x, y)):
                check(result, ufunc(dx, dy), ufunc(fx, fy))
        for result in (siskin.signbit(x), np.signbit(x)):
            check(result, np.signbit(dx), np.signbit(fx))
    # The signs NumPy keeps: -0.0 and a negative NaN's sign bit, a -0.0 fill.
    z = siskin.asarray(np.array([0.0, -0.0, 2.0, -np.nan]))
    assert list(np.asarray(siskin.signbit(z))) == [False, True, False, True]
    neg = siskin.asarray(np.array([-1.0, 3.0, -0.0]), format="sparselist(0)", fill_value=-0.0)
    got = siskin.copysign(np.array([2.0, 2.0, 2.0]), neg).compute()
    assert list(np.asarray(got)) == [-2.0, 2.0, -2.0] and np.signbit(np.asarray(got)[2])
    # nextafter steps one ulp in the operands' own float type.
    one = siskin.asarray(np.ones(2, dtype=np.float32))
    check(siskin.nextafter(one, siskin.asarray(np.full(2, 2.0, dtype=np.float32))),
          np.nextafter(np.ones(2, dtype=np.float32), np.float32(2.0)))


def test_numpy_classification_ufuncs_dispatch_to_siskin():
    # np.isnan, np.isinf and np.isfinite on a siskin tensor run siskin's kernels (they used to
    # fall back to NumPy on a densified copy); fills 0, 1, NaN and inf, NaN and inf stored, ints.
    for index in (1, 2, 3, 4, 5, 9, 11):
        x, d = make(index)
        f = np_fill(x).astype(d.dtype)
        for name in ("isnan", "isinf", "isfinite"):
            ufunc = getattr(np, name)
            check(ufunc(x), ufunc(d), ufunc(f))
            check(ufunc(siskin.lazy(x) + 0), ufunc(d + 0), ufunc(f + 0))


def test_repeat_take_along_axis_searchsorted_match_numpy():
    # At once on the stored entries (no kernel of their own): every input of test_array_api
    # (formats, fills 0, 1, NaN and inf, dtypes, size-1 and empty shapes).
    rng = np.random.default_rng(3)
    for index in range(len(INPUTS)):
        x, d = make(index)
        check(siskin.repeat(x, 2), np.repeat(d, 2))
        for axis in range(d.ndim):
            n = d.shape[axis]
            counts = np.arange(n) % 3
            check(siskin.repeat(x, counts, axis=axis), np.repeat(d, counts, axis=axis))
            shape = list(d.shape)
            shape[axis] = 3 if n else 0
            idx = rng.integers(-n, n, size=shape) if n else np.zeros(shape, dtype=np.int64)
            check(siskin.take_along_axis(x, idx, axis=axis), np.take_along_axis(d, idx, axis=axis))
    v = np.array([-np.inf, -1.0, 0.0, 0.0, 2.0, np.nan])
    sv = siskin.asarray(v, format="sparselist(0)")
    probe = np.array([[0.0, 2.0], [np.nan, -5.0]])
    for side in ("left", "right"):
        check(siskin.searchsorted(sv, probe, side=side), np.searchsorted(v, probe, side=side).astype(np.int64))
    order = np.array([2, 0, 1])
    check(siskin.searchsorted(np.array([3, 1, 2]), np.array([2]), sorter=order),
          np.searchsorted(np.array([3, 1, 2]), np.array([2]), sorter=order).astype(np.int64))
    # Counts and positions given as siskin tensors (converted through __array__).
    check(siskin.repeat(siskin.asarray(np.array([1.0, 2.0, 3.0])), siskin.asarray(np.array([2, 0, 1]))),
          np.repeat(np.array([1.0, 2.0, 3.0]), [2, 0, 1]))
    check(siskin.searchsorted(np.array([3, 1, 2]), np.array([2]), sorter=siskin.asarray(order)),
          np.searchsorted(np.array([3, 1, 2]), np.array([2]), sorter=order).astype(np.int64))
    x, d = make(1)
    with pytest.raises(siskin.SiskinError, match="out of bounds"):
        siskin.take_along_axis(x, np.full((1, 5), 9), axis=0)
    with pytest.raises(siskin.SiskinError, match="negative"):
        siskin.repeat(x, -1)
    with pytest.raises(siskin.SiskinError, match="one dimension"):
        siskin.searchsorted(x, np.ones(2))
