#pragma once
// Affine subscripts: `I[x + i]`, `v[2*x + i - 1]`, `A[i + 2*j]` (the convolution paper's grammar,
// ../shared/papers/notes/sparse-convolutions.md §1): a sum of loop indices with integer
// coefficients plus a constant. The verifier infers the "valid" range of an index that only such
// subscripts mention and checks given ranges against the tensors; the compiler reads each mode
// through a shifted, strided window of its level (wrappers/) and, for an index that reduces a
// subscript, iterates only the offsets of non-empty windows.
//
// The ranges are computed by one template over the value type, so the verifier (int64, on the
// actual shapes) and the compiled kernel (C expressions of its dimensions) agree by construction.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "siskin/ir/program.hpp"

namespace siskin::ir {

struct AffineTerm {
    std::string index;
    int64_t coef = 0; // never 0
};

struct Affine {
    std::vector<AffineTerm> terms; // one per index, in order of first appearance
    int64_t constant = 0;

    int64_t coef(const std::string& index) const;
    /// A single index with coefficient 1 and no constant: a plain subscript.
    bool plain() const { return terms.size() == 1 && terms[0].coef == 1 && constant == 0; }
};

/// The affine form of a subscript built from loop indices, integer literals, +, -, unary - and
/// products with a constant factor; nothing when it is anything else (a read, a division, a
/// product of two indices) or when a coefficient overflows.
std::optional<Affine> affine_of(const Expr& e);

/// The subscript inside a permissive one (`A[~(i+1)]`: i + 1), which may leave its tensor and then
/// reads `missing` (Finch §1.5); null when `s` is not permissive. Such a read must be the first
/// argument of coalesce(read, pad), which turns missing into the pad value.
const Expr* permissive_inner(const Expr& s);

/// The value of a constant integer expression (`4`, `2*8 - 1`): an affine form without indices.
std::optional<int64_t> constant_of(const Expr& e);

/// floor(a / b) and ceil(a / b) for b != 0, whatever the signs.
int64_t floor_div(int64_t a, int64_t b);
int64_t ceil_div(int64_t a, int64_t b);

/// The arithmetic `affine_range` and `valid_range` need, over int64 (exact, checked) or C
/// expressions. Only products and quotients by constants occur.
template <class V> struct AffineOps {
    std::function<V(int64_t)> constant;
    std::function<V(const V&, const V&)> add;
    std::function<V(const V&, int64_t)> scale;
    std::function<V(const V&, int64_t)> floor_div, ceil_div;
    std::function<V(const V&, const V&)> min, max;
};

/// A half-open range [lo, hi) of an index.
template <class V> struct IndexRange {
    V lo, hi;
};

/// The smallest and the largest coordinate the affine form takes, without the term of `skip`
/// (empty: none), when every other index runs over range(index), each assumed non-empty.
template <class V>
std::pair<V, V> affine_span(const Affine& a, const std::string& skip,
                            const std::function<IndexRange<V>(const std::string&)>& range,
                            const AffineOps<V>& ops) {
    V lo = ops.constant(a.constant), hi = ops.constant(a.constant);
    for (const auto& t : a.terms) {
        if (t.index == skip) continue;
        IndexRange<V> r = range(t.index);
        V first = ops.scale(r.lo, t.coef);
        V last = ops.scale(ops.add(r.hi, ops.constant(-1)), t.coef);
        if (t.coef > 0) {
            lo = ops.add(lo, first);
            hi = ops.add(hi, last);
        } else {
            lo = ops.add(lo, last);
            hi = ops.add(hi, first);
        }
    }
    return {lo, hi};
}

/// The "valid" range of `index` in a subscript `a` of a dimension of size `dim`: the values from
/// 0 on (indices start at 0 unless a range says otherwise) for which every coordinate the
/// subscript takes lies in [0, dim), the other indices running over range(...). Its hi is at
/// least its lo.
template <class V>
IndexRange<V> valid_range(const Affine& a, const std::string& index, const V& dim,
                          const std::function<IndexRange<V>(const std::string&)>& range,
                          const AffineOps<V>& ops) {
    int64_t c = a.coef(index);
    auto [rest_lo, rest_hi] = affine_span(a, index, range, ops);
    // c * index lies in [-rest_lo, dim - 1 - rest_hi].
    V low = ops.scale(rest_lo, -1);
    V high = ops.add(ops.add(dim, ops.constant(-1)), ops.scale(rest_hi, -1));
    V lo = ops.max(ops.constant(0), c > 0 ? ops.ceil_div(low, c) : ops.ceil_div(high, c));
    V last = c > 0 ? ops.floor_div(high, c) : ops.floor_div(low, c);
    return {lo, ops.max(lo, ops.add(last, ops.constant(1)))};
}

/// The same arithmetic on int64, every step checked: an overflow is an Error naming `what`.
AffineOps<int64_t> checked_int_ops(const std::string& what);

} // namespace siskin::ir
