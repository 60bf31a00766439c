"""The benchmark inputs: real matrices from ../shared/data/matrices and seeded synthetic ones.

Every input is a square float64 scipy CSR matrix with sorted indices, no duplicates and no
explicit zeros (eliminated once here, so every library sees the same stored set). Pattern files
get the value 1; symmetric files are expanded to both triangles (scipy.io.mmread does that).
"""
import os

import numpy as np
import scipy.io
import scipy.sparse as sp

REAL_FULL = ["bcsstk13", "rajat19", "raefsky2", "bcsstk33", "cage11", "email-Enron", "luxembourg_osm", "collegemsg"]
SYNTHETIC_FULL = ["uniform", "powerlaw", "banded"]
QUICK = ["bcsstk13", "email-Enron", "uniform", "collegemsg"]
TENSORS = {"collegemsg"}  # FROSTT-style .tns: only the workloads that take a 3-tensor run on it

SEED = 20261122


def _clean(a):
    a = sp.csr_matrix(a, dtype=np.float64)
    a.sum_duplicates()
    a.eliminate_zeros()
    a.sort_indices()
    return a


def uniform(n=20000, density=0.001, seed=SEED):
    """Uniformly random positions at the given density, values uniform in [-1, 1)."""
    rng = np.random.default_rng(seed)
    return _clean(sp.random(n, n, density=density, format="csr", random_state=rng,
                            data_rvs=lambda k: rng.uniform(-1.0, 1.0, k)))


def powerlaw(n=50000, edges=200000, alpha=0.6, seed=SEED + 1):
    """A directed graph whose endpoints are drawn with probability ~ rank^-alpha (Zipf-like
    degrees on both sides, a few very heavy rows and columns); node ids shuffled so heavy
    rows are not all at the top. Values uniform in (0, 1]."""
    rng = np.random.default_rng(seed)
    p = 1.0 / np.arange(1, n + 1) ** alpha
    p /= p.sum()
    perm = rng.permutation(n)
    rows = perm[rng.choice(n, size=edges, p=p)]
    cols = perm[rng.choice(n, size=edges, p=p)]
    vals = 1.0 - rng.random(edges)
    a = sp.coo_matrix((vals, (rows, cols)), shape=(n, n)).tocsr()
    a.sum_duplicates()
    return _clean(a)


def banded(n=100000, half_width=4, seed=SEED + 2):
    """A banded matrix with 2*half_width+1 full diagonals and random values."""
    rng = np.random.default_rng(seed)
    offsets = list(range(-half_width, half_width + 1))
    diags = [rng.uniform(-1.0, 1.0, n - abs(k)) for k in offsets]
    return _clean(sp.diags(diags, offsets, shape=(n, n), format="csr"))


class Tensor3:
    """A FROSTT-style tensor: shape, 0-based coordinates (ndim x nnz, int64) and float64 values."""

    def __init__(self, shape, coords, vals):
        self.shape, self.coords, self.vals = shape, coords, vals
        self.nnz = vals.size


def load_tns(path):
    """A .tns file (one `i j k value` line per entry, 1-based, no header; the dimensions are the
    largest index in each mode); duplicates summed, zeros dropped."""
    data = np.loadtxt(path, ndmin=2)
    coords = data[:, :-1].astype(np.int64).T - 1
    shape = tuple(int(x) + 1 for x in coords.max(axis=1))
    lin = np.ravel_multi_index(tuple(coords), shape)
    u, inv = np.unique(lin, return_inverse=True)
    vals = np.bincount(inv, weights=data[:, -1])
    keep = vals != 0
    return Tensor3(shape, np.vstack(np.unravel_index(u[keep], shape)).astype(np.int64), vals[keep])


def load(name, matrices_dir):
    """(matrix, description) for an input name; a Tensor3 for the tensors."""
    if name in TENSORS:
        t = load_tns(os.path.join(matrices_dir, name + ".tns"))
        return t, "real: " + name + ".tns (FROSTT-style 3-tensor)"
    if name == "uniform":
        a = uniform()
        return a, "synthetic: uniform 20000x20000 at 0.1%, seeded"
    if name == "powerlaw":
        a = powerlaw()
        return a, "synthetic: power-law directed graph (endpoints drawn with p ~ rank^-0.6), 50000 nodes, 200000 drawn edges, seeded"
    if name == "banded":
        a = banded()
        return a, "synthetic: banded 100000x100000, 9 diagonals, seeded"
    path = os.path.join(matrices_dir, name + ".mtx")
    a = scipy.io.mmread(path)
    return _clean(a), "real: " + os.path.basename(path)


def second_operand(a):
    """The second operand of add and elementwise multiply: A's columns shifted by one
    (cyclically) and its values scaled by 0.5, so the union and intersection with A are
    both non-trivial (the construction of the sparse array programming paper)."""
    c = a.tocoo()
    n = a.shape[1]
    b = sp.coo_matrix((0.5 * c.data, (c.row, (c.col + 1) % n)), shape=a.shape)
    return _clean(b)
