#pragma once
// A checked function as an Operator of the registry.
#include <memory>

#include "functions/code.hpp"
#include "siskin/functions.hpp"

namespace siskin::functions {

struct BuiltFunction {
    Operator op;
    std::shared_ptr<const Code> code;
};

/// Checks def and builds its operator (not registered).
BuiltFunction build_function(const FunctionDef& def);

/// An argument type is accepted where it converts to the parameter type without loss.
bool converts_without_loss(ValueType from, ValueType to);

} // namespace siskin::functions
