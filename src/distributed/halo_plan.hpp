#pragma once
// The halo of a row-partitioned matrix: the entries of x that its off-diagonal block needs from
// other ranks (its column map), and the entries of x's own part that other ranks need. Set up
// once per matrix (one sparse exchange of the requested columns: PETSc's VecScatter setup) and
// kept; every SpMV then posts exactly these messages.
#include <cstdint>
#include <vector>

#include "siskin/distributed.hpp"

namespace siskin::distributed {

class HaloPlan {
public:
    /// Values from `rank` fill halo positions [offset, offset + count) (column map order).
    struct Receive {
        int rank = 0;
        int64_t offset = 0, count = 0;
    };
    /// The entries of this rank's part of x (local indices) that `rank` needs, in its order.
    struct Send {
        int rank = 0;
        std::vector<int64_t> local_indices;
    };

    /// Collective: each rank asks the owners of its column map's columns for them.
    HaloPlan(const RowPartition& columns, const std::vector<int64_t>& column_map);

    const std::vector<Receive>& receives() const { return receives_; }
    const std::vector<Send>& sends() const { return sends_; }
    int64_t halo_size() const { return halo_size_; }
    MPI_Comm comm() const { return comm_; }

private:
    MPI_Comm comm_;
    std::vector<Receive> receives_;
    std::vector<Send> sends_;
    int64_t halo_size_ = 0;
};

/// One exchange of x's halo values in flight: the receives and sends are posted when it is
/// made, so the caller computes while the messages travel, then finish() waits.
class HaloExchange {
public:
    /// `x_local`: this rank's part of x (a dense 1-D tensor). Counted under `operation`.
    HaloExchange(const HaloPlan& plan, const Tensor& x_local, const std::string& operation);
    HaloExchange(const HaloExchange&) = delete;
    HaloExchange& operator=(const HaloExchange&) = delete;
    ~HaloExchange();
    /// The halo (a dense 1-D tensor of x's type, column map order), once every message arrived.
    Tensor finish();

private:
    const HaloPlan& plan_;
    ValueType type_;
    Scalar fill_;
    std::vector<unsigned char> received_, packed_;
    std::vector<MPI_Request> requests_;
    bool finished_ = false;
};

} // namespace siskin::distributed
