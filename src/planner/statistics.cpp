#include "siskin/planner.hpp"

namespace siskin {

TensorStatistics TensorStatistics::of(const Tensor& t) {
    TensorStatistics s;
    s.shape = t.shape();
    for (int64_t n : s.shape) s.per_coordinate.emplace_back(static_cast<size_t>(n), 0);
    t.for_each_stored([&](std::span<const int64_t> c, const Scalar& v) {
        if (v.same(t.fill())) return; // a stored fill (or a fill run) is no entry
        ++s.entries;
        for (size_t d = 0; d < c.size(); ++d) ++s.per_coordinate[d][static_cast<size_t>(c[d])];
    });
    return s;
}

} // namespace siskin
