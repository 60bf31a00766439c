#pragma once
// Which loops of a kernel may run in parallel: the `parallel` stage of the pipeline marks them
// in the lowering tree, the `lower` stage finds the C loop each became, and the C pass
// cast::parallelize_loops (codegen/c_optimize.hpp) makes that loop an OpenMP region.
#include <map>
#include <string>

#include "lowering/lower_ir.hpp"
#include "lowering/tensor_binding.hpp"
#include "compiler/vocabulary.hpp"

namespace siskin::compiler {

/// A top-level statement's outermost loop whose iterations write disjoint parts of the outputs.
struct ParallelMark {
    std::string index; // the loop's index
    /// Where a read walks a fibre per iteration (an input whose first level is dense and indexed
    /// by the loop, with positions at the level below: CSR's pos): chunks balance its entries.
    const BufferBinding* weight = nullptr;
};

/// For each top-level statement k of `body` (a Block of them, or one statement) that is a loop
/// over index i writing only outputs whose levels are all dense, each at an element whose first
/// subscript is i itself, and reading no output: iteration i then writes row i of every output
/// and reads nothing another iteration writes, so iterations may run in any order. Statement k
/// maps to its mark; unmarked statements run serially.
std::map<size_t, ParallelMark> mark_parallel_loops(const LStmt& body);

/// The marks as the pass dump shows them, one line per marked statement.
std::string print_marks(const std::map<size_t, ParallelMark>& marks);

} // namespace siskin::compiler
