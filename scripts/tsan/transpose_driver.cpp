// The library's own parallel region under ThreadSanitizer (scripts/tsan.sh builds this with
// -fsanitize=thread and -fopenmp, LLVM's libomp, and runs it with Archer): the counting-sort
// transpose (src/tensor/counting_transpose.hpp, on the OpenMP team of src/tensor/thread_team.hpp),
// which needs nothing else of the library but thread_team.cpp. Each matrix is transposed on 2, 3
// and 7 threads (the team must have that many), each thread a share of the rows however small,
// and must give the bytes of the one-thread transpose; ThreadSanitizer fails the run on any race
// between the phases (counts, column totals, offsets and allocation, scatter).
// Usage: transpose_driver   (exit 0: every transpose matched and nothing was reported)
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

#include "tensor/counting_transpose.hpp"

namespace {

using siskin::detail::CompressedSource;
using siskin::detail::CountingTranspose;
using siskin::detail::TransposeTarget;

// A rows x cols CSR matrix with 32-bit indices: rows 0 and 5 empty, row 3 full (a long old
// fibre), the last column full but for the empty rows (a long new fibre that every share
// writes a part of), about `per_row` other entries a row of which a third equal the fill 0.
struct Csr {
    int64_t rows, cols;
    std::vector<int32_t> pos, crd;
    std::vector<double> values;
};

Csr random_csr(int64_t rows, int64_t cols, int per_row, uint32_t seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u(0, 1);
    Csr m{rows, cols, {0}, {}, {}};
    for (int64_t i = 0; i < rows; ++i) {
        for (int64_t j = 0; j < cols; ++j) {
            bool keep = i == 3 || (j == cols - 1 && i != 0 && i != 5) ||
                        (i != 0 && i != 5 && u(rng) < double(per_row) / double(cols));
            if (!keep) continue;
            m.crd.push_back(static_cast<int32_t>(j));
            m.values.push_back(u(rng) < 0.33 && i != 3 ? 0.0 : 1.0 + double(i * cols + j));
        }
        m.pos.push_back(static_cast<int32_t>(m.crd.size()));
    }
    return m;
}

struct Transposed {
    std::vector<int64_t> pos;
    std::vector<int32_t> crd;
    std::vector<double> values;
};

Transposed transpose(const Csr& m, int threads, int& team) {
    CompressedSource<int32_t, double> src{m.pos.data(), m.crd.data(), m.values.data(), 0.0, m.rows, m.cols};
    Transposed out;
    CountingTranspose<int32_t, double> sort(src);
    out.pos = sort.run(threads, [&](int64_t nnz) {
        out.crd.resize(static_cast<size_t>(nnz));
        out.values.resize(static_cast<size_t>(nnz));
        return TransposeTarget<double>{out.crd.data(), out.values.data(), true};
    });
    team = sort.team();
    return out;
}

} // namespace

int main() {
    struct Shape {
        int64_t rows, cols;
        int per_row;
    };
    const Shape shapes[] = {{2000, 1500, 12}, {41, 37, 9}, {6, 300, 40}, {300, 6, 2}, {1, 1, 1}};
    int failures = 0;
    uint32_t seed = 7;
    for (const Shape& s : shapes) {
        Csr m = random_csr(s.rows, s.cols, s.per_row, seed++);
        int team = 0;
        Transposed serial = transpose(m, 1, team);
        for (int threads : {2, 3, 7}) {
            Transposed got = transpose(m, threads, team);
            if (team != threads) {
                std::fprintf(stderr, "a transpose on %d threads ran on a team of %d\n", threads, team);
                ++failures;
            }
            if (got.pos != serial.pos || got.crd != serial.crd || got.values != serial.values) {
                std::fprintf(stderr, "transpose of a %lldx%lld matrix on %d threads differs from one thread's\n",
                             static_cast<long long>(s.rows), static_cast<long long>(s.cols), threads);
                ++failures;
            }
        }
    }
    if (failures) return 1;
    std::printf("transpose_driver: %zu matrices on 2, 3 and 7 threads match one thread's\n",
                sizeof(shapes) / sizeof(shapes[0]));
    return 0;
}
