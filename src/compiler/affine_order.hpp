#pragma once
// affine_order: a perfect nest (perfect_nest.hpp) that writes a dense output and reads a tensor
// with a level that is not dense through compound subscripts (`O[x,y] += I[x+i, y+j] * F[i,j]`
// with I in CSR) takes its loop order from that tensor's levels: at an outer level its own index
// and then the offsets that move it (x, i: a row of the output stays in cache while the filter's
// rows pass over it), at the last level the offsets and then its index (j, y: each offset walks
// the fibre once, shifted, instead of visiting windows and seeking in each), then the other loops
// as written: x, i, j, y; the NHWC layer runs n, h, r, w, q, c, f. The reduction indices keep
// their order, so every element receives its terms in the same order and results are unchanged.
// Dense inputs keep output-first (their output element stays in a register), and so do sparse
// outputs (they are appended in the output's order).
#include <map>
#include <string>

#include "siskin/compiler.hpp"
#include "siskin/ir/program.hpp"

namespace siskin::compiler {

ir::Program order_affine_nests(const ir::Program& program,
                               const std::map<std::string, TensorSignature>& signatures);

} // namespace siskin::compiler
