"""Sets of integers as sorted, disjoint half-open intervals [a, b): the row and column sets of
structured matrices far too large to list (a Poisson stencil at 10^9 rows)."""
import bisect


def normalise(intervals):
    """Sorted, merged, without empty intervals."""
    out = []
    for a, b in sorted((a, b) for a, b in intervals if a < b):
        if out and a <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out


def size(intervals):
    return sum(b - a for a, b in intervals)


def intersect(intervals, lo, hi):
    return normalise((max(a, lo), min(b, hi)) for a, b in intervals)


def subtract(intervals, lo, hi):
    """The set minus [lo, hi)."""
    out = []
    for a, b in intervals:
        out.append((a, min(b, lo)))
        out.append((max(a, hi), b))
    return normalise(out)


def shifted(lo, hi, offsets, n):
    """The union over d in offsets of [lo + d, hi + d), clipped to [0, n)."""
    return normalise((max(lo + d, 0), min(hi + d, n)) for d in offsets)


def counts_by_owner(intervals, bounds):
    """[(rank, how many of the set rank owns)] for a split `bounds` (rank r owns
    [bounds[r], bounds[r+1]))."""
    out = {}
    for a, b in intervals:
        r = bisect.bisect_right(bounds, a) - 1
        while a < b:
            end = min(b, int(bounds[r + 1]))
            if end > a:
                out[r] = out.get(r, 0) + end - a
            a = end
            r += 1
    return sorted(out.items())
