#pragma once
// The operands of a masked vector product y = A x in the two semirings the tests run it over:
// (or, and) on bools, fill false, and (min, +) on doubles, fill +inf (tplus, whose annihilator
// +inf lets a row skip x's missing entries). A is CSR, x a sparsebytemap vector read at A's
// coordinates (x[follow(j)]), as bench/peers' masked_mxv holds them.
#include <limits>
#include <string>

#include "compiler_test_util.hpp"

namespace siskin::testing {

/// The (min, +) semiring's "+" with +inf as its annihilator (bench/peers/workloads.py).
inline const std::string kTropicalPlus = "def tplus(a: float64, b: float64) -> float64 [commutative, associative, "
                                         "identity(0.0), annihilator(inf)] { return a + b }\n";

/// A vector of n elements in `format` holding the entries of c.
inline Tensor vector_of(int64_t n, ValueType type, const Scalar& fill, const std::string& format,
                        const CoordinateList& c) {
    return Tensor::from_coordinates({n}, type, fill, Format::parse(format, 1), c);
}

struct MaskedVectorOperands {
    Tensor Ab, Aw; // n x n CSR: bools (fill false), weights (fill +inf)
    Tensor Xb, Xw; // n, sparsebytemap(0): bools, weights
};

/// A from the entries ab (bools) and aw (weights), x from xb and xw.
inline MaskedVectorOperands masked_vector_operands(int64_t n, const CoordinateList& ab, const CoordinateList& aw,
                                                   const CoordinateList& xb, const CoordinateList& xw) {
    const double inf = std::numeric_limits<double>::infinity();
    return {Tensor::from_coordinates({n, n}, ValueType::Bool, Scalar::of(false), Format::csr(), ab),
            Tensor::from_coordinates({n, n}, ValueType::Float64, Scalar::of(inf), Format::csr(), aw),
            vector_of(n, ValueType::Bool, Scalar::of(false), "sparsebytemap(0)", xb),
            vector_of(n, ValueType::Float64, Scalar::of(inf), "sparsebytemap(0)", xw)};
}

} // namespace siskin::testing
