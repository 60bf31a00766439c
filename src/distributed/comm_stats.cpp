// The process's communication counters (include/siskin/distributed.hpp, CommCounters).
#include "distributed/comm_count.hpp"

namespace siskin::distributed {

std::map<std::string, CommCounters>& comm_stats() {
    static std::map<std::string, CommCounters> stats;
    return stats;
}

void reset_comm_stats() { comm_stats().clear(); }

void count_call(const std::string& operation) { ++comm_stats()[operation].calls; }

void count_sent(const std::string& operation, int64_t bytes) {
    CommCounters& c = comm_stats()[operation];
    ++c.messages_sent;
    c.bytes_sent += bytes;
}

void count_received(const std::string& operation, int64_t bytes) {
    CommCounters& c = comm_stats()[operation];
    ++c.messages_received;
    c.bytes_received += bytes;
}

} // namespace siskin::distributed
