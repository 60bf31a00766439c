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
#include <string>
#include <vector>

#include "siskin/format.hpp"
#include "siskin/ir/program.hpp"
#include "siskin/reference.hpp"
#include "siskin/tensor.hpp"

namespace siskin {

Format output_format_following_data(const ir::Program& program, const std::string& output,
                                    const std::map<std::string, Format>& inputs);

/// Cheap statistics of a tensor's stored entries that differ from its fill: for each dimension,
/// how many entries have each coordinate (a matrix's row and column counts). One pass over the
/// entries.
struct TensorStatistics {
    std::vector<int64_t> shape;
    int64_t entries = 0;
    std::vector<std::vector<int64_t>> per_coordinate; // [dimension][coordinate]
    static TensorStatistics of(const Tensor& t);
};

/// One way to run a program: the program compiled for it (the original, or a rewrite that
/// computes the same outputs), the temporaries it adds as outputs (with their formats; they are
/// not results), and its estimated cost in multiply-adds plus entries written to temporaries.
struct PlanCandidate {
    std::string description;
    ir::Program program;
    std::map<std::string, OutputSpec> temporaries;
    double cost = 0;
};

/// The candidates the planner weighed, cheapest estimate first (`siskin explain` lists them,
/// `siskin run --plan N` runs one; run keeps the program as written otherwise). Today it
/// weighs the order of a chain of three matrix products `D[i,l] += A[i,j] * B[j,k] * C[k,l]`
/// (one fused nest, A*B first, or B*C first, each product through a CSR temporary), costed
/// from the operands' row and column counts (Gustavson's multiply-adds, exact for the first
/// product; the temporary's counts bounded by its shape). Any other program has one candidate,
/// itself, with cost 0 (not estimated).
struct Plan {
    std::vector<PlanCandidate> candidates;
};
Plan plan_program(const ir::Program& program, const std::map<std::string, const Tensor*>& inputs);

} // namespace siskin
