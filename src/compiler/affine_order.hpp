#pragma once
// affine_order: a perfect nest (perfect_nest.hpp) that writes a dense output and reads a tensor
// with a level that is not dense through compound subscripts (`O[x,y] += I[x+i, y+j] * F[i,j]`
// with I in CSR) runs its reduction loops outside the output's: for each filter offset (i, j) the
// output loops walk the stored entries of I shifted by it, the convolution paper's "filter
// outermost" schedule, O(filter x stored entries) with streaming access, where output-first
// visits the non-empty windows of every row and seeks inside each. Every element still receives
// its terms in the same order (the output and reduction indices are disjoint), so results are
// unchanged. Dense inputs keep output-first (their output element stays in a register), and so
// do sparse outputs (they are appended in the output's order).
#include <map>
#include <string>

#include "siskin/compiler.hpp"
#include "siskin/ir/program.hpp"

namespace siskin::compiler {

ir::Program order_affine_nests(const ir::Program& program,
                               const std::map<std::string, TensorSignature>& signatures);

} // namespace siskin::compiler
