#include "array/array_program.hpp"

#include <cctype>
#include <functional>
#include <map>
#include <set>

#include <fmt/format.h>

#include "array/node.hpp"
#include "io/checked.hpp"
#include "passes/output_fill.hpp"
#include "ir/arg_reduction.hpp"
#include "siskin/ir/visit.hpp"
#include "siskin/error.hpp"

namespace siskin::array_detail {

using Kind = Array::Node::Kind;

namespace {

/// The coordinate one access reads in one dimension: `offset + stride * index` over the index's
/// `extent` values, the constant `offset` when there is no index, or any integer expression
/// `general` (a reshape's quotient or remainder of a linear position) when that is set.
struct Sub {
    std::optional<std::string> index;
    int64_t offset = 0;
    int64_t stride = 1;
    int64_t extent = 0;
    ir::Expr general = nullptr;
};

ir::Expr literal(int64_t v);

/// The coordinate as an int64 expression.
ir::Expr coordinate(const Sub& s) {
    if (s.general) return s.general;
    if (!s.index) return literal(s.offset);
    ir::Expr i = ir::Index::make(*s.index);
    if (s.stride != 1) i = ir::Call::make("mul", {literal(s.stride), i});
    return s.offset == 0 ? i : ir::Call::make("add", {literal(s.offset), i});
}

/// `offset + stride * s` for a sub of any kind.
Sub affine(const Sub& s, int64_t offset, int64_t stride) {
    if (s.general) {
        ir::Expr e = stride == 1 ? s.general : ir::Call::make("mul", {literal(stride), s.general});
        return {std::nullopt, 0, 0, 0, offset == 0 ? e : ir::Call::make("add", {literal(offset), e})};
    }
    if (!s.index) return {std::nullopt, offset + stride * s.offset, 0, 1, nullptr};
    return {s.index, offset + stride * s.offset, stride * s.stride, s.extent, nullptr};
}

ir::Expr literal(int64_t v) { return ir::Literal::make(Scalar::of(v)); }

bool is_identifier(const std::string& s) {
    if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
    for (char c : s)
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
    return true;
}

/// The most loop nests one statement may be cut into.
constexpr int64_t kMaxPhases = 1024;

class Builder {
public:
    ArrayProgram build(const Array& root, const std::vector<int>& order) {
        out_.result = fresh("out");
        emit(root, out_.result, order);
        out_.outputs[out_.result].type = root.dtype();
        out_.outputs[out_.result].shape = root.shape();
        out_.program.body = stmts_.size() == 1 ? stmts_[0] : ir::Block::make(stmts_);
        // The compiler infers a fill from one write that covers the whole result, which the
        // windows of a concatenation's phases are not: it took 0 and stored every element of a
        // vstack of fill-1 tensors. What the writes give where every input holds its fill is
        // the result's fill (none when they reduce or disagree: left to the compiler).
        std::map<std::string, Scalar> input_fills;
        for (const auto& [name, t] : out_.inputs) input_fills.emplace(name, t->fill());
        if (auto fill = produced_fill(out_.program, out_.result, root.dtype(), input_fills))
            out_.outputs[out_.result].fill = *fill;
        return std::move(out_);
    }

private:
    ArrayProgram out_;
    std::vector<ir::Stmt> stmts_;
    std::map<const Array::Node*, std::string> names_; // tensors and temporaries
    std::map<const Array::Node*, std::string> copies_; // operands copied for computed reads
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
        if (s.general) return s.general;
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
        case Kind::Tensor: {
            // A level that cannot be located (coo, runlist, ...) is read in storage order
            // only; read at constant or computed coordinates, it is copied densely first. So
            // is a coo tensor read backwards (its level neither walks back nor locates).
            bool located = false, backwards = false;
            for (const Sub& s : subs) {
                located = located || s.general || !s.index;
                backwards = backwards || (s.index && !s.general && s.stride < 0);
            }
            if ((located && !locatable(a)) || (backwards && !reversible(a)))
                return read(materialize_copy(a), n.shape, subs);
            return read(tensor_name(n), n.shape, subs);
        }
        case Kind::Scalar:
            return ir::Literal::make(n.fill);
        case Kind::Call: {
            std::vector<ir::Expr> args;
            for (const Array& c : n.children) args.push_back(expr(c, subs));
            return ir::Call::make(n.op, std::move(args));
        }
        case Kind::View:
            return expr(n.children[0], view_subs(n, subs));
        case Kind::Concat: {
            // The operand that holds every coordinate this access reads (the statement's
            // phases see to it that there is one); else the concatenation is materialised.
            if (auto piece = piece_of(n, subs[n.axis])) {
                std::vector<Sub> inner = subs;
                inner[n.axis] = affine(subs[n.axis], -piece->second, 1);
                return expr(n.children[piece->first], inner);
            }
            return read(materialize(a), n.shape, subs);
        }
        case Kind::Reshape: {
            // A reshaped read locates its operands at computed coordinates.
            return expr(n.children[0], reshape_subs(n, subs));
        }
        case Kind::Reduce:
        case Kind::ArgReduce:
        case Kind::Einsum:
            return read(materialize(a), n.shape, subs);
        }
        SISKIN_ASSERT(false, "unknown array node");
    }

    /// Whether every tensor `a` reads through calls and views has levels that a computed
    /// subscript can locate (dense, sparselist, sparsebytemap).
    static bool locatable(const Array& a) {
        const Array::Node& n = a.node();
        if (n.kind == Kind::Tensor) {
            for (const LevelSpec& l : n.tensor->format().levels())
                if (l.kind != "dense" && l.kind != "sparselist" && l.kind != "sparsebytemap")
                    return false;
            return true;
        }
        if (n.kind == Kind::Call || n.kind == Kind::View || n.kind == Kind::Concat) {
            for (const Array& c : n.children)
                if (!locatable(c)) return false;
        }
        return true; // constants; reductions and reshapes read dense temporaries
    }

    /// Whether every level of the tensor `a` can be read backwards (wrappers/reverse.hpp):
    /// all but coo, which neither walks back nor locates.
    static bool reversible(const Array& a) {
        for (const LevelSpec& l : a.node().tensor->format().levels())
            if (l.kind == "coo") return false;
        return true;
    }

    /// `a` copied into a dense temporary by a statement of its own.
    std::string materialize_copy(const Array& a) { return temporary(a, copies_); }

    static std::vector<Sub> view_subs(const Array::Node& n, const std::vector<Sub>& subs) {
        std::vector<Sub> inner;
        for (const DimSource& src : n.sources)
            inner.push_back(src.from ? affine(subs[*src.from], src.offset, src.stride)
                                     : Sub{std::nullopt, src.offset, 0, 1, nullptr});
        return inner;
    }

    /// The child's coordinates of a reshape: the C-order linear position of `subs` (int64),
    /// divided and reduced by the child's strides.
    static std::vector<Sub> reshape_subs(const Array::Node& n, const std::vector<Sub>& subs) {
        const auto& in = n.children[0].shape();
        ir::Expr linear;
        for (size_t d = 0; d < subs.size(); ++d) {
            ir::Expr c = coordinate(subs[d]);
            linear = linear ? ir::Call::make("add", {ir::Call::make("mul", {linear,
                                                         literal(n.shape[d])}), c})
                            : c;
        }
        if (!linear) linear = literal(0);
        std::vector<Sub> out(in.size());
        int64_t stride = 1;
        for (size_t d = in.size(); d-- > 0;) {
            ir::Expr c = stride == 1 ? linear : ir::Call::make("floordiv", {linear, literal(stride)});
            if (d > 0) c = ir::Call::make("mod", {c, literal(in[d])});
            out[d] = {std::nullopt, 0, 0, 0, c};
            stride *= in[d]; // bounded by the element count, which fits int64
        }
        return out;
    }

    /// Which operand of a concatenation holds every coordinate `s` reads, and where that
    /// operand starts; none when the reads span operands or are computed.
    static std::optional<std::pair<size_t, int64_t>> piece_of(const Array::Node& n, const Sub& s) {
        if (s.general) return std::nullopt;
        int64_t first = s.offset, last = s.offset;
        if (s.index && s.extent > 0) last = s.offset + s.stride * (s.extent - 1);
        if (first > last) std::swap(first, last);
        int64_t start = 0;
        for (size_t k = 0; k < n.children.size(); ++k) {
            int64_t end = start + n.children[k].shape()[n.axis];
            if (first >= start && last < end) return std::pair{k, start};
            if (s.index && s.extent == 0 && first == start) return std::pair{k, start};
            start = end;
        }
        return std::nullopt;
    }

    /// Where loop `index` (over 0..extent-1) must be cut so that each concatenation it reads
    /// through sees one operand per phase: the first value of each phase after the first.
    void collect_cuts(const Array& a, const std::vector<Sub>& subs,
                      std::map<std::string, std::set<int64_t>>& cuts) {
        const Array::Node& n = a.node();
        switch (n.kind) {
        case Kind::Call:
            for (const Array& c : n.children) collect_cuts(c, subs, cuts);
            return;
        case Kind::View:
            collect_cuts(n.children[0], view_subs(n, subs), cuts);
            return;
        case Kind::Concat: {
            const Sub& s = subs[n.axis];
            int64_t start = 0;
            for (size_t k = 0; k < n.children.size(); ++k) {
                if (s.index && !s.general && k > 0) {
                    // The first i at which offset + stride * i crosses the boundary `start`.
                    int64_t i = s.stride > 0 ? (start - s.offset + s.stride - 1) / s.stride
                                             : (s.offset - start) / (-s.stride) + 1;
                    if (s.stride > 0 && start - s.offset < 0) i = 0;
                    if (i > 0 && i < s.extent) cuts[*s.index].insert(i);
                }
                std::vector<Sub> inner = subs;
                inner[n.axis] = affine(s, -start, 1);
                collect_cuts(n.children[k], inner, cuts);
                start += n.children[k].shape()[n.axis];
            }
            return;
        }
        default:
            return; // tensors, constants; reshapes and reductions read computed or whole
        }
    }

    /// A reduction or contraction below the root: a dense temporary written by its own
    /// statements before the statements that read it.
    std::string materialize(const Array& a) { return temporary(a, names_); }

    /// A dense temporary holding `a`, written once (`memo` remembers it).
    std::string temporary(const Array& a, std::map<const Array::Node*, std::string>& memo) {
        auto it = memo.find(&a.node());
        if (it != memo.end()) return it->second;
        std::string name = fresh("tmp");
        emit(a, name);
        OutputSpec spec;
        spec.format = Format::dense(a.ndim());
        spec.type = a.dtype();
        spec.shape = a.shape();
        out_.outputs[name] = spec;
        return memo[&a.node()] = name;
    }

    struct Loop {
        std::string index;
        int64_t extent;
    };

    /// The loops around body. A loop whose index is a plain subscript of an input tensor along
    /// a dimension of its extent is written without bounds (the compiler infers them from the
    /// tensor), so the kernel does not depend on that size: one kernel serves tensors of every
    /// shape, e.g. the blocks of a chunked array. The other loops keep their literal bounds.
    ir::Stmt nest(const std::vector<Loop>& loops, ir::Stmt body) const {
        for (auto it = loops.rbegin(); it != loops.rend(); ++it)
            body = inferable(*it, body) ? ir::For::make(it->index, body)
                                        : ir::For::make(it->index, body, literal(0), literal(it->extent));
        return body;
    }

    bool inferable(const Loop& loop, const ir::Stmt& body) const {
        bool found = false;
        ir::visit(body, {}, [&](const ir::Expr& e) {
            const auto* access = e->as<ir::Access>();
            if (found || !access) return;
            auto input = out_.inputs.find(access->tensor);
            if (input == out_.inputs.end()) return;
            const std::vector<int64_t>& shape = input->second->shape();
            for (size_t d = 0; d < access->indices.size() && d < shape.size(); ++d) {
                const auto* index = access->indices[d]->as<ir::Index>();
                if (index && !index->slice && index->name == loop.index && shape[d] == loop.extent)
                    found = true;
            }
        });
        return found;
    }

    /// For each dimension of a reshape's result, the dimensions of its operand that merge into
    /// it (consecutive, in C order; none for a size-1 dimension); none when the reshape is not
    /// such a collapse (a split, or a mix of both).
    static std::optional<std::vector<std::vector<size_t>>> collapse_groups(const Array::Node& n) {
        const auto& in = n.children[0].shape();
        std::vector<std::vector<size_t>> groups(n.shape.size());
        size_t d = 0;
        for (size_t k = 0; k < n.shape.size(); ++k) {
            if (n.shape[k] <= 0) return std::nullopt;
            int64_t product = 1;
            while (product < n.shape[k] && d < in.size()) {
                product *= in[d];
                groups[k].push_back(d++);
            }
            if (product != n.shape[k]) return std::nullopt;
        }
        for (; d < in.size(); ++d) { // trailing size-1 dimensions join the last group
            if (in[d] != 1 || groups.empty()) return std::nullopt;
            groups.back().push_back(d);
        }
        return groups;
    }

    /// A collapse of dimensions (`reshape(A, (-1,))`) at the root, written in C order:
    /// `for i, j { out[i * n + j] = A[i, j] }` visits the operand's coordinates (its stored
    /// entries, for a sparse operand) and appends to a sparse result in order
    /// (compiler/ordered_writes.hpp), where the read form `out[k] = A[k / n, k % n]` visits every
    /// linear position. Only for a result stored in C order and an operand read without
    /// concatenation phases; false otherwise (the read form then).
    bool emit_collapse(const Array& a, const std::string& target, const std::vector<int>& order) {
        const Array::Node& n = a.node();
        for (size_t d = 0; d < order.size(); ++d)
            if (order[d] != static_cast<int>(d)) return false;
        auto groups = collapse_groups(n);
        if (!groups) return false;
        const Array& child = n.children[0];
        std::vector<Loop> loops;
        std::vector<Sub> subs;
        for (int64_t extent : child.shape()) {
            std::string i = fresh_index();
            loops.push_back({i, extent});
            subs.push_back({i, 0, 1, extent, nullptr});
        }
        std::map<std::string, std::set<int64_t>> cuts;
        collect_cuts(child, subs, cuts);
        for (const auto& [index, at] : cuts)
            if (!at.empty()) return false;
        std::vector<ir::Expr> lhs;
        for (const auto& group : *groups) {
            ir::Expr linear; // Horner's form: ((i0 * n1 + i1) * n2 + i2) ...
            for (size_t d : group) {
                ir::Expr i = ir::Index::make(loops[d].index);
                linear = linear ? ir::Call::make("add", {ir::Call::make("mul", {linear, literal(child.shape()[d])}), i})
                                : i;
            }
            lhs.push_back(linear ? linear : literal(0));
        }
        // Literal bounds: the rule that lets a sparse result take the compound subscript
        // (ordered_writes.hpp) needs the ranges of the loops below its outermost term.
        ir::Stmt body = ir::Assign::make(ir::Access::make(target, lhs), "", expr(child, subs));
        for (auto it = loops.rbegin(); it != loops.rend(); ++it)
            body = ir::For::make(it->index, body, literal(0), literal(it->extent));
        stmts_.push_back(body);
        return true;
    }

    /// Statements that write `a` into `target`, looping over its dimensions in `order` (the
    /// storage order of its format, so that every level can be appended to; empty: C order),
    /// reduced indices inside. A loop that reads through concatenations is cut into phases, one
    /// statement each, so that every phase reads one operand of each (sequential loops, no
    /// test of which operand is active).
    void emit(const Array& a, const std::string& target, std::vector<int> order = {}) {
        const Array::Node& n = a.node();
        if (n.kind == Kind::Reshape && emit_collapse(a, target, order)) return;
        if (order.empty())
            for (int d = 0; d < a.ndim(); ++d) order.push_back(d);
        std::vector<std::string> out_idx;
        for (int d = 0; d < a.ndim(); ++d) out_idx.push_back(fresh_index());
        std::vector<Loop> loops;
        for (int d : order) loops.push_back({out_idx[d], n.shape[d]});

        // What the statement reads: arrays, each dimension indexed by a named loop.
        struct Operand {
            Array array;
            std::vector<std::string> idx;
        };
        std::vector<Operand> operands;
        std::vector<Loop> reduced;
        auto reduced_index = [&](int64_t extent) {
            std::string r = fresh_index();
            reduced.push_back({r, extent});
            loops.push_back({r, extent});
            return r;
        };
        if (n.kind == Kind::Reduce || n.kind == Kind::ArgReduce) {
            const Array& child = n.children[0];
            Operand op{child, {}};
            size_t kept = 0;
            for (int d = 0; d < child.ndim(); ++d)
                op.idx.push_back(n.reduced[d] ? reduced_index(child.shape()[d]) : out_idx[kept++]);
            operands.push_back(op);
        } else if (n.kind == Kind::Einsum) {
            std::map<int, std::string> by_label;
            for (size_t d = 0; d < n.out_labels.size(); ++d) by_label[n.out_labels[d]] = out_idx[d];
            for (size_t k = 0; k < n.children.size(); ++k) {
                Operand op{n.children[k], {}};
                for (size_t d = 0; d < n.labels[k].size(); ++d) {
                    int l = n.labels[k][d];
                    if (!by_label.count(l)) by_label[l] = reduced_index(n.children[k].shape()[d]);
                    op.idx.push_back(by_label[l]);
                }
                operands.push_back(op);
            }
        } else {
            operands.push_back({a, out_idx});
        }
        auto subs_of = [](const std::map<std::string, Sub>& at, const std::vector<std::string>& idx) {
            std::vector<Sub> subs;
            for (const auto& i : idx) subs.push_back(at.at(i));
            return subs;
        };

        // The phases of each loop.
        std::map<std::string, Sub> full;
        for (const Loop& l : loops) full[l.index] = {l.index, 0, 1, l.extent, nullptr};
        std::map<std::string, std::set<int64_t>> cuts;
        for (const Operand& op : operands) collect_cuts(op.array, subs_of(full, op.idx), cuts);
        std::vector<std::vector<std::pair<int64_t, int64_t>>> ranges;
        int64_t phases = 1;
        for (const Loop& l : loops) {
            std::vector<std::pair<int64_t, int64_t>> r;
            int64_t lo = 0;
            for (int64_t c : cuts[l.index]) {
                r.push_back({lo, c});
                lo = c;
            }
            r.push_back({lo, l.extent});
            phases *= static_cast<int64_t>(r.size());
            if (phases > kMaxPhases)
                throw Error(fmt::format("this expression would compile to more than {} loop nests "
                                        "(concatenations of many operands along several loops)",
                                        kMaxPhases), Error::Kind::Unsupported);
            ranges.push_back(std::move(r));
        }

        std::string extreme; // argmin/argmax: the extreme values, before the positions
        if (n.kind == Kind::ArgReduce) {
            extreme = fresh("tmp");
            OutputSpec spec;
            spec.format = Format::dense(a.ndim());
            spec.type = n.children[0].dtype();
            spec.shape = a.shape();
            out_.outputs[extreme] = spec;
        }
        // The assignments of one combination of phases (`at`: each loop's index there).
        auto assigns_at = [&](std::map<std::string, Sub>& at) {
            std::vector<ir::Expr> lhs_idx;
            for (int d = 0; d < a.ndim(); ++d) lhs_idx.push_back(subscript(at[out_idx[d]], n.shape[d]));
            auto lhs = ir::Access::make(target, lhs_idx);
            std::vector<ir::Stmt> assigns;
            if (n.kind == Kind::Reduce) {
                assigns.push_back(ir::Assign::make(lhs, n.op, expr(operands[0].array,
                                                                   subs_of(at, operands[0].idx))));
            } else if (n.kind == Kind::ArgReduce) {
                // The C-order linear position over the reduced indices (their whole ranges).
                ir::Expr position;
                for (const Loop& r : reduced) {
                    ir::Expr c = coordinate(at[r.index]);
                    position = position ? ir::Call::make("add", {ir::Call::make("mul", {position,
                                                                    literal(r.extent)}), c})
                                        : c;
                }
                ir::Expr e = expr(operands[0].array, subs_of(at, operands[0].idx));
                auto value = ir::Access::make(extreme, lhs_idx);
                for (const auto& st : ir::arg_reduction(value, lhs, n.op == "max", e, position, {}))
                    assigns.push_back(st);
            } else if (n.kind == Kind::Einsum) {
                ir::Expr product;
                for (const Operand& op : operands) {
                    ir::Expr e = expr(op.array, subs_of(at, op.idx));
                    product = product ? ir::Call::make("mul", {product, e}) : e;
                }
                assigns.push_back(ir::Assign::make(lhs, reduced.empty() ? "" : "add", product));
            } else {
                assigns.push_back(ir::Assign::make(lhs, "", expr(a, subs_of(at, out_idx))));
            }
            return assigns;
        };
        // The phases of loop k are sequential loops inside one iteration of the loops around
        // it: a concatenation along an inner dimension (hstack) is cut inside each row, so the
        // row's entries are written in order, and one along the outer dimension (vstack) into
        // loop nests one after the other. Every loop has an index of its own (an index has one
        // range in a program); slot k holds the k-th assignment of each combination.
        std::vector<bool> named(loops.size(), false);
        std::map<std::string, Sub> at;
        std::function<std::vector<ir::Stmt>(size_t, size_t)> phases_of = [&](size_t k, size_t slot) {
            if (k == loops.size()) return std::vector<ir::Stmt>{assigns_at(at)[slot]};
            std::vector<ir::Stmt> out;
            for (auto [lo, hi] : ranges[k]) {
                std::string i = named[k] ? fresh_index() : loops[k].index;
                named[k] = true;
                at[loops[k].index] = {i, lo, 1, hi - lo, nullptr};
                std::vector<ir::Stmt> body = phases_of(k + 1, slot);
                out.push_back(nest({{i, hi - lo}}, body.size() == 1 ? body[0] : ir::Block::make(body)));
            }
            return out;
        };
        const size_t slots = n.kind == Kind::ArgReduce ? 2 : 1;
        for (size_t slot = 0; slot < slots; ++slot) {
            std::fill(named.begin(), named.end(), false);
            for (const ir::Stmt& st : phases_of(0, slot)) stmts_.push_back(st);
        }
    }
};

} // namespace

ArrayProgram build_program(const Array& root, const std::vector<int>& order) {
    return Builder().build(root, order);
}

} // namespace siskin::array_detail
