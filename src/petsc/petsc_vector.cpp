// A DistributedVector as a PETSc Vec over the same memory, and a Vec's entries back
// (include/siskin/petsc.hpp).
#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "petsc/petsc_call.hpp"
#include "siskin/petsc.hpp"

namespace siskin::distributed {

PetscVector::PetscVector(DistributedVector& x) {
    MPI_Comm comm = x.layout().comm();
    collectively(comm, [&] {
        require_petsc("to PETSc");
        const Tensor& local = x.local();
        const auto& levels = local.format().levels();
        if (local.type() != ValueType::Float64 || levels.size() != 1 || levels[0].kind != "dense")
            throw Error(fmt::format("to PETSc: a vector shared with PETSc must be dense float64, not {} {}",
                                    type_name(local.type()), local.format().to_string()));
    });
    Buffer& values = x.local().values();
    // A write through PETSc must land in memory the vector owns (Buffer::borrow's memory is
    // read-only to siskin); resizing to the same size makes a borrowed buffer its own.
    values.resize(values.size());
    petsc_call(VecCreateMPIWithArray(comm, 1, static_cast<PetscInt>(x.layout().local_size()),
                                     static_cast<PetscInt>(x.layout().size()), values.data<double>(), &vec_),
               "VecCreateMPIWithArray");
}

PetscVector::PetscVector(PetscVector&& o) noexcept : vec_(std::exchange(o.vec_, nullptr)) {}

PetscVector& PetscVector::operator=(PetscVector&& o) noexcept {
    std::swap(vec_, o.vec_);
    return *this;
}

PetscVector::~PetscVector() {
    if (vec_) VecDestroy(&vec_);
}

DistributedVector from_petsc(Vec x) {
    require_petsc("from PETSc");
    MPI_Comm comm = MPI_COMM_NULL;
    petsc_call(PetscObjectGetComm(reinterpret_cast<PetscObject>(x), &comm), "PetscObjectGetComm");
    PetscInt n = 0;
    petsc_call(VecGetLocalSize(x, &n), "VecGetLocalSize");
    RowPartition layout = RowPartition::from_local_sizes(n, comm);
    Tensor local({0}, ValueType::Float64, Scalar::of(0.0), Format::dense(1));
    collectively(comm, [&] {
        const PetscScalar* values = nullptr;
        petsc_call(VecGetArrayRead(x, &values), "VecGetArrayRead");
        Buffer buffer(ValueType::Float64, n);
        for (PetscInt k = 0; k < n; ++k) buffer.data<double>()[k] = PetscRealPart(values[k]);
        petsc_call(VecRestoreArrayRead(x, &values), "VecRestoreArrayRead");
        local = Tensor::from_storage({n}, ValueType::Float64, Scalar::of(0.0), Format::dense(1), {{}},
                                     std::move(buffer));
    });
    return DistributedVector(std::move(layout), std::move(local));
}

} // namespace siskin::distributed
