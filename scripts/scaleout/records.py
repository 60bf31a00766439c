"""Per-rank records in the shape of `siskin run --distributed --comm-stats`, so a prediction and
a measurement compare field by field."""

COUNT_FIELDS = ("rows", "nnz_diag", "nnz_offdiag", "halo_columns")


def rank_records(stats, operations=("spmv", "spmv_setup", "spgemm")):
    out = []
    for r in range(stats.ranks):
        record = {"rank": r}
        record.update({f: int(getattr(stats, f)[r]) for f in COUNT_FIELDS})
        for op in operations:
            exchange = getattr(stats, op)
            if exchange is not None:
                record[op] = exchange.rank(r)
        out.append(record)
    return out
