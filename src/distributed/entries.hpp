#pragma once
// Entries on their way to the rank that owns their row: flat triples of 64-bit words (row,
// column, value bits), the form in which they travel in one MPI_Alltoallv.
#include <cstdint>
#include <cstring>
#include <vector>

#include "siskin/distributed.hpp"

namespace siskin::distributed {

/// A value as the bits of a 64-bit word (any siskin value type fits in 8 bytes).
inline int64_t value_bits(const Scalar& v) {
    unsigned char bytes[8] = {};
    v.store(bytes);
    int64_t w = 0;
    std::memcpy(&w, bytes, sizeof w);
    return w;
}
inline Scalar value_of_bits(ValueType type, int64_t w) { return Scalar::load(type, &w); }

struct EntryWords {
    std::vector<int64_t> shape; // of the whole matrix (2-D; a vector's is {n, 1})
    ValueType type = ValueType::Float64;
    Scalar fill;
    std::vector<int64_t> words; // row, column, value bits; global coordinates
    Leaf leaf = Leaf::Element;  // the leaf a serial read gives the matrix (Pattern for pattern files)

    void add(int64_t row, int64_t col, const Scalar& v) {
        words.push_back(row);
        words.push_back(col);
        words.push_back(value_bits(v));
    }
    int64_t size() const { return static_cast<int64_t>(words.size() / 3); }
};

/// The format with every index width left to the data (a local block's 32-bit indices may not
/// hold the whole matrix).
Format open_widths(const Format& f);

/// Sends every entry to the rank of `rows` that owns its row (MPI_Alltoallv); returns this
/// rank's entries. Collective.
EntryWords route_to_owners(EntryWords entries, const RowPartition& rows, const std::string& operation);

/// The blocks of the rows `rows` gives this rank, from the entries of those rows (global
/// coordinates). Collective (the halo plan is set up).
DistributedMatrix matrix_from_entries(const EntryWords& owned, const RowPartition& rows,
                                      const RowPartition& columns, const Format& local_format,
                                      Duplicates duplicates);

/// The row partition `options.split` asks for, and the entries routed to it: `entries` are any
/// rank's (parsed from its part of a file, or rank 0's whole matrix). Collective.
DistributedMatrix distribute_entries(EntryWords entries, MPI_Comm comm,
                                     const DistributeOptions& options, const std::string& operation);

} // namespace siskin::distributed
