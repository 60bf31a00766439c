#pragma once
// Binding a program's tensors to the kernel ABI:
//
//   int siskin_kernel(siskin_buffer **buffers, const int64_t *dims);
//
// `buffers` lists, tensor by tensor (inputs in order of first appearance, then outputs in order
// of first assignment), each level's buffers in LevelStorage order and then the values buffer
// (none for a pattern leaf). `dims` lists every tensor's dimensions in the same tensor order,
// then one more element: the most threads the call may start (0: as many as the kernel was
// compiled for; Kernel::run gives 1 in a forked child, kernel_thread_cap()).
// The prologue unpacks each buffer once into a typed local (`const T *restrict` for inputs) and
// each dimension into a local; dimensions that the program ties together through a loop index
// share one local, so the prover sees them as one value (the host checks they agree).
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "lowering/lower_ctx.hpp"
#include "lowering/tensor_binding.hpp"
#include "siskin/compiler.hpp"
#include "siskin/ir/program.hpp"
#include "compiler/vocabulary.hpp"

namespace siskin::compiler {

struct DimRef {
    std::string tensor;
    int mode = 0;
};

struct KernelTensors {
    std::vector<std::string> inputs, outputs;
    std::map<std::string, std::unique_ptr<TensorBinding>> bindings;
    /// The end (exclusive) of every loop index whose range is inferred; it starts at 0 unless
    /// index_start says otherwise (an index sized by compound subscripts, affine_extents.hpp).
    std::map<std::string, cast::Expr> index_extent;
    std::map<std::string, cast::Expr> index_start;
    /// For every loop index with an inferred extent that a plain (unsliced) access ties to
    /// dimensions: one of them (the host compares sliced accesses' lengths with it).
    std::map<std::string, DimRef> index_dim;
    /// Groups of dimensions that must be equal at run time.
    std::vector<std::vector<DimRef>> dim_classes;
    int num_buffers = 0;
    int num_dims = 0; // dims[num_dims] is the call's thread cap

    const TensorBinding& at(const std::string& name) const { return *bindings.at(name); }
    /// Inputs then outputs.
    std::vector<std::string> order() const;
};

/// Checks the signatures, builds the bindings, and emits the prologue into ctx.
KernelTensors bind_tensors(LowerCtx& ctx, const ir::Program& program,
                           const std::map<std::string, TensorSignature>& signatures);

} // namespace siskin::compiler
