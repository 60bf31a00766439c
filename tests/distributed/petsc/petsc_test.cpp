// The PETSc export and import (include/siskin/petsc.hpp): PETSc's MatMult on an exported matrix
// equals siskin's distributed SpMV on the same partition, a matrix comes back from PETSc equal,
// a matrix PETSc assembled itself imports equal to the entries set, and what PETSc cannot hold is
// refused on every rank alike. Built into the MPI tests when SISKIN_PETSC is on.
#include <petscksp.h>
#include <petscmat.h>

#include <set>

#include "mpi_test_util.hpp"
#include "siskin/compiler.hpp"
#include "siskin/io.hpp"
#include "siskin/petsc.hpp"

namespace siskin::distributed::testing {
namespace {

// PETSc lives between MPI_Init and MPI_Finalize (mpi_main.cpp), around every test here.
class PetscEnvironment : public ::testing::Environment {
public:
    void SetUp() override { ASSERT_EQ(PetscInitializeNoArguments(), 0); }
    void TearDown() override { ASSERT_EQ(PetscFinalize(), 0); }
};
const auto* const environment = ::testing::AddGlobalTestEnvironment(new PetscEnvironment);

// PETSc's y = A x over siskin's x, against siskin's SpMV: local entries within rounding (the
// two sum each row in their own order, with or without fused multiply-adds).
void check_mat_mult(const DistributedMatrix& a, double tolerance = 1e-12) {
    PetscMatrix p(a);
    Tensor x = test_vector(a.shape()[1]);
    DistributedVector dx = DistributedVector::scatter(rank() == 0 ? &x : nullptr, a.columns());
    DistributedVector dy = DistributedVector::constant(a.rows(), Scalar::of(0.0));
    {
        PetscVector px(dx), py(dy);
        ASSERT_EQ(MatMult(p.mat(), px.vec(), py.vec()), 0);
    }
    DistributedVector want = spmv(a, dx);
    EXPECT_TRUE(close(dy.local(), want.local(), tolerance));
    PetscInt rows = 0, cols = 0;
    MatGetSize(p.mat(), &rows, &cols);
    EXPECT_EQ(rows, a.shape()[0]);
    EXPECT_EQ(cols, a.shape()[1]);
}

// Export, import, and the gathered matrix equals the original.
void check_round_trip(const DistributedMatrix& a) {
    PetscMatrix p(a);
    DistributedMatrix back = from_petsc(p.mat());
    EXPECT_TRUE(back.rows() == a.rows());
    EXPECT_TRUE(back.columns() == a.columns());
    EXPECT_EQ(back.column_map(), a.column_map());
    std::optional<Tensor> want = a.gather(0, Format::csr()), got = back.gather(0, Format::csr());
    if (rank() == 0) {
        ASSERT_TRUE(want && got);
        // Values went through float64, which the test matrices hold exactly.
        EXPECT_TRUE(got->equals(*want));
    }
}

TEST(Petsc, ExportedMatricesMultiplyAsSiskin) {
    for (const char* local : {"csr", "coo", "dense", "dcsr"}) {
        SCOPED_TRACE(local);
        DistributeOptions options;
        options.local_format = Format::parse(local, 2);
        for (auto [rows, cols] : std::vector<std::pair<int64_t, int64_t>>{{1, 4}, {3, 5}, {40, 40}, {37, 23}, {0, 3}}) {
            SCOPED_TRACE(std::to_string(rows) + "x" + std::to_string(cols));
            Tensor a = random_matrix(rows, cols, 0.3, static_cast<unsigned>(rows * 17 + cols));
            DistributedMatrix da = DistributedMatrix::scatter(rank() == 0 ? &a : nullptr, MPI_COMM_WORLD, options);
            check_mat_mult(da);
            check_round_trip(da);
        }
    }
}

TEST(Petsc, PatternAndIntegerMatricesExportAsNumbers) {
    // A pattern leaf's stored entries are 1 to PETSc; int32 values convert exactly.
    CoordinateList list;
    list.ndims = 2;
    for (int64_t i = 0; i < 9; ++i) list.add(std::vector<int64_t>{i, (i * 4) % 9}, Scalar::of(int32_t(i + 1)));
    Tensor ints = Tensor::from_coordinates({9, 9}, ValueType::Int32, Scalar::of(int32_t(0)), Format::csr(), list);
    Tensor pattern = Tensor::from_coordinates({9, 9}, ValueType::Bool, Scalar::of(false),
                                              Format::parse("dense(0)/sparselist(1)/pattern", 2), list);
    for (const Tensor* t : {&ints, &pattern}) {
        DistributedMatrix da = DistributedMatrix::scatter(rank() == 0 ? t : nullptr, MPI_COMM_WORLD);
        PetscMatrix p(da);
        PetscReal norm = 0;
        ASSERT_EQ(MatNorm(p.mat(), NORM_1, &norm), 0);
        // Column sums: ints place i + 1 at column 4i mod 9, one per column; the pattern's are 1.
        EXPECT_EQ(norm, t == &ints ? 9.0 : 1.0);
    }
}

TEST(Petsc, MatricesAssembledByPetscImport) {
    // PETSc builds its own partition and garray; the import equals the entries set.
    const PetscInt n = 23;
    Mat m = nullptr;
    ASSERT_EQ(MatCreateAIJ(PETSC_COMM_WORLD, PETSC_DECIDE, PETSC_DECIDE, n, n, 3, nullptr, 3, nullptr, &m), 0);
    PetscInt begin = 0, end = 0;
    MatGetOwnershipRange(m, &begin, &end);
    CoordinateList list;
    list.ndims = 2;
    for (PetscInt i = 0; i < n; ++i)
        for (PetscInt j : std::set<PetscInt>{i, (i * 7 + 3) % n, n - 1 - i}) {
            double v = double(i + 2 * j + 1);
            list.add(std::vector<int64_t>{i, j}, Scalar::of(v));
            if (i >= begin && i < end) MatSetValue(m, i, j, v, INSERT_VALUES);
        }
    ASSERT_EQ(MatAssemblyBegin(m, MAT_FINAL_ASSEMBLY), 0);
    ASSERT_EQ(MatAssemblyEnd(m, MAT_FINAL_ASSEMBLY), 0);
    DistributedMatrix got = from_petsc(m);
    std::optional<Tensor> whole = got.gather(0);
    if (rank() == 0) {
        Tensor want = Tensor::from_coordinates({n, n}, ValueType::Float64, Scalar::of(0.0), Format::csr(), list);
        ASSERT_TRUE(whole);
        EXPECT_TRUE(whole->equals(want));
    }
    Vec x = nullptr, y = nullptr;
    MatCreateVecs(m, &x, &y);
    VecSet(x, 1.0);
    MatMult(m, x, y);
    DistributedVector dy = from_petsc(y);
    DistributedVector ones = DistributedVector::constant(got.columns(), Scalar::of(1.0));
    EXPECT_TRUE(close(dy.local(), spmv(got, ones).local()));
    VecDestroy(&x);
    VecDestroy(&y);
    MatDestroy(&m);
}

TEST(Petsc, KrylovSolverRunsOnAnExportedMatrix) {
    // The 1-D Laplacian (2 on the diagonal, -1 beside it), solved by conjugate gradients on the
    // exported matrix, in the memory of siskin's vectors: then A x = b by siskin's own SpMV.
    const int64_t n = 50;
    CoordinateList list;
    list.ndims = 2;
    for (int64_t i = 0; i < n; ++i) {
        list.add(std::vector<int64_t>{i, i}, Scalar::of(2.0));
        if (i > 0) list.add(std::vector<int64_t>{i, i - 1}, Scalar::of(-1.0));
        if (i + 1 < n) list.add(std::vector<int64_t>{i, i + 1}, Scalar::of(-1.0));
    }
    Tensor laplacian = Tensor::from_coordinates({n, n}, ValueType::Float64, Scalar::of(0.0), Format::csr(), list);
    DistributedMatrix a = DistributedMatrix::scatter(rank() == 0 ? &laplacian : nullptr, MPI_COMM_WORLD);
    PetscMatrix p(a);
    DistributedVector b = DistributedVector::constant(a.rows(), Scalar::of(1.0));
    DistributedVector x = DistributedVector::constant(a.columns(), Scalar::of(0.0));
    {
        PetscVector pb(b), px(x);
        KSP ksp = nullptr;
        ASSERT_EQ(KSPCreate(PETSC_COMM_WORLD, &ksp), 0);
        KSPSetOperators(ksp, p.mat(), p.mat());
        KSPSetType(ksp, KSPCG);
        PC pc = nullptr;
        KSPGetPC(ksp, &pc);
        PCSetType(pc, PCNONE);
        KSPSetTolerances(ksp, 1e-12, 1e-50, PETSC_DEFAULT, 1000);
        ASSERT_EQ(KSPSolve(ksp, pb.vec(), px.vec()), 0);
        KSPConvergedReason reason;
        KSPGetConvergedReason(ksp, &reason);
        EXPECT_GT(reason, 0);
        KSPDestroy(&ksp);
    }
    EXPECT_TRUE(close(spmv(a, x).local(), b.local(), 1e-8));
}

TEST(Petsc, SharedMatricesMultiplyAsSiskin) {
    std::optional<std::string> dir = shared_matrices();
    if (!dir) GTEST_SKIP() << "no shared matrix folder";
    for (const char* name : {"bcsstk13", "cage11"}) {
        std::string path = *dir + "/" + name + ".mtx";
        if (!std::filesystem::exists(path)) continue;
        SCOPED_TRACE(path);
        // bcsstk13's rows cancel to 1e-5 of their terms: 1e-9 of the result is ~1e-14 of the terms.
        check_mat_mult(DistributedMatrix::read(path, MPI_COMM_WORLD), 1e-9);
    }
}

TEST(Petsc, WhatPetscCannotHoldIsRefusedOnEveryRank) {
    Tensor a = random_matrix(6, 6, 0.5, 3, Format::csr(), Scalar::of(1.0));
    DistributedMatrix filled = DistributedMatrix::scatter(rank() == 0 ? &a : nullptr, MPI_COMM_WORLD);
    EXPECT_EQ(error_of([&] { PetscMatrix p(filled); }),
              "to PETSc: the matrix's fill is 1; PETSc's unstored entries are 0");
    DistributedVector ints = DistributedVector::constant(filled.rows(), Scalar::of(int64_t(1)));
    EXPECT_EQ(error_of([&] { PetscVector v(ints); }),
              "to PETSc: a vector shared with PETSc must be dense float64, not int64 dense(0)@32");
}

} // namespace
} // namespace siskin::distributed::testing
