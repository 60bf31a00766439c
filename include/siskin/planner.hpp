#pragma once
// The planner: choices the compiler makes from the data rather than from the formats alone.
//
// output_format_following_data: the format of an output the user leaves open (`siskin run -o
// C=c.mtx`). The first input of the statement that writes the output and stores coordinates (a
// level other than dense) leads: an output over the same indices takes its levels in its index
// order (`C[i,j] = A[i,j] + B[i,j]` with a csc A gives a csc C, `C[i,j] = A[j,i]` a csr one); an
// output over other indices takes each of its indices' level kind (dense or sparselist) from the
// first operand holding that index, the leader first, ordered by the level's depth in its operand,
// and sparselist levels for indices no operand holds (`C[i,j] += A[i,k] * B[k,j]`: csr from csr
// inputs, csc from csc ones, dense when B is dense; `y[i] += A[i,j] * x[j]` with a csr A: a dense
// y, as A's rows are). With no such input, or only dense levels, it is dense.
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "siskin/compiler.hpp"
#include "siskin/format.hpp"
#include "siskin/ir/program.hpp"
#include "siskin/reference.hpp"
#include "siskin/tensor.hpp"

namespace siskin {

Format output_format_following_data(const ir::Program& program, const std::string& output,
                                    const std::map<std::string, Format>& inputs);

/// Cheap statistics of a tensor's stored entries that differ from its fill, from one pass over
/// them: for each dimension, how many entries have each coordinate (a matrix's row and column
/// counts); for each storage position (levels flattened, the format's order), how many distinct
/// prefixes end there (a CSR matrix: its non-empty rows, then its entries) and the longest
/// fibre (the most children one prefix has).
struct TensorStatistics {
    std::vector<int64_t> shape;
    int64_t entries = 0;
    /// [dimension][coordinate]; empty when a dimension is longer than 2^24 and 4 x stored().
    std::vector<std::vector<int64_t>> per_coordinate;
    bool counted() const { return per_coordinate.size() == shape.size(); }
    std::vector<int64_t> level_entries, max_fibre;    // [storage position]
    /// The mean number of children of a non-empty prefix one storage position up.
    double mean_fibre(size_t level) const;
    static TensorStatistics of(const Tensor& t);
};

/// The statistics of `t`, measured once per content: a later call for a tensor whose buffers
/// hold the same bytes (a hash of each, with the same shape, format and fill) returns the same
/// object without a scan; other contents at the same addresses (a tensor freed and another
/// allocated there, entries changed in place) are measured anew. The 64 most recent are kept.
std::shared_ptr<const TensorStatistics> statistics_of(const Tensor& t);

/// One way to run a program: the program compiled for it (the original, or a rewrite that
/// computes the same outputs), the temporaries it adds as outputs (with their formats; they are
/// not results), its estimated cost (expected memory touches: loop steps, bodies, searches,
/// transposed entries, output writes) and that cost's terms as text.
struct PlanCandidate {
    std::string description;
    ir::Program program;
    std::map<std::string, OutputSpec> temporaries;
    double cost = 0;
    std::string formula;
};

/// The candidates the planner weighed, cheapest estimate first (`siskin explain` lists them,
/// `siskin run` runs the first, `--plan N` another, `--as-written` the program itself).
///
/// - A chain of three matrix products `D[i,l] += A[i,j] * B[j,k] * C[k,l]`: one fused nest, A*B
///   first or B*C first (each product through a CSR temporary), costed from the operands' row
///   and column counts.
/// - Any other einsum statement with implied loops (up to five, plain subscripts, inputs given):
///   its loop orders that keep the reduction loops' written order (every candidate sums each
///   element in the same order), each read the order reaches against its levels either
///   transposed or searched (`follow`), a sparse output written in order, through a row
///   workspace or through a dense temporary; for a matrix product these are the inner-product,
///   Gustavson and outer-product strategies. Costed by src/planner/nest_cost.cpp from the
///   inputs' per-coordinate counts (src/planner/README.md has the formula); the program as
///   written is among them, and the eight cheapest others are kept.
/// - Any other program (written loops: the user's order wins) has one candidate, itself, with
///   cost 0 (not estimated).
///
/// `outputs` are the output specs the program will run with (their formats matter: a sparse
/// output written against the loops needs a workspace or a temporary).
struct Plan {
    std::vector<PlanCandidate> candidates;
};
///
/// `loops_are_free`: the program's loops, even written ones over whole extents (`for i in 0:n`
/// where the reads make i run over 0:n), were chosen by a tool, not a user, so the planner may
/// reorder them as it does implied loops (the lazy arrays' programs, src/array).
struct PlanOptions {
    bool loops_are_free = false;
};
Plan plan_program(const ir::Program& program, const std::map<std::string, const Tensor*>& inputs,
                  const std::map<std::string, OutputSpec>& outputs = {}, const PlanOptions& options = {});

/// Which plan runs: the cheapest estimate (plan 0, the default), the program as written (the
/// compiler's own choices), or plan `candidate` of plan_program's list (to check the model).
struct PlanChoice {
    bool as_written = false;
    std::optional<size_t> candidate;
};

/// The candidate `choice` names; the program itself (described "as written") for as_written.
/// Error when the candidate is past the list, or when both are given.
PlanCandidate choose_plan(const Plan& plan, const ir::Program& program, const PlanChoice& choice);

/// A program compiled through the plan `choice` names: the chosen candidate's program compiled
/// for the inputs, with its temporaries as outputs of their own; run() returns the program's
/// outputs only.
struct PlannedProgram {
    PlanCandidate chosen;
    CompiledProgram compiled;
    std::map<std::string, Tensor> run(const std::map<std::string, const Tensor*>& inputs) const;
};
/// plan_program, then compile_for on the chosen candidate (only that one is compiled). A plan
/// depends on the inputs' statistics, not only on their formats: a caller that runs the result
/// on other tensors of the same formats runs the plan chosen for these (correct, maybe slower).
PlannedProgram compile_planned(const ir::Program& program, const std::map<std::string, const Tensor*>& inputs,
                               const std::map<std::string, OutputSpec>& outputs = {},
                               const CompileOptions& options = {}, const PlanChoice& choice = {},
                               const PlanOptions& plan_options = {});
/// evaluate_compiled through the planner: the outputs evaluate_compiled gives for `program`
/// (its contract: inferred shapes, types and fills, dense by default), computed by the chosen
/// plan (by default the cheapest estimate; evaluate_compiled itself runs the program as written).
std::map<std::string, Tensor> evaluate_planned(const ir::Program& program,
                                               const std::map<std::string, const Tensor*>& inputs,
                                               const std::map<std::string, OutputSpec>& outputs = {},
                                               const CompileOptions& options = {}, const PlanChoice& choice = {});

} // namespace siskin
