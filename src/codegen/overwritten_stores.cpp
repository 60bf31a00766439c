// Overwritten stores (c_optimize.hpp): a value slot opens with the fill and the very next
// statement stores the value computed for it (`C_values[n] = 0.0; C_values[n] = w[j];` in a
// workspace's copy-out). The C compiler keeps the first store when it cannot prove that the
// second's value does not read that element through another pointer; an output's data pointer is
// the only way the kernel reaches its buffer, so it can be dropped here.
#include <vector>

#include "codegen/c_optimize.hpp"
#include "codegen/c_walk.hpp"

namespace siskin::cast {

namespace {

bool overwrites(const Stmt& first, const Stmt& second, const std::map<std::string, Type>& arrays) {
    auto x = array_store(first, arrays), y = array_store(second, arrays);
    if (!x || !y || *x != *y) return false;
    const auto& a = first.as<Assign>();
    const auto& b = second.as<Assign>();
    return same_expr(a.target, b.target) && !mentions(a.target.as<Index>().index, *x) &&
           is_pure(a.target) && is_pure(a.value) &&
           is_pure(b.value) && !mentions(b.value, *x);
}

} // namespace

Stmt remove_overwritten_stores(const Stmt& body, const std::map<std::string, Type>& arrays) {
    return merge_adjacent(body, [&](const Stmt& first, const Stmt& second) -> std::optional<Stmt> {
        if (overwrites(first, second, arrays)) return second;
        return std::nullopt;
    });
}

} // namespace siskin::cast
