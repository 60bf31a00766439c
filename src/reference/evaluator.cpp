// The dense reference evaluator: a direct interpreter of the program IR over dense working copies
// of the outputs. Inputs are read element by element through Tensor::at, so unstored elements read
// as their tensor's fill. No cleverness here on purpose: this is the oracle the compiler is tested
// against.
#include "siskin/reference.hpp"

#include <new>
#include <stdexcept>

#include <fmt/format.h>

#include "io/checked.hpp"
#include "ir/affine.hpp"
#include "passes/resolve_program.hpp"
#include "tensor/describe.hpp"
#include "siskin/error.hpp"
#include "siskin/operators.hpp"

namespace siskin {

namespace {

using namespace ir;

struct Output {
    std::vector<int64_t> shape;
    std::vector<int64_t> strides; // row-major
    ValueType type;
    Scalar fill;
    std::vector<Scalar> values;
};

class Interpreter {
public:
    Interpreter(const std::map<std::string, const Tensor*>& inputs,
                std::map<std::string, Output>& outputs, const VerifiedProgram& verified)
        : inputs_(inputs), outputs_(outputs), extents_(verified.extents), starts_(verified.starts) {}

    void run(const Stmt& s) {
        switch (s->kind) {
        case StmtKind::Block:
            for (const auto& child : s->as<Block>()->stmts) run(child);
            return;
        case StmtKind::For: return run_for(*s->as<For>());
        case StmtKind::Assign: return run_assign(*s->as<Assign>());
        case StmtKind::If: {
            const auto& node = *s->as<If>();
            if (eval(node.cond).as_bool()) run(node.then_body);
            else if (node.else_body) run(node.else_body);
            return;
        }
        case StmtKind::Let: {
            const auto& node = *s->as<Let>();
            Scalar saved_value;
            auto old = variables_.find(node.name);
            bool had = old != variables_.end();
            if (had) saved_value = old->second;
            variables_[node.name] = eval(node.value);
            run(node.body);
            if (had) variables_[node.name] = saved_value;
            else variables_.erase(node.name);
            return;
        }
        case StmtKind::While: {
            const auto& node = *s->as<While>();
            while (eval(node.cond).as_bool()) run(node.body);
            return;
        }
        case StmtKind::Swap: {
            const auto& node = *s->as<Swap>();
            std::swap(outputs_.at(node.first).values, outputs_.at(node.second).values);
            return;
        }
        }
        SISKIN_ASSERT(false, "unknown statement kind");
    }

private:
    void run_for(const For& loop) {
        int64_t lo = 0, hi = 0;
        if (loop.lo) {
            lo = eval(loop.lo).as_int();
            hi = eval(loop.hi).as_int();
        } else {
            auto it = extents_.find(loop.index);
            SISKIN_ASSERT(it != extents_.end(), "verifier left loop index " + loop.index + " without an extent");
            // An index sized by compound subscripts alone may start above 0 (I[x - 1 + i]).
            lo = starts_.at(loop.index);
            hi = lo + it->second;
        }
        for (int64_t v = lo; v < hi; ++v) {
            indices_[loop.index] = v;
            run(loop.body);
        }
        indices_.erase(loop.index);
    }

    void run_assign(const Assign& a) {
        Output& out = outputs_.at(a.lhs->tensor);
        int64_t flat = offset(*a.lhs, out.shape, out.strides);
        Scalar value = eval(a.rhs);
        Scalar& slot = out.values[flat];
        if (a.op.empty()) {
            slot = value.cast(out.type);
        } else {
            const Scalar args[] = {slot, value};
            slot = find_operator(a.op).apply(args).cast(out.type);
        }
    }

    // Row-major offset of an access into a dense array of `shape`, with a bounds check: affine
    // subscripts can leave the tensor, and the oracle must say so rather than read garbage.
    int64_t offset(const Access& access, const std::vector<int64_t>& shape,
                   const std::vector<int64_t>& strides) {
        int64_t flat = 0;
        for (size_t k = 0; k < access.indices.size(); ++k) {
            int64_t c = coordinate(access, k, shape[k]);
            if (c < 0 || c >= shape[k])
                throw Error(fmt::format("{}:{}: coordinate {} of {} is {}, outside 0..{}",
                                        access.pos.line, access.pos.column, k, access.tensor, c,
                                        shape[k] - 1));
            flat += c * strides[k];
        }
        return flat;
    }

    Scalar eval(const Expr& e) {
        switch (e->kind) {
        case ExprKind::Literal: return e->as<Literal>()->value;
        case ExprKind::Index: {
            const auto& name = e->as<Index>()->name;
            auto it = indices_.find(name);
            SISKIN_ASSERT(it != indices_.end(), "index " + name + " used outside its loop");
            return Scalar::of(it->second);
        }
        case ExprKind::Variable: {
            const auto& name = e->as<Variable>()->name;
            auto it = variables_.find(name);
            SISKIN_ASSERT(it != variables_.end(), "variable " + name + " used outside its let");
            return it->second;
        }
        case ExprKind::Access: return read(*e->as<Access>());
        case ExprKind::Call: {
            const auto& call = *e->as<Call>();
            std::vector<Scalar> args;
            args.reserve(call.args.size());
            // coalesce(A[~(i+1)], v): a permissive read outside A is missing, and reads v.
            if (const auto* a = call.args[0]->as<Access>(); a && call.op == "coalesce") {
                Scalar pad = eval(call.args[1]);
                std::optional<Scalar> inside = read_inside(*a);
                args = {inside ? *inside : pad, pad};
                return find_operator(call.op).apply(args);
            }
            for (const auto& arg : call.args) args.push_back(eval(arg));
            return find_operator(call.op).apply(args);
        }
        }
        SISKIN_ASSERT(false, "unknown expression kind");
    }

    Scalar read(const Access& access) {
        if (auto out = outputs_.find(access.tensor); out != outputs_.end())
            return out->second.values[offset(access, out->second.shape, out->second.strides)];
        const Tensor& t = *inputs_.at(access.tensor);
        coordinate_.resize(access.indices.size());
        for (size_t k = 0; k < access.indices.size(); ++k)
            coordinate_[k] = coordinate(access, k, t.shape()[k]);
        return t.at(coordinate_);
    }

    // A read whose permissive subscripts may leave the tensor: nothing when one does.
    std::optional<Scalar> read_inside(const Access& access) {
        const std::vector<int64_t>& shape = outputs_.count(access.tensor)
                                                ? outputs_.at(access.tensor).shape
                                                : inputs_.at(access.tensor)->shape();
        for (size_t k = 0; k < access.indices.size(); ++k) {
            if (!permissive_inner(access.indices[k])) continue;
            int64_t c = coordinate(access, k, shape[k]);
            if (c < 0 || c >= shape[k]) return std::nullopt;
        }
        return read(access);
    }

    // Subscript k of an access into a dimension of size n: a sliced index i(lo:hi:st) reads
    // first + st * i (the verifier checked the slice's bounds); a permissive one ~(e) reads e.
    int64_t coordinate(const Access& access, size_t k, int64_t n) {
        if (const Expr* inner = permissive_inner(access.indices[k])) return eval(*inner).as_int();
        int64_t c = eval(access.indices[k]).as_int();
        const auto* i = access.indices[k]->as<Index>();
        if (!i || !i->slice) return c;
        SliceWindow w = resolve_slice(*i->slice, n, fmt::format("dimension {} of {}", k, access.tensor));
        return w.first + i->slice->step * c;
    }

    const std::map<std::string, const Tensor*>& inputs_;
    std::map<std::string, Output>& outputs_;
    const std::map<std::string, int64_t>& extents_;
    const std::map<std::string, int64_t>& starts_;
    std::map<std::string, int64_t> indices_;
    std::map<std::string, Scalar> variables_;
    std::vector<int64_t> coordinate_;
};

} // namespace

std::map<std::string, Tensor> evaluate_reference(const Program& program,
                                                 const std::map<std::string, const Tensor*>& inputs,
                                                 const std::map<std::string, OutputSpec>& specs) {
    ResolvedProgram resolved = resolve_program(program, ProgramInputs::of(inputs), specs);
    std::map<std::string, Output> outputs;
    for (const auto& [name, resolved_out] : resolved.outputs) {
        Output out;
        out.shape = resolved_out.shape;
        out.type = resolved_out.signature.type;
        out.fill = resolved_out.signature.fill;
        // The evaluator holds every output dense: a shape whose product wraps past 2^63 would
        // size the array small, and the writes would overrun it.
        int64_t size = 1;
        out.strides.assign(out.shape.size(), 1);
        for (size_t k = out.shape.size(); k-- > 0;) {
            out.strides[k] = size;
            std::optional<int64_t> next = io::checked_mul(size, out.shape[k]);
            if (!next)
                throw Error(fmt::format("output {} of shape {} has more than 2^63 elements: too many "
                                        "for the dense reference evaluator, which holds every one",
                                        name, detail::shape_text(out.shape)));
            size = *next;
        }
        try {
            if (resolved_out.start) out.values = resolved_out.start->to_dense();
            else out.values.assign(static_cast<size_t>(size), out.fill);
        } catch (const std::bad_alloc&) {
            throw Error(fmt::format("output {} of shape {} has {} elements, and the dense reference "
                                    "evaluator, which holds every one ({} bytes each), ran out of "
                                    "memory for them",
                                    name, detail::shape_text(out.shape), size, sizeof(Scalar)));
        } catch (const std::length_error&) {
            throw Error(fmt::format("output {} of shape {} has {} elements, more than the dense "
                                    "reference evaluator can hold",
                                    name, detail::shape_text(out.shape), size));
        }
        outputs.emplace(name, std::move(out));
    }

    Interpreter(inputs, outputs, resolved.verified).run(program.body);

    std::map<std::string, Tensor> results;
    for (auto& [name, out] : outputs)
        results.emplace(name, Tensor::from_dense(out.shape, out.type, out.fill,
                                                 resolved.outputs.at(name).format, out.values));
    return results;
}

} // namespace siskin
