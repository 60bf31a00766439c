#include "compiler/workspaces.hpp"

#include <algorithm>
#include <numeric>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "compiler/concordize.hpp"
#include "compiler/perfect_nest.hpp"
#include "levels/level_codegen.hpp"
#include "levels/level_format.hpp"
#include "siskin/error.hpp"
#include "siskin/ir/visit.hpp"
#include "compiler/vocabulary.hpp"

namespace siskin::compiler {

namespace {

ir::Stmt wrap(const std::vector<std::string>& loops, size_t from, size_t to, ir::Stmt body,
              ir::Position pos) {
    for (size_t k = to; k-- > from;) body = ir::For::make(loops[k], body, nullptr, nullptr, pos);
    return body;
}

// The row workspace for an output whose last level is `format`'s: a sparsebytemap (a touched
// list, so the copy and the reset cost O(touched)) when that level appends in coordinate order;
// a dense vector when it is written by random access anyway (dense, sparsebytemap). The touched
// list holds the output's coordinates, so it takes that level's index width: 32-bit coordinates
// halve the list's traffic while it is sorted and copied.
Format workspace_format(const Format& format) {
    const LevelSpec& last = format.levels().back();
    if (levels::properties_of(last).append_only)
        return Format({{.kind = "sparsebytemap", .modes = {0}, .index_bits = last.index_bits == 32 ? 32 : 64}},
                      Leaf::Element);
    return Format::dense(1).with_index_bits(64);
}

class Pass {
public:
    Pass(const ir::Program& program, Workspaced& out) : out_(out), tensors_(program) {}

    ir::Stmt stmt(const ir::Stmt& s) {
        return rewrite_perfect_nests(s, loops_, [&](const Nest& n) { return rewrite(n); });
    }

private:
    std::optional<ir::Stmt> rewrite(const Nest& nest) {
        const ir::Assign& a = *nest.assign;
        const std::string& out = a.lhs->tensor;
        auto sig = out_.signatures.find(out);
        if (a.op.empty() || sig == out_.signatures.end() || tensors_.assigns[out] != 1) return std::nullopt;
        const Format& format = sig->second.format;
        if (levels::all_levels_implicit(format)) return std::nullopt;

        auto free = free_loops(nest, loops_);
        if (!free) return std::nullopt;
        const std::vector<std::string>& loops = *free;
        std::set<std::string> loop_set(loops.begin(), loops.end());

        // The output's indices in storage order: plain, distinct, bound by the nest.
        std::vector<std::string> written;
        for (int mode : format.mode_order()) {
            const auto* idx = a.lhs->indices.at(static_cast<size_t>(mode))->as<ir::Index>();
            if (!idx || !loop_set.count(idx->name)) return std::nullopt;
            if (std::find(written.begin(), written.end(), idx->name) != written.end()) return std::nullopt;
            written.push_back(idx->name);
        }
        // Outputs of earlier statements are read like inputs (frozen by then), but never
        // transposed: an order is only taken when it reads them in order too.
        auto input = input_reads(a.rhs, {out}, out_.signatures);
        if (!input) return std::nullopt;
        const std::vector<const ir::Access*>& reads = *input;

        // Loops that read everything in order stay as written.
        std::vector<std::string> chosen = loops;
        if (!reads_in_order(loops_, loops, reads, out_.signatures))
            chosen = concordant_order(loops_, loops, written, reads, out_.signatures).value_or(loops);
        auto [p, inside] = written_split(chosen, written);
        if (inside == 0) {
            if (chosen == loops) return std::nullopt;
            return wrap(chosen, 0, chosen.size(), nest.assign_stmt, a.pos);
        }
        // An output every level of which takes writes in any order (a sparsehash workspace of
        // the outer product) is written as the loops go.
        if (!writes_in_order(chosen, written) && levels::all_levels_take_any_order(format)) return std::nullopt;
        if (!writes_in_order(chosen, written))
            throw Error(fmt::format("output {} would be written out of order: loop {} runs outside "
                                    "{} of its indices, so it would need a workspace of more than "
                                    "one dimension, which is not supported; write the loops in "
                                    "another order or give {} a dense format",
                                    out, chosen[p], inside, out),
                        Error::Kind::Unsupported);

        // Gustavson: sums of the inner loops into W, then one ordered copy into the output.
        const std::string& j = written.back();
        int mode = 0;
        for (size_t m = 0; m < a.lhs->indices.size(); ++m)
            if (const auto* idx = a.lhs->indices[m]->as<ir::Index>(); idx && idx->name == j)
                mode = static_cast<int>(m);
        std::string w = tensors_.fresh(out + "_ws");
        TensorSignature ws;
        ws.format = workspace_format(format);
        ws.type = sig->second.type;
        ws.fill = sig->second.fill.cast(ws.type);
        ws.ndims = 1;
        out_.signatures.emplace(w, ws);
        out_.workspaces.push_back({w, {out, mode}});

        auto w_at = ir::Access::make(w, {ir::Index::make(j)});
        ir::Stmt sum = wrap(chosen, p, chosen.size(), ir::Assign::make(w_at, a.op, a.rhs, a.pos), a.pos);
        // A sparsebytemap workspace empties itself as the copy reads it; a dense one is reset.
        std::vector<ir::Stmt> copy_body{ir::Assign::make(a.lhs, "", w_at, a.pos)};
        if (levels::properties_of(ws.format.levels().front()).implicit)
            copy_body.push_back(ir::Assign::make(w_at, "", ir::Literal::make(ws.fill), a.pos));
        ir::Stmt copy = ir::For::make(j, ir::Block::make(std::move(copy_body)), nullptr, nullptr, a.pos);
        return wrap(chosen, 0, p, ir::Block::make({sum, copy}), a.pos);
    }

    Workspaced& out_;
    ProgramTensors tensors_;
    std::vector<std::string> loops_;
};

} // namespace

std::pair<size_t, size_t> written_split(const std::vector<std::string>& order,
                                        const std::vector<std::string>& written) {
    auto is_written = [&](const std::string& i) {
        return std::find(written.begin(), written.end(), i) != written.end();
    };
    size_t p = 0;
    while (p < order.size() && is_written(order[p])) ++p;
    size_t inside = 0;
    for (size_t k = p; k < order.size(); ++k) inside += is_written(order[k]) ? 1 : 0;
    return {p, inside};
}

bool writes_in_order(const std::vector<std::string>& order, const std::vector<std::string>& written) {
    std::vector<std::string> seen;
    for (const auto& i : order)
        if (std::find(written.begin(), written.end(), i) != written.end()) seen.push_back(i);
    return seen == written && written_split(order, written).second <= 1;
}

bool reads_in_order(const std::vector<std::string>& outer, const std::vector<std::string>& order,
                    const std::vector<const ir::Access*>& reads,
                    const std::map<std::string, TensorSignature>& signatures) {
    std::vector<std::string> all = outer;
    all.insert(all.end(), order.begin(), order.end());
    for (const auto* r : reads)
        if (reads_discordantly(*r, signatures.at(r->tensor).format, all)) return false;
    return true;
}

std::optional<std::vector<std::string>> concordant_order(
    const std::vector<std::string>& outer, const std::vector<std::string>& loops,
    const std::vector<std::string>& written, const std::vector<const ir::Access*>& reads,
    const std::map<std::string, TensorSignature>& signatures) {
    auto concordant = [&](const std::vector<std::string>& order) {
        return reads_in_order(outer, order, reads, signatures);
    };
    if (writes_in_order(loops, written) && concordant(loops)) return loops;
    std::vector<size_t> perm(loops.size());
    std::iota(perm.begin(), perm.end(), 0);
    while (std::next_permutation(perm.begin(), perm.end())) {
        std::vector<std::string> order;
        for (size_t k : perm) order.push_back(loops[k]);
        if (writes_in_order(order, written) && concordant(order)) return order;
    }
    return std::nullopt;
}

Workspaced add_workspaces(const ir::Program& program,
                          const std::map<std::string, TensorSignature>& signatures) {
    Workspaced out;
    out.signatures = signatures;
    Pass pass(program, out);
    out.program.body = pass.stmt(program.body);
    if (out.workspaces.empty() && ir::equal(out.program, program)) out.program = program;
    return out;
}

} // namespace siskin::compiler
