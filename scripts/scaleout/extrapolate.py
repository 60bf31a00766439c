"""Model times of the row and the 2-D partition for generated matrices at 10^8..10^9 rows, and
the smallest rank count at which the 2-D partition is the faster one."""
from . import network as net
from . import poisson, rmat
from .summary import grid_summary, row_summary

CLASSES = {
    "mesh": [poisson.Stencil(3, 465), poisson.Stencil(3, 1000), poisson.Stencil(2, 31623)],
    "powerlaw": [rmat.Rmat(27), rmat.Rmat(30)],
    # No skew: R-MAT with equal quadrants is a uniform random graph. Degree 32 as the R-MAT
    # graphs; degree 6 as a 7-point mesh whose vertices were randomly relabelled (what a 2-D
    # partition needs to balance a mesh, since natural order leaves off-diagonal blocks empty).
    "uniform": [rmat.Rmat(30, 16, (0.25, 0.25, 0.25, 0.25)), rmat.Rmat(30, 3, (0.25, 0.25, 0.25, 0.25))],
}


def _stats(generator, p):
    if isinstance(generator, poisson.Stencil):
        return poisson.stencil_row_stats(generator, p), poisson.stencil_grid_stats(generator, p)
    return rmat.rmat_row_stats(generator, p), rmat.rmat_grid_stats(generator, p)


def _label(generator):
    if isinstance(generator, poisson.Stencil):
        return f"{generator.name} N={generator.N} (n={generator.n:.3g})"
    return f"{generator.name} scale {generator.scale} edge factor {generator.edge_factor} (n={generator.n:.3g})"


def extrapolate(ranks, network, compute_by_class):
    rows = []
    for cls, generators in CLASSES.items():
        compute = compute_by_class["powerlaw" if cls == "uniform" else cls]
        for g in generators:
            for p in ranks:
                one, two = _stats(g, p)
                rows.append({"class": cls, "matrix": _label(g), "p": p,
                             "row": row_summary(one, network, compute),
                             "grid": grid_summary(two, network, compute)})
    return rows


def crossovers(rows, key):
    """Per matrix: the smallest p from which the 2-D partition's `key` (a time) is below the row
    partition's at every larger p of the table (SpGEMM: square grids only, where SUMMA runs),
    or None."""
    by_matrix = {}
    for r in rows:
        two, one = r["grid"].get(key), r["row"].get(key)
        if r["p"] > 1 and two is not None and one is not None:
            by_matrix.setdefault(r["matrix"], []).append((r["p"], two < one))
    out = {}
    for matrix, wins in by_matrix.items():
        out[matrix] = None
        for p, _ in wins:
            if all(win for q, win in wins if q >= p):
                out[matrix] = p
                break
    return out
