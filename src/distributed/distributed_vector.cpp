// DistributedVector (include/siskin/distributed.hpp): this rank's entries as a dense tensor.
#include <fmt/format.h>

#include "distributed/agreement.hpp"
#include "distributed/entries.hpp"
#include "distributed/gather.hpp"
#include "distributed/parallel_read.hpp"
#include "siskin/error.hpp"

namespace siskin::distributed {

namespace {

bool is_dense_vector(const Tensor& t) {
    return t.ndims() == 1 && t.format().levels().size() == 1 && t.format().levels()[0].kind == "dense" &&
           t.format().leaf() == Leaf::Element;
}

// This rank's part of the vector from the entries of its rows (row = global index).
Tensor local_from_entries(const EntryWords& owned, const RowPartition& layout) {
    CoordinateList list;
    list.ndims = 1;
    for (size_t k = 0; k < owned.words.size(); k += 3) {
        list.coords.push_back(owned.words[k] - layout.begin());
        list.values.push_back(value_of_bits(owned.type, owned.words[k + 2]));
    }
    return Tensor::from_coordinates({layout.local_size()}, owned.type, owned.fill, Format::dense(1), list);
}

} // namespace

DistributedVector::DistributedVector(RowPartition layout, Tensor local)
    : layout_(std::move(layout)), local_(std::move(local)) {
    collectively(layout_.comm(), [&] {
        if (local_.ndims() != 1 || local_.shape()[0] != layout_.local_size())
            throw Error(fmt::format("rank {}'s part of a vector has {} entries; its rows are {}..{}",
                                    layout_.rank(), local_.ndims() == 1 ? local_.shape()[0] : -1,
                                    layout_.begin(), layout_.end()));
        if (!is_dense_vector(local_)) local_ = local_.convert(Format::dense(1));
    });
}

DistributedVector DistributedVector::constant(const RowPartition& layout, const Scalar& value) {
    Tensor local({layout.local_size()}, value.type(), value, Format::dense(1));
    return DistributedVector(layout, std::move(local));
}

DistributedVector DistributedVector::scatter(const Tensor* global, const RowPartition& layout) {
    EntryWords entries;
    long long meta[3] = {0, 0, 0};
    collectively(layout.comm(), [&] {
        if (layout.rank() != 0) return;
        if (!global || global->ndims() != 1 || global->shape()[0] != layout.size())
            throw Error(fmt::format("scatter: rank 0 must hold a vector of {} entries", layout.size()));
        meta[0] = static_cast<long long>(global->type());
        meta[1] = value_bits(global->fill());
        global->for_each_stored([&](std::span<const int64_t> c, const Scalar& v) { entries.add(c[0], 0, v); });
    });
    MPI_Bcast(meta, 2, MPI_LONG_LONG, 0, layout.comm());
    entries.shape = {layout.size(), 1};
    entries.type = static_cast<ValueType>(meta[0]);
    entries.fill = value_of_bits(entries.type, meta[1]);
    EntryWords owned = route_to_owners(std::move(entries), layout, "scatter");
    Tensor local({0}, owned.type, owned.fill, Format::dense(1));
    collectively(layout.comm(), [&] { local = local_from_entries(owned, layout); });
    return DistributedVector(layout, std::move(local));
}

DistributedVector DistributedVector::read(const std::string& path, const RowPartition& layout,
                                          const ReadOptions& options) {
    ReadOptions read = options;
    read.format.reset();
    read.ndims = 1;
    EntryWords entries = read_my_part(path, layout.comm(), read);
    collectively(layout.comm(), [&] {
        if (entries.shape[0] != layout.size())
            throw Error(fmt::format("'{}' holds a vector of {} entries, but it must have {} here", path,
                                    entries.shape[0], layout.size()));
    });
    EntryWords owned = route_to_owners(std::move(entries), layout, "read");
    Tensor local({0}, owned.type, owned.fill, Format::dense(1));
    collectively(layout.comm(), [&] { local = local_from_entries(owned, layout); });
    return DistributedVector(layout, std::move(local));
}

std::optional<Tensor> DistributedVector::gather(int root, std::optional<Format> format) const {
    std::vector<int64_t> mine;
    mine.reserve(static_cast<size_t>(local_.shape()[0]));
    for (int64_t i = 0; i < local_.shape()[0]; ++i) mine.push_back(value_bits(local_.values().get(i)));
    std::optional<std::vector<int64_t>> all = gather_words(mine, root, layout_.comm());
    if (!all) return std::nullopt;
    std::vector<Scalar> values;
    values.reserve(all->size());
    for (int64_t w : *all) values.push_back(value_of_bits(local_.type(), w));
    Tensor whole = Tensor::from_dense({layout_.size()}, local_.type(), local_.fill(), Format::dense(1), values);
    return format ? whole.convert(*format) : whole;
}

} // namespace siskin::distributed
