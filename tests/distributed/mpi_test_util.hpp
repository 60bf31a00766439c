#pragma once
// Helpers of the MPI tests: the shared matrix folder, random matrices every rank builds alike,
// and comparisons on rank 0 of a gathered result with the serial one.
#include <mpi.h>

#include <gtest/gtest.h>

#include <span>
#include <sstream>

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
    std::string reason;
    auto differs = [&](const Scalar& a, const Scalar& b, const Scalar* c, int64_t k) {
        if (a.is_nan() && b.is_nan()) return false;
        double x = a.as_double(), y = b.as_double();
        if (x == y) return false;
        double size = c ? std::abs(c->as_double()) : std::max(std::abs(x), std::abs(y));
        if (std::abs(x - y) <= tolerance * std::max(1.0, size)) return false;
        std::ostringstream out;
        out.precision(17);
        out << "element " << k << ": " << x << " != " << y;
        reason = out.str();
        return true;
    };
    int64_t elements = 1;
    for (int64_t extent : got.shape()) elements = extent == 0 ? 0 : elements * extent;
    bool same_fill = got.fill().same_value(want.fill()) && !got.fill().is_nan() &&
                     (!scale || scale->fill().same_value(got.fill()));
    if (elements <= (int64_t{1} << 22) || !same_fill) {
        std::vector<Scalar> a = got.to_dense(), b = want.to_dense(), c;
        if (scale) c = scale->to_dense();
        for (size_t k = 0; k < a.size(); ++k)
            if (differs(a[k], b[k], scale ? &c[k] : nullptr, static_cast<int64_t>(k)))
                return ::testing::AssertionFailure() << reason;
        return ::testing::AssertionSuccess();
    }
    // Too large to densify (a product of the shared matrices): walk the rows of both in CSR,
    // anything unstored being the common fill; `scale` stores every structural entry of both.
    if (got.shape().size() != 2)
        return ::testing::AssertionFailure() << "only matrices are compared without densifying";
    // Rows in CSR of any index width, copied into plain arrays (Buffer::get per entry would take
    // most of the test's time on products of tens of millions of entries).
    struct Rows {
        std::vector<int64_t> pos, crd;
        std::vector<double> values;
    };
    auto rows_of = [](const Tensor& t) {
        auto csr = [](const LevelSpec& l0, const LevelSpec& l1) {
            return l0.kind == "dense" && l0.modes == std::vector<int>{0} && l1.kind == "sparselist" &&
                   l1.modes == std::vector<int>{1};
        };
        const auto& levels = t.format().levels();
        std::optional<Tensor> converted;
        if (levels.size() != 2 || !csr(levels[0], levels[1])) converted = t.convert(Format::csr());
        const Tensor& m = converted ? *converted : t;
        auto ints = [](const Buffer& b) {
            std::vector<int64_t> out(static_cast<size_t>(b.size()));
            for (int64_t k = 0; k < b.size(); ++k)
                out[static_cast<size_t>(k)] = b.type() == ValueType::Int32 ? b.data<int32_t>()[k]
                                              : b.type() == ValueType::Int64 ? b.data<int64_t>()[k]
                                                                              : b.get(k).as_int();
            return out;
        };
        Rows r{ints(m.level(1).buffer("pos")), ints(m.level(1).buffer("crd")), {}};
        const Buffer& v = m.values();
        if (v.size() == static_cast<int64_t>(r.crd.size()) && v.type() == ValueType::Float64) {
            r.values.assign(v.data<double>(), v.data<double>() + v.size());
        } else { // a pattern leaf stores no values; other types convert one by one
            m.for_each_stored([&](std::span<const int64_t>, const Scalar& x) { r.values.push_back(x.as_double()); });
        }
        return r;
    };
    const Rows a = rows_of(got), b = rows_of(want), c = scale ? rows_of(*scale) : Rows{};
    const int64_t rows = got.shape()[0], cols = got.shape()[1];
    const Scalar fill = got.fill();
    for (int64_t i = 0; i < rows; ++i) {
        size_t x = a.pos[i], xe = a.pos[i + 1], y = b.pos[i], ye = b.pos[i + 1];
        size_t z = scale ? c.pos[i] : 0, ze = scale ? c.pos[i + 1] : 0;
        while (x < xe || y < ye) {
            int64_t col = std::min(x < xe ? a.crd[x] : cols, y < ye ? b.crd[y] : cols);
            Scalar u = fill, v = fill;
            if (x < xe && a.crd[x] == col) u = Scalar::of(a.values[x++]);
            if (y < ye && b.crd[y] == col) v = Scalar::of(b.values[y++]);
            while (z < ze && c.crd[z] < col) ++z;
            Scalar w = z < ze && c.crd[z] == col ? Scalar::of(c.values[z]) : fill;
            if (differs(u, v, scale ? &w : nullptr, i * cols + col)) return ::testing::AssertionFailure() << reason;
        }
    }
    return ::testing::AssertionSuccess();
}

} // namespace siskin::distributed::testing
