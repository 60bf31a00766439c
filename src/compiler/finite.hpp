#pragma once
// Finiteness of inputs. A float x * 0 is 0 only when x is finite (0 * inf is NaN), so the
// simplifier may skip x where a sparse operand holds 0 only when x is known finite. Kernels are
// specialised on it: evaluate_compiled scans the inputs whose finiteness can matter.
#include <map>
#include <optional>
#include <set>
#include <string>

#include "siskin/ir/program.hpp"
#include "siskin/tensor.hpp"
#include "compiler/vocabulary.hpp"

namespace siskin {

/// Whether every stored value of t is finite (always, for non-float types).
bool finite_values(const Tensor& t);

/// The scan finite_values runs: whether none of v[0..n) is an infinity or a NaN, on the widest
/// vectors the CPU has; `widest` false: on the baseline x86-64's (so tests compare both).
bool none_infinite_or_nan(const double* v, int64_t n, bool widest = true);
bool none_infinite_or_nan(const float* v, int64_t n, bool widest = true);

namespace compiler {

/// The inputs worth scanning: operands of an operator whose annihilator holds for finite
/// values only (or of add and sub), next to an operand that may take a sparse level's fill
/// that such a rule folds with (the annihilator, an infinity; any value when the operand is
/// more than a plain read of an input), and those read by the right side of a reduction with
/// such an operator (it may exit early where they are finite). An input left out is compiled
/// as possibly not finite, which is always correct: the scan only lets the simplifier skip
/// more.
std::set<std::string> finiteness_matters(const ir::Program& program,
                                         const std::map<std::string, const Tensor*>& inputs);

/// The tensors that `name` is a plain copy of: when every statement that writes it is
/// `name[...] = X[...]` (the planner's explicit transposes, `B_t[k,j] = B[k,j]`), the Xs; nothing
/// when another statement writes it or a swap moves it. A copy of finite values of the same
/// type, with finite fills, is finite too, so reading it may skip 0 * x as reading X would.
std::optional<std::set<std::string>> copied_from(const ir::Program& program, const std::string& name);

} // namespace compiler
} // namespace siskin
