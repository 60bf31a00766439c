#pragma once
// Test hooks of the JIT; not for use outside tests.

namespace siskin::codegen::testing {

/// Forgets every library jit_compile has loaded, so the next call behaves as in a new process
/// (a disk hit, or a compile). Libraries still referenced elsewhere stay loaded.
void forget_loaded_libraries();

} // namespace siskin::codegen::testing
