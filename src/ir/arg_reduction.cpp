#include "ir/arg_reduction.hpp"

#include <cstdint>
#include <limits>

namespace siskin::ir {

std::vector<std::shared_ptr<const Assign>> arg_reduction(std::shared_ptr<const Access> value,
                                                         std::shared_ptr<const Access> index,
                                                         bool max, const Expr& e,
                                                         const std::string& reduced, Position pos) {
    return arg_reduction(std::move(value), std::move(index), max, e, Index::make(reduced, pos),
                         pos);
}

std::vector<std::shared_ptr<const Assign>> arg_reduction(std::shared_ptr<const Access> value,
                                                         std::shared_ptr<const Access> index,
                                                         bool max, const Expr& e,
                                                         const Expr& position, Position pos) {
    auto extreme = std::make_shared<const Assign>(value, max ? "max" : "min", e, pos);
    Expr found = Call::make("or", {Call::make("eq", {e, value}, pos), Call::make("ne", {e, e}, pos)}, pos);
    Expr none = Literal::make(Scalar::of(std::numeric_limits<int64_t>::max()), pos);
    Expr at = Call::make("ifelse", {found, position, none}, pos);
    auto first = std::make_shared<const Assign>(index, "min", at, pos);
    return {extreme, first};
}

} // namespace siskin::ir
