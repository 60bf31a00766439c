#pragma once
// `m[..], k[..] argmin= e` and `argmax=`: the extreme of e over one reduced index and the first
// index that attains it (NumPy's argmin/argmax: the first of equal values; a NaN is the extreme,
// and the first NaN's index is the answer). The parser writes it as two einsum statements, each
// with its own implied loops, that every pass already knows:
//
//   m[..] min= e
//   k[..] min= ifelse(e == m[..] || e != e, j, 9223372036854775807)
//
// The second runs after the first has finished, so it compares with the final extreme. k starts
// at min's identity (the int64 maximum), which is also what an empty reduction leaves in it.
// Over a fill region the compiler needs no loop for either: min is idempotent, and the index
// term does not decrease with j, so its minimum over a run is at the run's start
// (src/simplify/collapse.hpp).
#include <memory>
#include <string>
#include <vector>

#include "siskin/ir/program.hpp"

namespace siskin::ir {

/// The two assignments (without loops) of `value, index argmin= e` (argmax when `max`), with
/// `reduced` the index whose position k records.
std::vector<std::shared_ptr<const Assign>> arg_reduction(std::shared_ptr<const Access> value,
                                                         std::shared_ptr<const Access> index,
                                                         bool max, const Expr& e,
                                                         const std::string& reduced, Position pos);
/// The same, recording the value of `position` (an expression of the reduced indices that
/// grows with their C order, such as the linear position `i*n + j` over two of them).
std::vector<std::shared_ptr<const Assign>> arg_reduction(std::shared_ptr<const Access> value,
                                                         std::shared_ptr<const Access> index,
                                                         bool max, const Expr& e,
                                                         const Expr& position, Position pos);

} // namespace siskin::ir
