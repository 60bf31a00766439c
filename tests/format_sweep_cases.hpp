#pragma once
// The format sweep's programs and formats (issue 19: every einsum program in every combination of
// input and output formats), shared by tests/compiler_format_sweep_test.cpp, which compiles a
// covering sample of the combinations, and tools/format_sweep, which lowers the whole product.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "compiler_test_util.hpp"
#include "siskin/reference.hpp"

namespace siskin::testing {

/// The formats a tensor of `ndims` dimensions is swept over: csr, csc, dcsr, dcsc, coo (both
/// orders), dense, band, runlist and bytemap rows or columns for matrices; csf in every order for
/// 3-tensors.
inline const std::vector<std::string>& sweep_formats(int ndims) {
    static const std::vector<std::string> scalar{"dense"};
    static const std::vector<std::string> vector{"dense", "sparselist(0)", "band(0)", "rle(0)", "bytemap(0)", "coo"};
    static const std::vector<std::string> matrix{
        "csr", "csc", "dcsr", "dcsc", "coo", "coo(1,0)", "dense", "dense(0)/band(1)", "dense(1)/band(0)",
        "dense(0)/rle(1)", "dense(1)/rle(0)", "dense(0)/bytemap(1)", "dense(1)/bytemap(0)"};
    static const std::vector<std::string> cube{
        "sparselist(0)/sparselist(1)/sparselist(2)", "sparselist(0)/sparselist(2)/sparselist(1)",
        "sparselist(1)/sparselist(0)/sparselist(2)", "sparselist(1)/sparselist(2)/sparselist(0)",
        "sparselist(2)/sparselist(0)/sparselist(1)", "sparselist(2)/sparselist(1)/sparselist(0)",
        "dense(0)/sparselist(2)/sparselist(1)", "coo", "dense"};
    switch (ndims) {
    case 0: return scalar;
    case 1: return vector;
    case 2: return matrix;
    default: return cube;
    }
}

struct SweepProgram {
    std::string text;
    std::vector<std::pair<std::string, std::vector<int64_t>>> inputs; // name, shape
    std::string output;
    int output_ndims;
    double fill = 0; // of the inputs
};

/// The programs of issue 19, the other einsum shapes of the compiler's differential tests, and
/// the planner sweep's SDDMM.
inline const std::vector<SweepProgram>& sweep_programs() {
    const double inf = std::numeric_limits<double>::infinity();
    static const std::vector<SweepProgram> list{
        {"A[i,j] = -B[i,j]", {{"B", {5, 7}}}, "A", 2},
        {"C[i,j] = A[j,i]", {{"A", {7, 5}}}, "C", 2},
        {"C[i,j] = A[i,j] + B[i,j]", {{"A", {5, 7}}, {"B", {5, 7}}}, "C", 2},
        {"C[i,j] = A[i,j] * B[i,j]", {{"A", {5, 7}}, {"B", {5, 7}}}, "C", 2},
        {"C[i,j] = A[i,j] + B[j,i]", {{"A", {6, 6}}, {"B", {6, 6}}}, "C", 2},
        {"C[i,j] = A[i,j] * x[j]", {{"A", {5, 7}}, {"x", {7}}}, "C", 2},
        {"C[i,j] += A[i,k] * B[k,j]", {{"A", {5, 6}}, {"B", {6, 7}}}, "C", 2},
        {"C[i,j] min= A[i,k] + B[k,j]", {{"A", {5, 6}}, {"B", {6, 7}}}, "C", 2, inf},
        {"C[i,j] += A[i,j] * B[i,k] * D[k,j]", {{"A", {5, 7}}, {"B", {5, 4}}, {"D", {4, 7}}}, "C", 2},
        {"C[i,j] += S[i,j] * A[i,k] * B[j,k]", {{"S", {6, 7}}, {"A", {6, 4}}, {"B", {7, 4}}}, "C", 2},
        {"A[i,j] += T[i,j,k]", {{"T", {4, 5, 3}}}, "A", 2},
        {"A[i,k] += T[i,j,k]", {{"T", {4, 5, 3}}}, "A", 2},
        {"U[k,j,i] = T[i,j,k]", {{"T", {4, 5, 3}}}, "U", 3},
        {"y[i] += A[i,j] * x[j]", {{"A", {5, 7}}, {"x", {7}}}, "y", 1},
        {"y[j] += A[i,j] * x[i]", {{"A", {5, 7}}, {"x", {5}}}, "y", 1},
        {"y[i] max= A[i,j]", {{"A", {5, 7}}}, "y", 1, -inf},
        {"s[] += A[i,j] * B[i,j]", {{"A", {5, 7}}, {"B", {5, 7}}}, "s", 0},
        {"D[i,l] += A[i,j] * B[j,k] * C[k,l]", {{"A", {4, 5}}, {"B", {5, 3}}, {"C", {3, 6}}}, "D", 2},
    };
    return list;
}

/// A combination: a format for each input, then the output's.
using SweepCombination = std::vector<std::string>;

inline std::vector<const std::vector<std::string>*> sweep_lists(const SweepProgram& p) {
    std::vector<const std::vector<std::string>*> lists;
    for (const auto& [name, shape] : p.inputs) lists.push_back(&sweep_formats(static_cast<int>(shape.size())));
    lists.push_back(&sweep_formats(p.output_ndims));
    return lists;
}

/// Every combination: the whole product of the tensors' format lists.
inline std::vector<SweepCombination> every_combination(const SweepProgram& p) {
    const auto lists = sweep_lists(p);
    std::vector<SweepCombination> out;
    std::vector<size_t> at(lists.size(), 0);
    for (;;) {
        SweepCombination c;
        for (size_t t = 0; t < lists.size(); ++t) c.push_back((*lists[t])[at[t]]);
        out.push_back(std::move(c));
        size_t t = 0;
        while (t < lists.size() && ++at[t] == lists[t]->size()) at[t++] = 0;
        if (t == lists.size()) return out;
    }
}

/// Combinations in which every tensor takes every format of its list: case k gives tensor t the
/// format k + 3t of its list (a rotation, so that tensors of the same list differ).
inline std::vector<SweepCombination> every_format_covering(const SweepProgram& p) {
    const auto lists = sweep_lists(p);
    size_t longest = 0;
    for (const auto* l : lists) longest = std::max(longest, l->size());
    std::vector<SweepCombination> out;
    for (size_t k = 0; k < longest; ++k) {
        SweepCombination c;
        for (size_t t = 0; t < lists.size(); ++t) c.push_back((*lists[t])[(k + 3 * t) % lists[t]->size()]);
        out.push_back(std::move(c));
    }
    return out;
}

/// Combinations in which every format of each tensor meets every format of the output (and so
/// every tensor takes every format): for each output format, the inputs' lists walked in step,
/// each from its own offset so that inputs of the same list do not always agree.
inline std::vector<SweepCombination> output_pair_covering(const SweepProgram& p) {
    const auto lists = sweep_lists(p);
    const auto& outputs = *lists.back();
    size_t longest = 1;
    for (size_t t = 0; t + 1 < lists.size(); ++t) longest = std::max(longest, lists[t]->size());
    std::vector<SweepCombination> out;
    for (size_t o = 0; o < outputs.size(); ++o)
        for (size_t k = 0; k < longest; ++k) {
            SweepCombination c;
            for (size_t t = 0; t + 1 < lists.size(); ++t) c.push_back((*lists[t])[(k + o + 3 * t) % lists[t]->size()]);
            c.push_back(outputs[o]);
            out.push_back(std::move(c));
        }
    return out;
}

/// Combinations in which every pair of formats of every two tensors appears (a greedy pairwise
/// covering: each new combination starts from a pair not yet met and gives every other tensor the
/// format that meets the most new pairs).
inline std::vector<SweepCombination> pairwise_covering(const SweepProgram& p) {
    const auto lists = sweep_lists(p);
    const size_t n = lists.size();
    if (n == 1) {
        std::vector<SweepCombination> out;
        for (const auto& f : *lists[0]) out.push_back({f});
        return out;
    }
    std::set<std::tuple<size_t, size_t, size_t, size_t>> unmet; // tensor a, its format, tensor b > a, its format
    for (size_t a = 0; a < n; ++a)
        for (size_t b = a + 1; b < n; ++b)
            for (size_t fa = 0; fa < lists[a]->size(); ++fa)
                for (size_t fb = 0; fb < lists[b]->size(); ++fb) unmet.insert({a, fa, b, fb});
    std::vector<SweepCombination> out;
    while (!unmet.empty()) {
        const auto [a, fa, b, fb] = *unmet.begin();
        std::vector<size_t> pick(n, SIZE_MAX);
        pick[a] = fa;
        pick[b] = fb;
        for (size_t t = 0; t < n; ++t) {
            if (pick[t] != SIZE_MAX) continue;
            size_t best = 0, best_new = 0;
            for (size_t f = 0; f < lists[t]->size(); ++f) {
                size_t fresh = 0;
                for (size_t u = 0; u < n; ++u)
                    if (u != t && pick[u] != SIZE_MAX)
                        fresh += unmet.count(u < t ? std::make_tuple(u, pick[u], t, f) : std::make_tuple(t, f, u, pick[u]));
                if (fresh > best_new) best = f, best_new = fresh;
            }
            pick[t] = best;
        }
        SweepCombination c;
        for (size_t t = 0; t < n; ++t) c.push_back((*lists[t])[pick[t]]);
        for (size_t u = 0; u < n; ++u)
            for (size_t v = u + 1; v < n; ++v) unmet.erase({u, pick[u], v, pick[v]});
        out.push_back(std::move(c));
    }
    return out;
}

/// One combination's inputs (small random tensors holding whole numbers from -3 to 3, so that any
/// order of summation gives the same bits) and its output spec; `where` names it in messages.
struct SweepCase {
    std::map<std::string, Tensor> tensors;
    std::map<std::string, OutputSpec> specs;
    std::string where;

    std::map<std::string, const Tensor*> inputs() const {
        std::map<std::string, const Tensor*> out;
        for (const auto& [name, t] : tensors) out.emplace(name, &t);
        return out;
    }
};

inline SweepCase sweep_case(const SweepProgram& p, const SweepCombination& formats, uint64_t seed) {
    SweepCase c;
    c.where = p.text;
    for (size_t t = 0; t < p.inputs.size(); ++t) {
        const auto& [name, shape] = p.inputs[t];
        c.where += " " + name + "=" + formats[t];
        c.tensors.emplace(name, random_tensor_of(shape, formats[t], 0.35, Scalar::of(p.fill), seed + t, [](auto& rng) {
                              return Scalar::of(static_cast<double>(rng() % 7) - 3.0);
                          }));
    }
    c.where += " " + p.output + "=" + formats.back();
    OutputSpec spec;
    spec.format = Format::parse(formats.back(), p.output_ndims);
    c.specs.emplace(p.output, spec);
    return c;
}

/// A format's levels and their modes, index widths aside (an output gets 32 bits where it fits).
inline std::string sweep_layout(const Format& f) {
    std::string out;
    for (const auto& level : f.levels()) {
        out += level.kind + "(";
        for (int m : level.modes) out += std::to_string(m);
        out += ")/";
    }
    return out;
}

} // namespace siskin::testing
