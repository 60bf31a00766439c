// Distributed elementwise programs, reductions and SpGEMM against the serial kernels: random
// matrices in several local formats (fewer rows than ranks too), and the shared matrices.
#include "mpi_test_util.hpp"

#include <cmath>

#include "siskin/compiler.hpp"
#include "siskin/io.hpp"
#include "siskin/ir/text.hpp"

namespace siskin::distributed::testing {
namespace {

std::map<std::string, Tensor> serial(const std::string& text, const std::map<std::string, const Tensor*>& inputs,
                                     std::optional<Format> format = std::nullopt) {
    std::map<std::string, OutputSpec> specs;
    ir::Program p = ir::parse_program(text);
    if (format) specs[p.outputs().front()].format = *format;
    return evaluate_compiled(p, inputs, specs);
}

DistributedMatrix scattered(const Tensor& t, const Format& local = Format::csr()) {
    DistributeOptions options;
    options.local_format = local;
    return DistributedMatrix::scatter(rank() == 0 ? &t : nullptr, MPI_COMM_WORLD, options);
}

const std::vector<std::pair<int64_t, int64_t>> kShapes{{1, 3}, {3, 3}, {5, 2}, {31, 31}, {24, 40}};

TEST(DistributedElementwise, EqualsTheSerialProgram) {
    for (const char* local : {"csr", "coo", "dense"}) {
        for (auto [m, n] : kShapes) {
            SCOPED_TRACE(std::string(local) + " " + std::to_string(m) + "x" + std::to_string(n));
            Tensor a = random_matrix(m, n, 0.3, static_cast<unsigned>(m + 7 * n));
            Tensor b = random_matrix(m, n, 0.2, static_cast<unsigned>(m + 11 * n));
            DistributedMatrix da = scattered(a, Format::parse(local, 2)), db = scattered(b, Format::parse(local, 2));
            for (const char* text : {"C[i,j] = A[i,j] + B[i,j]", "C[i,j] = A[i,j] * B[i,j]",
                                     "C[i,j] = max(A[i,j], B[i,j]) + 1"}) {
                SCOPED_TRACE(text);
                DistributedMatrix c = elementwise(ir::parse_program(text), {{"A", &da}, {"B", &db}});
                std::optional<Tensor> whole = c.gather(0);
                if (rank() == 0) {
                    Tensor want = serial(text, {{"A", &a}, {"B", &b}}, Format::csr()).at("C");
                    ASSERT_TRUE(whole);
                    EXPECT_TRUE(whole->fill().same_value(want.fill()));
                    EXPECT_TRUE(close(*whole, want));
                }
            }
        }
    }
}

TEST(DistributedReductions, EqualTheSerialProgram) {
    for (const char* local : {"csr", "dcsr"}) {
        for (auto [m, n] : kShapes) {
            SCOPED_TRACE(std::string(local) + " " + std::to_string(m) + "x" + std::to_string(n));
            // Negative values and unstored zeros: max and min must count the fill where a row
            // (or the matrix) has an unstored element.
            Tensor a = random_matrix(m, n, 0.4, static_cast<unsigned>(3 * m + n));
            Tensor b = random_matrix(m, n, 0.9, static_cast<unsigned>(5 * m + n));
            DistributedMatrix da = scattered(a, Format::parse(local, 2)), db = scattered(b, Format::parse(local, 2));
            for (const char* text : {"s[] += A[i,j]", "s[] max= A[i,j]", "s[] min= A[i,j] * B[i,j]",
                                     "s[] max= A[i,j] - 9"}) {
                SCOPED_TRACE(text);
                Tensor got = reduce(ir::parse_program(text), {{"A", &da}, {"B", &db}});
                Tensor want = serial(text, {{"A", &a}, {"B", &b}}).at("s");
                EXPECT_TRUE(close(got, want)); // on every rank
            }
            for (const char* text : {"r[i] += A[i,j]", "r[i] max= A[i,j]", "r[i] min= A[i,j] + B[i,j]"}) {
                SCOPED_TRACE(text);
                std::optional<Tensor> got = reduce_rows(ir::parse_program(text), {{"A", &da}, {"B", &db}}).gather(0);
                if (rank() == 0) {
                    EXPECT_TRUE(close(*got, serial(text, {{"A", &a}, {"B", &b}}).at("r")));
                }
            }
            double frobenius = norm_frobenius(da), inf = norm_inf(da);
            std::vector<Scalar> dense = a.to_dense();
            double squares = 0, largest_row = 0;
            for (int64_t i = 0; i < m; ++i) {
                double row = 0;
                for (int64_t j = 0; j < n; ++j) {
                    double v = dense[static_cast<size_t>(i * n + j)].as_double();
                    squares += v * v;
                    row += std::abs(v);
                }
                largest_row = std::max(largest_row, row);
            }
            EXPECT_DOUBLE_EQ(frobenius, std::sqrt(squares));
            EXPECT_DOUBLE_EQ(inf, largest_row);
        }
    }
}

TEST(DistributedSpgemm, EqualsTheSerialProduct) {
    const char* text = "C[i,j] += A[i,k] * B[k,j]";
    for (const char* local : {"csr", "coo"}) {
        for (auto [m, k, n] : std::vector<std::tuple<int64_t, int64_t, int64_t>>{
                 {1, 2, 3}, {3, 3, 3}, {2, 5, 4}, {30, 30, 30}, {25, 40, 17}}) {
            SCOPED_TRACE(std::string(local) + " " + std::to_string(m) + "x" + std::to_string(k) + "x" + std::to_string(n));
            Tensor a = random_matrix(m, k, 0.2, static_cast<unsigned>(m * k)), b = random_matrix(k, n, 0.2, static_cast<unsigned>(k * n + 1));
            DistributedMatrix da = scattered(a, Format::parse(local, 2)), db = scattered(b, Format::parse(local, 2));
            std::optional<Tensor> c = spgemm(da, db).gather(0);
            if (rank() == 0) {
                EXPECT_TRUE(close(*c, serial(text, {{"A", &a}, {"B", &b}}, Format::csr()).at("C")));
            }
        }
    }
}

// Every shared matrix: sum, max and row sums, and its product with itself (A*A, or A*A^T where
// A is not square), compared entry by entry with the serial kernels' results.
TEST(DistributedOperations, SharedMatrices) {
    std::optional<std::string> dir = shared_matrices();
    if (!dir) GTEST_SKIP() << "no shared matrix folder";
    for (const auto& [path, bytes] : shared_matrix_files(*dir)) {
        SCOPED_TRACE(path);
        DistributedMatrix a = DistributedMatrix::read(path, MPI_COMM_WORLD);
        std::optional<Tensor> s;
        if (rank() == 0) s = read_matrix_market(path);
        for (const char* text : {"s[] += A[i,j]", "s[] max= A[i,j]"}) {
            Tensor got = reduce(ir::parse_program(text), {{"A", &a}});
            if (rank() == 0) {
                Tensor scale = serial("s[] += abs(A[i,j])", {{"A", &*s}}).at("s");
                EXPECT_TRUE(close(got, serial(text, {{"A", &*s}}).at("s"), 1e-12, &scale)) << text;
            }
        }
        std::optional<Tensor> rows = row_sums(a).gather(0);
        if (rank() == 0) {
            Tensor scale = serial("r[i] += abs(A[i,j])", {{"A", &*s}}).at("r");
            EXPECT_TRUE(close(*rows, serial("r[i] += A[i,j]", {{"A", &*s}}).at("r"), 1e-12, &scale));
        }
        bool square = a.shape()[0] == a.shape()[1];
        std::optional<Tensor> t;
        if (rank() == 0 && !square) t = serial("T[j,i] = A[i,j]", {{"A", &*s}}, Format::csr()).at("T");
        std::optional<DistributedMatrix> transposed;
        if (!square) transposed = DistributedMatrix::scatter(t ? &*t : nullptr, MPI_COMM_WORLD, {});
        std::optional<Tensor> c = spgemm(a, square ? a : *transposed).gather(0);
        if (rank() == 0) {
            const Tensor& b = square ? *s : *t;
            Tensor scale = serial("C[i,j] += abs(A[i,k] * B[k,j])", {{"A", &*s}, {"B", &b}}, Format::csr()).at("C");
            Tensor want = serial("C[i,j] += A[i,k] * B[k,j]", {{"A", &*s}, {"B", &b}}, Format::csr()).at("C");
            EXPECT_TRUE(close(*c, want, 1e-12, &scale));
        }
    }
}

} // namespace
} // namespace siskin::distributed::testing
