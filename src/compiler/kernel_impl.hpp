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

/// The kernel's record of the largest team its regions ran on (runtime/siskin_parallel.h).
inline constexpr const char* kLargestTeamSymbol = "siskin_largest_team";

struct Kernel::Impl {
    compiler::KernelPlan plan;
    codegen::JitResult jit;
    int (*entry)(RawBuffer**, const int64_t*) = nullptr;
    const int64_t* work_counter = nullptr; // with CompileOptions::count_work
    mutable std::atomic<int64_t> last_work{-1};
    int* largest_team = nullptr; // siskin_largest_team of runtime/siskin_parallel.h, with regions
    mutable std::atomic<int> last_kernel_team{0}, last_transpose_team{0};
    /// The threads the last run() used: `kernel`, the largest team any of the kernel's parallel
    /// regions ran on (1 when every loop ran on the calling thread alone: below the work
    /// threshold, one thread, or no parallel loop); `transposes`, the largest team of the
    /// counting-sort transposes run() made for it (transposed temporaries, routed outputs; 1 when
    /// each ran on one thread, 0 when it made none). Both 0 before the first run; with
    /// overlapping runs of one kernel, one of theirs. Tests tell a serial run from a parallel one
    /// by it.
    struct Threads {
        int kernel = 0;
        int transposes = 0;
    };
    Threads last_threads() const { return {last_kernel_team.load(), last_transpose_team.load()}; }
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
