#include "siskin/limits.hpp"

#include <charconv>
#include <cstdlib>
#include <string_view>

#include <fmt/format.h>

#include "siskin/error.hpp"

namespace siskin {

namespace {

struct RankLimit {
    int64_t value;
    const char* origin;
};

RankLimit rank_limit() {
    const char* env = std::getenv("SISKIN_MAX_RANK");
    if (!env || !*env) return {kDefaultMaxRank, "the default"};
    std::string_view text(env);
    int64_t v = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || end != text.data() + text.size() || v < 1)
        throw Error(fmt::format("SISKIN_MAX_RANK is '{}': give the most dimensions a tensor may "
                                "have, a positive integer",
                                text.substr(0, 40)));
    return {v, "SISKIN_MAX_RANK"};
}

} // namespace

int64_t max_rank() { return rank_limit().value; }

void check_rank(int64_t ndims, const std::string& what) {
    RankLimit limit = rank_limit();
    if (ndims <= limit.value) return;
    throw Error(fmt::format("{} has {} dimensions, more than the rank limit of {} ({}); set "
                            "SISKIN_MAX_RANK to raise it",
                            what, ndims, limit.value, limit.origin));
}

} // namespace siskin
