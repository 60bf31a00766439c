#pragma once
// The blocks of several matrices of the same partitions, lined up for one elementwise kernel:
// their diagonal blocks as they are, and their off-diagonal blocks over the union of their
// column maps (a block whose map is the union is used as it is; another is rebuilt with its
// columns renumbered).
#include <map>
#include <string>
#include <vector>

#include "siskin/distributed.hpp"

namespace siskin::distributed {

struct AlignedBlocks {
    std::vector<int64_t> column_map; // the union, increasing
    std::map<std::string, const Tensor*> diagonal, off_diagonal;
    std::map<std::string, Tensor> renumbered; // the off-diagonal blocks that were rebuilt
};

/// Collective (agrees on a partition mismatch, an Error naming both matrices).
AlignedBlocks align_blocks(const std::map<std::string, const DistributedMatrix*>& inputs);

/// `block` (local rows x map.size()) with only the columns that store entries, and their map.
std::pair<Tensor, std::vector<int64_t>> drop_empty_columns(const Tensor& block, const std::vector<int64_t>& map);

} // namespace siskin::distributed
