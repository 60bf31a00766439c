#pragma once
// PETSc's error codes as siskin::Error: a call that fails names itself and PETSc's message.
#include <petscsys.h>

#include <fmt/format.h>

#include "siskin/error.hpp"

namespace siskin::distributed {

inline void petsc_call(PetscErrorCode code, const char* what) {
    if (code == 0) return;
    const char* text = nullptr;
    PetscErrorMessage(code, &text, nullptr);
    throw Error(fmt::format("PETSc: {} failed: {}", what, text ? text : "unknown error"));
}

/// Every call here needs PetscInitialize first (after MPI_Init); say so rather than let PETSc
/// fail deep inside.
inline void require_petsc(const char* what) {
    PetscBool initialized = PETSC_FALSE;
    PetscInitialized(&initialized);
    if (!initialized) throw Error(fmt::format("{}: call PetscInitialize (after MPI_Init) first", what));
}

} // namespace siskin::distributed
