// The nest's cost: loop steps, body executions, search steps, transposition and output terms,
// each an expected count of memory touches, from the operands' per-coordinate counts under the
// model that an entry's probability factors over its coordinates (P(A[i,k] stored) =
// rows[i] * cols[k] / nnz), which makes every sum over a loop nest a product of per-index sums.
#include "planner/nest_cost.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "levels/level_format.hpp"

namespace siskin::planner {

namespace {

// A read's storage positions in the order a candidate walks them: the index of each and
// whether its level stores coordinates. A transposed copy keeps the levels and deals the
// dimensions out in loop order (as concordize's format_in_loop_order does).
struct Position {
    std::string index;
    bool sparse;
    size_t level; // storage position in the tensor's own format (its statistics)
};

std::vector<Position> positions(const Read& r, const std::vector<std::string>& order, ReadRoute route) {
    const Format& f = r.tensor->format();
    std::vector<int> modes = f.mode_order();
    std::vector<Position> out;
    size_t k = 0;
    for (const auto& level : f.levels())
        for (size_t m = 0; m < level.modes.size(); ++m, ++k)
            out.push_back({r.index.at(static_cast<size_t>(modes[k])), !levels::properties_of(level).implicit, k});
    if (route == ReadRoute::Transposed) {
        std::vector<std::string> indices;
        for (const auto& p : out) indices.push_back(p.index);
        auto depth = [&](const std::string& i) { return std::find(order.begin(), order.end(), i) - order.begin(); };
        std::stable_sort(indices.begin(), indices.end(),
                         [&](const std::string& a, const std::string& b) { return depth(a) < depth(b); });
        for (size_t p = 0; p < out.size(); ++p) out[p].index = indices[p];
    }
    return out;
}

// A factor of a sum over the nest: read `read` restricted to the indices `bound`, either as
// its expected number of entries there (nnz times, per bound index, the share of entries with
// that coordinate) or as whether it has any (per bound index, whether the coordinate has one).
struct Factor {
    size_t read;
    bool expected;
    std::set<std::string> bound;
};

class Sums {
public:
    explicit Sums(const Statement& s) : s_(s) {}

    // The sum over every coordinate of `indices` of the product of the factors.
    double over(const std::vector<Factor>& factors, const std::vector<std::string>& indices) {
        double result = 1, box = 1;
        for (const auto& f : factors)
            if (f.expected) result *= static_cast<double>(s_.reads[f.read].stats->entries);
        for (const auto& l : indices) {
            box *= static_cast<double>(s_.extent.at(l));
            result *= per_index(factors, l);
        }
        return std::min(result, box);
    }

private:
    double per_index(const std::vector<Factor>& factors, const std::string& l) {
        std::vector<std::pair<const std::vector<int64_t>*, double>> counts; // a count vector, nnz or 0
        std::string key = l;
        for (const auto& f : factors) {
            if (!f.bound.count(l)) continue;
            const Read& r = s_.reads[f.read];
            size_t mode = static_cast<size_t>(std::find(r.index.begin(), r.index.end(), l) - r.index.begin());
            counts.emplace_back(&r.stats->per_coordinate.at(mode),
                                f.expected ? static_cast<double>(r.stats->entries) : 0.0);
            key += fmt::format("|{}:{}:{}", f.read, mode, f.expected);
        }
        if (counts.empty()) return static_cast<double>(s_.extent.at(l));
        if (auto it = memo_.find(key); it != memo_.end()) return it->second;
        double sum = 0;
        const size_t n = counts.front().first->size();
        for (size_t c = 0; c < n; ++c) {
            double term = 1;
            for (const auto& [v, nnz] : counts) {
                double x = static_cast<double>((*v)[c]);
                term *= nnz > 0 ? x / nnz : (x > 0 ? 1.0 : 0.0);
                if (term == 0) break;
            }
            sum += term;
        }
        return memo_[key] = sum;
    }

    const Statement& s_;
    std::map<std::string, double> memo_;
};

} // namespace

std::string NestCost::formula() const {
    return fmt::format("{:.3g} loop steps + {:.3g} bodies + {:.3g} search steps + {:.3g} transposing + {:.3g} "
                       "output",
                       loops, bodies, searches, transposes, output);
}

NestCost estimate_nest(const Statement& s, const std::vector<std::string>& order, const std::vector<ReadRoute>& routes,
                       WriteRoute write) {
    Sums sums(s);
    NestCost cost;
    std::vector<std::vector<Position>> walk;
    for (size_t r = 0; r < s.reads.size(); ++r) walk.push_back(positions(s.reads[r], order, routes[r]));

    // Whether each read of a term is stored at the bound coordinates (its probability once all
    // of its indices are bound, else whether those coordinates have entries at all).
    auto presence = [&](const std::vector<size_t>& term, const std::set<std::string>& bound) {
        std::vector<Factor> factors;
        for (size_t r : term) {
            Factor f{r, true, {}};
            for (const auto& i : s.reads[r].index)
                if (bound.count(i)) f.bound.insert(i);
                else f.expected = false;
            if (!f.bound.empty()) factors.push_back(f);
        }
        return factors;
    };

    for (const auto& term : s.terms) {
        std::set<std::string> bound;
        std::vector<std::string> bound_list;
        for (const auto& l : order) {
            // A read walks this loop when its next storage position is l's and stores coordinates.
            std::vector<size_t> leaders;
            for (size_t r : term) {
                if (routes[r] == ReadRoute::Searched) continue;
                auto next = std::find_if(walk[r].begin(), walk[r].end(),
                                         [&](const Position& p) { return !bound.count(p.index); });
                if (next != walk[r].end() && next->index == l && next->sparse) leaders.push_back(r);
            }
            std::vector<Factor> parents = presence(term, bound);
            std::vector<std::string> inner = bound_list;
            inner.push_back(l);
            if (leaders.empty()) {
                cost.loops += sums.over(parents, bound_list) * static_cast<double>(s.extent.at(l));
            } else {
                // Each walked fibre costs its length: a merge steps through every one.
                for (size_t r : leaders) {
                    std::vector<Factor> factors;
                    for (const auto& f : parents)
                        if (f.read != r) factors.push_back(f);
                    Factor walked{r, true, {}};
                    for (const auto& p : walk[r]) {
                        walked.bound.insert(p.index);
                        if (p.index == l) break;
                    }
                    factors.push_back(walked);
                    cost.loops += sums.over(factors, inner);
                }
            }
            bound.insert(l);
            bound_list.push_back(l);
        }
        double bodies = sums.over(presence(term, bound), bound_list);
        cost.bodies += bodies;

        // A searched level costs a binary search over its mean fibre once the indices of its
        // prefix are all bound.
        for (size_t r : term) {
            if (routes[r] != ReadRoute::Searched) continue;
            std::set<std::string> prefix;
            int deepest = -1;
            for (const auto& p : walk[r]) {
                prefix.insert(p.index);
                int d = static_cast<int>(std::find(order.begin(), order.end(), p.index) - order.begin());
                bool out_of_order = d < deepest;
                deepest = std::max(deepest, d);
                if (!out_of_order || !p.sparse) continue;
                std::vector<std::string> at(order.begin(), order.begin() + deepest + 1);
                std::set<std::string> at_set(at.begin(), at.end());
                cost.searches += sums.over(presence(term, at_set), at) *
                                 std::log2(2.0 + s.reads[r].stats->mean_fibre(p.level));
            }
        }
    }
    std::set<std::string> transposed;
    for (size_t r = 0; r < s.reads.size(); ++r)
        if (routes[r] == ReadRoute::Transposed && transposed.insert(s.reads[r].access->tensor).second) {
            cost.transposes += 4.0 * static_cast<double>(s.reads[r].stats->entries);
            for (int64_t n : s.reads[r].stats->shape) cost.transposes += static_cast<double>(n);
        }

    double box = 1;
    for (const auto& i : s.output_index) box *= static_cast<double>(s.extent.at(i));
    double entries = std::min(box, cost.bodies);
    switch (write) {
    case WriteRoute::Dense: cost.output = box; break;
    case WriteRoute::InOrder: cost.output = entries; break;
    case WriteRoute::Workspace: {
        // Each product lands in the workspace; each row's entries are sorted and copied once.
        double rows = 1;
        for (size_t k = 0; k + 1 < s.output_index.size(); ++k) rows *= static_cast<double>(s.extent.at(s.output_index[k]));
        cost.output = cost.bodies + 3 * entries + rows;
        break;
    }
    case WriteRoute::DenseTemporary: cost.output = 2 * box + 2 * entries; break;
    case WriteRoute::HashTemporary: {
        // Each product probes one table per level, a miss at a random place of a table that
        // grows by rehashing: measured ~330 ns a product (4000 x 4000 SpGEMM, 6 a column) where
        // the row workspace spends ~3 ns per unit of its estimate, so kHashProbe units a probe.
        // Freeze sorts each fibre's entries; the copy reads them once.
        constexpr double kHashProbe = 24;
        double fibres = 1;
        for (size_t k = 0; k + 1 < s.output_index.size(); ++k)
            fibres *= static_cast<double>(s.extent.at(s.output_index[k]));
        fibres = std::max(1.0, std::min(fibres, entries));
        double levels = static_cast<double>(s.output_index.size());
        cost.output = kHashProbe * levels * cost.bodies + entries * (2 + std::log2(2 + entries / fibres)) + 2 * entries;
        break;
    }
    }
    return cost;
}

} // namespace siskin::planner
