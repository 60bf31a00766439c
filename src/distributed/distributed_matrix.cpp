// DistributedMatrix (include/siskin/distributed.hpp): construction, reading, scattering and
// gathering.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "distributed/agreement.hpp"
#include "distributed/entries.hpp"
#include "distributed/gather.hpp"
#include "distributed/halo_plan.hpp"
#include "distributed/parallel_read.hpp"
#include "siskin/compiler.hpp"
#include "siskin/error.hpp"

namespace siskin::distributed {

Format open_widths(const Format& f) {
    std::vector<LevelSpec> levels = f.levels();
    for (LevelSpec& l : levels) l.index_bits = 0;
    return Format(std::move(levels), f.leaf());
}

DistributedMatrix::DistributedMatrix(RowPartition rows, RowPartition columns, Tensor diagonal,
                                     Tensor off_diagonal, std::vector<int64_t> column_map)
    : rows_(std::move(rows)), columns_(std::move(columns)), diagonal_(std::move(diagonal)),
      off_diagonal_(std::move(off_diagonal)), column_map_(std::move(column_map)) {
    collectively(rows_.comm(), [&] {
        auto expect = [](const Tensor& t, int64_t r, int64_t c, const char* what) {
            if (t.ndims() != 2 || t.shape()[0] != r || t.shape()[1] != c)
                throw Error(fmt::format("the {} block is [{}], expected {} x {}", what,
                                        fmt::join(t.shape(), " x "), r, c));
        };
        expect(diagonal_, rows_.local_size(), columns_.local_size(), "diagonal");
        expect(off_diagonal_, rows_.local_size(), static_cast<int64_t>(column_map_.size()), "off-diagonal");
        if (diagonal_.type() != off_diagonal_.type() || !diagonal_.fill().same(off_diagonal_.fill()))
            throw Error("the diagonal and off-diagonal blocks differ in value type or fill");
        for (size_t k = 0; k < column_map_.size(); ++k) {
            int64_t c = column_map_[k];
            if (c < 0 || c >= columns_.size() || (c >= columns_.begin() && c < columns_.end()) ||
                (k > 0 && c <= column_map_[k - 1]))
                throw Error(fmt::format("column map entry {} ({}) is not an increasing remote column "
                                        "of 0..{}",
                                        k, c, columns_.size() - 1));
        }
    });
    finite_ = TensorSignature::of(diagonal_, true).finite && TensorSignature::of(off_diagonal_, true).finite;
    halo_ = std::make_shared<const HaloPlan>(columns_, column_map_);
}

DistributedMatrix DistributedMatrix::read(const std::string& path, MPI_Comm comm,
                                          const DistributeOptions& options) {
    ReadOptions read = options.read;
    read.format.reset();
    read.ndims = 2;
    return distribute_entries(read_my_part(path, comm, read), comm, options, "read");
}

DistributedMatrix DistributedMatrix::scatter(const Tensor* global, MPI_Comm comm,
                                             const DistributeOptions& options) {
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    EntryWords entries;
    // Rank 0 says what it holds (shape, type, fill), so that every rank can build its blocks.
    long long meta[4] = {0, 0, 0, 0};
    collectively(comm, [&] {
        if (rank != 0) return;
        if (!global) throw Error("scatter: rank 0 has no matrix to send");
        if (global->ndims() != 2)
            throw Error(fmt::format("scatter: a distributed matrix has 2 dimensions, not {}", global->ndims()));
        meta[0] = global->shape()[0];
        meta[1] = global->shape()[1];
        meta[2] = static_cast<long long>(global->type());
        meta[3] = value_bits(global->fill());
        global->for_each_stored([&](std::span<const int64_t> c, const Scalar& v) { entries.add(c[0], c[1], v); });
    });
    MPI_Bcast(meta, 4, MPI_LONG_LONG, 0, comm);
    entries.shape = {meta[0], meta[1]};
    entries.type = static_cast<ValueType>(meta[2]);
    entries.fill = value_of_bits(entries.type, meta[3]);
    return distribute_entries(std::move(entries), comm, options, "scatter");
}

std::optional<Tensor> DistributedMatrix::gather(int root, std::optional<Format> format) const {
    std::vector<int64_t> mine;
    mine.reserve(static_cast<size_t>(diagonal_.stored() + off_diagonal_.stored()) * 3);
    int64_t r0 = rows_.begin(), c0 = columns_.begin();
    diagonal_.for_each_stored([&](std::span<const int64_t> c, const Scalar& v) {
        mine.insert(mine.end(), {c[0] + r0, c[1] + c0, value_bits(v)});
    });
    off_diagonal_.for_each_stored([&](std::span<const int64_t> c, const Scalar& v) {
        mine.insert(mine.end(), {c[0] + r0, column_map_[static_cast<size_t>(c[1])], value_bits(v)});
    });
    std::optional<std::vector<int64_t>> all = gather_words(mine, root, rows_.comm());
    if (!all) return std::nullopt;
    CoordinateList list;
    list.ndims = 2;
    list.coords.reserve(all->size() / 3 * 2);
    list.values.reserve(all->size() / 3);
    for (size_t k = 0; k < all->size(); k += 3) {
        list.coords.push_back((*all)[k]);
        list.coords.push_back((*all)[k + 1]);
        list.values.push_back(value_of_bits(type(), (*all)[k + 2]));
    }
    return Tensor::from_coordinates(shape(), type(), fill(), format.value_or(open_widths(diagonal_.format())),
                                    list);
}

} // namespace siskin::distributed
