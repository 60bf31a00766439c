#pragma once
// The compiler: a program specialised to the formats of its tensors, lowered through looplets to
// C, compiled by the system C compiler and run on the tensors' buffers.
//
//   auto y = siskin::evaluate_compiled(program, {{"A", &A}, {"x", &x}});   // like the reference
//
//   auto k = siskin::compile(program, {{"A", TensorSignature::of(A)}, {"x", ...}, {"y", ...}});
//   auto outputs = k->prepare({{"y", {n}}});
//   k->run({{"A", &A}, {"x", &x}}, outputs);
//
// A kernel is specialised to formats (index widths included), value types and fill values, which
// decide its iteration space, but not to shapes: one kernel serves every matrix of the same
// formats. Programs the compiler cannot handle yet are refused with Error(Unsupported), never
// run wrongly.
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "siskin/codegen/jit.hpp"
#include "siskin/format.hpp"
#include "siskin/ir/program.hpp"
#include "siskin/reference.hpp"
#include "siskin/tensor.hpp"
#include "siskin/value.hpp"

namespace siskin {

/// What a kernel is specialised to for one tensor.
struct TensorSignature {
    Format format;           // every level's index width set (32 or 64)
    ValueType type = ValueType::Float64;
    Scalar fill;
    int ndims = 0;
    /// Inputs: every stored value is finite (no inf or NaN). Lets the simplifier use the
    /// annihilators that only hold for finite values (0 * x = 0). Kernel::run checks it.
    bool finite = false;
    /// Outputs: the kernel starts from the values the output tensor holds when run() is called
    /// instead of setting every element to the fill, so a program that writes a window of it
    /// (`y[i(1:7:2)] = x[i]`) leaves the rest as it was and `+=` adds onto it. Dense outputs with
    /// an element leaf only (compile() refuses others with Error(Unsupported)). Not compared by
    /// matches(): it is how the kernel treats the tensor, not what the tensor is.
    bool keep_contents = false;

    /// The signature of an existing tensor; `finite` is computed (a scan of its values) when
    /// check_finite is set, else false.
    static TensorSignature of(const Tensor& t, bool check_finite = false);
    bool matches(const TensorSignature& other) const;
    std::string to_string() const;
};

struct CompileOptions {
    codegen::JitOptions jit;
    /// Instrument the generated C: every execution of a loop body (each `for` and `while`
    /// iteration, at every nesting depth) adds one to a counter that Kernel::last_work()
    /// reports after run(). A binary search in a prelude helper (a `follow` read, a seek) counts
    /// as no iteration of its own. Meant for tests and profiling: it slows the kernel a little,
    /// and concurrent runs of one instrumented kernel share the counter.
    bool count_work = false;
    /// Print what this stage of the pipeline leaves (a name from compiler_passes(), or "all") to
    /// stderr; "list" prints the stage names. Unset: $SISKIN_DUMP_AFTER, if set and not empty.
    std::optional<std::string> dump_after = {};
    /// The most steps lowering one kernel may take (siskin::lowering_budget in limits.hpp: each
    /// looplet case lowered and each C statement emitted is one); 0: no limit. Unset:
    /// $SISKIN_LOWERING_BUDGET, if set and not empty, else kDefaultLoweringBudget. Past it,
    /// compiling stops with an Error that names the budget and how to raise it.
    std::optional<int64_t> lowering_budget = {};
    /// The largest position (entry count) an output level with 32-bit indices may hold. A kernel
    /// whose output outgrows it stops with an error before storing a position that does not fit;
    /// CompiledProgram::run then retries with 64-bit indices where no width was requested.
    /// Tests lower it to reach that path with small tensors.
    int64_t max_position_32 = INT32_MAX;
    /// Reductions along a fibre with a float operator the registry declares associative and
    /// commutative (`y[i] += A[i,j] * x[j]`) keep four partial results, one for every fourth
    /// entry, combined at the end of the fibre: a float sum is otherwise one chain of dependent
    /// adds (4 cycles each), and long rows run up to twice as fast. The result then rounds
    /// differently from the in-order sum of the reference evaluator, as any reassociated float
    /// sum does (numpy's pairwise sum, BLAS); false keeps the order. Integer reductions are exact
    /// either way.
    bool reassociate = true;
    /// The threads a kernel runs on (0: kernel_threads() decides). Above 1, the outermost loop
    /// whose iterations write disjoint parts of the outputs (SpMV's rows, SpMM's, a dense
    /// elementwise result's) runs as one chunk per thread, chunks balanced by the entries they
    /// walk; a loop of less work than parallel_min_work runs on one thread. Each row is computed
    /// as in a serial run, so such results do not depend on the thread count. A reduction into a
    /// scalar output with an associative, commutative operator keeps a partial per thread,
    /// folded in chunk order (floats only with `reassociate`: the bits then depend on the thread
    /// count, never on the run). The count is part of the kernel: a kernel for 2 threads is
    /// another cache entry than the one for 1.
    int threads = 0;
    /// The least work (iterations plus the entries they walk) for which a parallel loop starts
    /// its threads: starting them costs about as much as a loop of this size. Tests lower it to
    /// run small inputs in parallel.
    int64_t parallel_min_work = 32768;
};

/// The threads a kernel compiled with `requested` threads runs on: `requested` when above 0,
/// else $SISKIN_NUM_THREADS when set (a whole number from 1 to 1024; anything else is an error
/// naming the variable), else the machine's cores.
int kernel_threads(int requested);

/// The names of the compiler's stages, in the order plan_kernel runs them (the same list).
std::vector<std::string> compiler_passes();

class Kernel {
public:
    struct Impl;
    explicit Kernel(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}
    const Impl& impl() const { return *impl_; } // for the compiler's own code

    /// The generated C.
    const std::string& c_source() const;
    /// Inputs, then outputs, in the order of the kernel's buffers. Inputs include the transposed
    /// temporaries Kernel::run builds (concordize); outputs leave out its workspaces.
    const std::vector<std::string>& inputs() const;
    const std::vector<std::string>& outputs() const;
    const TensorSignature& signature(const std::string& tensor) const;
    /// Whether the shared object came from the cache, and the C compiler's time (0 on a hit).
    codegen::CacheStatus cache() const;
    double compile_ms() const;
    /// Loop-body executions of the last run() (see CompileOptions::count_work); -1 when the
    /// kernel was compiled without count_work or has not run yet.
    int64_t last_work() const;

    /// Empty output tensors of the given shapes, in the output signatures, ready for run(). An
    /// output compiled with keep_contents starts from the fill unless its values are set before
    /// run() (e.g. replaced by `start.convert(signature(name).format)`).
    std::map<std::string, Tensor> prepare(const std::map<std::string, std::vector<int64_t>>& shapes) const;
    /// Runs the kernel. Inputs must match their signatures (checked, finiteness included) and
    /// agree on shared dimensions; outputs must come from prepare() (their contents are
    /// replaced), or for keep_contents outputs be dense tensors of their signature whose values
    /// the kernel starts from and updates in place. Throws Error on any mismatch, or when the kernel cannot allocate memory.
    void run(const std::map<std::string, const Tensor*>& inputs,
             std::map<std::string, Tensor>& outputs) const;

private:
    std::shared_ptr<const Impl> impl_;
};

/// Kernel runs in this process since it started (every Kernel::run, and the runs compute(),
/// evaluate_compiled and compiled conversions make): how tools and tests show that a fused
/// expression runs one kernel, not one per operator.
int64_t kernel_runs();

/// Compiles `program` for tensors of the given signatures (every input and every output).
std::shared_ptr<const Kernel> compile(const ir::Program& program,
                                      const std::map<std::string, TensorSignature>& tensors,
                                      const CompileOptions& options = {});

/// The C that compile() would build, without compiling it (options: only dump_after is used).
std::string generate_c(const ir::Program& program,
                       const std::map<std::string, TensorSignature>& tensors,
                       const CompileOptions& options = {});

/// Same contract as evaluate_reference (reference.hpp): outputs' shapes, types and fills are
/// inferred the same way, and the format defaults to dense. Output levels without an index
/// width get 32 bits when every dimension fits them, else 64; an output whose entries then
/// outgrow 32-bit positions is built again with 64-bit indices.
std::map<std::string, Tensor> evaluate_compiled(const ir::Program& program,
                                                const std::map<std::string, const Tensor*>& inputs,
                                                const std::map<std::string, OutputSpec>& outputs = {},
                                                const CompileOptions& options = {});

/// The compile half of evaluate_compiled: the kernel for these inputs and output specs, and the
/// output shapes, so that a caller can run it several times (e.g. to time the kernel alone).
struct CompiledProgram {
    std::shared_ptr<const Kernel> kernel;
    std::map<std::string, std::vector<int64_t>> output_shapes;
    /// Outputs with a start tensor (OutputSpec::start): their starting values, in the dense
    /// format the kernel writes them in (a copy made once; the start tensor is never modified).
    std::map<std::string, Tensor> starts;
    /// Outputs in a format the kernel cannot write as the program asks: a start tensor's format
    /// with a sparse level or a pattern leaf (a kernel updates dense outputs in place only), or a
    /// sparse output written through a slice. Computed dense, then converted to this format
    /// after each run (entries equal to the fill dropped, as the reference evaluator does).
    std::map<std::string, Format> convert_after;
    /// Set when some output got 32-bit indices without asking for them: compiles the same
    /// program with 64-bit indices there, for run() to use when that output outgrows them.
    std::function<std::shared_ptr<const Kernel>()> widen;
    /// Set for a program with `while` or `swap`, which runs as several kernels (the program
    /// driver, docs/compiler.md): run() calls it, and `kernel` is the program's first kernel
    /// (its compile statistics stand for the program's).
    std::function<std::map<std::string, Tensor>(const std::map<std::string, const Tensor*>&)> driven;
    /// The inputs the kernel was compiled for finite values of (found finite when compiling,
    /// and scanned only because the kernel may rely on it, e.g. to skip 0 * x).
    std::set<std::string> finite_inputs;
    /// Runs the kernel on the inputs it was compiled for (their finiteness was checked when
    /// compiling, so it is not scanned again) and returns fresh outputs.
    std::map<std::string, Tensor> run(const std::map<std::string, const Tensor*>& inputs) const;
    /// Whether every input in finite_inputs still holds finite values only: what a caller that
    /// runs the kernel again on other (or changed) tensors checks first. A tensor whose memory
    /// siskin alone writes is scanned once (Buffer::known_finite).
    bool inputs_finite(const std::map<std::string, const Tensor*>& inputs) const;
};
CompiledProgram compile_for(const ir::Program& program,
                            const std::map<std::string, const Tensor*>& inputs,
                            const std::map<std::string, OutputSpec>& outputs = {},
                            const CompileOptions& options = {});

/// The signatures for compiling `program` when only the inputs' signatures are known (no
/// tensors, no shapes; `siskin c`): output types and fills inferred as evaluate_compiled does,
/// output formats from `outputs` (default dense), unset index widths set to `index_bits`.
std::map<std::string, TensorSignature> infer_signatures(
    const ir::Program& program, const std::map<std::string, TensorSignature>& inputs,
    const std::map<std::string, OutputSpec>& outputs = {}, int index_bits = 32);

/// Format conversion as a compiled copy program `B[i,j,...] = A[i,j,...]`, its loops in the
/// target's level order (so any target level that appends in order can be written), the source
/// read along them (a discordant sparse read uses the level's random access; a coo source read
/// against its order goes through a transposed temporary). Every level and leaf can be written:
/// dense, sparselist, sparsebytemap (last level only), runlist (runs merged, a run of the source
/// stored once), sparseband, coo, element and pattern. Where the compiler still refuses the copy
/// with Error(Unsupported) (a sparsebytemap above another level), the runtime Tensor::convert
/// does the work instead.
/// Same result as Tensor::convert: type, fill and shape kept, stored entries equal to the fill
/// dropped.
struct Conversion {
    Tensor tensor;
    bool compiled = false;      // false: Tensor::convert did it
    std::string fallback_reason; // the compiler's refusal when !compiled
};
Conversion convert_compiled(const Tensor& source, const Format& target,
                            const CompileOptions& options = {});
/// convert_compiled(source, target, options).tensor
Tensor convert(const Tensor& source, const Format& target, const CompileOptions& options = {});

} // namespace siskin
