"""Programs and user functions: siskin.run, siskin.compile, siskin.c and siskin.function."""

import inspect
import textwrap
from collections import OrderedDict

import numpy as np

from . import _siskin
from ._tensor import SiskinError, Tensor, _fill_for, _same_value, asarray


def _fills(fills):
    return {name: _fill_for(v, None) for name, v in (fills or {}).items()}


def _dtypes(dtypes):
    return {name: np.dtype(d).name for name, d in (dtypes or {}).items()}


class Kernel(_siskin.Kernel):
    """A program compiled for the formats, dtypes and fills of its inputs: call it with inputs
    by name; it returns a dict of its outputs. The C is compiled once per kind of input (kept
    per Kernel and in the disk cache), so later calls with inputs like earlier ones only run
    the kernel, without the GIL. Each kind of input runs the planner's cheapest plan for the
    inputs of the first call of that kind (`siskin explain`'s plan 0: a product with a csc
    matrix reads it by columns), or with as_written=True the program as it is.

    The call itself is the native one (src/program_binding.cpp): siskin tensors go straight to
    the kernel, anything else through asarray with the format and fill the options give."""

    __slots__ = ()

    def __init__(self, program, formats=None, fills=None, dtypes=None, shapes=None, as_written=False):
        shapes = {name: list(s) for name, s in (shapes or {}).items()}
        super().__init__(program, dict(formats or {}), _fills(fills), _dtypes(dtypes), shapes,
                         bool(as_written), Tensor, _input)

    def __repr__(self):
        return f"siskin.Kernel(inputs={self.inputs}, outputs={self.outputs})"


def _input(name, x, format, fill):
    if isinstance(x, Tensor) and fill is not None and not _same_value(fill, x._native.fill):
        raise SiskinError(f"input {name} has fill {x._native.fill!r}, but the program (or fills=) "
                          f"asks for {fill!r}")
    try:
        return asarray(x, format=format, fill_value=None if isinstance(x, Tensor) else fill)
    except SiskinError as e:
        raise SiskinError(f"input {name}: {e}") from None


_kernels = OrderedDict()  # run()'s kernels by program and options, most recent last
_KERNELS_KEPT = 64


def compile(program, formats=None, fills=None, dtypes=None, shapes=None, as_written=False):
    """A reusable Kernel for the program text. formats, fills: by tensor name, for inputs (a
    NumPy or SciPy input is taken in that format and with that fill; for a scipy matrix the fill
    is the value of its unstored entries) and outputs (default: dense, the fill the program
    gives); dtypes and shapes: for outputs. as_written: run the program as it is rather than
    the planner's cheapest plan."""
    return Kernel(program, formats, fills, dtypes, shapes, as_written)


def run(program, /, formats=None, fills=None, dtypes=None, shapes=None, as_written=False, **tensors):
    """Runs the program text on the tensors given by name and returns its outputs as a dict:
    siskin.run('y[i] += A[i,j] * x[j]', A=A, x=x)['y']. The options are compile()'s; the kernel
    of a program and options already run is reused."""
    key = (program, _key(formats), _key(fills), _key(dtypes), _key(shapes), bool(as_written))
    try:
        kernel = _kernels[key]
        _kernels.move_to_end(key)
    except (KeyError, TypeError):  # TypeError: an option that cannot be a key; compile anew
        kernel = compile(program, formats, fills, dtypes, shapes, as_written)
        try:
            _kernels[key] = kernel
        except TypeError:
            pass
        if len(_kernels) > _KERNELS_KEPT:
            _kernels.popitem(last=False)
    return kernel(**tensors)


def _key(options):
    if not options:
        return ()
    return tuple(sorted((name, tuple(v) if isinstance(v, list) else v) for name, v in options.items()))


def c(program, formats=None, fills=None, dtypes=None, nonfinite=(), index_bits=32):
    """The C that siskin generates for the program with inputs of the given formats, dtypes
    and fills (dense float64 with fill 0 by default), as `siskin c` prints it. Inputs are taken
    to hold finite values unless named in nonfinite."""
    return _siskin.c(program, dict(formats or {}), _fills(fills), _dtypes(dtypes), list(nonfinite),
                     index_bits)


Function = _siskin.Function

_TYPE_NAMES = {bool: "bool", int: "int64", float: "float64"}


def kernel_counts():
    """What this process has done with kernels so far: {'compiled': kernels built by the C
    compiler, 'loaded_from_disk': kernels loaded from the disk cache, 'runs': kernel runs}.
    Differences between two calls show how many kernels a computation compiled and ran."""
    return dict(_siskin.kernel_counts())


def _type_name(annotation, where):
    if annotation is inspect.Parameter.empty or annotation is inspect.Signature.empty:
        raise SiskinError(f"{where} needs a type annotation (e.g. 'int64' or np.float64)")
    if isinstance(annotation, str):
        return annotation
    if annotation in _TYPE_NAMES:
        return _TYPE_NAMES[annotation]
    return np.dtype(annotation).name


def _definition(f):
    """The `def` text of a Python function whose docstring is the body in siskin's language."""
    body = inspect.getdoc(f)
    if not body:
        raise SiskinError(f"{f.__name__}: the docstring holds the body (in siskin's function "
                          f"language, e.g. 'return a + b'), but there is none")
    signature = inspect.signature(f)
    params = ", ".join(f"{p.name}: {_type_name(p.annotation, f'parameter {p.name} of {f.__name__}')}"
                       for p in signature.parameters.values())
    result = _type_name(signature.return_annotation, f"the result of {f.__name__}")
    return f"def {f.__name__}({params}) -> {result} {{\n{textwrap.indent(body, '    ')}\n}}\n"


def function(text=None, *, commutative=None, associative=None, idempotent=None, identity=None,
             annihilator=None, annihilator_finite_only=False, space=None, cases=(), step_limit=None,
             replace=False):
    """Defines a scalar function that programs can call, in siskin's function language
    (docs/syntax.md, "Functions"), with algebraic properties the compiler may rely on.

        gcd = siskin.function('''def gcd(a: int64, b: int64) -> int64 {
                                    while b != 0 { let t = b; b = a % b; a = t }
                                    return abs(a) }''', commutative=True, annihilator=1)

        @siskin.function(commutative=True, associative=True, identity=0)
        def wide_add(a: np.int64, b: np.int64) -> np.int64:
            "return a + b"

    identity and annihilator take a value, or (value, argument position); cases are special
    cases ("gcd(x, 0) = abs(x)"); space an iteration space ("(x | y) & !(x & y)"). Properties
    given here add to those the text declares. Defining a name again with another definition
    is an error unless replace=True. The result can be called on numbers and checked
    (check() returns the properties that fail on sample values)."""
    properties = dict(commutative=commutative, associative=associative, idempotent=idempotent,
                      identity=_fill_for(identity, None) if identity is not None else None,
                      annihilator=_fill_for(annihilator, None) if annihilator is not None else None,
                      annihilator_finite_only=annihilator_finite_only, space=space,
                      cases=list(cases), step_limit=step_limit, replace=replace)

    def define(source):
        if callable(source):
            source = _definition(source)
        return _siskin.Function(source, **properties)

    if text is None:
        return define
    return define(text)
