// Named reductions (include/siskin/distributed.hpp): each a reduction program.
#include <cmath>

#include "siskin/distributed.hpp"
#include "siskin/ir/text.hpp"

namespace siskin::distributed {

namespace {

Scalar reduce_text(const char* text, const DistributedMatrix& a) {
    return reduce(ir::parse_program(text), {{"A", &a}}).at({});
}

} // namespace

Scalar sum(const DistributedMatrix& a) { return reduce_text("s[] += A[i,j]", a); }
Scalar max_value(const DistributedMatrix& a) { return reduce_text("s[] max= A[i,j]", a); }
Scalar min_value(const DistributedMatrix& a) { return reduce_text("s[] min= A[i,j]", a); }

double norm_frobenius(const DistributedMatrix& a) {
    return std::sqrt(reduce_text("s[] += A[i,j] * A[i,j]", a).as_double());
}

double norm_inf(const DistributedMatrix& a) {
    DistributedVector rows = row_sums_of_abs(a);
    double mine = 0, all = 0;
    for (int64_t i = 0; i < rows.local().shape()[0]; ++i) mine = std::max(mine, rows.local().values().get(i).as_double());
    MPI_Allreduce(&mine, &all, 1, MPI_DOUBLE, MPI_MAX, a.rows().comm());
    return all;
}

DistributedVector row_sums(const DistributedMatrix& a) {
    return reduce_rows(ir::parse_program("r[i] += A[i,j]"), {{"A", &a}});
}

DistributedVector row_sums_of_abs(const DistributedMatrix& a) {
    return reduce_rows(ir::parse_program("r[i] += abs(A[i,j])"), {{"A", &a}});
}

} // namespace siskin::distributed
