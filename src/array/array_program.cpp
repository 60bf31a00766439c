#include "array/array_program.hpp"

#include <cctype>
#include <set>

#include <fmt/format.h>

#include "array/node.hpp"
#include "io/checked.hpp"
#include "ir/arg_reduction.hpp"
#include "siskin/error.hpp"

namespace siskin::array_detail {

using Kind = Array::Node::Kind;

namespace {

/// The coordinate one access reads in one dimension: `offset + stride * index` over the index's
/// `extent` values, or the constant `offset` when there is no index.
struct Sub {
    std::optional<std::string> index;
    int64_t offset = 0;
    int64_t stride = 1;
    int64_t extent = 0;
};

ir::Expr literal(int64_t v) { return ir::Literal::make(Scalar::of(v)); }

bool is_identifier(const std::string& s) {
    if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
    for (char c : s)
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
    return true;
}

class Builder {
public:
    ArrayProgram build(const Array& root, const std::vector<int>& order) {
        out_.result = fresh("out");
        emit(root, out_.result, order);
        out_.outputs[out_.result].type = root.dtype();
        out_.outputs[out_.result].shape = root.shape();
        out_.program.body = stmts_.size() == 1 ? stmts_[0] : ir::Block::make(stmts_);
        return std::move(out_);
    }

private:
    ArrayProgram out_;
    std::vector<ir::Stmt> stmts_;
    std::map<const Array::Node*, std::string> names_; // tensors and temporaries
    std::set<std::string> used_;
    int indices_ = 0;

    std::string fresh(const std::string& base) {
        for (int k = 0;; ++k) {
            std::string name =
                k == 0 && base != "t" && base != "tmp" ? base : fmt::format("{}{}", base, k);
            if (used_.insert(name).second) return name;
        }
    }
    std::string fresh_index() {
        for (;;) {
            std::string name = fmt::format("i{}", indices_++);
            if (used_.insert(name).second) return name;
        }
    }

    /// The program name of a tensor leaf: the user's name when it is an identifier.
    std::string tensor_name(const Array::Node& n) {
        auto it = names_.find(&n);
        if (it != names_.end()) return it->second;
        // Two leaves over the same tensor object read one input.
        for (const auto& [name, t] : out_.inputs)
            if (t == n.tensor) return names_[&n] = name;
        std::string name = fresh(is_identifier(n.name) ? n.name : "t");
        out_.inputs[name] = n.tensor;
        return names_[&n] = name;
    }

    static ir::Expr subscript(const Sub& s, int64_t size) {
        if (!s.index) return literal(s.offset);
        if (s.stride == 1 && s.offset == 0 && s.extent == size) return ir::Index::make(*s.index);
        if (s.stride > 0) {
            ir::Slice slice;
            slice.lo = s.offset;
            slice.hi = s.extent == 0 ? s.offset : s.offset + (s.extent - 1) * s.stride + 1;
            slice.step = s.stride;
            return ir::Index::sliced(*s.index, slice);
        }
        // A backwards read: the affine subscript offset - |stride| * index.
        ir::Expr scaled = s.stride == -1 ? ir::Index::make(*s.index)
                                         : ir::Call::make("mul", {literal(-s.stride),
                                                                  ir::Index::make(*s.index)});
        return ir::Call::make("sub", {literal(s.offset), scaled});
    }

    static ir::Expr read(const std::string& tensor, const std::vector<int64_t>& shape,
                         const std::vector<Sub>& subs) {
        std::vector<ir::Expr> idx;
        for (size_t d = 0; d < subs.size(); ++d) idx.push_back(subscript(subs[d], shape[d]));
        return ir::Access::make(tensor, std::move(idx));
    }

    /// The value of `a` at the coordinates `subs`, as an expression.
    ir::Expr expr(const Array& a, const std::vector<Sub>& subs) {
        const Array::Node& n = a.node();
        switch (n.kind) {
        case Kind::Tensor:
            return read(tensor_name(n), n.shape, subs);
        case Kind::Scalar:
            return ir::Literal::make(n.fill);
        case Kind::Call: {
            std::vector<ir::Expr> args;
            for (const Array& c : n.children) args.push_back(expr(c, subs));
            return ir::Call::make(n.op, std::move(args));
        }
        case Kind::View: {
            std::vector<Sub> inner;
            for (const DimSource& src : n.sources) {
                if (!src.from) {
                    inner.push_back({std::nullopt, src.offset, 0, 1});
                    continue;
                }
                const Sub& o = subs[*src.from];
                Sub s{o.index, src.offset + src.stride * o.offset, src.stride * o.stride, o.extent};
                if (!o.index) s.stride = 0;
                inner.push_back(s);
            }
            return expr(n.children[0], inner);
        }
        case Kind::Reduce:
        case Kind::ArgReduce:
        case Kind::Einsum:
            return read(materialize(a), n.shape, subs);
        }
        SISKIN_ASSERT(false, "unknown array node");
    }

    /// A reduction or contraction below the root: a dense temporary written by its own
    /// statements before the statements that read it.
    std::string materialize(const Array& a) {
        auto it = names_.find(&a.node());
        if (it != names_.end()) return it->second;
        std::string name = fresh("tmp");
        emit(a, name);
        OutputSpec spec;
        spec.format = Format::dense(a.ndim());
        spec.type = a.dtype();
        spec.shape = a.shape();
        out_.outputs[name] = spec;
        return names_[&a.node()] = name;
    }

    struct Loop {
        std::string index;
        int64_t extent;
    };

    static ir::Stmt nest(const std::vector<Loop>& loops, ir::Stmt body) {
        for (auto it = loops.rbegin(); it != loops.rend(); ++it)
            body = ir::For::make(it->index, body, literal(0), literal(it->extent));
        return body;
    }

    /// Statements that write `a` into `target`, looping over its dimensions in `order` (the
    /// storage order of its format, so that every level can be appended to; empty: C order),
    /// reduced indices inside.
    void emit(const Array& a, const std::string& target, std::vector<int> order = {}) {
        const Array::Node& n = a.node();
        if (order.empty())
            for (int d = 0; d < a.ndim(); ++d) order.push_back(d);
        std::vector<Loop> loops;
        std::vector<ir::Expr> lhs_idx;
        std::vector<Sub> subs;
        for (int64_t size : n.shape) {
            std::string i = fresh_index();
            lhs_idx.push_back(ir::Index::make(i));
            subs.push_back({i, 0, 1, size});
        }
        for (int d : order) loops.push_back({*subs[d].index, n.shape[d]});
        auto lhs = ir::Access::make(target, lhs_idx);
        if (n.kind == Kind::Reduce || n.kind == Kind::ArgReduce) {
            const Array& child = n.children[0];
            std::vector<Sub> csubs;
            std::vector<Loop> reduced;
            size_t kept = 0;
            for (int d = 0; d < child.ndim(); ++d) {
                if (n.reduced[d]) {
                    std::string r = fresh_index();
                    reduced.push_back({r, child.shape()[d]});
                    csubs.push_back({r, 0, 1, child.shape()[d]});
                } else {
                    csubs.push_back(subs[kept++]);
                }
            }
            std::vector<Loop> all = loops;
            all.insert(all.end(), reduced.begin(), reduced.end());
            ir::Expr e = expr(child, csubs);
            if (n.kind == Kind::Reduce) {
                stmts_.push_back(nest(all, ir::Assign::make(lhs, n.op, e)));
                return;
            }
            // argmin/argmax record the C-order linear position over the reduced indices.
            ir::Expr position;
            for (const Loop& r : reduced) {
                ir::Expr i = ir::Index::make(r.index);
                position = position ? ir::Call::make("add", {ir::Call::make("mul", {position,
                                                                literal(r.extent)}), i})
                                    : i;
            }
            std::string extreme = fresh("tmp");
            OutputSpec spec;
            spec.format = Format::dense(a.ndim());
            spec.type = child.dtype();
            spec.shape = a.shape();
            out_.outputs[extreme] = spec;
            auto value = ir::Access::make(extreme, lhs_idx);
            for (const auto& s : ir::arg_reduction(value, lhs, n.op == "max", e, position, {}))
                stmts_.push_back(nest(all, s));
            return;
        }
        if (n.kind == Kind::Einsum) {
            std::map<int, Sub> by_label;
            for (size_t d = 0; d < n.out_labels.size(); ++d) by_label[n.out_labels[d]] = subs[d];
            std::vector<Loop> all = loops;
            bool summed = false;
            for (size_t k = 0; k < n.children.size(); ++k) {
                for (size_t d = 0; d < n.labels[k].size(); ++d) {
                    int l = n.labels[k][d];
                    if (by_label.count(l)) continue;
                    std::string r = fresh_index();
                    int64_t size = n.children[k].shape()[d];
                    by_label[l] = {r, 0, 1, size};
                    all.push_back({r, size});
                    summed = true;
                }
            }
            ir::Expr product;
            for (size_t k = 0; k < n.children.size(); ++k) {
                std::vector<Sub> csubs;
                for (int l : n.labels[k]) csubs.push_back(by_label.at(l));
                ir::Expr e = expr(n.children[k], csubs);
                product = product ? ir::Call::make("mul", {product, e}) : e;
            }
            stmts_.push_back(nest(all, ir::Assign::make(lhs, summed ? "add" : "", product)));
            return;
        }
        stmts_.push_back(nest(loops, ir::Assign::make(lhs, "", expr(a, subs))));
    }
};

} // namespace

ArrayProgram build_program(const Array& root, const std::vector<int>& order) {
    return Builder().build(root, order);
}

} // namespace siskin::array_detail
