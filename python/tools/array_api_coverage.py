"""Which names of the Array API standard the siskin namespace has, by the revision that added
them (2022.12, the version siskin declares, then 2023.12 and 2024.12), found by looking them up
in the imported package: functions and constants in the module, the array object's attributes
on both siskin.Tensor and siskin.Array. A name that exists only to refuse (`__setitem__`:
siskin's arrays are immutable) counts as absent.

Usage: /usr/bin/python3 python/tools/array_api_coverage.py [--json]
Imports siskin from build/python when run from the repository (else from the installed
package). Prints Markdown tables (the closing note's coverage list), or JSON with --json.
"""

import json
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(here)), "build", "python"))

import siskin  # noqa: E402

# The standard's names by revision (what each revision added), by the standard's groups.
# "array." names are attributes of the array object.
STANDARD = {
    "2022.12": {
        "constants": "e inf nan newaxis pi",
        "creation": "arange asarray empty empty_like eye from_dlpack full full_like linspace meshgrid ones "
                    "ones_like tril triu zeros zeros_like",
        "data types": "bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 float32 float64 complex64 "
                      "complex128",
        "data type functions": "astype can_cast finfo iinfo isdtype result_type",
        "element-wise": "abs acos acosh add asin asinh atan atan2 atanh bitwise_and bitwise_left_shift "
                        "bitwise_invert bitwise_or bitwise_right_shift bitwise_xor ceil conj cos cosh divide "
                        "equal exp expm1 floor floor_divide greater greater_equal imag isfinite isinf isnan "
                        "less less_equal log log1p log2 log10 logaddexp logical_and logical_not logical_or "
                        "logical_xor multiply negative not_equal positive pow real remainder round sign sin "
                        "sinh square sqrt subtract tan tanh trunc",
        "indexing": "take",
        "linear algebra": "matmul matrix_transpose tensordot vecdot",
        "manipulation": "broadcast_arrays broadcast_to concat expand_dims flip permute_dims reshape roll "
                        "squeeze stack",
        "searching": "argmax argmin nonzero where",
        "sets": "unique_all unique_counts unique_inverse unique_values",
        "sorting": "argsort sort",
        "statistics": "max mean min prod std sum var",
        "utility": "all any",
        "extensions": "linalg fft",
        "array object": "array.__abs__ array.__add__ array.__and__ array.__array_namespace__ array.__bool__ "
                        "array.__complex__ array.__dlpack__ array.__dlpack_device__ array.__eq__ "
                        "array.__float__ array.__floordiv__ array.__ge__ array.__getitem__ array.__gt__ "
                        "array.__index__ array.__int__ array.__invert__ array.__le__ array.__lshift__ "
                        "array.__lt__ array.__matmul__ array.__mod__ array.__mul__ array.__ne__ array.__neg__ "
                        "array.__or__ array.__pos__ array.__pow__ array.__rshift__ array.__setitem__ "
                        "array.__sub__ array.__truediv__ array.__xor__ array.to_device array.dtype "
                        "array.device array.mT array.ndim array.shape array.size array.T",
    },
    "2023.12": {
        "inspection": "__array_namespace_info__",
        "element-wise": "clip copysign hypot maximum minimum signbit",
        "manipulation": "moveaxis repeat tile unstack",
        "searching": "searchsorted",
        "statistics": "cumulative_sum",
    },
    "2024.12": {
        "element-wise": "nextafter reciprocal",
        "indexing": "take_along_axis",
        "manipulation": "diff",
        "searching": "count_nonzero",
        "statistics": "cumulative_prod",
    },
}

# Names the namespace defines only to refuse them, with what it says instead.
REFUSING = {"array.__setitem__": "raises: arrays are immutable; where and concat build changed copies"}

# Why an absent name is absent, where that is known (docs/python-api.md, "Absent").
WHY_ABSENT = {
    "complex64": "siskin's value types are real",
    "complex128": "siskin's value types are real",
    "array.__complex__": "no complex dtypes",
    "linalg": "optional extension, not provided",
    "fft": "optional extension, not provided",
    "cumulative_sum": "a scan along an axis: no such operation in siskin's programs yet",
    "cumulative_prod": "a scan along an axis: no such operation in siskin's programs yet",
}


def _found(name):
    if name in REFUSING:
        return False
    if name.startswith("array."):
        return all(hasattr(cls, name[len("array."):]) for cls in (siskin.Tensor, siskin.Array))
    return hasattr(siskin, name)


def coverage():
    """{"present": {revision: [names]}, "absent": {revision: [names]}, "why": {...},
    "refusing": {...}}"""
    present, absent = {}, {}
    for revision, groups in STANDARD.items():
        for names in groups.values():
            for name in names.split():
                (present if _found(name) else absent).setdefault(revision, []).append(name)
    return {"present": present, "absent": absent, "why": {**WHY_ABSENT, **REFUSING}, "refusing": REFUSING}


def markdown(result):
    lines = [f"Array API coverage of siskin (declares {siskin.__array_api_version__}), by the revision "
             "that added each name (python/tools/array_api_coverage.py):", "",
             "| revision | group | present | absent |", "|---|---|---|---|"]
    for revision, groups in STANDARD.items():
        for group, names in groups.items():
            names = names.split()
            have = [n for n in names if _found(n)]
            lack = [n + (f" ({result['why'][n]})" if n in result["why"] else "") for n in names if not _found(n)]
            lines.append(f"| {revision} | {group} | {len(have)} of {len(names)} | {', '.join(lack) or '-'} |")
    total = sum(len(names.split()) for groups in STANDARD.values() for names in groups.values())
    have = sum(len(v) for v in result["present"].values())
    lines += ["", f"{have} of {total} names present."]
    return "\n".join(lines)


def main():
    result = coverage()
    print(json.dumps(result, indent=1) if "--json" in sys.argv[1:] else markdown(result))


if __name__ == "__main__":
    main()
