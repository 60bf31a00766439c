"""Whether two tensor files that siskin wrote hold the same values within a relative tolerance:
the same header (banner, size line or shape) and, entry by entry, the same coordinates and
values. Usage: same_values.py SERIAL DISTRIBUTED [TOLERANCE]"""
import sys


def entries(path):
    lines = [l.split() for l in open(path) if l.strip() and not l.startswith(('%', '#'))]
    header = [l for l in open(path) if l.startswith(('%%', '# shape'))]
    if path.endswith('.mtx') and 'coordinate' in header[0]:
        size, body = lines[0], lines[1:]
        return header, size, {tuple(l[:2]): float(l[2]) for l in body}
    if path.endswith('.mtx'):
        return header, lines[0], {(k,): float(l[0]) for k, l in enumerate(lines[1:])}
    return header, None, {tuple(l[:-1]): float(l[-1]) for l in lines}


def main():
    tolerance = float(sys.argv[3]) if len(sys.argv) > 3 else 1e-12
    (hs, ss, s), (hd, sd, d) = entries(sys.argv[1]), entries(sys.argv[2])
    if hs != hd or ss != sd or s.keys() != d.keys():
        sys.exit(f"{sys.argv[2]}: other header, size or coordinates than {sys.argv[1]}")
    for k, v in s.items():
        if abs(v - d[k]) > tolerance * max(1.0, abs(v)):
            sys.exit(f"{sys.argv[2]}: {k} holds {d[k]}, the serial run {v}")


main()
