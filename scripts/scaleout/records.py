"""Per-rank records in the shape `siskin run --distributed --comm-stats` writes (a JSON array,
one object per rank: rank, rows, row_begin, nnz_diag, nnz_offdiag, halo_columns, and per
operation calls, messages_sent, bytes_sent, messages_received, bytes_received), so that a
prediction and a measurement compare field by field."""

COUNT_FIELDS = ("rows", "row_begin", "nnz_diag", "nnz_offdiag", "halo_columns")
# The MPI layer's operation names for the model's exchanges (one call each).
OPERATIONS = {"spmv": "spmv", "halo_setup": "spmv_setup", "spgemm": "spgemm"}


def rank_records(stats):
    out = []
    for r in range(stats.ranks):
        record = {"rank": r, "rows": int(stats.rows[r]), "row_begin": int(stats.bounds[r]),
                  "nnz_diag": int(stats.nnz_diag[r]), "nnz_offdiag": int(stats.nnz_offdiag[r]),
                  "halo_columns": int(stats.halo_columns[r]), "operations": {}}
        for name, field in OPERATIONS.items():
            exchange = getattr(stats, field)
            if exchange is not None:
                record["operations"][name] = {"calls": 1, **exchange.rank(r)}
        out.append(record)
    return out
