"""Compares the model's per-rank counts with what `siskin run --distributed --comm-stats` measured."""
from .partition import SPLITS
from .records import COUNT_FIELDS, rank_records
from .row_partition import row_partition_stats


def compare_records(pattern, measured, split, index_bytes=8):
    """(every count equal, a report of the differences and of the error per field)."""
    ranks = measured["ranks"] if isinstance(measured, dict) else measured
    p = len(ranks)
    model = rank_records(row_partition_stats(pattern, SPLITS[split](pattern, p), index_bytes=index_bytes))
    lines, errors, compared = [], {}, 0
    for want, got in zip(model, sorted(ranks, key=lambda r: r["rank"])):
        for field, value in _flatten(want).items():
            if field not in _flatten(got):
                continue
            compared += 1
            measured_value = _flatten(got)[field]
            if measured_value != value:
                errors.setdefault(field, []).append((want["rank"], value, measured_value))
    for field, diffs in sorted(errors.items()):
        for rank, value, got in diffs:
            lines.append(f"rank {rank} {field}: model {value}, measured {got}")
    lines.append(f"p={p} split={split}: {compared} counts compared, {sum(map(len, errors.values()))} differ")
    return not errors, "\n".join(lines)


def _flatten(record, prefix=""):
    out = {}
    for key, value in record.items():
        if isinstance(value, dict):
            out.update(_flatten(value, f"{prefix}{key}."))
        elif key in COUNT_FIELDS or prefix:
            out[f"{prefix}{key}"] = value
    return out
