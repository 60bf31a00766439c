"""Reads the sparsity pattern of a Matrix Market or FROSTT file as the MPI layer stores it.

Only positions matter to the communication model, so a matrix is a `Pattern`: CSR row pointers
and column indices (int64, sorted, no duplicates). Stored entries are what the file stores:
symmetric files are expanded to both triangles and explicit zeros are kept, because siskin's
reader keeps them (a stored zero is communicated like any other value).
"""
from dataclasses import dataclass

import numpy as np
import scipy.io
import scipy.sparse as sp


@dataclass(frozen=True)
class Pattern:
    """A sparse matrix's positions: rows x cols, row i's columns indices[indptr[i]:indptr[i+1]]."""
    rows: int
    cols: int
    indptr: np.ndarray
    indices: np.ndarray

    @property
    def nnz(self):
        return int(self.indptr[-1])

    def row_lengths(self):
        return np.diff(self.indptr)

    def entry_rows(self):
        """The row of every stored entry, in storage order."""
        return np.repeat(np.arange(self.rows, dtype=np.int64), self.row_lengths())

    @property
    def square(self):
        return self.rows == self.cols


def from_coordinates(rows, cols, i, j):
    """A pattern from 0-based coordinate arrays; duplicates count once."""
    i = np.asarray(i, dtype=np.int64)
    j = np.asarray(j, dtype=np.int64)
    if i.size and (i.min() < 0 or i.max() >= rows or j.min() < 0 or j.max() >= cols):
        raise ValueError(f"a coordinate lies outside the {rows} x {cols} shape")
    a = sp.csr_matrix((np.ones(i.size, dtype=np.int8), (i, j)), shape=(rows, cols))
    a.sum_duplicates()
    a.sort_indices()
    return Pattern(rows, cols, a.indptr.astype(np.int64), a.indices.astype(np.int64))


def from_scipy(a):
    """The stored positions of a scipy sparse matrix, explicit zeros included."""
    coo = sp.coo_matrix(a)
    return from_coordinates(coo.shape[0], coo.shape[1], coo.row, coo.col)


def read_matrix_market(path):
    """Stored entries of a coordinate Matrix Market file (symmetric ones in both triangles)."""
    a = scipy.io.mmread(path)
    if not sp.issparse(a):
        raise ValueError(f"{path}: a dense Matrix Market array has no sparsity pattern to partition")
    return from_scipy(a)


def read_frostt_matricised(path):
    """A 3-tensor T[i,j,k] of a .tns file as the matrix M[i, k] of the contraction
    y[i,j] += T[i,j,k] * x[k] partitioned by i: row i of M holds the distinct k of slice i, which
    is what a rank owning slice i needs of x. Dimensions are the largest index in each mode."""
    data = np.loadtxt(path, dtype=np.float64, ndmin=2)
    if data.shape[1] != 4:
        raise ValueError(f"{path}: expected 3-tensor lines 'i j k value', found {data.shape[1]} columns")
    coords = data[:, :3].astype(np.int64) - 1
    dims = coords.max(axis=0) + 1
    return from_coordinates(int(dims[0]), int(dims[2]), coords[:, 0], coords[:, 2])


def read_pattern(path):
    if str(path).endswith(".tns"):
        return read_frostt_matricised(path)
    return read_matrix_market(path)
