#pragma once
// A small prover for the int64 index arithmetic of extents, and builders that fold it.
//
// Expressions are read as linear forms over opaque atoms (a variable, crd[p], a min call), so
// (crd[p] + 1) - 1 is crd[p] and hi - (hi - 1) is 1. On top of that the prover knows the min
// and max helpers of the prelude and a list of assumed facts a <= b that levels and lowerers
// state (a chunk's stop is at most the phase stop; a phase stop is at most the dimension). It
// answers "provably true" or "don't know", never "false": guards it cannot discharge are emitted.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "codegen/c_ast.hpp"

namespace siskin::lowering {

/// A structural key: equal keys mean equal expressions.
std::string expr_key(const cast::Expr& e);

cast::Expr c_int(int64_t v);
/// a + b, a - b, a * b on int64 index expressions, with constants folded.
cast::Expr c_add(const cast::Expr& a, const cast::Expr& b);
cast::Expr c_add(const cast::Expr& a, int64_t b);
cast::Expr c_sub(const cast::Expr& a, const cast::Expr& b);
cast::Expr c_mul(const cast::Expr& a, const cast::Expr& b);
/// The literal value of e, if it is an integer constant after folding.
std::optional<int64_t> c_constant(const cast::Expr& e);

class Prover {
public:
    /// Whether a <= b holds for sure.
    bool le(const cast::Expr& a, const cast::Expr& b) const;
    bool lt(const cast::Expr& a, const cast::Expr& b) const { return le(c_add(a, 1), b); }
    bool eq(const cast::Expr& a, const cast::Expr& b) const;
    /// b - a when it is a constant.
    std::optional<int64_t> difference(const cast::Expr& a, const cast::Expr& b) const;

    /// min and max, dropping the arguments that provably do not matter; the prelude's
    /// siskin_min_i64 / siskin_max_i64 for the rest.
    cast::Expr min(std::vector<cast::Expr> args) const;
    cast::Expr max(std::vector<cast::Expr> args) const;

    void assume_le(const cast::Expr& a, const cast::Expr& b);
    /// Facts are scoped: rollback(mark()) forgets those assumed since.
    size_t mark() const { return facts_.size(); }
    void rollback(size_t m) { facts_.erase(facts_.begin() + static_cast<std::ptrdiff_t>(m), facts_.end()); }

private:
    bool le_depth(const cast::Expr& a, const cast::Expr& b, int depth) const;
    std::vector<std::pair<cast::Expr, cast::Expr>> facts_;
};

} // namespace siskin::lowering
