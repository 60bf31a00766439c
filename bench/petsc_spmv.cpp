// siskin's distributed SpMV against PETSc's MatMult on the same partition, in one run: the
// matrix is read by siskin, exported to PETSc (include/siskin/petsc.hpp), and the two products
// alternate round by round over the same x. Prints one JSON object (rank 0).
// Usage: mpirun -np P petsc_spmv MATRIX.mtx [REPEAT] [ROUNDS]
#include <petscmat.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "siskin/petsc.hpp"

namespace {

using namespace siskin;
using namespace siskin::distributed;

// Milliseconds per call of `repeat` calls of `work`, the slowest rank's, after a barrier.
template <class Work>
double timed_ms(MPI_Comm comm, int repeat, Work work) {
    MPI_Barrier(comm);
    auto start = std::chrono::steady_clock::now();
    for (int k = 0; k < repeat; ++k) work();
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count() / repeat;
    double slowest = 0;
    MPI_Allreduce(&ms, &slowest, 1, MPI_DOUBLE, MPI_MAX, comm);
    return slowest;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : (v[(v.size() - 1) / 2] + v[v.size() / 2]) / 2;
}

} // namespace

int main(int argc, char** argv) {
    PetscInitialize(&argc, &argv, nullptr, nullptr);
    int status = 0;
    try {
        if (argc < 2) throw Error("usage: petsc_spmv MATRIX.mtx [REPEAT] [ROUNDS]");
        const int repeat = argc > 2 ? std::stoi(argv[2]) : 100, rounds = argc > 3 ? std::stoi(argv[3]) : 5;
        MPI_Comm comm = PETSC_COMM_WORLD;
        DistributedMatrix a = DistributedMatrix::read(argv[1], comm);
        PetscMatrix p(a);
        DistributedVector x = DistributedVector::constant(a.columns(), Scalar::of(1.0));
        for (int64_t k = 0; k < x.local().shape()[0]; ++k)
            x.local().values().data<double>()[k] = 1 + double((x.layout().begin() + k) % 7) / 8;
        DistributedVector y = DistributedVector::constant(a.rows(), Scalar::of(0.0));
        PetscVector px(x), py(y);
        std::vector<double> ours, theirs;
        spmv(a, x); // warm-up: the local kernels compile (or load from the cache) here
        MatMult(p.mat(), px.vec(), py.vec());
        for (int r = 0; r < rounds; ++r) {
            ours.push_back(timed_ms(comm, repeat, [&] { spmv(a, x); }));
            theirs.push_back(timed_ms(comm, repeat, [&] { MatMult(p.mat(), px.vec(), py.vec()); }));
        }
        int rank = 0, ranks = 0;
        MPI_Comm_rank(comm, &rank);
        MPI_Comm_size(comm, &ranks);
        if (rank == 0)
            std::printf("{\"matrix\": \"%s\", \"ranks\": %d, \"repeat\": %d, \"rounds\": %d, "
                        "\"siskin_ms\": %.6f, \"petsc_ms\": %.6f}\n",
                        argv[1], ranks, repeat, rounds, median(ours), median(theirs));
    } catch (const Error& e) {
        std::fprintf(stderr, "petsc_spmv: %s\n", e.what());
        status = 1;
    }
    PetscFinalize();
    return status;
}
