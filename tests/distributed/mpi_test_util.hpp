#pragma once
// Helpers of the MPI tests: the shared matrix folder, random matrices every rank builds alike,
// and comparisons on rank 0 of a gathered result with the serial one.
#include <mpi.h>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "siskin/distributed.hpp"
#include "siskin/error.hpp"
#include "siskin/tensor.hpp"

namespace siskin::distributed::testing {

inline int rank() {
    int r = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    return r;
}
inline int ranks() {
    int p = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    return p;
}

/// /work/shared/data/matrices beside the main checkout or a worktree (or $SISKIN_MATRIX_DIR),
/// or nothing when absent.
inline std::optional<std::string> shared_matrices() {
    std::vector<std::string> dirs{SISKIN_REPO_DATA_DIR "/../../shared/data/matrices",
                                  SISKIN_REPO_DATA_DIR "/../../../shared/data/matrices"};
    if (const char* dir = std::getenv("SISKIN_MATRIX_DIR")) dirs.insert(dirs.begin(), dir);
    for (const auto& dir : dirs)
        if (std::filesystem::exists(dir + "/cage11.mtx")) return dir;
    return std::nullopt;
}

/// The .mtx files of the shared folder, sorted, and their sizes in bytes.
inline std::vector<std::pair<std::string, int64_t>> shared_matrix_files(const std::string& dir) {
    std::vector<std::pair<std::string, int64_t>> files;
    for (const auto& e : std::filesystem::directory_iterator(dir))
        if (e.path().extension() == ".mtx")
            files.emplace_back(e.path().string(), static_cast<int64_t>(e.file_size()));
    std::sort(files.begin(), files.end());
    return files;
}

/// A rows x cols matrix with about density * rows * cols entries of small integer values
/// (exact sums in any order), the same on every rank for one seed.
inline Tensor random_matrix(int64_t rows, int64_t cols, double density, unsigned seed,
                            const Format& format = Format::csr(), Scalar fill = Scalar::of(0.0)) {
    std::mt19937_64 gen(seed);
    std::uniform_real_distribution<double> u(0, 1);
    std::uniform_int_distribution<int> v(-4, 4);
    CoordinateList list;
    list.ndims = 2;
    for (int64_t i = 0; i < rows; ++i)
        for (int64_t j = 0; j < cols; ++j)
            if (u(gen) < density) {
                int w = v(gen);
                list.add(std::vector<int64_t>{i, j}, Scalar::of(double(w == 0 ? 5 : w)));
            }
    return Tensor::from_coordinates({rows, cols}, ValueType::Float64, fill, format, list);
}

/// The message of the siskin::Error that `work` throws, or "" when it throws none.
template <class Work> std::string error_of(Work&& work) {
    try {
        work();
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}

/// A vector of n exactly representable values.
inline Tensor test_vector(int64_t n) {
    std::vector<Scalar> values;
    for (int64_t i = 0; i < n; ++i) values.push_back(Scalar::of(1.0 + static_cast<double>(i % 7) / 8));
    return Tensor::from_dense({n}, ValueType::Float64, Scalar::of(0.0), Format::dense(1), values);
}

/// Dense-semantics equality within a relative tolerance (the distributed sums round in another
/// order than the serial kernel's). `scale`: the same sums over absolute values, where terms
/// cancel (the rounding error is relative to them, not to the result).
inline ::testing::AssertionResult close(const Tensor& got, const Tensor& want, double tolerance = 1e-12,
                                        const Tensor* scale = nullptr) {
    if (got.shape() != want.shape()) return ::testing::AssertionFailure() << "shapes differ";
    std::vector<Scalar> a = got.to_dense(), b = want.to_dense(), c;
    if (scale) c = scale->to_dense();
    for (size_t k = 0; k < a.size(); ++k) {
        if (a[k].is_nan() && b[k].is_nan()) continue;
        double x = a[k].as_double(), y = b[k].as_double();
        if (x == y) continue;
        double size = scale ? std::abs(c[k].as_double()) : std::max(std::abs(x), std::abs(y));
        if (!(std::abs(x - y) <= tolerance * std::max(1.0, size)))
            return ::testing::AssertionFailure() << "element " << k << ": " << x << " != " << y;
    }
    return ::testing::AssertionSuccess();
}

} // namespace siskin::distributed::testing
