"""Time of one SpMV or SpGEMM from per-rank counts: compute + messages * alpha + bytes * beta.

A rank's link is full duplex and its sends and receives proceed together, so an exchange costs
alpha * max(messages sent, received) + beta * max(bytes sent, received) on that rank; the
operation takes as long as its slowest rank. Parameters are stated, never measured here:
`NETWORKS` gives two node links, `Compute` the local rates measured with siskin
(scripts/scaleout_model.py measure).
"""
from dataclasses import dataclass
from math import ceil, log2

import numpy as np


@dataclass(frozen=True)
class Network:
    name: str
    alpha: float   # seconds per message (MPI small-message latency, one way)
    beta: float    # seconds per byte (inverse link bandwidth)
    source: str


NETWORKS = {
    "ib100": Network("100 Gb/s InfiniBand (EDR / HDR100)", alpha=1.5e-6, beta=1 / 12.5e9,
                     source="12.5 GB/s line rate; ~1-2 us MPI ping-pong latency typical of "
                            "published osu_latency runs on EDR/HDR100"),
    "eth25": Network("25 Gb/s Ethernet, TCP", alpha=15e-6, beta=1 / 3.125e9,
                     source="3.125 GB/s line rate; ~10-20 us MPI latency over kernel TCP"),
}


@dataclass(frozen=True)
class Compute:
    """Seconds of local work on one node (one rank per node, using its cores)."""
    spmv_per_entry: float     # per stored entry of y += A x
    spgemm_per_flop: float    # per multiply-add of C = A * B (Gustavson, accumulation included)
    source: str


def exchange_time(exchange, network):
    """Per-rank seconds of an exchange."""
    messages = np.maximum(exchange.messages_sent, exchange.messages_received)
    volume = np.maximum(exchange.bytes_sent, exchange.bytes_received)
    return messages * network.alpha + volume * network.beta


def row_spmv_time(stats, network, compute, overlap=True):
    """The MPI layer posts the halo exchange, multiplies the diagonal block meanwhile, waits, then
    multiplies the off-diagonal block: with overlap a rank takes max(diag, exchange) + offdiag."""
    diag = stats.nnz_diag * compute.spmv_per_entry
    offdiag = stats.nnz_offdiag * compute.spmv_per_entry
    comm = exchange_time(stats.spmv, network)
    first = np.maximum(diag, comm) if overlap else diag + comm
    return float(np.max(first + offdiag))


def grid_spmv_time(stats, network, compute):
    """Expand, local product, fold, one after the other (the product needs x, the fold the product)."""
    local = stats.nnz * compute.spmv_per_entry
    return float(np.max(exchange_time(stats.expand, network) + local + exchange_time(stats.fold, network)))


def row_spgemm_time(stats, network, compute):
    """Fetch the remote rows of B, then multiply (no overlap assumed)."""
    return float(np.max(exchange_time(stats.spgemm, network) + stats.flops * compute.spgemm_per_flop))


def broadcast_time(nbytes, ranks, network):
    """An MPI broadcast to `ranks` ranks: the cheaper of a binomial tree (log2 steps of the whole
    block) and scatter + ring allgather (for long blocks), as MPI libraries switch between them."""
    if ranks <= 1:
        return 0.0
    steps = ceil(log2(ranks))
    tree = steps * (network.alpha + nbytes * network.beta)
    scatter_allgather = (steps + ranks - 1) * network.alpha + 2 * nbytes * network.beta * (ranks - 1) / ranks
    return min(tree, scatter_allgather)


def summa_time(block_bytes, flops, network, compute):
    """SUMMA's s stages each broadcast one block column of A along the grid rows and one block
    row of B down the grid columns (the largest block of the stage sets its pace); the local
    products add up to each rank's flops; no overlap assumed."""
    s = block_bytes.shape[0]
    comm = sum(broadcast_time(float(block_bytes[:, k].max()), s, network)
               + broadcast_time(float(block_bytes[k, :].max()), s, network) for k in range(s))
    return comm + float(np.max(flops)) * compute.spgemm_per_flop
