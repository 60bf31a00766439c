"""One line of figures per (matrix, p): what the tables show of the per-rank arrays."""
import numpy as np

from . import network as net


def _max(a):
    return float(np.max(a)) if a is not None else None


def _imbalance(per_rank):
    mean = float(np.mean(per_rank))
    return float(np.max(per_rank)) / mean if mean > 0 else 1.0


def _busiest(exchange):
    """Max over ranks of messages and bytes, each the larger of sent and received."""
    return (_max(np.maximum(exchange.messages_sent, exchange.messages_received)),
            _max(np.maximum(exchange.bytes_sent, exchange.bytes_received)))


def row_summary(stats, network, compute):
    nnz = stats.nnz_diag + stats.nnz_offdiag
    messages, nbytes = _busiest(stats.spmv)
    out = {
        "max_rows": _max(stats.rows), "max_nnz": _max(nnz), "imbalance": _imbalance(nnz),
        "max_halo": _max(stats.halo_columns), "spmv_messages": messages, "spmv_bytes": nbytes,
        "spmv_total_bytes": float(np.sum(stats.spmv.bytes_sent)),
        "setup_bytes": _busiest(stats.spmv_setup)[1],
        "spmv_seconds": net.row_spmv_time(stats, network, compute),
        "spmv_comm_seconds": float(np.max(net.exchange_time(stats.spmv, network))),
    }
    if stats.spgemm is not None:
        out.update({"spgemm_messages": _busiest(stats.spgemm)[0],
                    "spgemm_bytes": _busiest(stats.spgemm)[1],
                    "max_rows_fetched": _max(stats.rows_fetched),
                    "max_entries_fetched": _max(stats.entries_fetched),
                    "flops_imbalance": _imbalance(stats.flops),
                    "spgemm_seconds": net.row_spgemm_time(stats, network, compute)})
    return out


def grid_summary(stats, network, compute):
    messages, nbytes = _busiest(stats.spmv)
    out = {
        "grid": f"{stats.grid[0]}x{stats.grid[1]}", "max_nnz": _max(stats.nnz),
        "imbalance": _imbalance(stats.nnz), "spmv_messages": messages, "spmv_bytes": nbytes,
        "spmv_total_bytes": float(np.sum(stats.spmv.bytes_sent)),
        "spmv_seconds": net.grid_spmv_time(stats, network, compute),
        "spmv_comm_seconds": float(np.max(net.exchange_time(stats.expand, network)
                                          + net.exchange_time(stats.fold, network))),
    }
    if stats.spgemm is not None:
        # Received bytes: what a broadcast delivers to each rank whatever its algorithm (the
        # root of a flat broadcast sends s - 1 copies; of a tree, log2 s).
        out.update({"spgemm_messages": _max(stats.spgemm.messages_received),
                    "spgemm_bytes": _max(stats.spgemm.bytes_received),
                    "flops_imbalance": _imbalance(stats.flops),
                    "spgemm_seconds": net.summa_time(stats.block_bytes, stats.flops, network, compute)})
    return out
