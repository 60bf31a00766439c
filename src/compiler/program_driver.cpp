#include "compiler/program_driver.hpp"

#include <algorithm>
#include <set>
#include <variant>

#include <fmt/format.h>

#include "compiler/finite.hpp"
#include "compiler/kernel_impl.hpp"
#include "passes/output_start.hpp"
#include "passes/resolve_program.hpp"
#include "tensor/transpose.hpp"
#include "siskin/error.hpp"
#include "siskin/ir/visit.hpp"
#include "siskin/operators.hpp"

namespace siskin::compiler {

namespace {

using Env = std::map<std::string, Tensor>;

// A run of plain statements: one kernel.
struct Segment {
    std::shared_ptr<const Kernel> kernel;
    std::vector<std::string> reads;  // kernel inputs: program inputs or earlier outputs
    std::vector<std::string> writes; // kernel outputs
    std::set<std::string> in_place;  // dense outputs the kernel updates from their value
    std::map<std::string, Format> through_dense; // others: a dense copy, converted back after
};
struct Loop;
struct Exchange {
    std::string first, second;
};
using Step = std::variant<Segment, std::shared_ptr<Loop>, Exchange>;
struct Loop {
    ir::Expr cond;
    std::vector<Step> body;
};

bool mentions(const ir::Stmt& s, const std::string& tensor) {
    bool found = false;
    ir::visit(s, {}, [&](const ir::Expr& e) {
        if (auto a = e->as<ir::Access>()) found = found || a->tensor == tensor;
    });
    return found;
}

// Whether `s` writes every element of `tensor` without reading it first: a nest of unbounded
// loops, one per subscript, around `tensor[i, j, ...] = e` where e does not read it.
bool overwrites(const ir::Stmt& s, const std::string& tensor) {
    std::vector<std::string> loops;
    ir::Stmt cur = s;
    while (const auto* f = cur->as<ir::For>()) {
        if (f->lo) return false;
        loops.push_back(f->index);
        cur = f->body;
    }
    const auto* a = cur->as<ir::Assign>();
    if (!a || a->lhs->tensor != tensor || !a->op.empty()) return false;
    bool reads = false;
    ir::visit(a->rhs, [&](const ir::Expr& e) {
        if (auto x = e->as<ir::Access>()) reads = reads || x->tensor == tensor;
    });
    if (reads) return false;
    if (a->lhs->indices.size() != loops.size()) return false;
    std::set<std::string> seen;
    for (const auto& e : a->lhs->indices) {
        const auto* i = e->as<ir::Index>();
        if (!i || i->slice || std::find(loops.begin(), loops.end(), i->name) == loops.end() ||
            !seen.insert(i->name).second)
            return false;
    }
    return true;
}

// Whether the kernel of `stmts` can see the value `tensor` holds before it runs: the first
// statement that mentions it does not overwrite it whole.
bool observes_old_value(const std::vector<ir::Stmt>& stmts, const std::string& tensor) {
    for (const auto& s : stmts)
        if (mentions(s, tensor)) return !overwrites(s, tensor);
    return false;
}

class Builder {
public:
    Builder(const ir::Program& program, const ResolvedProgram& resolved, const CompileOptions& options)
        : program_(program), resolved_(resolved), options_(options) {}

    std::vector<Step> steps(const ir::Stmt& s) {
        std::vector<ir::Stmt> flat;
        flatten(s, flat);
        std::vector<Step> out;
        std::vector<ir::Stmt> run;
        auto close = [&] {
            if (!run.empty()) out.push_back(segment(run));
            run.clear();
        };
        for (const auto& x : flat) {
            if (const auto* w = x->as<ir::While>()) {
                close();
                auto loop = std::make_shared<Loop>();
                loop->cond = w->cond;
                loop->body = steps(w->body);
                out.push_back(loop);
            } else if (const auto* e = x->as<ir::Swap>()) {
                close();
                out.push_back(Exchange{e->first, e->second});
            } else {
                run.push_back(x);
            }
        }
        close();
        return out;
    }

    std::shared_ptr<const Kernel> first_kernel;

private:
    static void flatten(const ir::Stmt& s, std::vector<ir::Stmt>& out) {
        if (const auto* b = s->as<ir::Block>()) {
            for (const auto& x : b->stmts) flatten(x, out);
        } else {
            out.push_back(s);
        }
    }

    Segment segment(const std::vector<ir::Stmt>& stmts) {
        ir::Program part;
        part.body = stmts.size() == 1 ? stmts[0] : ir::Block::make(stmts);
        part.functions = program_.functions;
        Segment seg;
        std::map<std::string, TensorSignature> signatures;
        for (const auto& name : part.outputs()) {
            const ResolvedOutput& out = resolved_.outputs.at(name);
            TensorSignature sig = out.signature;
            sig.keep_contents = false;
            bool old = observes_old_value(stmts, name);
            if (old && updates_in_place(sig.format)) {
                sig.keep_contents = true;
                seg.in_place.insert(name);
            } else if (old || (!updates_in_place(sig.format) && written_through_slice(part.body, name))) {
                // Sparse levels append: the kernel writes a dense copy, converted back after.
                seg.through_dense.emplace(name, sig.format);
                sig.format = Format::dense(sig.ndims).with_index_bits(out.index_bits);
                sig.keep_contents = true;
            }
            signatures[name] = sig;
            seg.writes.push_back(name);
        }
        for (const auto& name : part.inputs()) {
            if (auto in = resolved_.inputs.find(name); in != resolved_.inputs.end()) {
                signatures[name] = in->second;
            } else {
                TensorSignature sig = resolved_.outputs.at(name).signature;
                sig.keep_contents = false;
                sig.finite = false;
                signatures[name] = sig;
            }
            seg.reads.push_back(name);
        }
        seg.kernel = compile(part, signatures, options_);
        if (!first_kernel) first_kernel = seg.kernel;
        return seg;
    }

    const ir::Program& program_;
    const ResolvedProgram& resolved_;
    const CompileOptions& options_;
};

// The value of a while's condition: its tensors are 0-d (the verifier checked).
Scalar condition(const ir::Expr& e, const Env& env, const std::map<std::string, const Tensor*>& inputs) {
    switch (e->kind) {
    case ir::ExprKind::Literal: return e->as<ir::Literal>()->value;
    case ir::ExprKind::Access: {
        const std::string& name = e->as<ir::Access>()->tensor;
        if (auto it = env.find(name); it != env.end()) return it->second.at(std::span<const int64_t>{});
        return inputs.at(name)->at(std::span<const int64_t>{});
    }
    case ir::ExprKind::Call: {
        const auto& call = *e->as<ir::Call>();
        std::vector<Scalar> args;
        for (const auto& a : call.args) args.push_back(condition(a, env, inputs));
        return find_operator(call.op).apply(args);
    }
    case ir::ExprKind::Index:
    case ir::ExprKind::Variable: break;
    }
    SISKIN_ASSERT(false, "a while condition reads an index or a variable");
}

struct Runner {
    const std::map<std::string, const Tensor*>& inputs;
    const std::map<std::string, std::vector<int64_t>>& shapes;
    Env env;

    void run(const std::vector<Step>& steps) {
        for (const auto& step : steps) {
            if (const auto* seg = std::get_if<Segment>(&step)) {
                run(*seg);
            } else if (const auto* loop = std::get_if<std::shared_ptr<Loop>>(&step)) {
                while (condition((*loop)->cond, env, inputs).as_bool()) run((*loop)->body);
            } else {
                const auto& x = std::get<Exchange>(step);
                std::swap(env.at(x.first), env.at(x.second));
            }
        }
    }

    void run(const Segment& seg) {
        std::map<std::string, const Tensor*> in;
        for (const auto& name : seg.reads) {
            auto it = env.find(name);
            in[name] = it != env.end() ? &it->second : inputs.at(name);
        }
        std::map<std::string, std::vector<int64_t>> fresh;
        for (const auto& name : seg.writes) fresh[name] = shapes.at(name);
        Env out = seg.kernel->impl().unbuilt_outputs(fresh);
        for (const auto& name : seg.in_place) out.at(name) = std::move(env.at(name));
        // What a recycled output held is garbage once the kernel declares it anew: handing it
        // back lets the kernel clear only that (a frontier costs its entries, not its length).
        for (const auto& name : seg.kernel->impl().plan.recycled_outputs) {
            auto old = env.find(name);
            auto fresh_out = out.find(name);
            if (old == env.end() || fresh_out == out.end() || seg.in_place.count(name) || seg.through_dense.count(name))
                continue;
            const Tensor &was = old->second, &want = fresh_out->second;
            if (was.format() == want.format() && was.type() == want.type() && was.shape() == want.shape() &&
                was.fill().same(want.fill()))
                fresh_out->second = std::move(old->second);
        }
        for (const auto& [name, format] : seg.through_dense)
            out.at(name) = env.at(name).convert(out.at(name).format());
        try {
            seg.kernel->impl().run(in, out, false);
        } catch (...) {
            // An in-place output goes back where it was, so the tensors stay whole.
            for (const auto& name : seg.in_place) env.at(name) = std::move(out.at(name));
            throw;
        }
        for (auto& [name, t] : out) {
            auto dense = seg.through_dense.find(name);
            env.at(name) = dense == seg.through_dense.end()
                               ? std::move(t)
                               : detail::convert_on_threads(t, dense->second, seg.kernel->impl().plan.threads);
        }
    }
};

} // namespace

CompiledProgram compile_driven(const ir::Program& program,
                               const std::map<std::string, const Tensor*>& inputs,
                               const std::map<std::string, OutputSpec>& specs,
                               const CompileOptions& options) {
    ResolvedProgram resolved = resolve_program(program, ProgramInputs::of(inputs), specs);
    std::set<std::string> finite_inputs; // every kernel of the program relies on these
    for (const auto& name : finiteness_matters(program, inputs))
        if (auto it = resolved.inputs.find(name); it != resolved.inputs.end())
            if ((it->second.finite = finite_values(*inputs.at(name)))) finite_inputs.insert(name);

    Builder builder(program, resolved, options);
    auto steps = std::make_shared<const std::vector<Step>>(builder.steps(program.body));
    std::map<std::string, std::vector<int64_t>> shapes;
    // Every output starts as its start tensor or all fill, in the format the program keeps it in.
    auto initial = std::make_shared<Env>();
    for (const auto& [name, out] : resolved.outputs) {
        shapes[name] = out.shape;
        initial->emplace(name, out.start ? out.start->convert(out.signature.format)
                                         : Tensor(out.shape, out.signature.type,
                                                  out.signature.fill, out.signature.format));
    }
    CompiledProgram compiled;
    compiled.kernel = builder.first_kernel;
    compiled.output_shapes = shapes;
    compiled.finite_inputs = std::move(finite_inputs);
    compiled.driven = [steps, initial, shapes](const std::map<std::string, const Tensor*>& in) {
        Runner runner{in, shapes, *initial};
        runner.run(*steps);
        return std::move(runner.env);
    };
    return compiled;
}

} // namespace siskin::compiler
