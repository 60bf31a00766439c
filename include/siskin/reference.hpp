#pragma once
// The dense reference evaluator: the test oracle. It runs any program with dense semantics,
// visiting every coordinate and reading unstored elements as the fill; simple enough to be
// obviously right, never fast.
#include <map>
#include <optional>
#include <vector>
#include <string>

#include "siskin/ir/program.hpp"
#include "siskin/tensor.hpp"

namespace siskin {

/// What an output should look like. Unset parts are inferred: shape from the loop extents,
/// type from the assigned values, fill from the program applied to the input fills (the
/// reduction operator's identity for outputs only reduced into), format dense.
struct OutputSpec {
    std::optional<Format> format;
    std::optional<Scalar> fill;
    std::optional<ValueType> type;
    std::optional<std::vector<int64_t>> shape;
    /// The output starts as this tensor's values instead of all fill, as NumPy's `Y[1:7:2] = x`
    /// or `Y[2:4, :] += B` update an existing array: a program that writes a window of the
    /// output (`Y[i(1:7:2)] = x[i]`) changes only that window, and a reduction (`+=`, `min=`)
    /// combines onto the existing values. Shape, type and fill are the start tensor's (a
    /// different shape, type or fill above is an Error naming both); the format is `format`
    /// when given, else the start tensor's. The start tensor is only read (never modified) and
    /// must outlive the call. To read the old values in the program as well, pass the same
    /// tensor as an input under another name.
    const Tensor* start = nullptr;
};

/// Runs `program` on `inputs`, returning every output by name.
std::map<std::string, Tensor> evaluate_reference(const ir::Program& program,
                                                 const std::map<std::string, const Tensor*>& inputs,
                                                 const std::map<std::string, OutputSpec>& outputs = {});

} // namespace siskin
