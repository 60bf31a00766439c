#pragma once
// Runs checked function code on Scalars: what the operator's evaluate() does, and so what the
// reference evaluator and fill inference compute. Loops count their iterations; passing the
// function's step limit is an Error (a body that never finishes must not hang the caller).
#include <span>

#include "functions/code.hpp"
#include "siskin/value.hpp"

namespace siskin::functions {

/// The function on `args`, already of the parameter types. The special cases are tried first
/// unless use_cases is false (the body alone, to check the cases against it).
Scalar interpret(const Code& code, std::span<const Scalar> args, bool use_cases = true);

/// Case `k`'s result on `args` (whether or not they match its constants).
Scalar interpret_case(const Code& code, size_t k, std::span<const Scalar> args);

} // namespace siskin::functions
