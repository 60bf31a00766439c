"""The machine line and versions recorded with every result."""
import datetime
import os
import platform
import shutil
import subprocess


def _first_line(cmd):
    try:
        return subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.splitlines()[0].strip()
    except (OSError, subprocess.CalledProcessError, IndexError):
        return "unknown"


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def memory_gib():
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    return int(line.split()[1]) / 1048576
    except OSError:
        pass
    return float("nan")


def describe(native):
    import numpy
    import scipy
    import sparse
    cc = os.environ.get("SISKIN_CC", "cc")
    jit = _first_line([shutil.which(cc) or cc, "--version"])
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    return {
        "date": date,
        "machine": f"{cpu_model()}, {os.cpu_count()} cores, {memory_gib():.0f} GiB, {platform.system()} "
                   f"{platform.release()}; kernels compiled by {jit} (-O3 -march=native -falign-loops=32)",
        "versions": f"Python {platform.python_version()}, NumPy {numpy.__version__}, SciPy {scipy.__version__}, "
                    f"pydata/sparse {sparse.__version__}, SuiteSparse:GraphBLAS {native.graphblas.version}",
    }
