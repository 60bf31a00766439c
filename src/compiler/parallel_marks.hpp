#pragma once
// Which loops of a kernel may run in parallel: the `parallel` stage of the pipeline marks them
// in the lowering tree, the `lower` stage finds the C loop each became, and the C pass
// cast::parallelize_loops (codegen/c_optimize.hpp) makes that loop an OpenMP region.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "codegen/c_optimize.hpp"

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
    /// Scalar outputs every iteration reduces into with one associative and commutative
    /// operator that has an identity (`s[] += A[i,j]`): each thread reduces its chunk, and the
    /// partials are folded in chunk order.
    struct Reduction {
        const TensorBinding* tensor;
        const Operator* op;
        Scalar identity;
    };
    std::vector<Reduction> reductions;
    /// Outputs with dense levels only that the iterations reduce into at elements other than
    /// row i, with one associative and commutative operator that has an identity (a column sum,
    /// `y[j] += A[i,j]`: every row writes the whole vector): each thread but the first reduces
    /// into a copy of its own started from the identity, and after the chunks the copies are
    /// folded into the output in chunk order.
    std::vector<Reduction> partials;
    /// Outputs whose dense first level the loop indexes, over a level that appends fibres
    /// (LevelProperties::appends_fibres; CSR): iteration i appends fibre i, so each thread appends
    /// its chunk's fibres to buffers of its own, joined in chunk order after the loop. Also 1-D
    /// outputs with one such level that the loop indexes (a sparselist vector): iteration i
    /// appends at most element i.
    std::vector<const TensorBinding*> appended;
    /// Row workspaces (the workspaces pass) the loop both fills and reads: each iteration leaves
    /// them empty, so each thread works in its own copy.
    std::vector<const TensorBinding*> workspaces;
    /// A reduction nest inside may stop at its first annihilating term (early_exit.hpp: an
    /// or.and row stops at its first true): an iteration's work is then not its fibre's length,
    /// and the loop's work counts at most one entry per iteration (parallel_loop_of).
    bool stops_early = false;
};

/// For each top-level statement k of `body` (a Block of them, or one statement) that is a loop
/// over index i writing only outputs whose levels are all dense, each at an element whose first
/// subscript is i itself, or scalar outputs through one reduction (above), or dense outputs
/// through one reduction at other elements (partials, above), or outputs appended
/// fibre by fibre (above; no other statement writes them), or workspaces it also reads, and
/// reading no other output: iteration i then writes row i of every output and reads nothing
/// another iteration writes, so iterations may run in any order. Float reductions only when
/// `reassociate` (CompileOptions::reassociate). Statement k maps to its mark; unmarked
/// statements run serially.
std::map<size_t, ParallelMark> mark_parallel_loops(const LStmt& body, bool reassociate);

/// The C loop that the marked statement became, for cast::parallelize_loops: `code` is what
/// lowering the statement emitted. Each reduction's element (`s_values[0]`), which the loop may
/// only update as `s = op(s, e)`, becomes a local started from the identity before the loop and
/// folded into the element after it (rewriting `code`), so that each thread can keep its own.
/// Appended outputs and workspaces name the buffers and variables each thread has its own of;
/// an appended output with 32-bit positions stops at `position_limit`
/// (CompileOptions::max_position_32). None when the code is not one counted loop or a
/// reduction is touched otherwise (the statement then runs serially, as emitted). A partial
/// output's elements must only be updated as `x = op(x, e)` in the loop (not kept in a local, not
/// stored otherwise), or the statement runs serially too.
/// `sliced_work`: the statement became the slices of a storage-order reduction
/// (storage_order_reduction.hpp), whose work is that many positions rather than the iterations.
std::optional<cast::ParallelLoop> parallel_loop_of(LowerCtx& ctx, const ParallelMark& mark,
                                                   std::vector<cast::Stmt>& code, int64_t position_limit,
                                                   const std::optional<cast::Expr>& sliced_work = std::nullopt);

/// The work of rows [lo, hi) of a marked loop, for the team size: the rows plus the entries of
/// `weight` (the positions of the fibres they walk; none: the rows alone), or with
/// `stops_early` (ParallelMark) the rows plus at most one entry each.
cast::Expr row_loop_work(const BufferBinding* weight, const cast::Expr& lo, const cast::Expr& hi, bool stops_early);

/// The marks as the pass dump shows them, one line per marked statement.
std::string print_marks(const std::map<size_t, ParallelMark>& marks);

} // namespace siskin::compiler
