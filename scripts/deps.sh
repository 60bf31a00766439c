#!/usr/bin/env bash
# Installs the Debian packages siskin needs when any is missing (as root), then returns.
# Usage: scripts/deps.sh [build|demo|test|bench|fuzz|tsan]
set -euo pipefail
# The Python package (python/) builds for /usr/bin/python3 with Debian's numpy and scipy.
packages=(cmake ninja-build g++ gcc make pkg-config ccache
          libfmt-dev libcli11-dev nlohmann-json3-dev libxxhash-dev
          python3 python3-dev pybind11-dev libdlpack-dev python3-numpy python3-scipy)
# Optional packages: installed as root, never required of another user (the build leaves the
# feature out without them). OpenMPI turns on the distributed layer (CMake option SISKIN_MPI);
# Dask runs siskin tensors as Dask chunks (python/tests/test_dask.py skips without it); PETSc
# turns on the export of distributed matrices to PETSc (CMake option SISKIN_PETSC) and its tests.
optional=()
case "${1:-build}" in
  demo) optional+=(libopenmpi-dev openmpi-bin python3-dask python3-distributed) ;;
  test) packages+=(libgtest-dev python3-pytest python3-sparse)
        optional+=(libopenmpi-dev openmpi-bin python3-dask python3-distributed libpetsc-real-dev) ;;
  fuzz) packages+=(clang libclang-rt-14-dev) ;;
  tsan) packages+=(clang libclang-rt-14-dev libomp-dev python3 python3-numpy python3-scipy) ;;
  bench) packages+=(libgtest-dev libbenchmark-dev python3 python3-numpy python3-scipy
                    python3-sparse python3-matplotlib libgraphblas-dev python3-opencv python3-dask
                    python3-distributed libopenmpi-dev openmpi-bin libpetsc-real-dev) ;;
esac
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "$(id -u)" -eq 0 ]; then
  for p in "${optional[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
fi
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
  echo "siskin needs these Debian packages: ${missing[*]}" >&2
  echo "install them with: sudo apt-get install ${missing[*]}" >&2
  exit 1
fi
echo "installing: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
