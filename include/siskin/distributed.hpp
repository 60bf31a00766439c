#pragma once
// Distributed matrices over MPI, partitioned by rows as PETSc's MPIAIJ is (built when CMake's
// option SISKIN_MPI is on; link the target siskin_distributed). Every call below is collective
// over the matrix's communicator: every rank makes it, in the same order.
//
//   MPI_Init(&argc, &argv);
//   auto A = distributed::DistributedMatrix::read("big.mtx", MPI_COMM_WORLD);   // each rank its bytes
//   auto x = distributed::DistributedVector::constant(A.columns(), Scalar::of(1.0));
//   auto y = distributed::spmv(A, x);                   // halo exchange overlapping the local product
//   std::optional<Tensor> whole = y.gather(0);          // on rank 0 only
//
// Rank r owns the contiguous rows [begin(r), end(r)) and the same range of a vector's entries
// and of the columns ("the columns it owns"). Its rows are two ordinary siskin tensors in any
// local format (csr by default): the diagonal block (its rows x the columns it owns, local
// coordinates) and the off-diagonal block, whose columns are compressed to the distinct remote
// columns it touches, in the increasing order of the column map (PETSc's garray). Local work
// is siskin kernels; communication is counted per operation (comm_stats()).
//
// Errors: a siskin::Error on any rank (a malformed line of the part of a file it parses, a
// mismatch of partitions) is agreed on by every rank, which then throw the same Error, so no
// rank waits for one that failed.
#include <mpi.h>

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "siskin/error.hpp"
#include "siskin/io.hpp"
#include "siskin/ir/program.hpp"
#include "siskin/tensor.hpp"

namespace siskin::distributed {

/// Contiguous row ranges, one per rank. Like PETSc's PetscLayout, each rank keeps the p + 1
/// range starts and nothing of size n.
class RowPartition {
public:
    /// PETSc's PETSC_DECIDE rule: n / p rows each, the first n % p ranks one more.
    static RowPartition even(int64_t n, MPI_Comm comm);
    /// Each rank gives the number of rows it owns (collective).
    static RowPartition from_local_sizes(int64_t local_rows, MPI_Comm comm);
    /// Ranges of about equal stored entries, from the entries of each row this partition's rank
    /// owns (`row_entries[k]`: row begin() + k). Collective. Rows stay whole: a row of more than
    /// total / p entries makes its rank's share larger.
    RowPartition balanced(const std::vector<int64_t>& row_entries) const;

    MPI_Comm comm() const { return comm_; }
    int rank() const { return rank_; }
    int ranks() const { return static_cast<int>(starts_.size()) - 1; }
    int64_t size() const { return starts_.back(); }
    int64_t begin(int r) const { return starts_.at(static_cast<size_t>(r)); }
    int64_t end(int r) const { return starts_.at(static_cast<size_t>(r) + 1); }
    int64_t begin() const { return begin(rank_); }
    int64_t end() const { return end(rank_); }
    int64_t local_size() const { return end() - begin(); }
    /// The rank that owns `row` (a binary search over the starts).
    int owner(int64_t row) const;
    const std::vector<int64_t>& starts() const { return starts_; }
    bool operator==(const RowPartition& o) const { return starts_ == o.starts_; }

private:
    RowPartition(MPI_Comm comm, std::vector<int64_t> starts);
    MPI_Comm comm_ = MPI_COMM_NULL;
    int rank_ = 0;
    std::vector<int64_t> starts_;
};

enum class RowSplit {
    Even,            // RowPartition::even
    BalancedEntries, // RowPartition::balanced on the stored entries of each row
};

struct DistributeOptions {
    /// The format of both local blocks (a 2-D format). Default: csr, with a pattern leaf where a
    /// serial read takes one (a pattern Matrix Market file read as bool with fill false).
    std::optional<Format> local_format;
    RowSplit split = RowSplit::Even;
    /// These rows instead of `split` (a matrix that must be partitioned as another: SpGEMM's B
    /// by rows as A's columns, an elementwise operand as the first).
    std::optional<RowPartition> rows;
    /// Type, fill and duplicates as a serial read takes them (ReadOptions); the local format
    /// above replaces ReadOptions::format.
    ReadOptions read;
};

/// Counters of one kind of exchange on this rank. Point-to-point messages are counted as
/// posted; a collective's share of this rank as the messages and bytes it would send and
/// receive point to point (src/distributed/README.md gives the exact rule of each operation).
struct CommCounters {
    int64_t calls = 0;
    int64_t messages_sent = 0, bytes_sent = 0;
    int64_t messages_received = 0, bytes_received = 0;
};
/// This process's counters by operation ("read", "scatter", "halo_setup", "spmv", "spgemm",
/// "reduce", "gather"), since the start or reset_comm_stats().
std::map<std::string, CommCounters>& comm_stats();
void reset_comm_stats();

class HaloPlan;

/// A vector partitioned as a matrix's rows or columns: this rank's entries as a dense 1-D tensor.
class DistributedVector {
public:
    DistributedVector(RowPartition layout, Tensor local);
    /// Every entry `value`.
    static DistributedVector constant(const RowPartition& layout, const Scalar& value);
    /// Rank 0's tensor (1-D; ignored elsewhere) split by `layout`.
    static DistributedVector scatter(const Tensor* global, const RowPartition& layout);
    /// A vector file (n x 1 or 1 x n Matrix Market, 1-D .tns), each rank parsing its own part.
    static DistributedVector read(const std::string& path, const RowPartition& layout,
                                  const ReadOptions& options = {});

    const RowPartition& layout() const { return layout_; }
    const Tensor& local() const { return local_; }
    Tensor& local() { return local_; }
    /// The whole vector on `root` in `format` (dense by default); nothing elsewhere.
    std::optional<Tensor> gather(int root = 0, std::optional<Format> format = std::nullopt) const;

private:
    RowPartition layout_;
    Tensor local_;
};

class DistributedMatrix {
public:
    /// Reads a Matrix Market or 2-D .tns file: every rank parses its own byte range of the
    /// entries (errors name the file's lines), then the entries go to the ranks that own their
    /// rows (MPI_Alltoallv).
    static DistributedMatrix read(const std::string& path, MPI_Comm comm,
                                  const DistributeOptions& options = {});
    /// Rank 0's matrix (ignored elsewhere, may be null there) sent in row ranges to every rank.
    static DistributedMatrix scatter(const Tensor* global, MPI_Comm comm,
                                     const DistributeOptions& options = {});
    /// From this rank's blocks (collective: the halo plan is set up here). `column_map`: the
    /// increasing global columns of the off-diagonal block's columns.
    DistributedMatrix(RowPartition rows, RowPartition columns, Tensor diagonal, Tensor off_diagonal,
                      std::vector<int64_t> column_map);

    const RowPartition& rows() const { return rows_; }
    const RowPartition& columns() const { return columns_; }
    std::vector<int64_t> shape() const { return {rows_.size(), columns_.size()}; }
    ValueType type() const { return diagonal_.type(); }
    const Scalar& fill() const { return diagonal_.fill(); }
    const Tensor& diagonal() const { return diagonal_; }
    const Tensor& off_diagonal() const { return off_diagonal_; }
    const std::vector<int64_t>& column_map() const { return column_map_; }
    /// Whether every stored value of both blocks is finite (scanned once, when built).
    bool finite() const { return finite_; }
    /// The exchange of vector entries the off-diagonal block needs, computed once.
    const HaloPlan& halo() const { return *halo_; }

    /// The whole matrix on `root` in `format` (this matrix's local format by default).
    std::optional<Tensor> gather(int root = 0, std::optional<Format> format = std::nullopt) const;

private:
    RowPartition rows_, columns_;
    Tensor diagonal_, off_diagonal_;
    std::vector<int64_t> column_map_;
    bool finite_ = false;
    std::shared_ptr<const HaloPlan> halo_;
};

/// y = A x, y partitioned as A's rows; x must be partitioned as A's columns.
DistributedVector spmv(const DistributedMatrix& a, const DistributedVector& x);
/// C = A B (C[i,j] += A[i,k] * B[k,j]); B's rows partitioned as A's columns. C has A's rows
/// and B's columns, in `format` (A's local format by default).
DistributedMatrix spgemm(const DistributedMatrix& a, const DistributedMatrix& b,
                         std::optional<Format> format = std::nullopt);

/// Runs `work`, local work that makes no collective call of its own, on every rank, then agrees
/// (collective): when it threw siskin::Error on some rank, every rank throws the Error of the
/// lowest such rank.
void collectively(MPI_Comm comm, const std::function<void()>& work);
/// Whether `e` was thrown on every rank alike (agreed on, as every Error of a collective call
/// here is): the ranks can then finish MPI together, where another Error calls for MPI_Abort.
bool every_rank_has(const Error& e);

/// An elementwise program C[i,j] = f(A[i,j], B[i,j], ...) on matrices of the same partitions (the
/// map names the program's matrices); C in `format` (the first matrix's local format by
/// default). Local work only: no message besides the setup of C's halo.
DistributedMatrix elementwise(const ir::Program& program,
                              const std::map<std::string, const DistributedMatrix*>& inputs,
                              std::optional<Format> format = std::nullopt);
/// s[] op= f(A[i,j], ...) with op +, max or min, over the whole matrix: the same 0-D tensor on
/// every rank (an MPI_Allreduce with the program's operator). The output must start from the
/// operator's identity (the default fill of += is 0).
Tensor reduce(const ir::Program& program, const std::map<std::string, const DistributedMatrix*>& inputs);
/// r[i] op= f(A[i,j], ...): one value per row, partitioned as the rows.
DistributedVector reduce_rows(const ir::Program& program,
                              const std::map<std::string, const DistributedMatrix*>& inputs);

/// The sum, largest and smallest element of A (unstored elements count as the fill).
Scalar sum(const DistributedMatrix& a);
Scalar max_value(const DistributedMatrix& a);
Scalar min_value(const DistributedMatrix& a);
/// sqrt(sum of A[i,j]^2), and max over rows of sum |A[i,j]| (fill 0).
double norm_frobenius(const DistributedMatrix& a);
double norm_inf(const DistributedMatrix& a);
/// Per row: sum of A[i,j], and sum of |A[i,j]|.
DistributedVector row_sums(const DistributedMatrix& a);
DistributedVector row_sums_of_abs(const DistributedMatrix& a);

enum class ProgramKind { Spmv, Spgemm, Elementwise, RowReduction, FullReduction };

/// A program the distributed layer runs, and the roles of its tensors.
struct DistributedProgram {
    ProgramKind kind = ProgramKind::Spmv;
    std::string output;
    std::vector<std::string> matrices; // SpGEMM: A then B; others: in order of appearance
    std::string vector;                // SpMV's x
    std::string reduction;             // "add", "max" or "min" for reductions
};
/// What `program` is to the distributed layer; Error(Unsupported) naming the programs it runs
/// for anything else.
DistributedProgram classify_program(const ir::Program& program);

} // namespace siskin::distributed
