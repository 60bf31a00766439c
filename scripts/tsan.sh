#!/usr/bin/env bash
# ThreadSanitizer on a sample of siskin's multi-threaded kernels (issue 21): SpMV, a scalar sum,
# A + B into CSR, SpGEMM into CSR (row workspace per thread), a masked product, column sums (a
# copy of the vector per thread) and a max in storage order (a slice per thread), each on 2, 3
# and 7 threads, on inputs with empty rows and a full one, above the work threshold so that every
# thread gets rows. Kernels are compiled with clang, -fsanitize=thread and LLVM's libomp, whose
# Archer tool (OMP_TOOL_LIBRARIES) tells ThreadSanitizer what OpenMP's fork, join, barriers and
# critical sections order: GCC's libgomp is not instrumented, so with it every region would be
# reported. Covered: the kernels' own code and the runtime C it includes (runtime/*.h: chunking,
# the per-thread parts and their join, the status record, buffer growth), and the library's own
# region, the counting-sort transpose (src/tensor/counting_transpose.hpp on thread_team.hpp, built
# alone by scripts/tsan/transpose_driver.cpp and checked against one thread). Not covered: the
# rest of the C++ library, which has no other region; OpenMP's internals
# (ignore_noninstrumented_modules).
# Kernels allocate with malloc only here (SISKIN_BLOCK_NO_MAP): ThreadSanitizer does not see
# mremap, so a mapping one thread gave up and another got at the same address would read as a
# race.
# Not part of scripts/test.sh: it compiles 21 kernels with the sanitizer (minutes).
# Usage: scripts/tsan.sh   (after building build/siskin; SISKIN_BUILD names another build folder)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh tsan
build=${SISKIN_BUILD:-build}
if [ ! -x "$build/siskin" ]; then
  echo "scripts/tsan.sh: build the siskin command first (cmake --build $build --target siskin_cli)" >&2
  exit 2
fi
work=build-tsan
mkdir -p "$work"
# The transpose runs in an OpenMP region (thread_team.hpp): built with libomp and run with Archer,
# as the kernels are.
archer=$(ls /usr/lib/llvm-*/lib/libarcher.so 2>/dev/null | sort | tail -n 1)
if [ -z "$archer" ]; then
  echo "scripts/tsan.sh: no libarcher.so (Debian: libomp-dev)" >&2
  exit 2
fi
clang++ -std=c++20 -Wall -Wextra -fsanitize=thread -fopenmp -g -O1 -I src scripts/tsan/transpose_driver.cpp \
  src/tensor/thread_team.cpp -o "$work/transpose_driver"
OMP_TOOL_LIBRARIES="$archer" TSAN_OPTIONS="ignore_noninstrumented_modules=1" "$work/transpose_driver"
clang -Wall -Wextra -fsanitize=thread -g scripts/tsan/kernel_driver.c -o "$work/kernel_driver" -ldl
/usr/bin/python3 scripts/tsan/threaded_kernels.py "$build/siskin" "$work/kernel_driver" "$work/kernels"
