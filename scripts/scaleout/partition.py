"""Contiguous row splits as the MPI layer makes them (PETSc MPIAIJ ownership ranges).

A split of n rows over p ranks is the array `bounds` of p+1 row numbers: rank r owns rows
bounds[r] <= i < bounds[r+1]. Ranks may own no rows (p > n, or a few heavy rows).
"""
import numpy as np


def even_split(n, p):
    """PETSC_DECIDE (PetscSplitOwnership): n // p rows each, the first n % p ranks one more."""
    if p < 1:
        raise ValueError(f"a split needs at least one rank, not {p}")
    r = np.arange(p + 1, dtype=np.int64)
    return r * (n // p) + np.minimum(r, n % p)


def entries_split(indptr, p):
    """Rows split so that every rank holds about nnz / p stored entries (rows stay whole): rank
    k > 0 starts at the first row with at least ceil(k * nnz / p) entries before it. A matrix
    with no entries is split evenly."""
    if p < 1:
        raise ValueError(f"a split needs at least one rank, not {p}")
    indptr = np.asarray(indptr, dtype=np.int64)
    n, nnz = len(indptr) - 1, int(indptr[-1])
    if nnz == 0:
        return even_split(n, p)
    targets = (np.arange(p + 1, dtype=np.int64) * nnz + p - 1) // p
    bounds = np.searchsorted(indptr[:n], targets, side="left").astype(np.int64)
    bounds[0], bounds[-1] = 0, n
    return bounds


SPLITS = {"rows": lambda pattern, p: even_split(pattern.rows, p),
          "entries": lambda pattern, p: entries_split(pattern.indptr, p)}


def owner(bounds, index):
    """The rank owning each index (an array or a number) under a split."""
    return np.searchsorted(bounds, index, side="right") - 1


def column_split(pattern, row_bounds):
    """Ownership of x (the columns): the row split for a square matrix, so that each rank's
    diagonal block is square as in PETSc; PETSC_DECIDE over the columns otherwise."""
    if pattern.square:
        return row_bounds
    return even_split(pattern.cols, len(row_bounds) - 1)
