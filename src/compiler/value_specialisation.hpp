#pragma once
// Run-time specialisation of a loop on a value it reads but does not index (Finch's
// SparseScalar, notes/finch.md §1.6, cases 30 and 32). Some folds depend on a value that is
// only known when the kernel runs:
//   - a 0-d tensor at its fill (s[] == 0): `s[] * x[i]` is 0 without reading x;
//   - a float that is neither NaN nor -inf: `d[i] + W[i, j]` is inf where W holds its fill inf,
//     so min= over W's fill regions changes nothing (Bellman-Ford's d holds inf at unreached
//     vertices, so d is not finite and the compile-time rule cannot apply);
//   - a float v that is finite: `v * F[...]` is 0 where F holds its fill 0, and F's fill regions
//     fold away. v is a read of a tensor not known finite (a chain's temporary T in
//     `D[i,l] += T[i,k] * C[k,l]`) or an operator on values bound outside the loop (the fused
//     chain's `A[i,j] * B[j,k]`, finite factors whose product may overflow), which is first
//     bound to a local.
// The loop is then emitted twice, `if (test) { loop, the value known } else { loop }`, and the
// simplifier removes what the known value makes dead in the first copy. Each value is tested
// once per path, and at most kMaxTestedValues tests enclose any code, so the code grows by a
// bounded factor.
#include <optional>
#include <string>

#include "lowering/lower_ctx.hpp"
#include "lowering/lower_ir.hpp"
#include "compiler/vocabulary.hpp"

namespace siskin::compiler {

inline constexpr size_t kMaxTestedValues = 2;

/// A test on one value read by a loop, and the loop with the value known where it holds.
struct ValueSpecialisation {
    std::string value; // the value's C text (LowerCtx::tested_values)
    cast::Expr test;
    LStmt known;     // the loop where the test holds
    LStmt otherwise; // the loop where it does not (the loop itself, or reading the local)
};

/// The first value of `loop` worth a test: a C value (bound outside the loop, read inside it)
/// that is an argument of an operator whose other argument reads a tensor with a fill that the
/// test lets the simplifier fold, or an operator on such values (bound to a local here, before
/// the test). Values inside a Select case or a Hoist (read only where their condition holds)
/// are not tested.
std::optional<ValueSpecialisation> value_specialisation(LowerCtx& ctx, const LStmt& loop);

} // namespace siskin::compiler
