#pragma once
// Declared iteration spaces (FunctionDef::space): checking the parsed set expression against
// the parameters, evaluating it where only some arguments are known (three-valued: the
// compiler knows the arguments that are constants, such as a fill), and the function's one
// value outside it.
#include <optional>
#include <span>
#include <vector>

#include "functions/ast.hpp"
#include "functions/code.hpp"
#include "siskin/functions.hpp"

namespace siskin::functions {

/// The checked tree of `space`: names must be parameters of def, constants values of their
/// types, and the operators | || & && ^ ! == != only. Throws Error with line:column.
SpaceNode check_space(const FunctionDef& def, const Space& space);

/// Whether the point is in the space; `args` in the parameters' types, nullopt where unknown.
/// nullopt when the unknown arguments decide it.
std::optional<bool> space_contains(const SpaceNode& space,
                                   std::span<const std::optional<Scalar>> args);

/// The constants the space compares parameter `param` with, each once, in order.
std::vector<Scalar> space_constants(const SpaceNode& space, int param);

/// A point outside the function's space and the function's value there: the space's
/// constants are tried first (so with `x | y` the point is all zeros); nullopt when the space
/// has no outside. Throws Error when the function fails at that point.
struct Outside {
    std::vector<Scalar> point;
    Scalar value;
};
std::optional<Outside> outside_value(const Code& code);

} // namespace siskin::functions
