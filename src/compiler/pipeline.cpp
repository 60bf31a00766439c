#include "compiler/pipeline.hpp"

#include <algorithm>
#include <set>

#include "codegen/c_optimize.hpp"
#include "codegen/c_printer.hpp"
#include "codegen/c_walk.hpp"
#include "compiler/affine_order.hpp"
#include "compiler/block_copy.hpp"
#include "compiler/concordize.hpp"
#include "compiler/count_work.hpp"
#include "compiler/lower.hpp"
#include "compiler/output_order.hpp"
#include "compiler/parallel_marks.hpp"
#include "compiler/row_slices.hpp"
#include "compiler/storage_order_reduction.hpp"
#include "compiler/pass_dump.hpp"
#include "compiler/workspaces.hpp"
#include "levels/level_codegen.hpp"
#include "passes/declared_fills.hpp"
#include "passes/lifecycle.hpp"
#include "siskin/error.hpp"
#include "siskin/ir/text.hpp"
#include "siskin/limits.hpp"
#include "compiler/vocabulary.hpp"

namespace siskin::compiler {

namespace {

// What the stages hand on to each other while one kernel is planned.
struct Planning {
    // Every member after the two references is value-initialised, as aggregate initialisation
    // did, without the -Wextra warning for each member an aggregate initialiser leaves out.
    Planning(const std::map<std::string, TensorSignature>& g, const CompileOptions& o)
        : given(g), options(o), ctx(), ordered(), oo(), ws(), cz(), tensors(), converted() {}

    const std::map<std::string, TensorSignature>& given;
    const CompileOptions& options;
    LowerCtx ctx;
    ir::Program ordered;
    OrderedOutputs oo;
    Workspaced ws;
    Concordized cz;
    const ir::Program* program = nullptr; // as the last IR stage left it
    Lifecycle lifecycle;                  // of the program as given (passes/lifecycle.hpp)
    KernelTensors tensors;
    Converted converted;
    std::vector<cast::Stmt> code; // the kernel's statements as the IR stages emitted them
    cast::Stmt body = cast::Block::make({}); // the whole body once lowered: the C passes rewrite it
    std::map<std::string, cast::Type> output_arrays; // data pointer -> element type
    std::set<std::string> narrow_positions;          // data pointers of 32-bit position buffers
    int threads = 1;                                 // kernel_threads(options.threads)
    std::map<size_t, ParallelMark> parallel_marks;   // top-level statement -> its parallel loop
    std::vector<cast::ParallelLoop> parallel_loops;  // the C loops the marked loops became
    int parallel_regions = 0;                        // how many of them became regions
    int kept_parts = 0;                              // their kept append buffers (SISKIN_KEPT_PARTS)
    std::string c_source;

    void emit(const std::function<void()>& f) {
        for (auto& s : ctx.capture(f)) code.push_back(std::move(s));
    }
};

// What the pass dump shows after a stage.
enum class Shows { Lifecycle, Program, LoweringTree, ParallelMarks, EmittedC, Body, Source };

struct Stage {
    std::string_view name;
    Shows shows;
    void (*run)(Planning&);
};

// The outputs' arrays, for the C passes that rewrite stores into them.
void note_output_arrays(Planning& p) {
    for (const auto& name : p.tensors.outputs) {
        const TensorBinding& t = p.tensors.at(name);
        for (const auto& level : t.levels)
            for (const auto& b : level) {
                p.output_arrays.emplace(b.data, cast::Type::of(b.type));
                // The kernel counts positions in int64 and stores them here.
                if (b.type == ValueType::Int32 && b.role == BufferRole::Positions)
                    p.narrow_positions.insert(b.data);
            }
        if (t.values) p.output_arrays.emplace(t.values->data, cast::Type::of(t.values->type));
    }
}

void c_pass(Planning& p, cast::Stmt (*pass)(const cast::Stmt&)) { p.body = pass(p.body); }

// Lowers top-level statement k; a marked one's loop, when parallel_loop_of finds the C loop it
// became, is noted for parallelize_loops.
void lower_statement(Planning& p, size_t k, const LStmt& s) {
    // A copy of CSR rows is a block copy whatever the threads: it runs at memory speed.
    if (lower_block_copy(p.ctx, s)) return;
    auto mark = p.parallel_marks.find(k);
    if (mark == p.parallel_marks.end()) return lower_body(p.ctx, s);
    std::optional<cast::Expr> sliced_work;
    const std::set<uint64_t> claims = p.ctx.claims();
    const Prover facts = p.ctx.prover();
    std::vector<cast::Stmt> code = p.ctx.capture([&] {
        // A whole tensor reduced into scalars: its walk in slices, one per thread.
        const auto* loop = s->as<For>();
        if (loop && !mark->second.reductions.empty() &&
            lower_storage_order_reduction(p.ctx, *loop, p.threads, &sliced_work))
            return;
        lower_body(p.ctx, s);
    });
    auto loop = parallel_loop_of(p.ctx, mark->second, code, p.options.max_position_32, sliced_work);
    // Not one counted loop (a complemented sparse mask's walk over its gaps): the loop again, in
    // runs of rows (row_slices.hpp), kept when that is one the parallel_loops pass can take. The
    // second lowering starts from the state the first started from (the fibres it claims).
    if (!loop && !sliced_work && s->as<For>() && fits_row_slices(mark->second)) {
        const std::set<uint64_t> claims_after = p.ctx.claims();
        const Prover facts_after = p.ctx.prover();
        p.ctx.restore_claims(claims);
        p.ctx.prover() = facts;
        std::optional<cast::Expr> work;
        std::vector<cast::Stmt> runs =
            p.ctx.capture([&] { work = lower_in_row_slices(p.ctx, *s->as<For>(), mark->second, p.threads); });
        loop = parallel_loop_of(p.ctx, mark->second, runs, p.options.max_position_32, work);
        if (loop) {
            loop->copied = true; // a team of one runs the runs as emitted, not in a region
            code = std::move(runs);
        } else {
            p.ctx.restore_claims(claims_after);
            p.ctx.prover() = facts_after;
        }
    }
    if (loop) p.parallel_loops.push_back(std::move(*loop));
    for (auto& c : code) p.ctx.emit(std::move(c));
}

// The pipeline, in order: plan_kernel runs exactly this list, compiler_passes() names it, and the
// pass dump shows each stage's result.
const std::vector<Stage>& stages() {
    static const std::vector<Stage> list = {
        // Read and update modes: a statement that reads and updates one tensor is an error; the
        // pass dump shows the program with its @freeze/@thaw (convert and freeze realise them).
        {"lifecycle", Shows::Lifecycle,
         [](Planning& p) {
             std::set<std::string> started;
             for (const auto& [name, s] : p.given)
                 if (s.keep_contents) started.insert(name);
             p.lifecycle = plan_lifecycle(*p.program, started);
         }},
        // Program IR -> program IR.
        {"affine_order", Shows::Program,
         [](Planning& p) {
             p.ordered = order_affine_nests(*p.program, p.given);
             p.program = &p.ordered;
         }},
        {"output_order", Shows::Program,
         [](Planning& p) {
             p.oo = order_outputs(*p.program, p.given);
             p.program = &p.oo.program;
         }},
        {"workspaces", Shows::Program,
         [](Planning& p) {
             p.ws = add_workspaces(*p.program, p.oo.signatures);
             p.program = &p.ws.program;
         }},
        {"concordize", Shows::Program,
         [](Planning& p) {
             p.cz = concordize(p.ws.program, p.ws.signatures);
             p.program = &p.cz.program;
         }},
        // Program IR -> the kernel's prologue and the lowering tree.
        {"bind", Shows::EmittedC,
         [](Planning& p) {
             p.emit([&] { p.tensors = bind_tensors(p.ctx, p.cz.program, p.cz.signatures); });
             for (const auto& w : p.ws.workspaces) p.tensors.bindings.at(w.name)->workspace = true;
             note_output_arrays(p);
         }},
        {"convert", Shows::LoweringTree,
         [](Planning& p) { p.emit([&] { p.converted = convert_program(p.ctx, p.cz.program, p.tensors); }); }},
        // The lowering tree -> C statements.
        {"declare", Shows::EmittedC,
         [](Planning& p) {
             p.emit([&] {
                 for (const auto& name : p.tensors.outputs) levels::declare_output(p.ctx, p.tensors.at(name));
             });
         }},
        // Which top-level loops write disjoint parts of the outputs (parallel_marks.hpp).
        {"parallel", Shows::ParallelMarks,
         [](Planning& p) {
             if (p.threads > 1)
                 p.parallel_marks = mark_parallel_loops(p.converted.body, p.options.reassociate);
         }},
        {"lower", Shows::EmittedC,
         [](Planning& p) {
             // Lifecycle: an output a later statement reads is frozen right after its last writer.
             p.emit([&] {
                 const auto* top = p.converted.body->as<Block>();
                 for (size_t k = 0; k < (top ? top->stmts.size() : 1); ++k) {
                     lower_statement(p, k, top ? top->stmts[k] : p.converted.body);
                     if (auto it = p.converted.freeze_after.find(k); it != p.converted.freeze_after.end())
                         for (const auto& name : it->second) levels::freeze_output(p.ctx, p.tensors.at(name));
                 }
             });
         }},
        {"freeze", Shows::EmittedC,
         [](Planning& p) {
             std::set<std::string> frozen;
             for (const auto& [k, names] : p.converted.freeze_after) frozen.insert(names.begin(), names.end());
             p.emit([&] {
                 for (const auto& name : p.tensors.outputs)
                     if (!frozen.count(name)) levels::freeze_output(p.ctx, p.tensors.at(name));
                 p.ctx.emit(cast::Return::make(cast::var("SISKIN_OK")));
             });
             p.body = cast::Block::make(p.code);
         }},
        // Cleanups the looplets leave to the finished C (codegen/c_optimize.hpp).
        {"nested_ifs", Shows::Body, [](Planning& p) { c_pass(p, cast::merge_nested_ifs); }},
        {"dead_locals", Shows::Body, [](Planning& p) { c_pass(p, cast::remove_dead_locals); }},
        {"constant_init", Shows::Body,
         [](Planning& p) { p.body = cast::fuse_constant_init(p.body, p.output_arrays); }},
        {"scalar_replacement", Shows::Body,
         [](Planning& p) { p.body = cast::replace_scalars(p.body, p.output_arrays); }},
        {"overwritten_stores", Shows::Body,
         [](Planning& p) { p.body = cast::remove_overwritten_stores(p.body, p.output_arrays); }},
        {"hoist_growth", Shows::Body, [](Planning& p) { c_pass(p, cast::hoist_growth_checks); }},
        {"opened_slot_updates", Shows::Body,
         [](Planning& p) { p.body = cast::fold_opened_slot_updates(p.body, p.output_arrays); }},
        {"restrict_pointers", Shows::Body,
         [](Planning& p) {
             std::set<std::string> output_pointers;
             for (const auto& [name, type] : p.output_arrays) output_pointers.insert(name);
             p.body = cast::restrict_pointers(p.body, output_pointers);
         }},
        {"position_checks", Shows::Body,
         [](Planning& p) {
             p.body = cast::check_position_stores(p.body, p.narrow_positions, p.options.max_position_32);
         }},
        {"prefetch_fibres", Shows::Body, [](Planning& p) { c_pass(p, cast::prefetch_fibres); }},
        // An instrumented build counts the iterations of the loops as lowered, one per entry.
        {"split_accumulators", Shows::Body,
         [](Planning& p) {
             if (p.options.reassociate && !p.options.count_work)
                 p.body = cast::split_accumulators(p.body, p.ctx.reassociable_helpers());
         }},
        {"count_work", Shows::Body,
         [](Planning& p) {
             if (p.options.count_work) p.body = count_loop_bodies(p.body);
         }},
        // The marked loops as OpenMP regions, one balanced chunk per thread; an instrumented
        // build sums its counter over the threads.
        {"parallel_loops", Shows::Body,
         [](Planning& p) {
             cast::Expr thread_cap = cast::at(cast::var("dims"), cast::i64(p.tensors.num_dims));
             p.body = cast::parallelize_loops(p.body, p.parallel_loops, p.threads, p.options.parallel_min_work,
                                              thread_cap, p.options.count_work ? kWorkCounterSymbol : "",
                                              p.parallel_regions, p.kept_parts);
         }},
        // After the regions, so that both a region's chunk and the serial loop walk flat; not in
        // an instrumented build, whose counts are of the loops as lowered.
        {"flat_fibre_walks", Shows::Body,
         [](Planning& p) {
             if (!p.options.count_work) p.body = cast::flatten_fibre_walks(p.body);
         }},
        {"print", Shows::Source,
         [](Planning& p) {
             cast::Function kernel = cast::Function::make(
                 cast::Type::named("int"), kKernelSymbol,
                 {{cast::Type::named("siskin_buffer").pointer().pointer(), BufferBinding::kKernelBuffers},
                  {cast::Type::of(ValueType::Int64).as_const().pointer(), "dims"}},
                 p.body);
             std::string helpers = p.ctx.helpers();
             p.c_source = std::string("#include \"siskin_prelude.h\"\n") +
                          (p.kept_parts > 0 ? "#define SISKIN_KEPT_PARTS " + std::to_string(p.kept_parts) + "\n" : std::string()) +
                          (p.parallel_regions > 0 ? "#include \"siskin_parallel.h\"\n" : "") + "\n" +
                          (helpers.empty() ? "" : helpers + "\n") +
                          (p.options.count_work ? std::string(work_counter_definition()) + "\n" : "") +
                          cast::print(kernel);
         }},
    };
    return list;
}

std::string shown(const Planning& p, Shows what) {
    auto c_text = [](const std::vector<cast::Stmt>& stmts) {
        std::string out;
        for (const auto& s : stmts) out += cast::print(s, 1);
        return out;
    };
    switch (what) {
    case Shows::Lifecycle: return print_lifecycle(*p.program, p.lifecycle);
    case Shows::Program: return ir::print(*p.program);
    case Shows::LoweringTree: return lowering::print(p.converted.body);
    case Shows::ParallelMarks: return print_marks(p.parallel_marks);
    case Shows::EmittedC: return c_text(p.code);
    case Shows::Body:
        return p.body.kind() == cast::StmtKind::Block ? c_text(p.body.as<cast::Block>().stmts)
                                                       : cast::print(p.body, 1);
    case Shows::Source: return p.c_source;
    }
    return {};
}

} // namespace

KernelPlan plan_kernel(const ir::Program& program,
                       const std::map<std::string, TensorSignature>& signatures,
                       const CompileOptions& options) {
    if (program.has_control())
        throw Error("a program with while or swap runs as several kernels, one per run of "
                    "statements between them: compile_for and evaluate_compiled run it (the "
                    "program driver, docs/compiler.md); compile() builds one kernel",
                    Error::Kind::Unsupported);
    check_declared_signature_fills(program, signatures);
    PassDump dump(options.dump_after, compiler_passes());
    dump.input(program);
    Planning p{signatures, options};
    p.ctx.set_budget(lowering_budget(options.lowering_budget));
    p.program = &program;
    p.threads = kernel_threads(options.threads);
    for (const Stage& stage : stages()) {
        stage.run(p);
        if (dump.active()) dump.after(stage.name, shown(p, stage.shows));
    }

    KernelPlan plan;
    plan.c_source = p.c_source;
    plan.openmp = p.parallel_regions > 0;
    plan.threads = p.threads;
    plan.inputs = p.tensors.inputs;
    plan.outputs = p.tensors.outputs;
    for (const auto& name : p.tensors.order()) plan.signatures.emplace(name, p.cz.signatures.at(name));
    plan.transposes = p.cz.transposes;
    if (p.ws.workspaces.empty()) plan.forwarded = forwarded_copy(p.cz);
    plan.workspaces = p.ws.workspaces;
    plan.routes = p.oo.routes;
    // A routed output is seen in its temporary's place.
    for (const auto& name : p.tensors.outputs) {
        if (std::any_of(p.ws.workspaces.begin(), p.ws.workspaces.end(),
                        [&](const Workspace& w) { return w.name == name; }))
            continue;
        auto route = std::find_if(p.oo.routes.begin(), p.oo.routes.end(),
                                  [&](const OutputRoute& r) { return r.temp == name; });
        if (route == p.oo.routes.end()) {
            plan.visible_outputs.push_back(name);
        } else {
            plan.visible_outputs.push_back(route->output);
            plan.signatures.emplace(route->output, signatures.at(route->output));
        }
    }
    plan.dim_classes = p.tensors.dim_classes;
    plan.checks = p.converted.checks;
    plan.slice_checks = p.converted.slice_checks;
    plan.computed = p.converted.computed;
    plan.affine_checks = p.converted.affine_checks;
    plan.num_buffers = p.tensors.num_buffers;
    plan.zeroed_room = p.ctx.zeroed_room();
    plan.recycled_outputs = p.ctx.recycled();
    return plan;
}

} // namespace siskin::compiler

namespace siskin {

std::vector<std::string> compiler_passes() {
    std::vector<std::string> names;
    for (const auto& stage : compiler::stages()) names.emplace_back(stage.name);
    return names;
}

} // namespace siskin
