#pragma once
// Checks a program against the tensors it will run on: arity of accesses and operator calls,
// value types, index use (an index used outside its loop, a loop index shadowed, a let variable
// used as a coordinate where it is not an integer), and extents (every access indexed by i agrees
// on i's extent). Problems are reported as Error in the user's terms, with the program position.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "siskin/ir/program.hpp"
#include "siskin/value.hpp"

namespace siskin::ir {

struct TensorInfo {
    std::vector<int64_t> shape;
    /// Always given for inputs; for an output, none leaves its type to inference.
    std::optional<ValueType> type = ValueType::Float64;
};

struct VerifiedProgram {
    /// Extent of every loop index: the number of values it takes. `for i` runs i over
    /// 0..extents[i]-1 (inferred from the tensors i indexes directly, as in A[i], which must all
    /// agree); `for i in lo:hi` runs over lo..hi-1, extents[i] = hi - lo, starts[i] = lo. Every
    /// loop over the same index name has the same range (the verifier rejects programs where
    /// they differ), so one entry per name is enough.
    std::map<std::string, int64_t> extents;
    /// First value of every loop index: 0 unless the program gives `lo:hi`.
    std::map<std::string, int64_t> starts;
    /// Value type of every output (given in `tensors`, or inferred from what is assigned to it:
    /// promoted across assignments; `y op= e` has op's result type on y and e; float64 for an
    /// output that is only ever assigned values read from itself).
    std::map<std::string, ValueType> output_types;
    /// Shape of every output (given in `tensors`, or inferred: dimension k of y has size hi of
    /// the loop whose index appears directly at position k of an access to y).
    std::map<std::string, std::vector<int64_t>> output_shapes;
};

/// `tensors` names every input and, optionally, outputs whose shape/type the caller fixes.
/// Output shapes not given are inferred from the extents of the indices that write them.
VerifiedProgram verify(const Program& p, const std::map<std::string, TensorInfo>& tensors);

} // namespace siskin::ir
