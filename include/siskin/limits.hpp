#pragma once
// Limits on what input may ask of siskin, each with an error that says its value and how to
// raise it.
#include <cstdint>
#include <optional>
#include <string>

namespace siskin {

/// A limit and where its value was decided ("the default", an environment variable, an option),
/// which the error that enforces it names.
struct Limit {
    int64_t value = 0;
    std::string origin;
};

/// The most dimensions a tensor, and a subscript list in a program, may have: 64 unless the
/// environment variable SISKIN_MAX_RANK says otherwise (read each call). Every pass over a tensor
/// or a loop nest is at least linear in the rank, and a file that declares thousands of
/// dimensions is almost surely not a tensor.
inline constexpr int64_t kDefaultMaxRank = 64;
int64_t max_rank();

/// Throws Error "<what> has N dimensions, more than the rank limit of 64 (the default); set
/// SISKIN_MAX_RANK to raise it" when ndims > max_rank().
void check_rank(int64_t ndims, const std::string& what);

/// The most steps the looplet lowerer may take for one kernel (each looplet case it lowers and
/// each C statement it emits is a step): `requested` when given (CompileOptions::lowering_budget,
/// `--lowering-budget`), else $SISKIN_LOWERING_BUDGET, else the default; 0 means no limit. A
/// program whose iteration space splits into many cases (a union of many shifted sparse reads)
/// can otherwise lower for minutes into megabytes of C. The default is about 5 MB of C (50 bytes
/// a step), above the JIT's SISKIN_MAX_C_BYTES: this limit bounds the work, that one the source.
inline constexpr int64_t kDefaultLoweringBudget = 100000;
Limit lowering_budget(std::optional<int64_t> requested = std::nullopt);

} // namespace siskin
