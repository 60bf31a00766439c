#pragma once
// Work-count instrumentation (CompileOptions::count_work): every execution of a loop body in the
// generated C adds one to an exported counter, which Kernel::last_work() reads after a run.
#include "codegen/c_ast.hpp"
#include "compiler/vocabulary.hpp"

namespace siskin::compiler {

/// The exported C global that counts loop-body executions of the last run.
inline constexpr const char* kWorkCounterSymbol = "siskin_work_count";

/// The definition of the counter, as C text to place before the kernel function.
const char* work_counter_definition();

/// `body` (the kernel's Block) with the counter reset first and incremented at the start of
/// every for and while body, however deeply nested.
cast::Stmt count_loop_bodies(const cast::Stmt& body);

} // namespace siskin::compiler
