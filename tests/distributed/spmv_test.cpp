// Distributed SpMV against the serial kernel: random matrices (fewer rows than ranks too,
// several local formats), and every matrix of the shared folder read in parallel.
#include "mpi_test_util.hpp"

#include "siskin/compiler.hpp"
#include "siskin/io.hpp"
#include "siskin/ir/text.hpp"

namespace siskin::distributed::testing {
namespace {

// y = A x serially, on rank 0.
Tensor serial_spmv(const Tensor& a, const Tensor& x) {
    auto out = evaluate_compiled(ir::parse_program("y[i] += A[i,j] * x[j]"), {{"A", &a}, {"x", &x}});
    return out.at("y");
}

// Scatters A and x from rank 0, multiplies, and checks the gathered y and A on rank 0.
void check_spmv(const Tensor& a, const DistributeOptions& options) {
    DistributedMatrix da = DistributedMatrix::scatter(rank() == 0 ? &a : nullptr, MPI_COMM_WORLD, options);
    Tensor x = test_vector(a.shape()[1]);
    DistributedVector dx = DistributedVector::scatter(rank() == 0 ? &x : nullptr, da.columns());
    DistributedVector y = spmv(da, dx);
    std::optional<Tensor> whole = y.gather(0);
    std::optional<Tensor> back = da.gather(0);
    if (rank() == 0) {
        ASSERT_TRUE(whole && back);
        EXPECT_TRUE(close(*whole, serial_spmv(a, x)));
        EXPECT_TRUE(back->equals(a));
    } else {
        EXPECT_FALSE(whole || back);
    }
}

TEST(DistributedSpmv, RandomMatricesInSeveralLocalFormats) {
    for (const char* local : {"csr", "coo", "dense", "dcsr"}) {
        SCOPED_TRACE(local);
        DistributeOptions options;
        options.local_format = Format::parse(local, 2);
        for (auto [rows, cols] : std::vector<std::pair<int64_t, int64_t>>{{2, 2}, {3, 5}, {40, 40}, {37, 23}}) {
            SCOPED_TRACE(std::to_string(rows) + "x" + std::to_string(cols));
            check_spmv(random_matrix(rows, cols, 0.3, static_cast<unsigned>(rows * 31 + cols)), options);
        }
    }
}

TEST(DistributedSpmv, FewerRowsThanRanksAndEmptyMatrices) {
    check_spmv(random_matrix(1, 4, 1.0, 1), {});
    check_spmv(random_matrix(0, 3, 1.0, 2), {});
    check_spmv(random_matrix(3, 0, 1.0, 3), {});
    check_spmv(random_matrix(5, 5, 0.0, 4), {});
}

TEST(DistributedSpmv, BalancedSplitKeepsTheResult) {
    DistributeOptions options;
    options.split = RowSplit::BalancedEntries;
    // Dense rows first, then sparse ones: the balanced split moves the boundaries.
    Tensor a = random_matrix(60, 60, 0.05, 9);
    check_spmv(a, options);
}

TEST(DistributedSpmv, SharedMatricesReadInParallel) {
    std::optional<std::string> dir = shared_matrices();
    if (!dir) GTEST_SKIP() << "no shared matrix folder";
    for (const auto& [path, bytes] : shared_matrix_files(*dir)) {
        SCOPED_TRACE(path);
        DistributedMatrix a = DistributedMatrix::read(path, MPI_COMM_WORLD);
        std::optional<Tensor> serial;
        if (rank() == 0) serial = read_matrix_market(path);
        Tensor x = test_vector(a.shape()[1]);
        DistributedVector dx = DistributedVector::scatter(rank() == 0 ? &x : nullptr, a.columns());
        std::optional<Tensor> y = spmv(a, dx).gather(0);
        if (rank() == 0) {
            EXPECT_TRUE(close(*y, serial_spmv(*serial, x), 1e-10));
        }
    }
}

} // namespace
} // namespace siskin::distributed::testing
