#include "compiler/output_order.hpp"

#include <algorithm>
#include <optional>
#include <set>

#include "compiler/concordize.hpp"
#include "compiler/perfect_nest.hpp"
#include "compiler/workspaces.hpp"
#include "levels/level_format.hpp"
#include "siskin/ir/visit.hpp"
#include "compiler/vocabulary.hpp"

namespace siskin::compiler {

namespace {

// The plain, distinct loop indices of an output access in storage order, or nothing when some
// subscript is something else (a literal, a slice, a compound subscript, an unbound index).
std::optional<std::vector<std::string>> written_indices(const ir::Access& lhs, const Format& format,
                                                        const std::vector<std::string>& loops) {
    std::vector<std::string> written;
    for (int mode : format.mode_order()) {
        const auto* idx = lhs.indices.at(static_cast<size_t>(mode))->as<ir::Index>();
        if (!idx || idx->slice || loop_depth(lhs.indices.at(static_cast<size_t>(mode)), loops) < 0 ||
            std::find(written.begin(), written.end(), idx->name) != written.end())
            return std::nullopt;
        written.push_back(idx->name);
    }
    return written;
}

class Pass {
public:
    Pass(const ir::Program& program, OrderedOutputs& out) : out_(out), tensors_(program) {}

    // Nests that can run the output's indices in its order instead.
    ir::Stmt reorder(const ir::Stmt& s) {
        return rewrite_perfect_nests(s, loops_, [&](const Nest& n) { return reordered(n); });
    }

    // Outputs still written against their order get a temporary in loop order.
    ir::Stmt route(const ir::Stmt& body) {
        std::map<std::string, std::vector<std::pair<const ir::Assign*, std::vector<std::string>>>> writes;
        collect(body, writes);
        std::map<std::string, std::string> renamed;
        for (const auto& [name, list] : writes) {
            auto sig = out_.signatures.find(name);
            if (sig == out_.signatures.end() || levels::all_levels_implicit(sig->second.format)) continue;
            const Format& format = sig->second.format;
            std::optional<Format> want;
            bool discordant = false, uniform = true;
            for (const auto& [a, loops] : list) {
                if (!written_indices(*a->lhs, format, loops)) uniform = false;
                else {
                    Format f = format_in_loop_order(format, a->lhs->indices, loops);
                    if (want && !(*want == f)) uniform = false;
                    want = f;
                }
                discordant = discordant || writes_discordantly(*a->lhs, format, loops);
            }
            // An output whose every level takes writes in any order (a sparsehash workspace
            // W[i,j] of the outer product) is its own wide workspace.
            if (dense_.count(name) && !levels::all_levels_take_any_order(format)) want = Format::dense(format.ndims()).with_index_bits(64);
            else if (!discordant || !uniform || !want || *want == format) continue;
            std::string temp = tensors_.fresh(temporary_name(name, *want));
            TensorSignature temp_sig = sig->second;
            temp_sig.format = *want;
            out_.signatures.emplace(temp, temp_sig);
            out_.routes.push_back({temp, name, temp_sig});
            renamed.emplace(name, temp);
        }
        if (renamed.empty()) return body;
        return ir::mutate(body, {}, [&](const ir::Expr& e) -> ir::Expr {
            const auto* a = e->as<ir::Access>();
            if (!a || !renamed.count(a->tensor)) return e;
            return ir::Access::make(renamed.at(a->tensor), a->indices, a->protocols, a->pos);
        });
    }

private:
    std::optional<ir::Stmt> reordered(const Nest& nest) {
        const ir::Assign& a = *nest.assign;
        const std::string& out = a.lhs->tensor;
        auto sig = out_.signatures.find(out);
        if (sig == out_.signatures.end() || !tensors_.outputs.count(out) || tensors_.assigns[out] != 1) return std::nullopt;
        const Format& format = sig->second.format;
        if (levels::all_levels_implicit(format)) return std::nullopt;

        auto free = free_loops(nest, loops_);
        if (!free) return std::nullopt;
        const std::vector<std::string>& loops = *free;
        std::set<std::string> loop_set(loops.begin(), loops.end());
        std::vector<std::string> all = loops_;
        all.insert(all.end(), loops.begin(), loops.end());
        auto written = written_indices(*a.lhs, format, all);
        if (!written) return std::nullopt;
        for (const auto& w : *written)
            if (!loop_set.count(w)) return std::nullopt;

        auto input = input_reads(a.rhs, tensors_.outputs, out_.signatures);
        if (!input) return std::nullopt;
        const std::vector<const ir::Access*>& reads = *input;

        if (!writes_discordantly(*a.lhs, format, all)) {
            note_wide_workspace(a, loops, *written, reads);
            return std::nullopt;
        }
        std::optional<std::vector<std::string>> order;
        if (!a.op.empty()) {
            // A reduction: an order the workspaces pass takes as it is, every read in order.
            order = concordant_order(loops_, loops, *written, reads, out_.signatures);
        } else if (loop_set.size() == written->size()) {
            // An assignment over exactly the output's indices: reordered unless that transposes
            // more inputs than the temporary would cost (one transpose of the output).
            auto transposed = [&](const std::vector<std::string>& o) {
                std::vector<std::string> in = loops_;
                in.insert(in.end(), o.begin(), o.end());
                int n = 0;
                for (const auto* r : reads) n += reads_discordantly(*r, out_.signatures.at(r->tensor).format, in);
                return n;
            };
            if (transposed(*written) <= transposed(loops) + 1) order = *written;
        }
        if (!order) {
            std::vector<std::string> in_loop_order = *written;
            std::sort(in_loop_order.begin(), in_loop_order.end(), [&](const auto& x, const auto& y) {
                return std::find(loops.begin(), loops.end(), x) < std::find(loops.begin(), loops.end(), y);
            });
            note_wide_workspace(a, loops, in_loop_order, reads);
            return std::nullopt;
        }
        ir::Stmt body = nest.assign_stmt;
        for (size_t k = order->size(); k-- > 0;) body = ir::For::make((*order)[k], body, nullptr, nullptr, a.pos);
        return body;
    }

    // A reduction whose loops the workspaces pass would keep (or choose) with more than one of
    // the written indices inside a reduction loop (the outer product `for k, i, j` into CSR)
    // needs a workspace of the output's size: a dense temporary, converted after the kernel.
    void note_wide_workspace(const ir::Assign& a, const std::vector<std::string>& loops,
                             const std::vector<std::string>& written, const std::vector<const ir::Access*>& reads) {
        if (a.op.empty()) return;
        std::vector<std::string> chosen = loops;
        if (!reads_in_order(loops_, loops, reads, out_.signatures))
            chosen = concordant_order(loops_, loops, written, reads, out_.signatures).value_or(loops);
        if (written_split(chosen, written).second > 1) dense_.insert(a.lhs->tensor);
    }

    void collect(const ir::Stmt& s,
                 std::map<std::string, std::vector<std::pair<const ir::Assign*, std::vector<std::string>>>>& writes) {
        if (const auto* b = s->as<ir::Block>()) {
            for (const auto& c : b->stmts) collect(c, writes);
        } else if (const auto* f = s->as<ir::For>()) {
            loops_.push_back(f->index);
            collect(f->body, writes);
            loops_.pop_back();
        } else if (const auto* i = s->as<ir::If>()) {
            collect(i->then_body, writes);
            if (i->else_body) collect(i->else_body, writes);
        } else if (const auto* l = s->as<ir::Let>()) {
            collect(l->body, writes);
        } else if (const auto* a = s->as<ir::Assign>()) {
            writes[a->lhs->tensor].emplace_back(a, loops_);
        }
    }

    OrderedOutputs& out_;
    ProgramTensors tensors_;
    std::set<std::string> dense_; // outputs written through a dense temporary
    std::vector<std::string> loops_;
};

} // namespace

bool writes_discordantly(const ir::Access& lhs, const Format& format, const std::vector<std::string>& loops) {
    const auto& levels = format.levels();
    std::vector<size_t> level_of;
    for (size_t l = 0; l < levels.size(); ++l)
        for (size_t m = 0; m < levels[l].modes.size(); ++m) level_of.push_back(l);
    std::vector<int> depth;
    for (int mode : format.mode_order()) depth.push_back(loop_depth(lhs.indices.at(static_cast<size_t>(mode)), loops));
    for (size_t k = 0; k < depth.size(); ++k) {
        if (depth[k] < 0 || !levels::properties_of(levels[level_of[k]]).append_only) continue;
        for (size_t e = 0; e < depth.size(); ++e)
            if (depth[e] >= 0 && (e < k ? depth[e] > depth[k] : e > k && depth[e] < depth[k])) return true;
    }
    return false;
}

OrderedOutputs order_outputs(const ir::Program& program,
                             const std::map<std::string, TensorSignature>& signatures) {
    OrderedOutputs out;
    out.signatures = signatures;
    Pass pass(program, out);
    out.program.body = pass.route(pass.reorder(program.body));
    if (out.routes.empty() && ir::equal(out.program, program)) out.program = program;
    return out;
}

} // namespace siskin::compiler
