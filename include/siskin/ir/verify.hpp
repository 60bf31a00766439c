#pragma once
// Checks a program against the tensors it will run on: arity of accesses and operator calls,
// value types, index use (an index used outside its loop, a loop index shadowed, a let variable
// used as a coordinate where it is not an integer), and extents (every access indexed by i agrees
// on i's extent). Problems are reported as Error in the user's terms, with the program position.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "siskin/ir/program.hpp"
#include "siskin/value.hpp"

namespace siskin::ir {

struct TensorInfo {
    std::vector<int64_t> shape;
    ValueType type = ValueType::Float64;
};

struct VerifiedProgram {
    /// Extent of every loop index (inferred, or checked against the given lo:hi).
    std::map<std::string, int64_t> extents;
    /// Value type of every output (given in `tensors`, or inferred from what is assigned to it).
    std::map<std::string, ValueType> output_types;
};

/// `tensors` names every input and, optionally, outputs whose shape/type the caller fixes.
/// Output shapes not given are inferred from the extents of the indices that write them.
VerifiedProgram verify(const Program& p, const std::map<std::string, TensorInfo>& tensors);

} // namespace siskin::ir
