#pragma once
// The program driver: runs a program with `while` and `swap` (top-level control) as a sequence
// of kernels. Each run of plain statements between control statements is one kernel, compiled
// once for the program's tensors; the driver runs it as often as the loops say, keeps every
// tensor between kernels (an output read later sees its last value) and swaps tensors by
// exchanging them, never by copying.
//
// An output a kernel writes starts from its current value when the kernel can observe that
// value (its first statement there does not overwrite every element): in place when it is
// dense, else through a dense copy converted back after the kernel (docs/compiler.md).
#include <map>
#include <string>

#include "siskin/compiler.hpp"

namespace siskin::compiler {

/// compile_for's work for a program with top-level control (ir::Program::has_control()).
CompiledProgram compile_driven(const ir::Program& program,
                               const std::map<std::string, const Tensor*>& inputs,
                               const std::map<std::string, OutputSpec>& specs,
                               const CompileOptions& options);

/// Whether some assignment writes `output` through a sliced subscript (`y[i(1:7:2)] = ...`).
bool written_through_slice(const ir::Stmt& body, const std::string& output);

} // namespace siskin::compiler
