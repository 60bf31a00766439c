"""Compares the model's per-rank counts with what `siskin run --distributed --comm-stats`
measured. Operation counters add up over calls (--repeat), so they are compared per call."""
from .exchange import FIELDS
from .partition import SPLITS
from .records import COUNT_FIELDS, rank_records
from .row_partition import row_partition_stats


def per_call(counters):
    calls = counters.get("calls", 1) or 1
    return {f: counters[f] / calls for f in FIELDS if f in counters}


def compare_records(pattern, measured, split, operations=("spmv", "halo_setup"), index_bytes=8):
    """(every compared count equal, a report). `measured`: the --comm-stats array."""
    p = len(measured)
    model = rank_records(row_partition_stats(pattern, SPLITS[split](pattern, p), index_bytes=index_bytes))
    diffs, compared = [], 0
    for want, got in zip(model, sorted(measured, key=lambda r: r["rank"])):
        pairs = [(f, want[f], got.get(f)) for f in COUNT_FIELDS]
        for op in operations:
            got_op = per_call(got.get("operations", {}).get(op, {}))
            pairs += [(f"{op}.{f}", want["operations"][op][f], got_op.get(f, 0)) for f in FIELDS]
        for field, value, got_value in pairs:
            compared += 1
            if got_value != value:
                diffs.append(f"rank {want['rank']} {field}: model {value}, measured {got_value}")
    diffs.append(f"p={p} split={split}: {compared} counts compared, {len(diffs)} differ")
    return len(diffs) == 1, "\n".join(diffs)
