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
#include <map>
#include <string>

#include "siskin/format.hpp"
#include "siskin/ir/program.hpp"

namespace siskin {

Format output_format_following_data(const ir::Program& program, const std::string& output,
                                    const std::map<std::string, Format>& inputs);

} // namespace siskin
