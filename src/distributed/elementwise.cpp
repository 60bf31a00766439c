// C[i,j] = f(A[i,j], B[i,j], ...) on matrices of the same partitions: the program runs on the
// diagonal blocks, and on the off-diagonal blocks over the union of their column maps; no
// message is sent (the halo of C is set up, once, when C is built).
#include <fmt/format.h>

#include "distributed/aligned_blocks.hpp"
#include "distributed/entries.hpp"
#include "distributed/local_program.hpp"
#include "siskin/error.hpp"
#include "siskin/ir/text.hpp"

namespace siskin::distributed {

DistributedMatrix elementwise(const ir::Program& program,
                              const std::map<std::string, const DistributedMatrix*>& inputs,
                              std::optional<Format> format) {
    DistributedProgram kind;
    const DistributedMatrix* first = inputs.empty() ? nullptr : inputs.begin()->second;
    SISKIN_ASSERT(first, "an elementwise program of matrices");
    MPI_Comm comm = first->rows().comm();
    collectively(comm, [&] {
        kind = classify_program(program);
        if (kind.kind != ProgramKind::Elementwise)
            throw Error("elementwise: the program is not C[i,j] = f(A[i,j], ...)");
        for (const auto& name : kind.matrices)
            if (!inputs.count(name)) throw Error(fmt::format("elementwise: no matrix {} given", name));
    });
    std::map<std::string, const DistributedMatrix*> used;
    for (const auto& name : kind.matrices) used[name] = inputs.at(name);
    first = used.at(kind.matrices.front());
    AlignedBlocks blocks = align_blocks(used);
    LocalProgram local(ir::print(program));
    Tensor diagonal = first->diagonal(), off_diagonal = first->off_diagonal();
    std::vector<int64_t> column_map;
    collectively(comm, [&] {
        OutputSpec spec;
        spec.format = format.value_or(open_widths(first->diagonal().format()));
        diagonal = local.run(blocks.diagonal, {{kind.output, spec}}).at(kind.output);
        Tensor off = local.run(blocks.off_diagonal, {{kind.output, spec}}).at(kind.output);
        // Columns that no longer hold an entry (A .* B where only one stores it) leave the map.
        std::tie(off_diagonal, column_map) = drop_empty_columns(off, blocks.column_map);
    });
    return DistributedMatrix(first->rows(), first->columns(), std::move(diagonal), std::move(off_diagonal),
                             std::move(column_map));
}

} // namespace siskin::distributed
