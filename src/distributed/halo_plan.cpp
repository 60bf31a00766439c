#include "distributed/halo_plan.hpp"

#include <algorithm>

#include "distributed/comm_count.hpp"
#include "distributed/exchange.hpp"
#include "siskin/error.hpp"

namespace siskin::distributed {

HaloPlan::HaloPlan(const RowPartition& columns, const std::vector<int64_t>& column_map)
    : comm_(columns.comm()), halo_size_(static_cast<int64_t>(column_map.size())) {
    // The column map is increasing and the owners' ranges are contiguous, so the columns of one
    // owner are one run of it.
    std::vector<Message> requests;
    for (int64_t at = 0; at < halo_size_;) {
        int owner = columns.owner(column_map[static_cast<size_t>(at)]);
        int64_t end = at;
        while (end < halo_size_ && column_map[static_cast<size_t>(end)] < columns.end(owner)) ++end;
        receives_.push_back({owner, at, end - at});
        requests.push_back({owner, std::vector<int64_t>(column_map.begin() + at, column_map.begin() + end)});
        at = end;
    }
    count_call("halo_setup");
    std::vector<Message> asked = exchange_sparse(columns.comm(), requests, "halo_setup");
    std::sort(asked.begin(), asked.end(), [](const Message& a, const Message& b) { return a.rank < b.rank; });
    for (Message& m : asked) {
        for (int64_t& column : m.words) {
            SISKIN_ASSERT(column >= columns.begin() && column < columns.end(),
                          "a halo request for a column this rank owns");
            column -= columns.begin();
        }
        sends_.push_back({m.rank, std::move(m.words)});
    }
}

} // namespace siskin::distributed
