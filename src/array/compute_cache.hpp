#pragma once
// What compute() compiled, kept per kind of expression: an expression computed again (the same
// operations over tensors of the same formats, types, fills and shapes) skips building its
// program, generating C and looking the kernel up, and only runs the kernel.
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "siskin/array.hpp"

namespace siskin::array_detail {

/// The kind of an expression: its nodes in order (what each is, shapes, types, fills, operators,
/// views, which nodes and tensors recur) with each tensor's signature in place of the tensor,
/// and the tensors it reads, in the order the key first names them.
struct ExpressionKey {
    std::string text;
    std::vector<const Tensor*> tensors;
};

/// The key of `root` computed into `format` with `options` (the compile options and the
/// environment variables that shape a kernel included); nothing when they ask for something
/// compute() should not reuse (interpretation, work counting, pass dumps).
std::optional<ExpressionKey> expression_key(const Array& root, const Format& format,
                                            const ComputeOptions& options);

/// A compiled expression: its program's inputs (by name, each the index of a tensor of the
/// key) and the compiled program. `convert_to_format`: the kernel writes a dense result,
/// converted to the asked format after each run (a format the kernel cannot write).
struct CachedCompute {
    std::vector<std::pair<std::string, size_t>> inputs;
    std::string result;
    CompiledProgram compiled;
    bool convert_to_format = false;
};

/// A compiled expression of this key whose finite-only inputs are finite now (scanned once per
/// tensor whose memory siskin alone writes); nothing when none fits.
std::shared_ptr<const CachedCompute> find_compiled(const ExpressionKey& key);
/// Keeps `compiled` for `key` (the most recent few kinds of expressions; thread safe).
void keep_compiled(const ExpressionKey& key, std::shared_ptr<const CachedCompute> compiled);

/// The tensors of `compiled`'s program by name, taken from the key's tensors.
std::map<std::string, const Tensor*> bind_inputs(const CachedCompute& compiled, const ExpressionKey& key);

} // namespace siskin::array_detail
