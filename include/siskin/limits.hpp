#pragma once
// Limits on what input may ask of siskin, each with an error that says its value and how to
// raise it.
#include <cstdint>
#include <string>

namespace siskin {

/// The most dimensions a tensor, and a subscript list in a program, may have: 64 unless the
/// environment variable SISKIN_MAX_RANK says otherwise (read each call). Every pass over a tensor
/// or a loop nest is at least linear in the rank, and a file that declares thousands of
/// dimensions is almost surely not a tensor.
inline constexpr int64_t kDefaultMaxRank = 64;
int64_t max_rank();

/// Throws Error "<what> has N dimensions, more than the rank limit of 64 (the default); set
/// SISKIN_MAX_RANK to raise it" when ndims > max_rank().
void check_rank(int64_t ndims, const std::string& what);

} // namespace siskin
