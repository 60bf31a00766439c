#pragma once
// The inside of a Kernel: its plan, the loaded library and the entry point.
#include <atomic>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "compiler/pipeline.hpp"
#include "siskin/error.hpp"
#include "siskin/compiler.hpp"

namespace siskin {

/// The kernel stopped because an output level with 32-bit indices would have had to store a
/// position beyond CompileOptions::max_position_32 (SISKIN_ERR_INDEX_OVERFLOW of the prelude).
/// CompiledProgram::run catches it to retry with 64-bit indices.
class IndexOverflow : public Error {
public:
    using Error::Error;
};

/// The most threads a kernel call may start, passed as the last element of the kernel's `dims`:
/// 0 (as many as the kernel was compiled for), or 1 in the child of a fork, where libgomp's
/// thread pool is a copy without threads (kernel_threads.cpp) and only a team of one is safe.
int kernel_thread_cap();

struct Kernel::Impl {
    compiler::KernelPlan plan;
    codegen::JitResult jit;
    int (*entry)(RawBuffer**, const int64_t*) = nullptr;
    const int64_t* work_counter = nullptr; // with CompileOptions::count_work
    mutable std::atomic<int64_t> last_work{-1};
    /// The size each output buffer (ABI order) ended with in the last run. The next run starts
    /// with that much room, so a kernel run again on inputs of about the same size grows no
    /// output: no copies and no doubling slack, and the room can come from the pages of freed
    /// outputs (buffer_memory.hpp). Only a hint: outputs still grow when they need more.
    mutable std::mutex size_hints_mutex;
    mutable std::vector<int64_t> size_hints;

    /// Outputs for run() as prepare() makes them, but unbuilt (detail::unbuilt_tensor): run()
    /// declares every output it builds anew, so filling them first would be wasted. Outputs
    /// compiled with keep_contents must be replaced by their start before run().
    std::map<std::string, Tensor> unbuilt_outputs(
        const std::map<std::string, std::vector<int64_t>>& shapes) const;

    /// check_finite: verify the inputs compiled for finite values are (evaluate_compiled has
    /// just computed it and skips the second scan).
    void run(const std::map<std::string, const Tensor*>& inputs,
             std::map<std::string, Tensor>& outputs, bool check_finite) const;
};

} // namespace siskin
