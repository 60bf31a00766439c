#pragma once
// Recording into comm_stats(): every exchange of src/distributed/ counts what it posts here.
#include <cstdint>
#include <string>

#include "siskin/distributed.hpp"

namespace siskin::distributed {

void count_call(const std::string& operation);
/// One message of `bytes` payload bytes sent (or received) by this rank.
void count_sent(const std::string& operation, int64_t bytes);
void count_received(const std::string& operation, int64_t bytes);

} // namespace siskin::distributed
