#pragma once
// siskin's distributed matrices and vectors as PETSc objects, and back (built when CMake finds
// PETSc beside MPI, option SISKIN_PETSC; link the target siskin_petsc). A DistributedMatrix
// already holds what PETSc's MATMPIAIJ holds — per rank a diagonal block over the columns it owns
// and an off-diagonal block over the increasing remote columns it touches — so export is
// MatCreateMPIAIJWithSplitArrays over CSR copies of the two blocks, and import reads the two
// blocks of a MATMPIAIJ back:
//
//   PetscInitialize(&argc, &argv, nullptr, nullptr);     // after MPI_Init, before any call here
//   auto A = distributed::DistributedMatrix::read("big.mtx", PETSC_COMM_WORLD);
//   distributed::PetscMatrix P(A);                       // P.mat() is a MATMPIAIJ
//   KSPSetOperators(ksp, P.mat(), P.mat());              // any PETSc solver, same partition
//
// Every call is collective over the matrix's communicator. PETSc stores no fill: a matrix whose
// fill is not 0, a value type other than a real number, or a size that PetscInt cannot hold is
// refused with siskin::Error on every rank alike.
#include <petscmat.h>

#include "siskin/distributed.hpp"

namespace siskin::distributed {

/// A MATMPIAIJ made from a DistributedMatrix: owns the Mat and the arrays PETSc uses in place
/// (MatCreateMPIAIJWithSplitArrays copies none of them). The values are copies taken when it is
/// made, as float64: later changes to the siskin matrix are not seen.
class PetscMatrix {
public:
    explicit PetscMatrix(const DistributedMatrix& a);
    PetscMatrix(PetscMatrix&&) noexcept;
    PetscMatrix& operator=(PetscMatrix&&) noexcept;
    PetscMatrix(const PetscMatrix&) = delete;
    PetscMatrix& operator=(const PetscMatrix&) = delete;
    ~PetscMatrix();

    Mat mat() const { return mat_; }

private:
    struct Arrays;
    std::unique_ptr<Arrays> arrays_;
    Mat mat_ = nullptr;
};

/// A Vec over a float64 DistributedVector's local entries, in place (VecCreateMPIWithArray):
/// PETSc writes through to `x`, which must outlive it and keep its local tensor's buffer.
class PetscVector {
public:
    explicit PetscVector(DistributedVector& x);
    PetscVector(PetscVector&&) noexcept;
    PetscVector& operator=(PetscVector&&) noexcept;
    PetscVector(const PetscVector&) = delete;
    PetscVector& operator=(const PetscVector&) = delete;
    ~PetscVector();

    Vec vec() const { return vec_; }

private:
    Vec vec_ = nullptr;
};

/// The blocks of a MATMPIAIJ (or a MATSEQAIJ on one rank) as a DistributedMatrix with its
/// partition, float64 values, fill 0, in `local_format` (csr by default).
DistributedMatrix from_petsc(Mat a, std::optional<Format> local_format = std::nullopt);
/// A PETSc vector's local entries as a DistributedVector (copied) partitioned as the Vec.
DistributedVector from_petsc(Vec x);

} // namespace siskin::distributed
