"""Operands of the sparse array programming workloads (issue 4 item 10), built lazily per input.

The paper's construction: the second operand is the first one with its last mode shifted by one
(coordinate (..., k+1 mod n)) and the constant value 2; fused ufuncs take a third operand shifted
by two. Every operand exists as coordinates (sorted, unique), then as a siskin tensor (CSR, or a
CSF with a dense root for the 3-tensor: dense(0)/sparselist(1)/sparselist(2), 32-bit indices), a
pydata/sparse COO and, for the masked products, a GraphBLAS matrix or vector. Results are
compared as `Entries`: shape, fill, and the entries that differ from the fill.
"""
import numpy as np
import scipy.sparse as sp
import sparse

import inputs as inputs_mod


class Coords:
    """A sparse array as sorted unique coordinates (ndim x nnz, int64), values and a fill."""

    def __init__(self, shape, coords, vals, fill=0):
        self.shape = tuple(int(s) for s in shape)
        order = np.lexsort(coords[::-1]) if coords.shape[1] else np.arange(0)
        self.coords = np.ascontiguousarray(coords[:, order], dtype=np.int64)
        self.vals = np.ascontiguousarray(np.asarray(vals)[order])
        self.fill = fill

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def nnz(self):
        return self.coords.shape[1]

    def with_values(self, vals, fill=None):
        return Coords(self.shape, self.coords, vals, self.fill if fill is None else fill)

    def shifted(self, k, value):
        """Last mode shifted by k (cyclically), every value `value` (the paper's operands)."""
        c = self.coords.copy()
        c[-1] = (c[-1] + k) % self.shape[-1]
        return Coords(self.shape, c, np.full(self.nnz, value, dtype=np.asarray(value).dtype), self.fill)

    @staticmethod
    def of_matrix(a):
        c = a.tocoo()
        return Coords(a.shape, np.vstack([c.row, c.col]).astype(np.int64), c.data, 0.0)


def levels_of(c):
    """The level buffers of c in dense(0)/sparselist(1)/.../sparselist(n-1) (CSR for a matrix)."""
    levels = [{}]  # the dense root stores nothing
    parents = c.shape[0]
    prev_id = c.coords[0]  # position of each entry's parent in the previous level
    for lv in range(1, c.ndim):
        new = np.ones(c.nnz, dtype=bool)
        if c.nnz:
            new[1:] = np.any(c.coords[:lv + 1, 1:] != c.coords[:lv + 1, :-1], axis=0)
        counts = np.bincount(prev_id[new], minlength=parents)
        pos = np.concatenate([[0], np.cumsum(counts)]).astype(np.int32)
        levels.append({"pos": pos, "crd": c.coords[lv][new].astype(np.int32)})
        prev_id = np.cumsum(new) - 1
        parents = int(new.sum())
    return levels


def csf_format(ndim, index_bits="@32"):
    return "/".join([f"dense(0){index_bits}"] + [f"sparselist({k}){index_bits}" for k in range(1, ndim)])


TYPE_NAMES = {np.dtype(bool): "bool", np.dtype(np.int64): "int64", np.dtype(np.float64): "float64"}


def siskin_tensor(native, c):
    return native.tensor(list(c.shape), csf_format(c.ndim), TYPE_NAMES[c.vals.dtype], c.fill, levels_of(c), c.vals)


def siskin_vector(native, n, idx, vals, fill):
    """A sparselist(0) vector."""
    idx = np.asarray(idx, dtype=np.int32)
    return native.tensor([n], "sparselist(0)@32", TYPE_NAMES[np.asarray(vals).dtype], fill,
                         [{"pos": np.array([0, len(idx)], dtype=np.int32), "crd": idx}], np.asarray(vals))


def siskin_bytemap_vector(native, c):
    """A sparsebytemap(0) vector: a byte per coordinate saying whether it is stored, the stored
    coordinates in order, and a value slot per coordinate (the fill where unused): the bitmap
    GraphBLAS holds a vector this dense in, so a lookup is one read."""
    n, idx = c.shape[0], c.coords[0]
    tbl = np.zeros(n, dtype=bool)
    tbl[idx] = True
    vals = np.full(n, c.fill, dtype=c.vals.dtype)
    vals[idx] = c.vals
    return native.tensor([n], "sparsebytemap(0)@32", TYPE_NAMES[c.vals.dtype], c.fill,
                         [{"pos": np.array([0, len(idx)], dtype=np.int32), "tbl": tbl, "srt": idx.astype(np.int32)}],
                         vals)


def pydata_coo(c):
    return sparse.COO(c.coords, c.vals, shape=c.shape, fill_value=c.vals.dtype.type(c.fill), has_duplicates=False,
                      sorted=True)


# ---- results as comparable entries --------------------------------------------------------------

def _fill_number(text):
    return {"true": 1.0, "false": 0.0}[text] if text in ("true", "false") else float(text)


class Entries:
    """A result as shape, fill and the entries whose value differs from the fill, in coordinate
    order: two results are equal when these are (values to rounding, NaN equal to NaN)."""

    def __init__(self, shape, fill, coords, vals):
        vals = np.asarray(vals, dtype=np.float64)
        fill = float(fill)
        keep = ~((vals == fill) | (np.isnan(vals) & np.isnan(fill)))
        c = Coords(shape, np.asarray(coords, dtype=np.int64).reshape(len(shape), -1)[:, keep], vals[keep], fill)
        self.shape, self.fill, self.coords, self.vals = c.shape, fill, c.coords, c.vals

    def compare(self, other, rtol):
        if self.shape != other.shape:
            return False, f"shape {self.shape} vs {other.shape}"
        if not (self.fill == other.fill or (np.isnan(self.fill) and np.isnan(other.fill))):
            return False, f"fill {self.fill!r} vs {other.fill!r}"
        if self.coords.shape != other.coords.shape or not np.array_equal(self.coords, other.coords):
            return False, f"{self.coords.shape[1]} vs {other.coords.shape[1]} entries differing from the fill " \
                          "(or at other coordinates)"
        a, b = self.vals, other.vals
        both_nan = np.isnan(a) & np.isnan(b)
        equal = (a == b) | both_nan
        finite = np.isfinite(a) & np.isfinite(b)
        scale = max(1.0, float(np.max(np.abs(a[np.isfinite(a)]))) if np.isfinite(a).any() else 1.0)
        close = equal | (finite & (np.abs(a - b) <= rtol * scale))
        if not close.all():
            k = int(np.argmin(close))
            return False, f"value at {tuple(self.coords[:, k])}: {a[k]!r} vs {b[k]!r}"
        return True, ""


def entries_of_dense(arr, fill):
    arr = np.asarray(arr)
    nz = np.nonzero(np.ones(arr.shape, dtype=bool))
    return Entries(arr.shape, fill, np.vstack(nz) if arr.ndim else np.zeros((0, 1)), arr.ravel())


def siskin_entries(outputs):
    """The only output of a siskin run (levels dense, sparselist and coo, any depth) as Entries."""
    (d,) = outputs.values()
    shape = tuple(d["shape"])
    fill = _fill_number(d["fill"])
    tokens = d["format"].split("/")[:len(d["levels"])]
    modes = [int(t.split("(")[1].split(")")[0].split(",")[0]) for t in tokens]
    nentries = 1  # positions of the level above (the root has one)
    coord_cols = {}
    parent = np.zeros(1, dtype=np.int64)
    for lv, (tok, mode) in zip(d["levels"], zip(tokens, modes)):
        if lv["kind"] == "dense":
            n = shape[mode]
            child_parent = np.repeat(np.arange(len(parent)), n)
            crd = np.tile(np.arange(n, dtype=np.int64), len(parent))
        elif lv["kind"] == "sparselist":
            pos = lv["pos"].astype(np.int64)
            counts = pos[1:] - pos[:-1]
            child_parent = np.repeat(np.arange(len(parent)), counts)
            crd = lv["crd"].astype(np.int64)
        elif lv["kind"] == "coo":  # several modes in one level: a coordinate array each
            pos = lv["pos"].astype(np.int64)
            child_parent = np.repeat(np.arange(len(parent)), pos[1:] - pos[:-1])
            level_modes = [int(x) for x in tok.split("(")[1].split(")")[0].split(",")]
            for m in coord_cols:
                coord_cols[m] = coord_cols[m][child_parent]
            for k, m in enumerate(level_modes[:-1]):
                coord_cols[m] = lv[f"crd{k}"].astype(np.int64)
            mode, crd = level_modes[-1], lv[f"crd{len(level_modes) - 1}"].astype(np.int64)
            coord_cols[mode] = crd
            parent = np.arange(len(crd))
            nentries = len(crd)
            continue
        else:
            raise ValueError("no reader for siskin level " + lv["kind"])
        for m in coord_cols:
            coord_cols[m] = coord_cols[m][child_parent]
        coord_cols[mode] = crd
        parent = np.arange(len(crd))
        nentries = len(crd)
    coords = np.vstack([coord_cols[m] for m in range(len(shape))]) if shape else np.zeros((0, 1))
    vals = d["values"]
    if len(vals) != nentries and shape:
        raise ValueError(f"{len(vals)} values for {nentries} positions")
    return Entries(shape, fill, coords, vals)


def pydata_entries(r):
    return Entries(r.shape, float(r.fill_value), r.coords, r.data)


def graphblas_vector_entries(fill):
    def value(v):
        size, idx, x = v.tuples()
        return Entries((int(size),), fill, idx.astype(np.int64)[None, :], x)
    return value


def graphblas_matrix_entries(fill):
    def value(m):
        rows, cols, i, j, x = m.tuples()
        return Entries((int(rows), int(cols)), fill, np.vstack([i.astype(np.int64), j.astype(np.int64)]), x)
    return value


def scipy_entries(r):
    c = sp.coo_matrix(r)
    return Entries(c.shape, 0.0, np.vstack([c.row, c.col]), c.data)


# ---- the operands of one input, built when a workload first asks ---------------------------------

class Operands:
    """Every sparse-array-programming operand of one input (a matrix or the 3-tensor)."""

    def __init__(self, native, base):
        self.native = native
        self.base = base  # Coords, float64 values, fill 0
        self.ndim = base.ndim
        self.rng = np.random.default_rng(inputs_mod.SEED + 11)
        self._cache = {}

    def get(self, name):
        if name not in self._cache:
            self._cache[name] = getattr(self, "_" + name)()
        return self._cache[name]

    # Coordinates: A (float64 values of the input), its integer and boolean versions, and the
    # shifted operands (value 2: float64, int64 or true).
    def _A_f(self):
        return self.base

    def _A_i(self):
        # Integer values for right_shift: seeded, uniform in [4, 1024), so shifting by 2 keeps
        # every one of them non-zero (the pattern stays A's).
        return self.base.with_values(self.rng.integers(4, 1024, self.base.nnz, dtype=np.int64), 0)

    def _A_b(self):
        return self.base.with_values(np.ones(self.base.nnz, dtype=bool), False)

    def _B_f(self):
        return self.base.shifted(1, np.float64(2.0))

    def _B_i(self):
        return self.get("A_i").shifted(1, np.int64(2))

    def _B_b(self):
        return self.get("A_b").shifted(1, np.bool_(True))

    def _C_b(self):
        return self.get("A_b").shifted(2, np.bool_(True))

    # The masked products: A as bool (A_b) and as non-negative weights |a| with fill +inf (A_w,
    # the (min, +) semiring's zero), the same held by column (Acol_*: B of the masked mxm), and
    # sparse vectors with 10 % of their entries, seeded: x_b (true), x_w (uniform in [0, 1),
    # fill +inf) and the mask m_b (true).
    def _A_w(self):
        return self.base.with_values(np.abs(self.base.vals), np.inf)

    def _Acol_b(self):
        return self._transposed(self.get("A_b"))

    def _Acol_w(self):
        return self._transposed(self.get("A_w"))

    @staticmethod
    def _transposed(c):
        return Coords((c.shape[1], c.shape[0]), c.coords[::-1].copy(), c.vals, c.fill)

    def _vector_idx(self, salt):
        n = self.base.shape[0]
        rng = np.random.default_rng(inputs_mod.SEED + salt)
        return np.sort(rng.choice(n, max(1, n // 10), replace=False)).astype(np.int64)

    def _x_b(self):
        idx = self._vector_idx(21)
        return Coords((self.base.shape[1],), idx[None, :], np.ones(len(idx), dtype=bool), False)

    def _x_w(self):
        idx = self._vector_idx(22)
        rng = np.random.default_rng(inputs_mod.SEED + 23)
        return Coords((self.base.shape[1],), idx[None, :], rng.random(len(idx)), np.inf)

    def _m_b(self):
        idx = self._vector_idx(24)
        return Coords((self.base.shape[0],), idx[None, :], np.ones(len(idx), dtype=bool), False)

    def siskin(self, name):
        key = "s_" + name
        if key not in self._cache:
            if name.endswith("_bitmap"):
                self._cache[key] = siskin_bytemap_vector(self.native, self.get(name[:-len("_bitmap")]))
                return self._cache[key]
            c = self.get(name)
            if name.startswith("Acol"):  # A by column: the CSR arrays of A^T as a CSC of A
                self._cache[key] = self.native.tensor([c.shape[1], c.shape[0]], "dense(1)@32/sparselist(0)@32",
                                                      TYPE_NAMES[c.vals.dtype], c.fill, levels_of(c), c.vals)
            elif c.ndim == 1:
                self._cache[key] = siskin_vector(self.native, c.shape[0], c.coords[0], c.vals, c.fill)
            else:
                self._cache[key] = siskin_tensor(self.native, c)
        return self._cache[key]

    def gb(self, name):
        """The GraphBLAS operand: bool matrices all true, float64 ones with their values (the
        absent entries are the semiring's zero), Acol_* held by column, sparse vectors."""
        key = "g_" + name
        if key not in self._cache:
            g = self.native.graphblas
            c = self.get(name)
            if c.ndim == 1:
                v = g.sparse_vector(c.shape[0], c.coords[0], c.vals.astype(np.float64), c.vals.dtype == bool)
            else:
                r, k = (c.coords[1], c.coords[0]) if name.startswith("Acol") else (c.coords[0], c.coords[1])
                shape = c.shape[::-1] if name.startswith("Acol") else c.shape
                v = (g.bool_from_coo(shape[0], shape[1], r, k) if c.vals.dtype == bool
                     else g.from_coo(shape[0], shape[1], r, k, c.vals))
                if name.startswith("Acol"):
                    g.store_by_col(v)
            self._cache[key] = v
        return self._cache[key]

    def pydata(self, name):
        key = "p_" + name
        if key not in self._cache:
            self._cache[key] = pydata_coo(self.get(name))
        return self._cache[key]
