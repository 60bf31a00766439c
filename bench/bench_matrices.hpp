#pragma once
// Where the benchmarks find the shared matrices: $SISKIN_MATRIX_DIR, else the ../shared folder
// beside the source tree that CMake saw (wrong in a checkout that has no such neighbour).
#include <cstdlib>
#include <string>

inline std::string matrix_dir() {
    if (const char* d = std::getenv("SISKIN_MATRIX_DIR"); d && *d) return d;
    return SISKIN_SHARED_MATRICES;
}
