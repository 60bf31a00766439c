// Reductions s[] op= f(A[i,j], ...) and r[i] op= f(A[i,j], ...) with op +, max or min: the
// program on the diagonal blocks, then onto that result on the off-diagonal blocks (over the
// union of their column maps), then the coordinates neither block covers (they all hold f of
// the fills), and for a scalar an MPI_Allreduce with the program's own operator.
#include <cmath>
#include <cstring>

#include <fmt/format.h>

#include "distributed/aligned_blocks.hpp"
#include "distributed/comm_count.hpp"
#include "distributed/local_program.hpp"
#include "siskin/error.hpp"
#include "siskin/ir/text.hpp"
#include "siskin/operators.hpp"
#include "siskin/reference.hpp"

namespace siskin::distributed {

namespace {

struct Reduction {
    DistributedProgram kind;
    std::map<std::string, const DistributedMatrix*> used;
    const DistributedMatrix* first = nullptr;
};

Reduction check(const ir::Program& program, const std::map<std::string, const DistributedMatrix*>& inputs,
                ProgramKind want, const char* what) {
    SISKIN_ASSERT(!inputs.empty(), "matrices to reduce");
    Reduction r;
    collectively(inputs.begin()->second->rows().comm(), [&] {
        r.kind = classify_program(program);
        if (r.kind.kind != want) throw Error(fmt::format("{}: the program is not {}", what,
                                                         want == ProgramKind::FullReduction
                                                             ? "s[] op= f(A[i,j], ...)"
                                                             : "r[i] op= f(A[i,j], ...)"));
        for (const auto& name : r.kind.matrices) {
            if (!inputs.count(name)) throw Error(fmt::format("{}: no matrix {} given", what, name));
            r.used[name] = inputs.at(name);
        }
    });
    r.first = r.used.at(r.kind.matrices.front());
    return r;
}

// The program's result on all-fill n x n inputs (the reference evaluator, on empty tensors): for
// n = 0 the value the output starts from, for n = 1 that value with one unstored element's.
Scalar on_empty_inputs(const ir::Program& program, const Reduction& r, int64_t n) {
    std::map<std::string, Tensor> empties;
    std::map<std::string, const Tensor*> ptrs;
    for (const auto& [name, m] : r.used) {
        empties.emplace(name, Tensor({n, n}, m->type(), m->fill(), Format::csr()));
        ptrs[name] = &empties.at(name);
    }
    Tensor out = evaluate_reference(program, ptrs).at(r.kind.output);
    if (out.ndims() == 0) return out.at({});
    return n == 0 ? out.fill() : out.at({0});
}

// The value of the unstored elements as the reduction folds them; an Error when the output
// starts from another value than the operator's identity (every rank's partial would count it).
Scalar value_where_unstored(const ir::Program& program, const Reduction& r, const Operator& op) {
    Scalar start = on_empty_inputs(program, r, 0);
    std::optional<Scalar> identity = op.reduction_identity(start.type());
    if (!identity || !identity->same_value(start))
        throw Error(fmt::format("{} starts from {}, which is not the identity of {}: a distributed "
                                "reduction needs its output to start from the identity",
                                r.kind.output, start.to_string(), r.kind.reduction),
                    Error::Kind::Unsupported);
    return on_empty_inputs(program, r, 1);
}

// `partial` with `count` more elements of value `v` folded in by `op`.
Scalar fold_repeated(const Operator& op, const std::string& name, Scalar partial, const Scalar& v, int64_t count) {
    if (count <= 0) return partial;
    Scalar v_typed = v.cast(partial.type());
    if (name != "add") return op.apply(std::vector<Scalar>{partial, v_typed}); // max, min: idempotent
    if (v_typed.same_value(Scalar::zero(partial.type()))) return partial;
    Scalar times = is_float(partial.type()) ? Scalar::of(v_typed.as_double() * static_cast<double>(count))
                                            : Scalar::of(v_typed.as_int() * count);
    return op.apply(std::vector<Scalar>{partial, times.cast(partial.type())});
}

// The operator and type of the MPI_Allreduce in progress (MPI's user operations take no state).
thread_local const Operator* reducing = nullptr;
thread_local ValueType reducing_type = ValueType::Float64;

void reduce_values(void* in, void* inout, int* len, MPI_Datatype*) {
    auto* a = static_cast<int64_t*>(in);
    auto* b = static_cast<int64_t*>(inout);
    for (int k = 0; k < *len; ++k) {
        Scalar x = Scalar::load(reducing_type, &a[k]), y = Scalar::load(reducing_type, &b[k]);
        Scalar z = reducing->apply(std::vector<Scalar>{x, y});
        int64_t bits = 0;
        z.store(&bits);
        b[k] = bits;
    }
}

} // namespace

Tensor reduce(const ir::Program& program, const std::map<std::string, const DistributedMatrix*>& inputs) {
    Reduction r = check(program, inputs, ProgramKind::FullReduction, "reduce");
    MPI_Comm comm = r.first->rows().comm();
    AlignedBlocks blocks = align_blocks(r.used);
    LocalProgram local(ir::print(program));
    const Operator& op = find_operator(r.kind.reduction);
    Scalar partial;
    collectively(comm, [&] {
        Tensor on_diagonal = local.run(blocks.diagonal).at(r.kind.output);
        Tensor on_off = local.run(blocks.off_diagonal).at(r.kind.output);
        Scalar unstored = value_where_unstored(program, r, op);
        partial = op.apply(std::vector<Scalar>{on_diagonal.at({}), on_off.at({}).cast(on_diagonal.type())});
        int64_t uncovered = r.first->rows().local_size() *
                            (r.first->columns().size() - r.first->columns().local_size() -
                             static_cast<int64_t>(blocks.column_map.size()));
        partial = fold_repeated(op, r.kind.reduction, partial, unstored, uncovered);
    });
    int64_t bits = 0, total = 0;
    partial.store(&bits);
    MPI_Op mpi_op;
    MPI_Op_create(reduce_values, 1, &mpi_op);
    reducing = &op;
    reducing_type = partial.type();
    count_call("reduce");
    MPI_Allreduce(&bits, &total, 1, MPI_INT64_T, mpi_op, comm);
    MPI_Op_free(&mpi_op);
    Scalar whole = Scalar::load(partial.type(), &total);
    return Tensor::from_dense({}, whole.type(), Scalar::zero(whole.type()), Format::dense(0),
                              std::vector<Scalar>{whole});
}

DistributedVector reduce_rows(const ir::Program& program,
                              const std::map<std::string, const DistributedMatrix*>& inputs) {
    Reduction r = check(program, inputs, ProgramKind::RowReduction, "reduce_rows");
    MPI_Comm comm = r.first->rows().comm();
    AlignedBlocks blocks = align_blocks(r.used);
    LocalProgram local(ir::print(program));
    const Operator& op = find_operator(r.kind.reduction);
    Tensor rows({0}, ValueType::Float64, Scalar::of(0.0), Format::dense(1));
    collectively(comm, [&] {
        rows = local.run(blocks.diagonal).at(r.kind.output);
        local.update(blocks.off_diagonal, r.kind.output, rows);
        int64_t uncovered = r.first->columns().size() - r.first->columns().local_size() -
                            static_cast<int64_t>(blocks.column_map.size());
        if (uncovered > 0 && rows.shape()[0] > 0) {
            Scalar v = value_where_unstored(program, r, op);
            for (int64_t i = 0; i < rows.shape()[0]; ++i)
                rows.values().set(i, fold_repeated(op, r.kind.reduction, rows.values().get(i), v, uncovered));
        }
    });
    return DistributedVector(r.first->rows(), std::move(rows));
}

} // namespace siskin::distributed
