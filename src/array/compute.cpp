// compute(): the expression's program, its result format, and the run.
#include <set>

#include "array/array_program.hpp"
#include "array/compute_cache.hpp"
#include "array/node.hpp"
#include "siskin/error.hpp"
#include "siskin/ir/text.hpp"
#include "siskin/planner.hpp"

namespace siskin {

using namespace array_detail;
using Kind = Array::Node::Kind;

namespace {

bool sparse_tensor(const Array::Node& n) {
    if (n.kind != Kind::Tensor || n.shape.empty()) return false;
    for (const LevelSpec& l : n.tensor->format().levels())
        if (l.kind != "dense") return true;
    return false;
}

/// Whether `a` sits at its fill wherever its sparse tensors do (so a sparse result suits it):
/// a product needs one sparse factor, a sum or a unary operator needs every array operand
/// sparse. An approximation that only picks the default format, never the values.
bool structurally_sparse(const Array& a) {
    const Array::Node& n = a.node();
    auto operand = [](const Array& c) { return c.node().kind == Kind::Scalar || structurally_sparse(c); };
    switch (n.kind) {
    case Kind::Tensor:
        return sparse_tensor(n);
    case Kind::Scalar:
    case Kind::ArgReduce:
        return false;
    case Kind::View:
    case Kind::Reduce:
    case Kind::Reshape:
        return structurally_sparse(n.children[0]);
    case Kind::Concat: {
        // Sparse operands, and constant blocks of the same fill (padding).
        bool any_sparse = false;
        for (const Array& c : n.children) {
            bool block = c.node().kind == Kind::View &&
                         c.node().children[0].node().kind == Kind::Scalar &&
                         c.fill().same_value(n.fill);
            if (structurally_sparse(c)) any_sparse = true;
            else if (!block) return false;
        }
        return any_sparse;
    }
    case Kind::Einsum:
        for (const Array& c : n.children)
            if (structurally_sparse(c)) return true;
        return false;
    case Kind::Call: {
        static const std::set<std::string> products = {"mul", "and", "bitwise_and"};
        static const std::set<std::string> first_decides = {"ldexp", "shl", "shr", "floordiv",
                                                            "mod"};
        if (products.count(n.op)) {
            for (const Array& c : n.children)
                if (c.node().kind != Kind::Scalar && structurally_sparse(c)) return true;
            return false;
        }
        if (first_decides.count(n.op)) return structurally_sparse(n.children[0]);
        if (n.op == "ifelse")
            return operand(n.children[2]) &&
                   (operand(n.children[1]) || structurally_sparse(n.children[0]));
        bool any_array = false;
        for (const Array& c : n.children) {
            if (c.node().kind == Kind::Scalar) continue;
            any_array = true;
            if (!structurally_sparse(c)) return false;
        }
        return any_array;
    }
    }
    return false;
}

/// The first sparse tensor below `a` (in operand order) and, for each of its dimensions, the
/// dimension of `a` it becomes (none where it is reduced or read at a constant).
struct LeadingTensor {
    const Tensor* tensor;
    std::vector<std::optional<int>> to_result;
};

std::optional<LeadingTensor> leading_sparse(const Array& a) {
    const Array::Node& n = a.node();
    if (n.kind == Kind::Tensor) {
        if (!sparse_tensor(n)) return std::nullopt;
        LeadingTensor t{n.tensor.get(), {}};
        for (int d = 0; d < a.ndim(); ++d) t.to_result.push_back(d);
        return t;
    }
    if (n.kind == Kind::Scalar || n.kind == Kind::ArgReduce || n.kind == Kind::Reshape)
        return std::nullopt;
    for (size_t k = 0; k < n.children.size(); ++k) {
        auto found = leading_sparse(n.children[k]);
        if (!found) continue;
        // Where each dimension of child k goes in `a`.
        const Array& c = n.children[k];
        std::vector<std::optional<int>> up(c.ndim());
        int kept = 0;
        for (int d = 0; d < c.ndim(); ++d) {
            switch (n.kind) {
            case Kind::Call:
            case Kind::Concat: up[d] = d; break;
            case Kind::View:
                if (n.sources[d].from && n.sources[d].stride != 0) up[d] = *n.sources[d].from;
                break;
            case Kind::Reduce:
                if (!n.reduced[d]) up[d] = kept++;
                break;
            case Kind::Einsum:
                for (size_t o = 0; o < n.out_labels.size(); ++o)
                    if (n.out_labels[o] == n.labels[k][d]) up[d] = static_cast<int>(o);
                break;
            default: break;
            }
        }
        for (auto& r : found->to_result)
            if (r) r = up[*r];
        return found;
    }
    return std::nullopt;
}

/// Dense when the result is dense, else the leading sparse tensor's levels over the result's
/// dimensions (its reduced dimensions dropped, dense levels outermost for the others).
Format natural_format(const Array& a) {
    if (!structurally_sparse(a)) return Format::dense(a.ndim());
    auto lead = leading_sparse(a);
    if (!lead) {
        // A reshaped sparse operand: dense levels over a compressed last dimension (a
        // compressed vector, CSR, ...).
        std::vector<LevelSpec> levels;
        for (int d = 0; d < a.ndim(); ++d)
            levels.push_back({d + 1 == a.ndim() ? "sparselist" : "dense", {d}, 0});
        return a.ndim() == 0 ? Format::dense(0) : Format(levels, Leaf::Element);
    }
    std::vector<LevelSpec> levels;
    std::vector<bool> covered(a.ndim(), false);
    for (const LevelSpec& l : lead->tensor->format().levels()) {
        LevelSpec mapped{l.kind, {}, 0};
        for (int m : l.modes) {
            if (auto r = lead->to_result[m]; r && !covered[*r]) {
                mapped.modes.push_back(*r);
                covered[*r] = true;
            }
        }
        if (!mapped.modes.empty()) levels.push_back(mapped);
    }
    std::vector<LevelSpec> outer;
    for (int d = 0; d < a.ndim(); ++d)
        if (!covered[d]) outer.push_back({"dense", {d}, 0});
    levels.insert(levels.begin(), outer.begin(), outer.end());
    try {
        return Format(levels, Leaf::Element);
    } catch (const Error&) {
        return Format::dense(a.ndim());
    }
}

bool all_dense(const Format& f) {
    for (const LevelSpec& l : f.levels())
        if (l.kind != "dense") return false;
    return true;
}

} // namespace

std::map<std::string, const Tensor*> ArrayProgram::input_pointers() const {
    std::map<std::string, const Tensor*> out;
    for (const auto& [name, t] : inputs) out[name] = t.get();
    return out;
}

ir::Program Array::program() const { return build_program(*this).program; }

ArrayProgram Array::lower(std::optional<Format> format) const {
    // The result's loops follow its format's storage order, so a csc result (a transposed csr
    // operand) is appended column by column, reading the operand row by row.
    const Format f = format ? *format : natural_format(*this);
    ArrayProgram p = build_program(*this, f.ndims() == ndim() ? f.mode_order() : std::vector<int>{});
    p.outputs[p.result].format = f;
    return p;
}

std::string Array::program_text() const { return ir::print(program()); }

Tensor Array::compute(const ComputeOptions& options) const {
    const Format format = options.format ? *options.format : natural_format(*this);
    if (options.interpret) {
        const ArrayProgram p = lower(format);
        auto results = evaluate_reference(p.program, p.input_pointers(), p.outputs);
        return std::move(results.at(p.result));
    }
    // An expression of a kind computed before runs the kernel compiled then.
    const std::optional<ExpressionKey> key = expression_key(*this, format, options);
    std::shared_ptr<const CachedCompute> compiled = key ? find_compiled(*key) : nullptr;
    if (!compiled) {
        const ArrayProgram p = lower(format);
        auto made = std::make_shared<CachedCompute>();
        made->result = p.result;
        for (const auto& [name, t] : p.inputs) {
            size_t k = 0;
            if (key) {
                while (k < key->tensors.size() && key->tensors[k] != t.get()) ++k;
                SISKIN_ASSERT(k < key->tensors.size(), "an input of the program is not in its key");
            }
            made->inputs.emplace_back(name, k);
        }
        // The planner weighs the program's loops as its own (the array layer chose them); the
        // plan is kept with the kernel for expressions of the same kind, whatever their data.
        // A plan's temporaries are outputs besides the result, never returned.
        PlanOptions free_loops;
        free_loops.loops_are_free = true;
        try {
            made->compiled =
                compile_planned(p.program, p.input_pointers(), p.outputs, options.compile, options.plan, free_loops)
                    .compiled;
        } catch (const Error& e) {
            // A result format the kernel cannot write directly: compute dense, then convert.
            if (e.kind() != Error::Kind::Unsupported || all_dense(format)) throw;
            auto outputs = p.outputs;
            outputs[p.result].format = Format::dense(ndim());
            made->compiled =
                compile_planned(p.program, p.input_pointers(), outputs, options.compile, options.plan, free_loops)
                    .compiled;
            made->convert_to_format = true;
        }
        if (!key) {
            Tensor result = std::move(made->compiled.run(p.input_pointers()).at(p.result));
            if (made->convert_to_format) return convert(result, format, options.compile);
            return result;
        }
        compiled = made;
        keep_compiled(*key, std::move(made));
    }
    Tensor result = std::move(compiled->compiled.run(bind_inputs(*compiled, *key)).at(compiled->result));
    // Not `cond ? convert(...) : result`: that copies the result (every buffer) to a temporary.
    if (compiled->convert_to_format) return convert(result, format, options.compile);
    return result;
}

} // namespace siskin
