#include <cstring>

#include "distributed/comm_count.hpp"
#include "distributed/exchange.hpp"
#include "distributed/halo_plan.hpp"
#include "siskin/error.hpp"

namespace siskin::distributed {

namespace {
constexpr int kHaloTag = 7412;
}

HaloExchange::HaloExchange(const HaloPlan& plan, const Tensor& x_local, const std::string& operation)
    : plan_(plan), type_(x_local.type()), fill_(x_local.fill()) {
    SISKIN_ASSERT(x_local.ndims() == 1 && x_local.format().levels().size() == 1 &&
                      x_local.format().levels()[0].kind == "dense",
                  "a dense part of x");
    size_t width = type_size(type_);
    received_.resize(static_cast<size_t>(plan.halo_size()) * width);
    size_t packed = 0;
    for (const auto& s : plan.sends()) packed += s.local_indices.size();
    packed_.resize(packed * width);
    requests_.reserve(plan.receives().size() + plan.sends().size());
    const unsigned char* values = x_local.values().data<unsigned char>();
    count_call(operation);
    for (const auto& r : plan.receives()) {
        int64_t bytes = r.count * static_cast<int64_t>(width);
        requests_.emplace_back();
        MPI_Irecv(received_.data() + static_cast<size_t>(r.offset) * width, mpi_count(bytes), MPI_BYTE,
                  r.rank, kHaloTag, plan.comm(), &requests_.back());
        count_received(operation, bytes);
    }
    size_t at = 0;
    for (const auto& s : plan.sends()) {
        unsigned char* start = packed_.data() + at;
        for (int64_t i : s.local_indices) {
            std::memcpy(packed_.data() + at, values + static_cast<size_t>(i) * width, width);
            at += width;
        }
        int64_t bytes = static_cast<int64_t>(s.local_indices.size() * width);
        requests_.emplace_back();
        MPI_Isend(start, mpi_count(bytes), MPI_BYTE, s.rank, kHaloTag, plan.comm(), &requests_.back());
        count_sent(operation, bytes);
    }
}

HaloExchange::~HaloExchange() {
    // An exchange abandoned by an exception still completes its messages: the other ranks wait
    // for them.
    if (!finished_) MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE);
}

Tensor HaloExchange::finish() {
    MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE);
    finished_ = true;
    Tensor halo({plan_.halo_size()}, type_, fill_, Format::dense(1));
    SISKIN_ASSERT(halo.values().size() == plan_.halo_size(), "a dense halo of one value per column");
    if (!received_.empty())
        std::memcpy(halo.values().data<unsigned char>(), received_.data(), received_.size());
    return halo;
}

} // namespace siskin::distributed
