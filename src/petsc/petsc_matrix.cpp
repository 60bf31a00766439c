// A DistributedMatrix as PETSc's MATMPIAIJ and back (include/siskin/petsc.hpp). The two blocks
// are the same on both sides: the diagonal block in local columns, the off-diagonal block in
// columns compressed over the increasing column map (PETSc's garray).
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <numeric>
#include <utility>

#include "petsc/petsc_call.hpp"
#include "siskin/petsc.hpp"

namespace siskin::distributed {

struct PetscMatrix::Arrays {
    std::vector<PetscInt> i, j, oi, oj;
    std::vector<PetscScalar> a, oa;
};

namespace {

PetscInt to_petsc_int(int64_t v, const char* what) {
    if (v < 0 || v > std::numeric_limits<PetscInt>::max())
        throw Error(fmt::format("to PETSc: {} ({}) does not fit PETSc's {}-bit PetscInt", what, v,
                                8 * sizeof(PetscInt)));
    return static_cast<PetscInt>(v);
}

// Index buffer element k, of either width.
int64_t index_at(const Buffer& b, int64_t k) {
    return b.type() == ValueType::Int32 ? b.data<int32_t>()[k] : b.data<int64_t>()[k];
}

// A block's CSR arrays in PETSc's types; `column` maps a stored column to the one PETSc wants.
template <class MapColumn>
void csr_arrays(const Tensor& block, MapColumn column, std::vector<PetscInt>& pos,
                std::vector<PetscInt>& crd, std::vector<PetscScalar>& values) {
    Tensor csr = block.convert(Format::csr());
    const Buffer& p = csr.level(1).buffer("pos");
    const Buffer& c = csr.level(1).buffer("crd");
    const int64_t rows = block.shape()[0], stored = rows == 0 ? 0 : index_at(p, rows);
    to_petsc_int(stored, "a block's stored entries");
    pos.resize(static_cast<size_t>(rows) + 1);
    for (int64_t r = 0; r <= rows; ++r) pos[r] = rows == 0 ? 0 : static_cast<PetscInt>(index_at(p, r));
    crd.resize(static_cast<size_t>(stored));
    for (int64_t k = 0; k < stored; ++k) crd[k] = column(index_at(c, k));
    values.resize(static_cast<size_t>(stored));
    const Buffer& v = csr.values();
    if (csr.format().leaf() == Leaf::Pattern)
        std::fill(values.begin(), values.end(), 1.0); // a stored pattern entry is true
    else if (v.type() == ValueType::Float64)
        std::memcpy(values.data(), v.data<double>(), values.size() * sizeof(double));
    else
        for (int64_t k = 0; k < stored; ++k) values[k] = v.get(k).as_double();
}

} // namespace

PetscMatrix::PetscMatrix(const DistributedMatrix& a) : arrays_(std::make_unique<Arrays>()) {
    MPI_Comm comm = a.rows().comm();
    collectively(comm, [&] {
        require_petsc("to PETSc");
        if (a.fill().as_double() != 0 || a.fill().is_nan())
            throw Error(fmt::format("to PETSc: the matrix's fill is {}; PETSc's unstored entries are 0",
                                    a.fill().to_string()));
        for (int r = 0; r < a.rows().ranks(); ++r) {
            to_petsc_int(a.rows().end(r), "a row");
            to_petsc_int(a.columns().end(r), "a column");
        }
        csr_arrays(a.diagonal(), [](int64_t c) { return static_cast<PetscInt>(c); }, arrays_->i,
                   arrays_->j, arrays_->a);
        const auto& map = a.column_map();
        csr_arrays(a.off_diagonal(), [&](int64_t c) { return static_cast<PetscInt>(map[c]); },
                   arrays_->oi, arrays_->oj, arrays_->oa);
    });
    petsc_call(MatCreateMPIAIJWithSplitArrays(
                   comm, static_cast<PetscInt>(a.rows().local_size()),
                   static_cast<PetscInt>(a.columns().local_size()), static_cast<PetscInt>(a.rows().size()),
                   static_cast<PetscInt>(a.columns().size()), arrays_->i.data(), arrays_->j.data(),
                   arrays_->a.data(), arrays_->oi.data(), arrays_->oj.data(), arrays_->oa.data(), &mat_),
               "MatCreateMPIAIJWithSplitArrays");
}

PetscMatrix::PetscMatrix(PetscMatrix&& o) noexcept
    : arrays_(std::move(o.arrays_)), mat_(std::exchange(o.mat_, nullptr)) {}

PetscMatrix& PetscMatrix::operator=(PetscMatrix&& o) noexcept {
    std::swap(arrays_, o.arrays_);
    std::swap(mat_, o.mat_);
    return *this;
}

PetscMatrix::~PetscMatrix() {
    if (mat_) MatDestroy(&mat_); // before the arrays it uses in place
}

namespace {

// A SeqAIJ block's entries; `column` maps its stored columns to the block's own.
template <class MapColumn>
Tensor block_of(Mat block, int64_t rows, int64_t columns, MapColumn column, const Format& format) {
    CoordinateList list;
    list.ndims = 2;
    if (block) {
        PetscInt n = 0;
        const PetscInt *ia = nullptr, *ja = nullptr;
        PetscBool done = PETSC_FALSE;
        petsc_call(MatGetRowIJ(block, 0, PETSC_FALSE, PETSC_FALSE, &n, &ia, &ja, &done), "MatGetRowIJ");
        if (!done) throw Error("from PETSc: the matrix gives no row structure (MatGetRowIJ)");
        const PetscScalar* values = nullptr;
        petsc_call(MatSeqAIJGetArrayRead(block, &values), "MatSeqAIJGetArrayRead");
        for (PetscInt r = 0; r < n; ++r)
            for (PetscInt k = ia[r]; k < ia[r + 1]; ++k)
                list.add(std::vector<int64_t>{r, column(ja[k])}, Scalar::of(double(PetscRealPart(values[k]))));
        petsc_call(MatSeqAIJRestoreArrayRead(block, &values), "MatSeqAIJRestoreArrayRead");
        petsc_call(MatRestoreRowIJ(block, 0, PETSC_FALSE, PETSC_FALSE, &n, &ia, &ja, &done), "MatRestoreRowIJ");
    }
    return Tensor::from_coordinates({rows, columns}, ValueType::Float64, Scalar::of(0.0), format, list,
                                    Duplicates::Reject);
}

} // namespace

DistributedMatrix from_petsc(Mat a, std::optional<Format> local_format) {
    require_petsc("from PETSc");
    MPI_Comm comm = MPI_COMM_NULL;
    petsc_call(PetscObjectGetComm(reinterpret_cast<PetscObject>(a), &comm), "PetscObjectGetComm");
    PetscInt m = 0, n = 0;
    petsc_call(MatGetLocalSize(a, &m, &n), "MatGetLocalSize");
    RowPartition rows = RowPartition::from_local_sizes(m, comm);
    RowPartition columns = RowPartition::from_local_sizes(n, comm);
    const Format format = local_format.value_or(Format::csr());

    Mat diagonal = nullptr, off_diagonal = nullptr;
    const PetscInt* garray = nullptr;
    PetscInt garray_size = 0;
    PetscBool mpiaij = PETSC_FALSE, seqaij = PETSC_FALSE;
    petsc_call(PetscObjectTypeCompare(reinterpret_cast<PetscObject>(a), MATMPIAIJ, &mpiaij), "PetscObjectTypeCompare");
    petsc_call(PetscObjectTypeCompare(reinterpret_cast<PetscObject>(a), MATSEQAIJ, &seqaij), "PetscObjectTypeCompare");
    collectively(comm, [&] {
        if (mpiaij) {
            petsc_call(MatMPIAIJGetSeqAIJ(a, &diagonal, &off_diagonal, &garray), "MatMPIAIJGetSeqAIJ");
            petsc_call(MatGetSize(off_diagonal, nullptr, &garray_size), "MatGetSize");
        } else if (seqaij) {
            diagonal = a;
        } else {
            MatType type = nullptr;
            MatGetType(a, &type);
            throw Error(fmt::format("from PETSc: a {} matrix; convert it to MATAIJ first (MatConvert)",
                                    type ? type : "untyped"));
        }
    });
    // garray is increasing in PETSc's assembled matrices; sort it anyway, so the column map is.
    std::vector<int64_t> column_map(garray, garray + garray_size);
    std::vector<int64_t> rank_of(column_map.size());
    std::vector<size_t> order(column_map.size());
    std::iota(order.begin(), order.end(), size_t{0});
    std::sort(order.begin(), order.end(), [&](size_t x, size_t y) { return column_map[x] < column_map[y]; });
    std::vector<int64_t> sorted(column_map.size());
    for (size_t k = 0; k < order.size(); ++k) {
        sorted[k] = column_map[order[k]];
        rank_of[order[k]] = static_cast<int64_t>(k);
    }
    Tensor diag({0, 0}, ValueType::Float64, Scalar::of(0.0), format);
    Tensor off = diag;
    collectively(comm, [&] {
        diag = block_of(diagonal, m, n, [](PetscInt c) { return int64_t{c}; }, format);
        off = block_of(off_diagonal, m, garray_size, [&](PetscInt c) { return rank_of.at(c); }, format);
    });
    return DistributedMatrix(std::move(rows), std::move(columns), std::move(diag), std::move(off),
                             std::move(sorted));
}

} // namespace siskin::distributed
