"""The Array API namespace (siskin._array_api) against NumPy on the densified inputs: dtype, shape,
values and fill, over formats, fills (0, 1, NaN, inf), dtypes, empty and size-1 shapes.

Compiling a kernel is what costs: each function runs on one or two of the inputs below (rotating
through them), so every input meets many functions without a kernel per pair."""

import math
import warnings

import numpy as np
import pytest

import siskin
from conftest import assert_same, random_dense

# (format, fill, dtype, shape): every format family, fill and dtype the package supports.
INPUTS = [
    ("dense", 0, "float64", (4, 5)),
    ("csr", 0, "float64", (4, 5)),
    ("csc", 1.0, "float64", (4, 5)),
    ("coo(0,1)", np.nan, "float64", (4, 5)),
    ("csr", np.inf, "float64", (3, 4)),
    ("csr", 0, "int64", (4, 5)),
    ("dense", 1, "int64", (3, 4)),
    ("csr", False, "bool", (4, 5)),
    ("dense", 0, "float32", (2, 3)),
    ("csr", 0, "int32", (1, 1)),
    ("dense", 0, "float64", (0, 3)),
    ("csc", 0, "float64", (3, 0)),
]


def make(index, seed=0, specials=True):
    """INPUTS[index] as (siskin tensor, the same values as NumPy)."""
    format, fill, dtype, shape = INPUTS[index % len(INPUTS)]
    rng = np.random.default_rng(100 + index + 17 * seed)
    dense = random_dense(rng, shape, density=0.5, dtype=dtype, fill=fill, specials=specials)
    return siskin.asarray(dense, format=format, fill_value=fill), dense


def same_fill(got, want):
    got, want = np.asarray(got).item(), np.asarray(want).item()
    assert got == want or (got != got and want != want), (got, want)


def check(result, want, fill_want=None, rtol=1e-12):
    """A siskin result against NumPy's: dtype, shape, values, and the fill when given."""
    assert isinstance(result, (siskin.Array, siskin.Tensor)), type(result)
    want = np.asarray(want)
    assert result.dtype == want.dtype, (result.dtype, want.dtype)
    assert result.shape == want.shape, (result.shape, want.shape)
    assert_same(np.asarray(result), want, rtol=rtol)
    if fill_want is not None:
        same_fill(result.fill_value, np.asarray(fill_want).astype(want.dtype))


def np_fill(x):
    return np.asarray(x.fill_value)


UNARY = ["abs", "exp", "log", "sqrt", "isnan", "isinf", "isfinite", "negative", "positive",
         "square", "logical_not", "bitwise_invert"]
BINARY = ["add", "subtract", "multiply", "divide", "floor_divide", "remainder", "pow", "maximum",
          "minimum", "equal", "not_equal", "less", "less_equal", "greater", "greater_equal",
          "logical_and", "logical_or", "logical_xor", "bitwise_and", "bitwise_or", "bitwise_xor",
          "bitwise_left_shift", "bitwise_right_shift"]
NUMPY_NAME = {"pow": "power", "bitwise_invert": "invert", "bitwise_left_shift": "left_shift",
              "bitwise_right_shift": "right_shift"}


def takes(name, dtype):
    """Whether the standard (and NumPy) define `name` for dtype."""
    kind = np.dtype(dtype).kind
    if name.startswith("bitwise"):
        return kind in "biu" and not (name.endswith("shift") and kind == "b")
    if name in ("negative", "subtract", "floor_divide", "remainder", "pow"):
        return kind != "b"
    if name in ("exp", "log", "sqrt", "square", "divide"):
        return kind != "b"  # NumPy gives float16 for bool; siskin has none
    return True


def numpy_of(name, *args):
    if name == "positive":
        return np.positive(*args)
    if name == "square":
        return np.multiply(args[0], args[0])
    return getattr(np, NUMPY_NAME.get(name, name))(*args)


@pytest.mark.parametrize("name", UNARY)
def test_unary_elementwise_matches_numpy(name):
    checked = 0
    for k in range(len(INPUTS)):
        index = (k + UNARY.index(name)) % len(INPUTS)
        x, d = make(index)
        if not takes(name, d.dtype):
            continue
        with np.errstate(all="ignore"):
            want = numpy_of(name, d)
            fill = numpy_of(name, np_fill(x).astype(d.dtype))
        check(getattr(siskin, name)(x), want, fill)
        checked += 1
        if checked == 2:
            break
    assert checked == 2


@pytest.mark.parametrize("name", BINARY)
def test_binary_elementwise_matches_numpy(name):
    checked = 0
    for k in range(len(INPUTS)):
        index = (k + 2 * BINARY.index(name)) % len(INPUTS)
        x, dx = make(index)
        y, dy = make(index, seed=1)
        if not takes(name, dx.dtype):
            continue
        if name == "pow" and dx.dtype.kind in "iu":
            y, dy = siskin.asarray(dy % 3), dy % 3  # NumPy refuses negative integer powers
        if name.endswith("shift"):
            y, dy = siskin.asarray(dy % 5), dy % 5
        with np.errstate(all="ignore"):
            want = numpy_of(name, dx, dy)
            fill = numpy_of(name, np_fill(x).astype(dx.dtype), np_fill(y).astype(dy.dtype))
        check(getattr(siskin, name)(x, y), want, fill)
        checked += 1
        if checked == 1:
            break
    assert checked == 1


def test_operators_on_tensors_broadcast_and_build_arrays():
    x, d = make(1, specials=False)
    v = np.arange(5.0)
    y = x * v + 1
    assert isinstance(y, siskin.Array)
    check(y, d * v + 1)
    check(2 ** siskin.lazy(siskin.asarray(np.arange(4))), 2 ** np.arange(4))
    check(x[1:, ::2], d[1:, ::2])
    check(x.T, d.T)
    check(x.mT, d.T)
    check(+x, d)
    i = siskin.asarray(np.array(3))
    assert [0, 1, 2, 3][i] == 3 and int(i) == 3 and float(siskin.sum(x)) == pytest.approx(d.sum())
    assert bool(siskin.all(x == x) | True) is True


REDUCTION_CASES = [
    # (reduction, input index, axis, keepdims, dtype)
    ("sum", 0, None, False, None), ("sum", 1, 1, True, None), ("sum", 5, 0, False, "int8"),
    ("sum", 2, (0, 1), False, "float32"), ("sum", 7, 1, False, None), ("sum", 10, 0, False, None),
    ("prod", 2, 0, False, None), ("prod", 6, None, True, "float64"), ("prod", 9, None, False, None),
    ("max", 1, 1, False, None), ("max", 4, 0, True, None), ("max", 5, None, False, None),
    ("min", 3, 0, False, None), ("min", 8, 1, False, None), ("min", 7, None, False, None),
    ("mean", 1, 0, False, None), ("mean", 6, 1, True, None), ("mean", 8, None, False, "float64"),
    ("all", 7, 0, False, None), ("all", 3, None, True, None), ("any", 2, 1, False, None),
    ("any", 11, 1, False, None), ("all", 10, 1, False, None),
]


@pytest.mark.parametrize("name,index,axis,keepdims,dtype", REDUCTION_CASES)
def test_reductions_match_numpy(name, index, axis, keepdims, dtype):
    x, d = make(index, specials=name not in ("mean",))
    kwargs = {"axis": axis, "keepdims": keepdims}
    if dtype is not None:
        kwargs["dtype"] = getattr(siskin, dtype)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        want = getattr(np, name)(d, **{**kwargs, **({"dtype": np.dtype(dtype)} if dtype else {})})
    if name in ("sum", "prod") and dtype is None and d.dtype.kind in "bi":
        want = want.astype(np.int64)  # the standard's default integer
    got = getattr(siskin, name)(x, **kwargs)
    check(got, want, rtol=1e-5 if "float32" in (str(d.dtype), dtype) else 1e-10)
    # The method spelling is the same reduction (the same kernel).
    check(getattr(siskin.lazy(x), name)(**kwargs), want, rtol=1e-5 if "float32" in (str(d.dtype), dtype) else 1e-10)


def test_statistics_arg_reductions_and_vecdot_match_numpy():
    x, d = make(2, specials=False)  # csc, fill 1
    check(siskin.var(x, axis=0), np.var(d, axis=0), rtol=1e-10)
    check(siskin.std(x, correction=1, keepdims=True), np.std(d, ddof=1, keepdims=True), rtol=1e-10)
    check(siskin.argmax(x, axis=1), np.argmax(d, axis=1))
    check(siskin.argmin(x), np.argmin(d))
    y, e = make(5)  # int64
    check(siskin.vecdot(y, y), np.sum(e * e, axis=-1))
    check(siskin.vecdot(x, np.ones(5), axis=1), d @ np.ones(5), rtol=1e-10)
    assert siskin.newaxis is None and siskin.inf == np.inf and siskin.pi == np.pi


def test_reductions_refuse_what_numpy_refuses():
    x, _ = make(10)  # shape (0, 3)
    with pytest.raises(siskin.SiskinError, match="zero-size reduction"):
        siskin.max(x, axis=0)
    y, _ = make(1)
    with pytest.raises(siskin.SiskinError, match="axis 2"):
        siskin.sum(y, axis=2)
    with pytest.raises(siskin.SiskinError, match="takes no argument 'dtype'"):
        siskin.max(y, dtype=siskin.float64)


ASTYPE_TARGETS = ["bool", "int8", "int32", "int64", "uint8", "uint64", "float32", "float64"]


@pytest.mark.parametrize("target", ASTYPE_TARGETS)
def test_astype_matches_numpy(target):
    # Finite, in-range values (NumPy leaves NaN and out-of-range float->int undefined);
    # negative ones only where the target is signed.
    index = ASTYPE_TARGETS.index(target) % 9
    x, d = make(index, specials=False)
    if d.dtype.kind == "f":
        d = d * 40.0
        if np.dtype(target).kind == "u":
            d = np.abs(d)
        d = np.where(np.isfinite(d), d, 0)
        x = siskin.asarray(d, format=x.format, fill_value=0)
    check(siskin.astype(x, getattr(siskin, target)), d.astype(target), np.asarray(x.fill_value).astype(target))
    assert siskin.lazy(x).astype(target).dtype == np.dtype(target)


def test_astype_wraps_integers_as_numpy_does():
    d = np.array([[-129, 255, 70000, -1]], dtype=np.int64)
    x = siskin.asarray(d, format="csr")
    for target in ("int8", "uint8", "int16", "uint32"):
        check(siskin.astype(x, target), d.astype(target))


def test_creation_functions_match_numpy():
    for dtype in (None, "int64", "bool", "float32"):
        kw = {} if dtype is None else {"dtype": getattr(siskin, dtype)}
        npkw = {} if dtype is None else {"dtype": np.dtype(dtype)}
        check(siskin.zeros((2, 3), **kw), np.zeros((2, 3), **npkw))
        check(siskin.ones(4, **kw), np.ones(4, **npkw))
        check(siskin.empty((0, 2), **kw), np.empty((0, 2), **npkw))
    check(siskin.full((2, 2), 7), np.full((2, 2), 7))
    check(siskin.full((2,), True), np.full((2,), True))
    check(siskin.full((), 2.5), np.full((), 2.5))
    check(siskin.eye(3), np.eye(3))
    check(siskin.eye(3, 5, k=2, dtype=siskin.int64), np.eye(3, 5, k=2, dtype=np.int64))
    check(siskin.eye(4, 2, k=-1, format="csr"), np.eye(4, 2, k=-1))
    check(siskin.eye(2, 3, k=5, format="csc"), np.eye(2, 3, k=5))
    check(siskin.arange(5), np.arange(5))
    check(siskin.arange(1, 2, 0.25), np.arange(1, 2, 0.25))
    check(siskin.arange(10, 0, -3, dtype=siskin.int32), np.arange(10, 0, -3, dtype=np.int32))
    check(siskin.linspace(0, 1, 5), np.linspace(0, 1, 5))
    check(siskin.linspace(0, 1, 4, endpoint=False, dtype=siskin.float32),
          np.linspace(0, 1, 4, endpoint=False, dtype=np.float32))
    check(siskin.asarray([[1, 2], [3, 4]], dtype=siskin.float32), np.array([[1, 2], [3, 4]], np.float32))


@pytest.mark.parametrize("format", ["csr", "csc", "coo(0,1)", "dcsr"])
def test_sparse_creation_stores_nothing(format):
    z = siskin.zeros((300, 400), format=format)
    f = siskin.full((300, 400), np.inf, format=format)
    assert z.nnz == 0 and f.nnz == 0 and z.format == f.format
    assert math.isinf(f.fill_value) and f.fill_value.dtype == np.float64
    check(z, np.zeros((300, 400)), 0)
    assert_same(np.asarray(f)[::97, ::131], np.full((300, 400), np.inf)[::97, ::131])
    s = siskin.asarray(np.eye(3), format=format)
    for like, want in ((siskin.zeros_like(s), 0.0), (siskin.ones_like(s), 1.0),
                       (siskin.full_like(s, np.nan), np.nan), (siskin.empty_like(s), 0.0)):
        assert like.nnz == 0 and like.format == s.format
        check(like, np.full((3, 3), want), want)
    check(siskin.zeros_like(s, dtype=siskin.int32), np.zeros((3, 3), np.int32), 0)
    e = siskin.eye(50, format=format)
    assert e.nnz <= 2 * 50 + 1 and e.format.startswith(s.format.split("@")[0][:5])


def test_like_functions_of_dense_and_lazy_arrays():
    d = np.arange(6.0).reshape(2, 3)
    check(siskin.full_like(siskin.asarray(d), 3, dtype=siskin.int64), np.full_like(d, 3, dtype=np.int64))
    check(siskin.ones_like(siskin.lazy(d) > 2), np.ones_like(d > 2))


def test_asarray_copy_and_lazy_inputs():
    d = np.arange(4.0)
    shared = siskin.asarray(d, copy=False)
    copied = siskin.asarray(d, copy=True)
    d[0] = 10
    assert np.asarray(shared)[0] == 10 and np.asarray(copied)[0] == 0
    with pytest.raises(siskin.SiskinError, match="copy=False"):
        siskin.asarray(np.arange(4, dtype=np.int16)[::2], copy=False)
    t = siskin.asarray(siskin.lazy(d) * 2)
    assert isinstance(t, siskin.Tensor)
    check(t, d * 2)
    check(siskin.asarray(siskin.asarray(d), dtype=siskin.int64), d.astype(np.int64))


def test_asarray_copy_takes_scipy_memory_into_siskins_own():
    import scipy.sparse as sp
    a = sp.random(6, 5, density=0.4, format="csr", random_state=np.random.default_rng(3))
    b = sp.random(6, 5, density=0.4, format="csr", random_state=np.random.default_rng(4))
    want = a.toarray() * b.toarray()
    borrowed, copied = siskin.asarray(a), siskin.asarray(a, copy=True)
    tensor_copy = siskin.asarray(borrowed, copy=True)
    for t in (copied, tensor_copy):
        assert t.format == borrowed.format and t.nnz == a.nnz
        buffers = [b for level in t._native.levels() for b in level.values()]
        for buffer in buffers + [t._native.values(writable=False)]:
            for mine in (a.data, a.indices, a.indptr):
                assert not np.may_share_memory(buffer, mine)
    mul = siskin.compile("C[i,j] = A[i,j] * B[i,j]", formats={"C": "csr"})
    check(mul(A=copied, B=b)["C"], want)
    a.data[:] = np.inf  # seen by the borrowed tensor only
    check(mul(A=copied, B=b)["C"], want)
    check(mul(A=tensor_copy, B=b)["C"], want)
    changed = a.toarray() * b.toarray()  # inf * 0 is NaN where b stores nothing
    check(mul(A=borrowed, B=b)["C"], changed)
    # A copy holding inf: scanned once, found not finite, so its inf * 0 stays NaN.
    check(mul(A=siskin.asarray(a, copy=True), B=b)["C"], changed)


def test_dtypes_promotion_and_info_match_numpy():
    names = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
             "float32", "float64"]
    for a in names:
        assert getattr(siskin, a) == np.dtype(a)
        for b in names:
            assert siskin.result_type(getattr(siskin, a), getattr(siskin, b)) == np.promote_types(a, b)
            assert siskin.can_cast(getattr(siskin, a), getattr(siskin, b)) == np.can_cast(a, b)
    x = siskin.zeros(3, dtype=siskin.int8)
    assert siskin.result_type(x, siskin.uint8, siskin.float32) == np.float32
    assert siskin.can_cast(x, siskin.int16) and not siskin.can_cast(x, siskin.uint8)
    assert siskin.finfo(siskin.float32).eps == np.finfo(np.float32).eps
    assert siskin.finfo(x.astype(siskin.float64)).max == np.finfo(np.float64).max
    assert siskin.iinfo(siskin.uint16).max == 65535 and siskin.iinfo(x).min == -128
    assert siskin.isdtype(siskin.int32, "integral") and not siskin.isdtype(siskin.float32, "integral")
    assert siskin.isdtype(siskin.uint8, ("bool", "unsigned integer"))
    assert siskin.__array_api_version__ == "2022.12"


def test_namespace_and_array_attributes():
    x, d = make(1)
    for a in (x, siskin.lazy(x)):
        assert a.__array_namespace__() is siskin
        assert a.__array_namespace__(api_version="2022.12") is siskin
        assert a.device == "cpu" and a.to_device("cpu") is a
        assert a.size == d.size and a.ndim == 2
    assert siskin.lazy(x).size == 20


@pytest.mark.parametrize("index", [1, 2, 7])
def test_shape_functions_match_numpy(index):
    x, d = make(index)
    check(siskin.permute_dims(x, (1, 0)), np.transpose(d))
    check(siskin.matrix_transpose(x), np.swapaxes(d, -1, -2))
    check(siskin.expand_dims(x, axis=1), np.expand_dims(d, 1))
    check(siskin.squeeze(siskin.expand_dims(x, axis=0), axis=0), d)
    check(siskin.reshape(x, (d.size,)), d.reshape(-1))
    check(siskin.concat([x, x], axis=1), np.concatenate([d, d], axis=1))
    check(siskin.stack([x, x], axis=0), np.stack([d, d]))
    check(siskin.broadcast_to(x[0], (3, d.shape[1])), np.broadcast_to(d[0], (3, d.shape[1])))
    # flip reads backwards (docs/arrays.md)
    check(siskin.flip(x, axis=(0, 1)), np.flip(d, axis=(0, 1)))
    check(siskin.flip(x, axis=-1), np.flip(d, axis=-1))
    check(siskin.flip(x), np.flip(d))
    a, b = siskin.broadcast_arrays(x, x[:1])
    na, nb = np.broadcast_arrays(d, d[:1])
    check(a, na)
    check(b, nb)


def test_misuse_raises_siskin_errors():
    x, _ = make(1)
    cases = [
        (lambda: siskin.zeros(3, dtype=np.complex128), "no dtype complex128"),
        (lambda: siskin.astype(x, "float16"), "no dtype float16"),
        (lambda: siskin.finfo(siskin.int64), "finfo takes a float dtype"),
        (lambda: siskin.iinfo(siskin.float32), "iinfo takes an integer dtype"),
        (lambda: siskin.matrix_transpose(siskin.zeros(3)), "at least two dimensions"),
        (lambda: bool(x), "one-element array"),
        (lambda: x.to_device("cuda"), "CPU"),
        (lambda: x.__array_namespace__(api_version="2050.01"), "2022.12"),
        (lambda: siskin.broadcast_arrays(x, siskin.zeros(3)), "do not broadcast"),
        (lambda: siskin.reshape(x, (7,)), "reshape"),
        (lambda: siskin.squeeze(x, axis=0), "squeeze"),
        (lambda: siskin.concat([x, siskin.zeros((2, 2))], axis=0), "concat"),
        (lambda: siskin.bitwise_and(x, x), "bitwise_and"),
        (lambda: siskin.result_type(), "at least one"),
        (lambda: siskin.isdtype(siskin.int8, "complex floating"), "no kind"),
        (lambda: siskin.zeros((2, 2), format="zigzag"), "zigzag"),
        (lambda: [0][siskin.asarray(np.array(1.5))], "integer array"),
    ]
    for call, message in cases:
        with pytest.raises(siskin.SiskinError, match=message):
            call()


MATH_UNARY = ["sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh",
              "acosh", "atanh", "expm1", "log1p", "log2", "log10", "floor", "ceil", "trunc",
              "round"]
MATH_NUMPY_NAME = {"asin": "arcsin", "acos": "arccos", "atan": "arctan", "asinh": "arcsinh",
                   "acosh": "arccosh", "atanh": "arctanh", "round": "rint", "atan2": "arctan2"}


def close(got, want):
    """NumPy's float32 and float64 loops are its own SIMD code, a few ulp from the C library's."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, want.dtype)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-12, equal_nan=True)


@pytest.mark.parametrize("name", MATH_UNARY)
def test_math_elementwise_matches_numpy(name):
    # float64 under fills 0, 1 and inf (NaN and inf stored too), int64 (computed in float64)
    # and float32; the fill is the function of the fill, so sin keeps a sparse input sparse.
    ufunc = getattr(np, MATH_NUMPY_NAME.get(name, name))
    for index in (1, 2, 4, 5, 8):
        x, d = make(index)
        with np.errstate(all="ignore"):
            want, fill = ufunc(d), ufunc(np_fill(x).astype(d.dtype))
        for result in (getattr(siskin, name)(x), ufunc(x)):  # the namespace and NumPy's dispatch
            assert isinstance(result, (siskin.Array, siskin.Tensor)), type(result)
            close(np.asarray(result), want)
            close(result.fill_value, fill)
    assert siskin.sin(make(1)[0]).compute().nnz <= make(1)[0].nnz


def test_atan2_matches_numpy():
    for index in (1, 4, 8):
        (y, dy), (x, dx) = make(index), make(index, seed=1)
        with np.errstate(all="ignore"):
            want = np.arctan2(dy, dx)
        close(np.asarray(siskin.atan2(y, x)), want)
        close(np.asarray(np.arctan2(y, x)), want)
