"""Every misuse raises siskin.SiskinError (a ValueError) with siskin's message, never a crash."""

import numpy as np
import pytest
import scipy.sparse as sp

import siskin


def test_siskin_error_is_a_value_error_with_a_location():
    with pytest.raises(ValueError) as caught:
        siskin.run("y[i] += A[i,j] *", A=np.eye(2))
    e = caught.value
    assert isinstance(e, siskin.SiskinError)
    assert e.kind == "user" and e.line == 1 and e.column is not None


@pytest.mark.parametrize("call, message", [
    (lambda: siskin.run("y[i] += A[i,j] * x[j]", A=np.eye(3), x=np.ones(4)), "dimension"),
    (lambda: siskin.run("y[i] += A[i,j] * x[j]", A=np.eye(3)), "missing"),
    (lambda: siskin.run("y[i] = x[i]", x=np.ones(2), z=np.ones(2)), "does not read"),
    (lambda: siskin.run("y[i] = x[i]", x=np.ones(2), formats={"q": "csr"}), "does not use"),
    (lambda: siskin.run("y[i] = x[i]", x=np.ones(2), dtypes={"x": "int8"}), "not an output"),
    (lambda: siskin.run("y[i] = x[i]", x=np.ones(2), formats={"y": "zigzag"}), "zigzag"),
    (lambda: siskin.run("y[i] = x[i]", x=np.ones(2, dtype=np.complex128)), "complex128"),
    (lambda: siskin.asarray(np.eye(2), format="csr(9)"), "csr"),
    (lambda: siskin.asarray(np.eye(2, dtype=np.int64), fill_value=2.5), "2.5"),
    (lambda: siskin.asarray(np.ones(3), fill_value="x"), "number"),
    (lambda: siskin.asarray(siskin.asarray(np.eye(2)), fill_value=1.0), "fill_value"),
    (lambda: siskin.asarray(np.ones((2, 2, 2))).to_scipy(), "two dimensions"),
    (lambda: siskin.asarray(np.eye(2)).to_scipy("bsr"), "bsr"),
    (lambda: siskin.c("y[i] = x[i]", formats={"x": "csr"}), "csr"),
    (lambda: siskin.function("def f(a: int64) -> int64 { return b }"), "b"),
    (lambda: siskin.function("not a def"), "def"),
    (lambda: siskin.run("y[i] = nosuchfunction(x[i])", x=np.ones(2)), "nosuchfunction"),
])
def test_misuse_raises_with_siskin_message(call, message):
    with pytest.raises(siskin.SiskinError, match=message):
        call()


def test_broken_scipy_indices_are_refused():
    m = sp.csr_matrix((np.ones(2), np.array([0, 5]), np.array([0, 1, 2])), shape=(2, 3), copy=False)
    with pytest.raises(siskin.SiskinError, match="outside dimension"):
        siskin.asarray(m)
    bad_pos = sp.csr_matrix((2, 3))
    bad_pos.indptr = np.array([0, 2, 1], dtype=np.int32)
    bad_pos.indices = np.array([0, 1], dtype=np.int32)
    bad_pos.data = np.ones(2)
    with pytest.raises(siskin.SiskinError):
        siskin.asarray(bad_pos)


def test_a_kernel_called_with_other_inputs_reports_them():
    k = siskin.compile("y[i] = x[i] + z[i]")
    with pytest.raises(siskin.SiskinError, match="missing"):
        k(x=np.ones(2))
    with pytest.raises(siskin.SiskinError, match="dimension"):
        k(x=np.ones(2), z=np.ones(3))
    with pytest.raises(siskin.SiskinError, match="c_source|called"):
        siskin.compile("y[i] = x[i]").c_source


def test_a_kernel_call_reports_misuse_as_the_dispatcher_would():
    # Kernel's call is native (no pybind11 dispatch): its errors are still Python's, siskin's
    # with their kind, and a conversion's names the input.
    k = siskin.compile("y[i] = x[i] + z[i]")
    with pytest.raises(TypeError, match="by name"):
        k(np.ones(2), np.ones(2))
    with pytest.raises(siskin.SiskinError, match="does not read a tensor 'w'") as e:
        k(x=np.ones(2), z=np.ones(2), w=np.ones(2))
    assert e.value.kind == "user"
    with pytest.raises(siskin.SiskinError, match="missing"):
        k()
    with pytest.raises(siskin.SiskinError, match="input x: .*no type for dtype"):
        k(x=np.array(["a", "b"]), z=np.ones(2))
    with pytest.raises(siskin.SiskinError, match="fill"):  # a siskin tensor against fills=
        siskin.compile("y[i] = x[i]", fills={"x": 1.0})(x=siskin.asarray(np.ones(2)))

    class Partial(siskin.Kernel):
        def __init__(self):
            pass

    with pytest.raises(TypeError, match="__init__"):
        Partial()


@pytest.mark.parametrize("dtype", ["complex64", "complex128", "float16"])
def test_dtypes_siskin_lacks_are_named(dtype, tmp_path):
    # siskin's types are bool, the integers, float32 and float64 (docs/python-api.md): every
    # way in with another dtype says which one, never converts silently.
    import sparse

    values = np.ones((2, 2), dtype=dtype)
    np.save(tmp_path / "x.npy", values)
    t = siskin.asarray(np.ones((2, 2)))
    scipy_values = sp.csr_array(values)  # SciPy itself makes float16 float32
    for call in (lambda: siskin.asarray(values),
                 lambda: siskin.asarray(scipy_values) if scipy_values.dtype == dtype else siskin.asarray(values),
                 lambda: siskin.asarray(sparse.COO.from_numpy(values)), lambda: siskin.lazy(values),
                 lambda: siskin.add(t, values), lambda: siskin.run("y[i,j] = x[i,j]", x=values),
                 lambda: siskin.zeros(2, dtype=dtype), lambda: siskin.astype(t, dtype),
                 lambda: siskin.sum(t, dtype=dtype), lambda: siskin.from_dlpack(values),
                 lambda: siskin.read(str(tmp_path / "x.npy"))):
        with pytest.raises(siskin.SiskinError, match=dtype):
            call()
