// Entries routed to the ranks that own their rows, and the local blocks built from them.
#include <algorithm>

#include <fmt/format.h>

#include "distributed/agreement.hpp"
#include "distributed/entries.hpp"
#include "distributed/comm_count.hpp"
#include "distributed/exchange.hpp"
#include "siskin/error.hpp"

namespace siskin::distributed {

EntryWords route_to_owners(EntryWords entries, const RowPartition& rows, const std::string& operation) {
    std::vector<std::vector<int64_t>> outgoing(static_cast<size_t>(rows.ranks()));
    for (size_t k = 0; k < entries.words.size(); k += 3) {
        auto& block = outgoing[static_cast<size_t>(rows.owner(entries.words[k]))];
        block.insert(block.end(), entries.words.begin() + static_cast<long>(k),
                     entries.words.begin() + static_cast<long>(k) + 3);
    }
    entries.words.clear();
    entries.words.shrink_to_fit();
    count_call(operation);
    entries.words = exchange_all(rows.comm(), outgoing, operation);
    return entries;
}

DistributedMatrix matrix_from_entries(const EntryWords& owned, const RowPartition& rows,
                                      const RowPartition& columns, const Format& local_format,
                                      Duplicates duplicates) {
    std::vector<int64_t> column_map;
    Tensor diagonal({0, 0}, owned.type, owned.fill, Format::csr()), off_diagonal = diagonal;
    collectively(rows.comm(), [&] {
        int64_t r0 = rows.begin(), c0 = columns.begin(), c1 = columns.end();
        for (size_t k = 1; k < owned.words.size(); k += 3) {
            int64_t c = owned.words[k];
            if (c < c0 || c >= c1) column_map.push_back(c);
        }
        const size_t entries = owned.words.size() / 3, off_entries = column_map.size();
        std::sort(column_map.begin(), column_map.end());
        column_map.erase(std::unique(column_map.begin(), column_map.end()), column_map.end());
        CoordinateList diag, off;
        diag.ndims = off.ndims = 2;
        diag.coords.reserve((entries - off_entries) * 2);
        diag.values.reserve(entries - off_entries);
        off.coords.reserve(off_entries * 2);
        off.values.reserve(off_entries);
        for (size_t k = 0; k < owned.words.size(); k += 3) {
            int64_t r = owned.words[k] - r0, c = owned.words[k + 1];
            Scalar v = value_of_bits(owned.type, owned.words[k + 2]);
            CoordinateList& list = c >= c0 && c < c1 ? diag : off;
            list.coords.push_back(r);
            list.coords.push_back(c >= c0 && c < c1
                                      ? c - c0
                                      : std::lower_bound(column_map.begin(), column_map.end(), c) -
                                            column_map.begin());
            list.values.push_back(v);
        }
        diagonal = Tensor::from_coordinates({rows.local_size(), columns.local_size()}, owned.type,
                                            owned.fill, local_format, diag, duplicates);
        off_diagonal = Tensor::from_coordinates({rows.local_size(), static_cast<int64_t>(column_map.size())},
                                                owned.type, owned.fill, local_format, off, duplicates);
    });
    return DistributedMatrix(rows, columns, std::move(diagonal), std::move(off_diagonal),
                             std::move(column_map));
}

DistributedMatrix distribute_entries(EntryWords entries, MPI_Comm comm, const DistributeOptions& options,
                                     const std::string& operation) {
    // Every rank learns the shape, type and fill of the rank that has them (rank 0 for a
    // scatter; every rank for a read, where they agree).
    RowPartition rows = options.rows ? *options.rows : RowPartition::even(entries.shape.at(0), comm);
    collectively(comm, [&] {
        if (rows.size() != entries.shape.at(0))
            throw Error(fmt::format("a matrix of {} rows cannot take a partition of {} rows", entries.shape.at(0),
                                    rows.size()));
    });
    EntryWords owned = route_to_owners(std::move(entries), rows, operation);
    if (!options.rows && options.split == RowSplit::BalancedEntries) {
        std::vector<int64_t> row_entries(static_cast<size_t>(rows.local_size()), 0);
        for (size_t k = 0; k < owned.words.size(); k += 3)
            ++row_entries[static_cast<size_t>(owned.words[k] - rows.begin())];
        rows = rows.balanced(row_entries);
        owned = route_to_owners(std::move(owned), rows, operation);
    }
    int64_t n = owned.shape.at(1);
    RowPartition columns = n == rows.size() ? rows : RowPartition::even(n, comm);
    Format local = options.local_format.value_or(Format(Format::csr().levels(), owned.leaf));
    return matrix_from_entries(owned, rows, columns, local, options.read.duplicates);
}

} // namespace siskin::distributed
