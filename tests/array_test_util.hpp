#pragma once
// Compute options the lazy-array tests share: compiled into the tests' kernel cache, or through
// the reference evaluator (the oracle).
#include "compiler_test_util.hpp"
#include "siskin/array.hpp"

namespace siskin::testing {

inline ComputeOptions compiled() {
    ComputeOptions o;
    o.compile = test_options();
    return o;
}

inline ComputeOptions interpreted() {
    ComputeOptions o;
    o.interpret = true;
    return o;
}

} // namespace siskin::testing
