#include "siskin/limits.hpp"

#include <charconv>
#include <cstdlib>
#include <string_view>

#include <fmt/format.h>

#include "siskin/error.hpp"

namespace siskin {

namespace {

// The whole text as an integer of at least `least`, or an error that names the variable and
// says what it should hold.
int64_t env_number(const char* name, std::string_view text, int64_t least, const char* meaning) {
    int64_t v = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || end != text.data() + text.size() || v < least)
        throw Error(fmt::format("{} is '{}': give {}", name, text.substr(0, 40), meaning));
    return v;
}

Limit rank_limit() {
    const char* env = std::getenv("SISKIN_MAX_RANK");
    if (!env || !*env) return {kDefaultMaxRank, "the default"};
    return {env_number("SISKIN_MAX_RANK", env, 1,
                       "the most dimensions a tensor may have, a positive integer"),
            "SISKIN_MAX_RANK"};
}

} // namespace

int64_t max_rank() { return rank_limit().value; }

void check_rank(int64_t ndims, const std::string& what) {
    Limit limit = rank_limit();
    if (ndims <= limit.value) return;
    throw Error(fmt::format("{} has {} dimensions, more than the rank limit of {} ({}); set "
                            "SISKIN_MAX_RANK to raise it",
                            what, ndims, limit.value, limit.origin));
}

Limit lowering_budget(std::optional<int64_t> requested) {
    if (requested) {
        if (*requested < 0)
            throw Error(fmt::format("the lowering budget is {}: give a number of steps, or 0 for "
                                    "no limit",
                                    *requested));
        return {*requested, "the lowering_budget option"};
    }
    const char* env = std::getenv("SISKIN_LOWERING_BUDGET");
    if (!env || !*env) return {kDefaultLoweringBudget, "the default"};
    return {env_number("SISKIN_LOWERING_BUDGET", env, 0,
                       "the most steps lowering one kernel may take, or 0 for no limit"),
            "SISKIN_LOWERING_BUDGET"};
}

} // namespace siskin
