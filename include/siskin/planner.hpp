#pragma once
// The planner: choices the compiler makes from the data rather than from the formats alone.
//
// output_format_following_data: the format of an output the user leaves open (`siskin run -o
// C=c.mtx`). The first input of the statement that writes the output and stores coordinates (a
// level other than dense) leads: an output over the same indices takes its levels in its index
// order (`C[i,j] = A[i,j] + B[i,j]` with a csc A gives a csc C, `C[i,j] = A[j,i]` a csr one); an
// output over other indices takes, for each of its indices the leader also has, the kind of the
// leader's level holding it (dense or sparselist), in the leader's order, then sparselist levels
// for the rest (`C[i,j] += A[i,k] * B[k,j]` with a csr A: csr; `y[i] += A[i,j] * x[j]` with a
// csr A: a dense y, as A's rows are). With no such input, or only dense levels, it is dense.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

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

/// The statistics of `t`, measured once per storage: a later call for a tensor over the same
/// buffers (their addresses and lengths, with the same shape, format and fill) returns the same
/// object without a scan. Values changed in place keep the statistics first measured (they are
/// estimates for the planner, never used for results). The 64 most recent are kept.
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
Plan plan_program(const ir::Program& program, const std::map<std::string, const Tensor*>& inputs,
                  const std::map<std::string, OutputSpec>& outputs = {});

} // namespace siskin
