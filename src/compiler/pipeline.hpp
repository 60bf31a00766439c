#pragma once
// The compiler's pipeline, as one list of named stages (pipeline.cpp, stages()) that plan_kernel
// runs in order, compiler_passes() names and the pass dump (pass_dump.hpp) shows:
//   lifecycle   read and update modes (passes/lifecycle.hpp): a statement that reads and updates
//               one tensor is an error; the dump shows the program with its @freeze/@thaw
//   output_order  an output written against its level order: loops reordered, or a temporary
//               in loop order that Kernel::run converts
//   workspaces  a reduction into a sparse output reordered to read in order, through a row
//               workspace where a reduction loop then runs between the output's indices
//   concordize  discordant reads of levels that cannot locate cheaply -> transposed temporaries
//   bind        tensors to the kernel ABI; the prologue that unpacks buffers and dimensions
//   convert     the program into the lowering tree (refusing what is not supported yet)
//   declare     every output's storage
//   parallel    the top-level loops whose iterations write disjoint parts of the outputs
//   lower       the looplet lowerer, loop by loop (lower.hpp)
//   freeze      every output's final buffer sizes
//   nested_ifs ... prefetch_fibres, split_accumulators   the C cleanups (codegen/c_optimize.hpp)
//   count_work  (CompileOptions::count_work) a counter in every loop body
//   parallel_loops  the marked loops as OpenMP regions (CompileOptions::threads above 1)
//   print       the C text: prelude include, operator helpers, the kernel function
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "compiler/bind.hpp"
#include "compiler/concordize.hpp"
#include "compiler/workspaces.hpp"
#include "compiler/convert.hpp"
#include "compiler/output_order.hpp"
#include "siskin/compiler.hpp"
#include "compiler/vocabulary.hpp"

namespace siskin::compiler {

struct KernelPlan {
    std::string c_source;
    bool openmp = false; // the source has parallel regions: compile it with -fopenmp
    int threads = 1;     // kernel_threads(CompileOptions::threads): also for its transposes
    std::vector<std::string> inputs, outputs;
    std::map<std::string, TensorSignature> signatures;
    std::vector<std::vector<DimRef>> dim_classes;
    std::vector<DimCheck> checks;
    std::vector<SliceCheck> slice_checks;
    std::vector<std::string> computed; // Converted::computed
    std::vector<AffineCheck> affine_checks;
    int num_buffers = 0;
    /// Output buffer slots whose room must be zero when the kernel starts (LowerCtx::zeroed_room).
    std::set<int> zeroed_room;
    /// Outputs the kernel may be handed as they were left by an earlier kernel (the program
    /// driver hands back a frontier vector): their buffers keep their sizes, and the kernel's
    /// declare clears only the entries they hold (a sparsebytemap vector's touched list).
    std::set<std::string> recycled_outputs;
    /// Temporaries Kernel::run builds from inputs before the call (inputs lists the temporaries,
    /// not their sources, where every read was redirected).
    std::vector<Transpose> transposes;
    /// Set when the program only copies one of them into an output of its signature: run moves
    /// the temporary there and calls no kernel.
    std::optional<ForwardedCopy> forwarded;
    /// Temporary outputs Kernel::run allocates (outputs lists them in ABI order; visible_outputs
    /// is outputs without them).
    std::vector<Workspace> workspaces;
    std::vector<std::string> visible_outputs;
    /// Temporary outputs written in loop order (output_order), among outputs; Kernel::run
    /// allocates each and converts it into its output after the call (visible_outputs and
    /// signatures list the output).
    std::vector<OutputRoute> routes;
};

/// The exported symbol of every kernel.
inline constexpr const char* kKernelSymbol = "siskin_kernel";

/// The kernel for these signatures, as CompileOptions says (its jit field aside).
KernelPlan plan_kernel(const ir::Program& program,
                       const std::map<std::string, TensorSignature>& signatures,
                       const CompileOptions& options = {});

} // namespace siskin::compiler
