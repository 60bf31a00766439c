// Contractions: einsum, and matmul and tensordot written as einsums.
#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "array/node.hpp"
#include "siskin/error.hpp"
#include "siskin/operators.hpp"

namespace siskin {

using namespace array_detail;
using Kind = Array::Node::Kind;

namespace {

/// The einsum of operands whose dimensions carry the given labels (ints), into out_labels.
Array contraction(const std::string& what, const std::vector<Array>& operands,
                  const std::vector<std::vector<int>>& labels, const std::vector<int>& out_labels,
                  const std::vector<std::string>& label_names) {
    std::map<int, int64_t> size;
    std::map<int, size_t> first_operand;
    for (size_t k = 0; k < operands.size(); ++k) {
        if (labels[k].size() != operands[k].shape().size())
            throw Error(fmt::format("{}: operand {} has {} dimensions but {} subscripts", what, k,
                                    operands[k].ndim(), labels[k].size()));
        for (size_t d = 0; d < labels[k].size(); ++d) {
            int l = labels[k][d];
            int64_t n = operands[k].shape()[d];
            auto [it, fresh] = size.emplace(l, n);
            if (fresh) {
                first_operand[l] = k;
            } else if (it->second != n) {
                throw Error(fmt::format("{}: subscript '{}' has size {} in {} but size {} in {}",
                                        what, label_names[l], it->second,
                                        describe(operands[first_operand[l]]), n,
                                        describe(operands[k])));
            }
        }
    }
    std::vector<int64_t> shape;
    for (int l : out_labels) {
        if (!size.count(l))
            throw Error(fmt::format("{}: output subscript '{}' appears in no operand", what,
                                    label_names[l]));
        if (std::count(out_labels.begin(), out_labels.end(), l) > 1)
            throw Error(fmt::format("{}: output subscript '{}' appears twice", what,
                                    label_names[l]));
        shape.push_back(size[l]);
    }
    // The product's type and fill, then the sum over the other labels.
    std::vector<Array> children = operands;
    ValueType type = children.at(0).dtype();
    Scalar fill = children[0].fill();
    const Operator& mul = find_operator("mul");
    for (size_t k = 1; k < children.size(); ++k) {
        ValueType ts[] = {type, children[k].dtype()};
        type = mul.result_type_of(ts);
        fill = mul.apply(std::vector<Scalar>{fill, children[k].fill()}).cast(type);
    }
    int64_t summed = 1;
    for (auto [l, n] : size)
        if (std::find(out_labels.begin(), out_labels.end(), l) == out_labels.end()) summed *= n;
    if (summed != 1 || size.size() != out_labels.size()) {
        const Operator& add = find_operator("add");
        Scalar total = add.reduction_identity(type).value_or(Scalar::zero(type));
        if (summed > 0)
            total = mul.apply(std::vector<Scalar>{fill, Scalar::of(summed).cast(type)}).cast(type);
        fill = total;
    }
    auto n = make_node(Kind::Einsum, std::move(shape), type, fill, std::move(children));
    n->labels = labels;
    n->out_labels = out_labels;
    return Array(std::shared_ptr<const Array::Node>(std::move(n)));
}

} // namespace

Array einsum(const std::string& subscripts, const std::vector<Array>& operands) {
    auto arrow = subscripts.find("->");
    if (arrow == std::string::npos)
        throw Error(fmt::format("einsum: '{}' has no '->' (give the output subscripts)",
                                subscripts));
    std::vector<std::vector<int>> labels(1);
    std::vector<int> out;
    std::vector<std::string> names(128);
    auto label = [&](char c) {
        if (!std::isalpha(static_cast<unsigned char>(c)))
            throw Error(fmt::format("einsum: '{}' is not a subscript letter in '{}'", c,
                                    subscripts));
        names[static_cast<unsigned char>(c)] = std::string(1, c);
        return static_cast<int>(static_cast<unsigned char>(c));
    };
    for (size_t k = 0; k < arrow; ++k) {
        char c = subscripts[k];
        if (c == ' ') continue;
        if (c == ',') labels.emplace_back();
        else labels.back().push_back(label(c));
    }
    for (size_t k = arrow + 2; k < subscripts.size(); ++k)
        if (subscripts[k] != ' ') out.push_back(label(subscripts[k]));
    if (labels.size() != operands.size())
        throw Error(fmt::format("einsum: '{}' names {} operands but {} are given", subscripts,
                                labels.size(), operands.size()));
    return contraction("einsum", operands, labels, out, names);
}

Array tensordot(const Array& a, const Array& b, const std::vector<int>& axes_a,
                const std::vector<int>& axes_b) {
    if (axes_a.size() != axes_b.size())
        throw Error(fmt::format("tensordot: {} axes of the first operand but {} of the second",
                                axes_a.size(), axes_b.size()));
    // Labels: a's dimensions 0..na-1, b's free ones after; contracted pairs share a's label.
    std::vector<int> la(a.ndim()), lb(b.ndim(), -1), out;
    std::vector<std::string> names;
    for (int k = 0; k < a.ndim(); ++k) {
        la[k] = k;
        names.push_back(fmt::format("axis {} of the first operand", k));
    }
    std::vector<bool> contracted_a(a.ndim(), false);
    for (size_t p = 0; p < axes_a.size(); ++p) {
        int ka = normalize_axis(axes_a[p], a.ndim(), "tensordot");
        int kb = normalize_axis(axes_b[p], b.ndim(), "tensordot");
        if (lb[kb] != -1 || contracted_a[ka])
            throw Error("tensordot: an axis is contracted twice");
        contracted_a[ka] = true;
        lb[kb] = ka;
        if (a.shape()[ka] != b.shape()[kb])
            throw Error(fmt::format("tensordot: axis {} of {} has size {} but axis {} of {} has "
                                    "size {}", ka, describe(a), a.shape()[ka], kb, describe(b),
                                    b.shape()[kb]));
    }
    for (int k = 0; k < a.ndim(); ++k)
        if (!contracted_a[k]) out.push_back(k);
    for (int k = 0; k < b.ndim(); ++k) {
        if (lb[k] != -1) continue;
        lb[k] = static_cast<int>(names.size());
        names.push_back(fmt::format("axis {} of the second operand", k));
        out.push_back(lb[k]);
    }
    return contraction("tensordot", {a, b}, {la, lb}, out, names);
}

Array tensordot(const Array& a, const Array& b, int axes) {
    if (axes < 0 || axes > a.ndim() || axes > b.ndim())
        throw Error(fmt::format("tensordot: cannot contract {} axes of {} with {}", axes,
                                describe(a), describe(b)));
    std::vector<int> aa, bb;
    for (int k = 0; k < axes; ++k) {
        aa.push_back(a.ndim() - axes + k);
        bb.push_back(k);
    }
    return tensordot(a, b, aa, bb);
}

Array matmul(const Array& a, const Array& b) {
    if (a.ndim() == 0 || b.ndim() == 0)
        throw Error(fmt::format("matmul: {} is a scalar; use * to scale",
                                describe(a.ndim() == 0 ? a : b)));
    // A 1-D operand is a row (left) or a column (right) whose dimension the result drops: it
    // simply has no row or column label.
    const int64_t ka = a.shape()[a.ndim() - 1];
    const int64_t kb = b.shape()[b.ndim() == 1 ? 0 : b.ndim() - 2];
    if (ka != kb)
        throw Error(fmt::format("matmul: the last dimension of {} has size {} but the {} of {} "
                                "has size {}", describe(a), ka,
                                b.ndim() == 1 ? "only dimension" : "second-to-last", describe(b),
                                kb));
    // Batch dimensions broadcast against each other.
    std::vector<int64_t> sa(a.shape().begin(), a.shape().end() - std::min(a.ndim(), 2));
    std::vector<int64_t> sb(b.shape().begin(), b.shape().end() - std::min(b.ndim(), 2));
    const size_t rank = std::max(sa.size(), sb.size());
    std::vector<int64_t> batch(rank, 1);
    for (const auto* s : {&sa, &sb}) {
        for (size_t k = 0; k < s->size(); ++k) {
            int64_t& o = batch[rank - s->size() + k];
            int64_t d = (*s)[k];
            if (d == o || d == 1) continue;
            if (o != 1)
                throw Error(fmt::format("matmul: the batch dimensions of {} and {} do not "
                                        "broadcast together", describe(a), describe(b)));
            o = d;
        }
    }
    auto full = [&](const Array& x) {
        if (x.ndim() <= 2) return x;
        std::vector<int64_t> s = batch;
        s.push_back(x.shape()[x.ndim() - 2]);
        s.push_back(x.shape()[x.ndim() - 1]);
        return broadcast_to(x, s);
    };
    const int nb = static_cast<int>(rank);
    const int row = nb, inner = nb + 1, column = nb + 2;
    std::vector<std::string> names;
    for (int k = 0; k < nb; ++k) names.push_back(fmt::format("batch {}", k));
    names.insert(names.end(), {"row", "inner", "column"});
    std::vector<int> la, lb, out;
    for (int k = 0; k < nb; ++k) {
        if (a.ndim() > 2) la.push_back(k);
        if (b.ndim() > 2) lb.push_back(k);
        out.push_back(k);
    }
    if (a.ndim() >= 2) la.push_back(row);
    la.push_back(inner);
    lb.push_back(inner);
    if (b.ndim() >= 2) lb.push_back(column);
    if (a.ndim() >= 2) out.push_back(row);
    if (b.ndim() >= 2) out.push_back(column);
    return contraction("matmul", {full(a), full(b)}, {la, lb}, out, names);
}

} // namespace siskin
