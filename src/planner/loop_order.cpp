// The loop-order candidates of one einsum statement (`C[i,j] += A[i,k] * B[k,j]`): every order
// of its loops that keeps the reduction loops in their written order (so each element sums its
// terms in the same order, and every candidate gives the same bits), with each read that the
// order reaches against its levels either transposed into loop order or searched (`follow`), and
// the output written in order, through a row workspace, or through a dense temporary when the
// order reaches it against its levels. For a matrix product these are the inner-product (i, j, k),
// Gustavson (i, k, j) and outer-product (k, i, j) strategies. Each is a program the compiler runs
// as written: explicit loops in which every read is in order or searched, so its passes keep the
// order (src/compiler/workspaces.cpp reorders only nests that read against the order).
#include <algorithm>
#include <numeric>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "compiler/concordize.hpp"
#include "compiler/workspaces.hpp"
#include "levels/level_format.hpp"
#include "passes/output_fill.hpp"
#include "planner/candidates.hpp"
#include "planner/nest_cost.hpp"
#include "siskin/ir/text.hpp"
#include "siskin/ir/visit.hpp"

namespace siskin::planner {

namespace {

constexpr size_t kMaxLoops = 5;        // 120 orders at most
constexpr size_t kKept = 8;            // candidates listed besides the program as written
constexpr double kMaxTemporary = 1 << 26; // elements of a dense temporary output

bool before(const ir::Position& a, const ir::Position& b) {
    return a.line < b.line || (a.line == b.line && a.column < b.column);
}

// The statement under implied loops, or nothing (written loops are the user's; other programs
// are not weighed here).
// `ranges`: a loop over a written range `0:n` (a free loop of a tool's program), by index.
struct Nest {
    std::vector<std::string> loops;
    std::map<std::string, int64_t> ranges;
    const ir::Assign* assign = nullptr;
};

// The constant upper end of `for i in 0:n`, or nothing.
std::optional<int64_t> whole_range(const ir::For& f) {
    const auto* lo = f.lo ? f.lo->as<ir::Literal>() : nullptr;
    const auto* hi = f.hi ? f.hi->as<ir::Literal>() : nullptr;
    if (!lo || !hi || !is_integer(lo->value.type()) || !is_integer(hi->value.type()) || lo->value.as_int() != 0)
        return std::nullopt;
    return hi->value.as_int();
}

std::optional<Nest> einsum_nest(const ir::Program& program, bool loops_are_free) {
    if (!program.functions.empty()) return std::nullopt;
    Nest n;
    ir::Stmt s = program.body;
    std::vector<const ir::For*> fors;
    for (;;) {
        if (const auto* b = s->as<ir::Block>(); b && b->stmts.size() == 1) s = b->stmts.front();
        else if (const auto* f = s->as<ir::For>(); f && !f->lo && !f->hi) {
            fors.push_back(f);
            n.loops.push_back(f->index);
            s = f->body;
        } else if (auto range = f && loops_are_free ? whole_range(*f) : std::nullopt) {
            n.ranges[f->index] = *range;
            n.loops.push_back(f->index);
            s = f->body;
        } else break;
    }
    n.assign = s->as<ir::Assign>();
    if (!n.assign || n.loops.empty() || n.loops.size() > kMaxLoops) return std::nullopt;
    // An implied loop carries the position of its index in the statement; a written one that
    // of the `for` line, before the statement.
    if (!loops_are_free)
        for (const auto* f : fors)
            if (before(f->pos, n.assign->pos)) return std::nullopt;
    return n;
}

std::optional<std::vector<std::string>> plain_indices(const ir::Access& a) {
    std::vector<std::string> out;
    for (size_t k = 0; k < a.indices.size(); ++k) {
        const auto* i = a.indices[k]->as<ir::Index>();
        if (!i || i->slice || !a.protocols[k].empty()) return std::nullopt;
        if (std::find(out.begin(), out.end(), i->name) != out.end()) return std::nullopt;
        out.push_back(i->name);
    }
    return out;
}

// The rhs as a union of products of sparse reads (nest_cost.hpp); nothing when it reads
// something the model does not know.
struct Terms {
    std::vector<Read>& reads;
    bool ok = true;
    std::vector<std::vector<size_t>> of(const ir::Expr& e) {
        if (const auto* a = e->as<ir::Access>()) {
            for (size_t r = 0; r < reads.size(); ++r)
                if (reads[r].access == a) return reads[r].sparse ? std::vector<std::vector<size_t>>{{r}}
                                                                 : std::vector<std::vector<size_t>>{{}};
            ok = false;
            return {{}};
        }
        const auto* c = e->as<ir::Call>();
        if (!c) return {{}};
        std::vector<std::vector<size_t>> out;
        if (c->op == "mul") {
            out = {{}};
            for (const auto& arg : c->args) {
                std::vector<std::vector<size_t>> next;
                for (const auto& t : out)
                    for (const auto& u : of(arg)) {
                        auto merged = t;
                        merged.insert(merged.end(), u.begin(), u.end());
                        next.push_back(merged);
                    }
                out = next;
            }
        } else {
            for (const auto& arg : c->args)
                for (auto& t : of(arg)) out.push_back(t);
        }
        if (out.size() > 16) ok = false;
        return out;
    }
};

std::string strategy(const std::vector<std::string>& order, const std::vector<std::string>& output) {
    auto is_out = [&](const std::string& i) { return std::find(output.begin(), output.end(), i) != output.end(); };
    size_t first_reduction = order.size(), last_output = 0;
    for (size_t k = 0; k < order.size(); ++k) {
        if (!is_out(order[k]) && first_reduction == order.size()) first_reduction = k;
        if (is_out(order[k])) last_output = k;
    }
    if (first_reduction == order.size() || output.empty()) return "";
    if (first_reduction > last_output) return "inner products";
    if (std::none_of(order.begin(), order.begin() + static_cast<long>(first_reduction), is_out)) return "outer products";
    return "row by row (Gustavson)";
}

} // namespace

std::optional<std::vector<PlanCandidate>> loop_order_candidates(const ir::Program& program,
                                                                const std::map<std::string, const Tensor*>& inputs,
                                                                const std::map<std::string, OutputSpec>& outputs,
                                                                bool loops_are_free) {
    auto nest = einsum_nest(program, loops_are_free);
    if (!nest) return std::nullopt;
    const ir::Assign& assign = *nest->assign;
    auto out_index = plain_indices(*assign.lhs);
    if (!out_index) return std::nullopt;
    const std::string& out = assign.lhs->tensor;

    Statement s;
    bool ok = true;
    ir::visit(assign.rhs, [&](const ir::Expr& e) {
        const auto* a = e->as<ir::Access>();
        if (!a) return;
        auto t = inputs.find(a->tensor);
        auto idx = plain_indices(*a);
        if (a->tensor == out || t == inputs.end() || !t->second || !idx || t->second->ndims() != static_cast<int>(idx->size())) {
            ok = false;
            return;
        }
        Read r{a, *idx, t->second, statistics_of(*t->second), !levels::all_levels_implicit(t->second->format())};
        if (!r.stats->counted()) ok = false;
        for (size_t m = 0; m < idx->size(); ++m) {
            int64_t n = t->second->shape()[m];
            auto [it, fresh] = s.extent.emplace((*idx)[m], n);
            if (!fresh && it->second != n) ok = false;
        }
        s.reads.push_back(std::move(r));
    });
    for (const auto& l : nest->loops)
        if (!s.extent.count(l)) ok = false; // an index only the output names: sized elsewhere
    for (const auto& [index, n] : nest->ranges) // a written range other than the whole extent
        if (auto e = s.extent.find(index); e != s.extent.end() && e->second != n) ok = false;
    if (!ok) return std::nullopt;
    Terms terms{s.reads};
    s.terms = terms.of(assign.rhs);
    if (!terms.ok) return std::nullopt;

    // The output's format and its indices in storage order.
    Format out_format = Format::dense(static_cast<int>(out_index->size()));
    if (auto spec = outputs.find(out); spec != outputs.end()) {
        if (spec->second.start) return std::nullopt;
        if (const auto& shape = spec->second.shape) { // a shape other than the loops give: sized elsewhere
            if (shape->size() != out_index->size()) return std::nullopt;
            for (size_t m = 0; m < shape->size(); ++m)
                if (auto e = s.extent.find(out_index->at(m)); e == s.extent.end() || e->second != (*shape)[m])
                    return std::nullopt;
        }
        if (spec->second.format) out_format = *spec->second.format;
    }
    for (int m : out_format.mode_order()) s.output_index.push_back(out_index->at(static_cast<size_t>(m)));
    const bool out_sparse = !levels::all_levels_implicit(out_format);
    // A hashed temporary stores the output's modes in its order, each level a sparsehash.
    Format hash_format = out_format;
    if (out_sparse) {
        std::vector<std::string> hashed_levels;
        for (int m : out_format.mode_order()) hashed_levels.push_back(fmt::format("sparsehash({})", m));
        hash_format = Format::parse(fmt::format("{}", fmt::join(hashed_levels, "/")), out_format.ndims());
    }
    const bool reduction = !assign.op.empty();
    std::vector<std::string> reduction_loops;
    for (const auto& l : nest->loops)
        if (std::find(out_index->begin(), out_index->end(), l) == out_index->end()) reduction_loops.push_back(l);
    if (!reduction && !reduction_loops.empty()) return std::nullopt; // `=` over a loop overwrites: order matters
    double box = 1;
    for (const auto& i : *out_index) box *= static_cast<double>(s.extent.at(i));

    std::map<std::string, TensorSignature> signatures;
    std::vector<const ir::Access*> accesses;
    for (const auto& r : s.reads) {
        signatures[r.access->tensor].format = r.tensor->format();
        accesses.push_back(r.access);
    }

    std::map<std::string, Scalar> input_fills;
    for (const auto& r : s.reads) input_fills[r.access->tensor] = r.tensor->fill();
    std::set<std::string> names{out};
    for (const auto& r : s.reads) names.insert(r.access->tensor);
    std::string temp = out + "_dense", hashed = out + "_hash";
    while (names.count(temp)) temp += "_";
    while (names.count(hashed)) hashed += "_";

    // The order the compiler's passes give the program as written: workspaces reorders a
    // reduction into a sparse output that reads against the loops, output_order an assignment
    // that reaches its sparse output against its levels (when that transposes at most one more
    // read); otherwise the written loops.
    auto discordant_reads = [&](const std::vector<std::string>& order) {
        size_t n = 0;
        for (const auto& r : s.reads) n += compiler::reads_discordantly(*r.access, r.tensor->format(), order) ? 1 : 0;
        return n;
    };
    std::vector<std::string> compiled_order = nest->loops;
    if (out_sparse && reduction && discordant_reads(compiled_order) > 0)
        compiled_order = compiler::concordant_order({}, compiled_order, s.output_index, accesses, signatures)
                             .value_or(compiled_order);
    if (out_sparse && !reduction && !compiler::writes_in_order(compiled_order, s.output_index) &&
        discordant_reads(s.output_index) <= discordant_reads(compiled_order) + 1)
        compiled_order = s.output_index;

    struct Costed {
        PlanCandidate candidate;
        bool written = false;
        WriteRoute write = WriteRoute::Dense;
    };
    std::vector<Costed> all;
    std::vector<std::string> order = nest->loops;
    std::sort(order.begin(), order.end());
    do {
        // The reduction loops keep their written order.
        std::vector<std::string> reductions_here;
        for (const auto& l : order)
            if (std::find(reduction_loops.begin(), reduction_loops.end(), l) != reduction_loops.end())
                reductions_here.push_back(l);
        if (reductions_here != reduction_loops) continue;

        const bool as_written = order == compiled_order;
        // An order that reaches a sparse output against its levels writes a temporary: dense
        // (its whole shape, converted after) or hashed (its entries only, sorted at freeze).
        std::vector<WriteRoute> writes{WriteRoute::Dense};
        if (out_sparse) {
            writes.clear();
            if (compiler::writes_in_order(order, s.output_index))
                writes.push_back(compiler::written_split(order, s.output_index).second == 0 ? WriteRoute::InOrder
                                                                                            : WriteRoute::Workspace);
            else {
                if ((reduction && box <= kMaxTemporary) || as_written)
                    writes.push_back(WriteRoute::DenseTemporary); // as written: the compiler's output_order routes it
                if (reduction) writes.push_back(WriteRoute::HashTemporary);
            }
        }
        std::vector<size_t> discordant;
        for (size_t r = 0; r < s.reads.size(); ++r)
            if (compiler::reads_discordantly(*s.reads[r].access, s.reads[r].tensor->format(), order))
                discordant.push_back(r);

        for (WriteRoute write : writes)
        for (ReadRoute route : {ReadRoute::Transposed, ReadRoute::Searched}) {
            if (discordant.empty() && route == ReadRoute::Searched) break;
            // A sparse output's nest that reads against its order is reordered by the
            // workspaces pass when some order reads in order: that candidate is another one.
            const bool written = as_written && route == ReadRoute::Transposed && write != WriteRoute::HashTemporary;
            const bool temporary = write == WriteRoute::DenseTemporary || write == WriteRoute::HashTemporary;
            if (written && discordant.empty() && route == ReadRoute::Searched) continue;
            if (!written && temporary && !reduction) continue;
            // A sparse output's (or hashed temporary's) nest that reads against its order is reordered by the
            // workspaces pass when some order reads in order: such a candidate copies its
            // transposes into temporaries first, which the nest reads in order.
            const bool explicit_transposes =
                !written && !discordant.empty() && route == ReadRoute::Transposed && out_sparse && reduction &&
                write != WriteRoute::DenseTemporary &&
                compiler::concordant_order({}, order, s.output_index, accesses, signatures);
            std::vector<ReadRoute> routes(s.reads.size(), ReadRoute::InOrder);
            std::map<const ir::Access*, std::vector<std::string>> protocols;
            std::vector<std::string> transposed, searched;
            bool searchable = true;
            for (size_t r : discordant) {
                routes[r] = route;
                const Read& read = s.reads[r];
                (route == ReadRoute::Transposed ? transposed : searched).push_back(read.access->tensor);
                if (route != ReadRoute::Searched) continue;
                // `follow` on each sparselist level the order reaches out of order.
                const Format& f = read.tensor->format();
                std::vector<int> modes = f.mode_order();
                std::vector<std::string> protos(read.index.size());
                int deepest = -1;
                size_t k = 0;
                for (const auto& level : f.levels())
                    for (size_t m = 0; m < level.modes.size(); ++m, ++k) {
                        size_t mode = static_cast<size_t>(modes[k]);
                        int d = static_cast<int>(std::find(order.begin(), order.end(), read.index[mode]) - order.begin());
                        if (d < deepest && !levels::properties_of(level).implicit) {
                            if (level.kind != "sparselist") searchable = false;
                            protos[mode] = "follow";
                        }
                        deepest = std::max(deepest, d);
                    }
                protocols[read.access] = protos;
            }
            if (!searchable) continue;

            PlanCandidate c;
            auto wrap = [](const std::vector<std::string>& loops, ir::Stmt body) {
                for (size_t k = loops.size(); k-- > 0;) body = ir::For::make(loops[k], body);
                return body;
            };
            std::vector<ir::Stmt> copies;
            std::map<const ir::Access*, std::string> renamed;
            std::set<std::string> taken = names;
            taken.insert(temp);
            taken.insert(hashed);
            if (explicit_transposes)
                for (size_t r : discordant) {
                    const Read& read = s.reads[r];
                    std::string name = read.access->tensor + "_t";
                    while (taken.count(name)) name += "_";
                    taken.insert(name);
                    renamed[read.access] = name;
                    OutputSpec spec;
                    spec.format = compiler::format_in_loop_order(read.tensor->format(), read.access->indices, order);
                    c.temporaries[name] = spec;
                    copies.push_back(wrap(read.index, ir::Assign::make(ir::Access::make(name, read.access->indices), "",
                                                                       ir::Access::make(read.access->tensor,
                                                                                        read.access->indices))));
                }
            ir::Expr rhs = ir::mutate(assign.rhs, [&](const ir::Expr& e) -> ir::Expr {
                const auto* a = e->as<ir::Access>();
                if (auto n = a ? renamed.find(a) : renamed.end(); n != renamed.end())
                    return ir::Access::make(n->second, a->indices, a->protocols, a->pos);
                auto p = a ? protocols.find(a) : protocols.end();
                if (p == protocols.end()) return e;
                return ir::Access::make(a->tensor, a->indices, p->second, a->pos);
            });
            if (temporary) {
                const std::string& name = write == WriteRoute::DenseTemporary ? temp : hashed;
                std::vector<ir::Expr> idx = assign.lhs->indices;
                auto w = ir::Access::make(name, idx);
                ir::Stmt fill = wrap(order, ir::Assign::make(w, assign.op, rhs));
                ir::Stmt copy = wrap(s.output_index, ir::Assign::make(assign.lhs, "", ir::Access::make(name, idx)));
                copies.push_back(fill);
                copies.push_back(copy);
                c.program.body = ir::Block::make(copies);
                // The copy reads a temporary, whose fill the output's inference cannot see:
                // the output declares the fill the statement gives it.
                if (!program.declared_fill(out))
                    c.program.fills.push_back({out, infer_output_fill(program, out, s.reads.front().tensor->type(),
                                                                      input_fills)});
                OutputSpec spec;
                spec.format = write == WriteRoute::DenseTemporary ? Format::dense(static_cast<int>(idx.size()))
                                                                  : hash_format;
                c.temporaries[name] = spec;
            } else if (!copies.empty()) {
                copies.push_back(wrap(order, ir::Assign::make(assign.lhs, assign.op, rhs)));
                c.program.body = ir::Block::make(copies);
            } else {
                c.program.body = wrap(order, ir::Assign::make(assign.lhs, assign.op, rhs));
            }
            c.program.fills.insert(c.program.fills.begin(), program.fills.begin(), program.fills.end());
            NestCost cost = estimate_nest(s, order, routes, write);
            for (size_t r : discordant) // the copy of each explicit transpose: one pass over it
                if (explicit_transposes) cost.transposes += static_cast<double>(s.reads[r].stats->entries);
            c.cost = cost.total();
            c.formula = cost.formula();
            std::vector<std::string> parts{fmt::format("loops {}", fmt::join(order, ", "))};
            if (auto st = strategy(order, *out_index); !st.empty()) parts.push_back(st);
            if (!transposed.empty())
                parts.push_back(fmt::format("{} transposed{}", fmt::join(transposed, ", "),
                                            explicit_transposes ? " into a temporary first" : ""));
            if (!searched.empty()) parts.push_back(fmt::format("{} searched", fmt::join(searched, ", ")));
            if (write == WriteRoute::Workspace) parts.push_back(fmt::format("{} through a row workspace", out));
            if (write == WriteRoute::DenseTemporary) parts.push_back(fmt::format("{} through a dense {}", out, temp));
            if (write == WriteRoute::HashTemporary) parts.push_back(fmt::format("{} through a hashed {}", out, hashed));
            c.description = fmt::format("{}", fmt::join(parts, "; "));
            if (written) {
                // The program itself: the compiler's passes may still reorder it; estimated as
                // these loops.
                c.program = program;
                c.temporaries.clear();
                c.description = (compiled_order == nest->loops ? "as written: " : "as written, which the compiler runs as ") +
                                c.description;
            }
            all.push_back({std::move(c), written, write});
        }
    } while (std::next_permutation(order.begin(), order.end()));

    // The program as written first, then the cheapest others.
    std::stable_sort(all.begin(), all.end(), [](const Costed& a, const Costed& b) {
        return a.written != b.written ? a.written : a.candidate.cost < b.candidate.cost;
    });
    std::vector<PlanCandidate> out_list;
    std::set<std::string> seen;
    std::set<WriteRoute> routes;
    for (auto& c : all) {
        if (out_list.size() > kKept) break;
        if (!seen.insert(ir::print(c.candidate.program)).second) continue;
        routes.insert(c.write);
        out_list.push_back(std::move(c.candidate));
    }
    // Each way of writing the output keeps its cheapest candidate in the list, however dear, so
    // that `siskin explain --plan N` can check the model's estimate of it (the hashed temporary
    // is rarely among the cheapest).
    for (auto& c : all)
        if (routes.insert(c.write).second && seen.insert(ir::print(c.candidate.program)).second)
            out_list.push_back(std::move(c.candidate));
    return out_list;
}

} // namespace siskin::planner
