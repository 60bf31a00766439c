// C = A B (C[i,j] += A[i,k] * B[k,j]): the rows of B that A's off-diagonal block needs live on
// the ranks that own those columns of A, and A's halo plan already lists them (the columns a
// rank needs of x are the rows it needs of B). So each owner sends each neighbour, once per
// product, the lengths of those rows, then their entries; then one local siskin SpGEMM runs over
// [A_diag | A_off] and the stacked rows [B's own rows; the fetched rows], its columns compressed
// to the ones that occur (no workspace of B's full width).
#include <algorithm>

#include <fmt/format.h>

#include "distributed/comm_count.hpp"
#include "distributed/entries.hpp"
#include "distributed/exchange.hpp"
#include "distributed/halo_plan.hpp"
#include "distributed/local_program.hpp"
#include "siskin/error.hpp"

namespace siskin::distributed {

namespace {

constexpr int kLengthsTag = 7413, kEntriesTag = 7414;

// A rank's rows of a matrix with global column indices, row by row (CSR of words).
struct GlobalRows {
    std::vector<int64_t> starts;  // local rows + 1
    std::vector<int64_t> entries; // column, value bits; two words per entry
};

GlobalRows rows_of(const DistributedMatrix& b) {
    int64_t n = b.rows().local_size(), c0 = b.columns().begin();
    GlobalRows g;
    g.starts.assign(static_cast<size_t>(n) + 1, 0);
    auto count = [&](std::span<const int64_t> c, const Scalar&) { ++g.starts[static_cast<size_t>(c[0]) + 1]; };
    b.diagonal().for_each_stored(count);
    b.off_diagonal().for_each_stored(count);
    for (size_t r = 0; r < static_cast<size_t>(n); ++r) g.starts[r + 1] += g.starts[r];
    g.entries.resize(static_cast<size_t>(g.starts.back()) * 2);
    std::vector<int64_t> at(g.starts.begin(), g.starts.end() - 1);
    auto place = [&](int64_t row, int64_t col, const Scalar& v) {
        int64_t k = at[static_cast<size_t>(row)]++;
        g.entries[static_cast<size_t>(k) * 2] = col;
        g.entries[static_cast<size_t>(k) * 2 + 1] = value_bits(v);
    };
    b.diagonal().for_each_stored([&](std::span<const int64_t> c, const Scalar& v) { place(c[0], c[1] + c0, v); });
    b.off_diagonal().for_each_stored([&](std::span<const int64_t> c, const Scalar& v) {
        place(c[0], b.column_map()[static_cast<size_t>(c[1])], v);
    });
    return g;
}

} // namespace

DistributedMatrix spgemm(const DistributedMatrix& a, const DistributedMatrix& b, std::optional<Format> format) {
    static const LocalProgram product("C[i,j] += A[i,k] * B[k,j]");
    MPI_Comm comm = a.rows().comm();
    collectively(comm, [&] {
        if (!(a.columns() == b.rows()))
            throw Error(fmt::format("spgemm: B ({} x {}) must be partitioned by rows as A ({} x {}) by columns",
                                    b.rows().size(), b.columns().size(), a.rows().size(), a.columns().size()));
    });
    const HaloPlan& halo = a.halo();
    GlobalRows mine;
    collectively(comm, [&] { mine = rows_of(b); });

    // Lengths first, then entries, to every rank that needs some of this rank's rows of B.
    count_call("spgemm");
    std::vector<std::vector<int64_t>> lengths(halo.sends().size()), entries(halo.sends().size());
    std::vector<MPI_Request> sends;
    for (size_t s = 0; s < halo.sends().size(); ++s) {
        const auto& send = halo.sends()[s];
        for (int64_t row : send.local_indices) {
            int64_t from = mine.starts[static_cast<size_t>(row)], to = mine.starts[static_cast<size_t>(row) + 1];
            lengths[s].push_back(to - from);
            entries[s].insert(entries[s].end(), mine.entries.begin() + from * 2, mine.entries.begin() + to * 2);
        }
        sends.emplace_back();
        MPI_Isend(lengths[s].data(), mpi_count(static_cast<int64_t>(lengths[s].size())), MPI_INT64_T, send.rank,
                  kLengthsTag, comm, &sends.back());
        count_sent("spgemm", static_cast<int64_t>(lengths[s].size()) * 8);
        if (entries[s].empty()) continue;
        sends.emplace_back();
        MPI_Isend(entries[s].data(), mpi_count(static_cast<int64_t>(entries[s].size())), MPI_INT64_T, send.rank,
                  kEntriesTag, comm, &sends.back());
        count_sent("spgemm", static_cast<int64_t>(entries[s].size()) * 8);
    }
    // The fetched rows, in column map order: one length per halo column, then the entries.
    std::vector<int64_t> fetched_lengths(static_cast<size_t>(halo.halo_size()));
    std::vector<MPI_Request> receives;
    for (const auto& r : halo.receives()) {
        receives.emplace_back();
        MPI_Irecv(fetched_lengths.data() + r.offset, mpi_count(r.count), MPI_INT64_T, r.rank, kLengthsTag, comm,
                  &receives.back());
        count_received("spgemm", r.count * 8);
    }
    MPI_Waitall(static_cast<int>(receives.size()), receives.data(), MPI_STATUSES_IGNORE);
    receives.clear();
    std::vector<int64_t> fetched_starts(fetched_lengths.size() + 1, 0);
    for (size_t k = 0; k < fetched_lengths.size(); ++k) fetched_starts[k + 1] = fetched_starts[k] + fetched_lengths[k];
    std::vector<int64_t> fetched(static_cast<size_t>(fetched_starts.back()) * 2);
    for (const auto& r : halo.receives()) {
        int64_t from = fetched_starts[static_cast<size_t>(r.offset)], to = fetched_starts[static_cast<size_t>(r.offset + r.count)];
        if (to == from) continue;
        receives.emplace_back();
        MPI_Irecv(fetched.data() + from * 2, mpi_count((to - from) * 2), MPI_INT64_T, r.rank, kEntriesTag, comm,
                  &receives.back());
        count_received("spgemm", (to - from) * 16);
    }
    MPI_Waitall(static_cast<int>(receives.size()), receives.data(), MPI_STATUSES_IGNORE);
    MPI_Waitall(static_cast<int>(sends.size()), sends.data(), MPI_STATUSES_IGNORE);

    // The local product over [A_diag | A_off] and [B's rows; the fetched rows].
    EntryWords owned;
    collectively(comm, [&] {
        int64_t own = a.columns().local_size();
        // The columns of C that occur, compressed.
        std::vector<int64_t> columns;
        for (size_t k = 0; k < mine.entries.size(); k += 2) columns.push_back(mine.entries[k]);
        for (size_t k = 0; k < fetched.size(); k += 2) columns.push_back(fetched[k]);
        std::sort(columns.begin(), columns.end());
        columns.erase(std::unique(columns.begin(), columns.end()), columns.end());
        auto compressed = [&](int64_t c) { return std::lower_bound(columns.begin(), columns.end(), c) - columns.begin(); };
        // Sized up front: these lists hold every entry of A's rows and of the B rows they meet.
        CoordinateList left, right;
        left.ndims = right.ndims = 2;
        size_t left_entries = static_cast<size_t>(a.diagonal().stored() + a.off_diagonal().stored());
        size_t right_entries = (mine.entries.size() + fetched.size()) / 2;
        left.coords.reserve(left_entries * 2);
        left.values.reserve(left_entries);
        right.coords.reserve(right_entries * 2);
        right.values.reserve(right_entries);
        a.diagonal().for_each_stored([&](std::span<const int64_t> c, const Scalar& v) { left.add(c, v); });
        a.off_diagonal().for_each_stored([&](std::span<const int64_t> c, const Scalar& v) {
            const int64_t at[2] = {c[0], c[1] + own};
            left.add(at, v);
        });
        auto add_rows = [&](const std::vector<int64_t>& starts, const std::vector<int64_t>& words, int64_t first) {
            for (size_t r = 0; r + 1 < starts.size(); ++r)
                for (int64_t k = starts[r]; k < starts[r + 1]; ++k) {
                    const int64_t at[2] = {first + static_cast<int64_t>(r), compressed(words[static_cast<size_t>(k) * 2])};
                    right.add(at, value_of_bits(b.type(), words[static_cast<size_t>(k) * 2 + 1]));
                }
        };
        add_rows(mine.starts, mine.entries, 0);
        add_rows(fetched_starts, fetched, own);
        int64_t inner = own + halo.halo_size();
        Tensor left_rows = Tensor::from_coordinates({a.rows().local_size(), inner}, a.type(), a.fill(), Format::csr(), left);
        Tensor right_rows = Tensor::from_coordinates({inner, static_cast<int64_t>(columns.size())}, b.type(), b.fill(),
                                                     Format::csr(), right);
        OutputSpec spec;
        spec.format = Format::csr();
        Tensor c = product.run({{"A", &left_rows}, {"B", &right_rows}}, {{"C", spec}}).at("C");
        owned.shape = {a.rows().size(), b.columns().size()};
        owned.type = c.type();
        owned.fill = c.fill();
        int64_t r0 = a.rows().begin();
        owned.words.reserve(static_cast<size_t>(c.stored()) * 3);
        c.for_each_stored([&](std::span<const int64_t> x, const Scalar& v) {
            owned.add(x[0] + r0, columns[static_cast<size_t>(x[1])], v);
        });
    });
    return matrix_from_entries(owned, a.rows(), b.columns(),
                               format.value_or(open_widths(a.diagonal().format())), Duplicates::Sum);
}

} // namespace siskin::distributed
