#pragma once
// The compiler's pipeline, as one visible list (pipeline.cpp):
//   bind       tensors to the kernel ABI; the prologue that unpacks buffers and dimensions
//   convert    the program into the lowering tree (refusing what is not supported yet)
//   declare    every output's storage
//   lower      the looplet lowerer, loop by loop (lower.hpp)
//   freeze     every output's final buffer sizes
//   print      the C text: prelude include, operator helpers, the kernel function
// compiler_passes() names them; the pass dump (pass_dump.hpp) prints the program after each.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "compiler/bind.hpp"
#include "compiler/convert.hpp"
#include "siskin/compiler.hpp"

namespace siskin::compiler {

struct KernelPlan {
    std::string c_source;
    std::vector<std::string> inputs, outputs;
    std::map<std::string, TensorSignature> signatures;
    std::vector<std::vector<DimRef>> dim_classes;
    std::vector<DimCheck> checks;
    int num_buffers = 0;
};

/// The exported symbol of every kernel.
inline constexpr const char* kKernelSymbol = "siskin_kernel";

/// dump_after: CompileOptions::dump_after.
KernelPlan plan_kernel(const ir::Program& program,
                       const std::map<std::string, TensorSignature>& signatures,
                       const std::optional<std::string>& dump_after = std::nullopt);

} // namespace siskin::compiler
