#pragma once
// output_order: an output whose append-only level the loops would reach against its level order
// (`A[i,j] = -B[i,j]` into CSC: loops i, j, but CSC appends rows within a column) is written in
// an order it accepts, one of two ways:
//
//   reorder    a nest of loops without ranges around one assignment (an einsum statement) runs
//              the output's indices in its storage order instead, when that reads no more inputs
//              against their order than the written loops do (a reduction: when some order the
//              workspaces pass accepts then reads every input in order);
//   temporary  otherwise the program writes a temporary output `A_by01`, the output's levels
//              with their modes in loop order (CSR for CSC), and Kernel::run converts it into
//              the output after the kernel (Tensor::convert: a counting-sort transpose between
//              compressed formats) — one transpose of the result instead of one per input.
//
// A reduction whose loops keep more than one of the output's indices inside a reduction loop
// (the outer product `for k, i, j { C[i,j] += A[i,k] * B[k,j] }` into CSR, written so) would
// need a workspace as large as the output: it writes a dense temporary, converted the same way,
// unless the output takes writes in any order itself (sparsehash(0)/sparsehash(1): Finch's
// outer product through a hash workspace, O(entries) memory instead of the dense O(m n)).
//
// All keep the meaning: an output written once per element, in any order, ends the same.
#include <map>
#include <string>
#include <vector>

#include "siskin/compiler.hpp"
#include "siskin/ir/program.hpp"
#include "compiler/vocabulary.hpp"

namespace siskin::compiler {

/// A temporary output the kernel writes in loop order; Kernel::run converts it to `output`.
struct OutputRoute {
    std::string temp, output;
    TensorSignature signature; // the temporary's
};

struct OrderedOutputs {
    ir::Program program;
    std::map<std::string, TensorSignature> signatures; // the temporaries' added
    std::vector<OutputRoute> routes;
};

/// Whether writing `lhs` (an output stored in `format`) inside `loops` (outermost first) reaches
/// an append-only level of it after an index of a later level, or before an index of an earlier
/// one: the looplets append such a level in coordinate order only.
bool writes_discordantly(const ir::Access& lhs, const Format& format, const std::vector<std::string>& loops);

OrderedOutputs order_outputs(const ir::Program& program,
                             const std::map<std::string, TensorSignature>& signatures);

} // namespace siskin::compiler
