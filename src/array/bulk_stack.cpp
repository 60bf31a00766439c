#include "array/bulk_stack.hpp"

#include <cstring>

#include "array/node.hpp"

namespace siskin::array_detail {

namespace {

using Kind = Array::Node::Kind;

bool is_csr(const Format& f) {
    const auto& l = f.levels();
    return f.leaf() == Leaf::Element && l.size() == 2 && l[0].kind == "dense" &&
           l[0].modes == std::vector<int>{0} && l[1].kind == "sparselist" &&
           l[1].modes == std::vector<int>{1};
}

/// The pieces' positions shifted by the entries before them, their coordinates and values
/// copied as they are.
template <class I>
void splice(const std::vector<const Tensor*>& pieces, Tensor& out) {
    Buffer& pos = out.level(1).buffer("pos");
    Buffer& crd = out.level(1).buffer("crd");
    Buffer& vals = out.values();
    int64_t rows = 0, nnz = 0;
    for (const Tensor* t : pieces) {
        rows += t->shape()[0];
        nnz += t->level(1).buffer("crd").size();
    }
    pos.resize(rows + 1);
    crd.resize(nnz);
    vals.resize(nnz);
    I* p = pos.data<I>();
    p[0] = 0;
    int64_t row = 0, at = 0;
    const size_t value_size = type_size(out.type());
    for (const Tensor* t : pieces) {
        const Buffer& tp = t->level(1).buffer("pos");
        const Buffer& tc = t->level(1).buffer("crd");
        const I* q = tp.data<I>();
        const int64_t m = t->shape()[0], n = tc.size();
        const I shift = static_cast<I>(at - static_cast<int64_t>(q[0]));
        for (int64_t r = 1; r <= m; ++r) p[row + r] = q[r] + shift;
        if (n > 0) { // an empty piece's buffers may be null, which memcpy must not be given
            std::memcpy(crd.data<I>() + at, tc.data<I>(), static_cast<size_t>(n) * sizeof(I));
            std::memcpy(vals.data<char>() + at * value_size, t->values().data<char>(),
                        static_cast<size_t>(n) * value_size);
        }
        row += m;
        at += n;
    }
}

} // namespace

std::optional<Tensor> bulk_vstack(const Array& root, const Format& format) {
    const Array::Node& n = root.node();
    if (n.kind != Kind::Concat || n.axis != 0 || root.ndim() != 2 || !is_csr(format))
        return std::nullopt;
    std::vector<const Tensor*> pieces;
    int bits = 0;
    int64_t nnz = 0;
    for (const Array& c : n.children) {
        const Array::Node& p = c.node();
        if (p.kind != Kind::Tensor || !is_csr(p.tensor->format()) || p.type != n.type ||
            !p.fill.same(n.fill))
            return std::nullopt;
        const auto& levels = p.tensor->format().levels();
        int b = levels[1].index_bits;
        if ((bits && b != bits) || levels[0].index_bits != b) return std::nullopt;
        bits = b;
        // Positions are read from the stored buffer: it must start at 0 and be this width.
        const Buffer& pos = p.tensor->level(1).buffer("pos");
        if (pos.size() != p.shape[0] + 1) return std::nullopt;
        nnz += p.tensor->level(1).buffer("crd").size();
        pieces.push_back(p.tensor.get());
    }
    for (const LevelSpec& l : format.levels())
        if (l.index_bits && l.index_bits != bits) return std::nullopt;
    if (bits == 32 && (nnz > INT32_MAX || n.shape[1] > INT32_MAX)) return std::nullopt;
    Tensor out = detail::unbuilt_tensor(n.shape, n.type, n.fill, format.with_index_bits(bits));
    if (bits == 32) splice<int32_t>(pieces, out);
    else splice<int64_t>(pieces, out);
    return out;
}

} // namespace siskin::array_detail
