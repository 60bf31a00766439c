// y = A x (include/siskin/distributed.hpp): the halo exchange is posted first, the diagonal
// block's product runs while the messages travel, then the off-diagonal block's product over
// the received halo adds onto y.
#include <fmt/format.h>

#include "distributed/agreement.hpp"
#include "distributed/halo_plan.hpp"
#include "distributed/local_program.hpp"
#include "siskin/error.hpp"

namespace siskin::distributed {

DistributedVector spmv(const DistributedMatrix& a, const DistributedVector& x) {
    static const LocalProgram diagonal("y[i] += A[i,j] * x[j]");
    static const LocalProgram off_diagonal("y[i] += B[i,k] * h[k]");
    MPI_Comm comm = a.rows().comm();
    collectively(comm, [&] {
        if (!(x.layout() == a.columns()))
            throw Error(fmt::format("spmv: x ({} entries) is not partitioned as the columns of A ({} x {})",
                                    x.layout().size(), a.rows().size(), a.columns().size()));
    });
    Tensor y({0}, x.local().type(), x.local().fill(), Format::dense(1));
    {
        // Every rank posts its messages before any local work, and an exchange abandoned by an
        // error still completes them, so a failing kernel on one rank leaves no rank waiting.
        HaloExchange exchange(a.halo(), x.local(), "spmv");
        collectively(comm, [&] {
            y = diagonal.run({{"A", &a.diagonal()}, {"x", &x.local()}}, {}, {{"A", a.finite()}}).at("y");
            Tensor halo = exchange.finish();
            if (halo.shape()[0] > 0)
                off_diagonal.update({{"B", &a.off_diagonal()}, {"h", &halo}}, "y", y, {{"B", a.finite()}});
        });
    }
    return DistributedVector(a.rows(), std::move(y));
}

} // namespace siskin::distributed
