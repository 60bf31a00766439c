#include "compiler/concordize.hpp"

#include <algorithm>
#include <numeric>
#include <set>

#include <fmt/format.h>

#include "levels/level_format.hpp"
#include "siskin/ir/visit.hpp"
#include "compiler/vocabulary.hpp"

namespace siskin::compiler {

int loop_depth(const ir::Expr& s, const std::vector<std::string>& loops) {
    const auto* idx = s->as<ir::Index>();
    if (!idx) return -1;
    for (size_t d = loops.size(); d-- > 0;)
        if (loops[d] == idx->name) return static_cast<int>(d);
    return -1;
}

namespace {

class Concordizer {
public:
    Concordizer(const ir::Program& program, Concordized& out) : out_(out) {
        for (const auto& name : program.outputs()) outputs_.insert(name);
        ir::visit(program.body, {}, [&](const ir::Expr& e) {
            if (const auto* a = e->as<ir::Access>()) names_.insert(a->tensor);
        });
    }

    ir::Stmt stmt(const ir::Stmt& s) {
        switch (s->kind) {
        case ir::StmtKind::Block: {
            std::vector<ir::Stmt> out;
            for (const auto& c : s->as<ir::Block>()->stmts) out.push_back(stmt(c));
            return ir::Block::make(std::move(out), s->pos);
        }
        case ir::StmtKind::For: {
            const auto& f = *s->as<ir::For>();
            loops_.push_back(f.index);
            ir::Stmt body = stmt(f.body);
            loops_.pop_back();
            return ir::For::make(f.index, body, f.lo, f.hi, f.pos);
        }
        case ir::StmtKind::Assign: {
            const auto& a = *s->as<ir::Assign>();
            return ir::Assign::make(a.lhs, a.op, expr(a.rhs), a.pos);
        }
        case ir::StmtKind::If: {
            const auto& n = *s->as<ir::If>();
            return ir::If::make(expr(n.cond), stmt(n.then_body),
                                n.else_body ? stmt(n.else_body) : nullptr, n.pos);
        }
        case ir::StmtKind::Let: {
            const auto& n = *s->as<ir::Let>();
            return ir::Let::make(n.name, expr(n.value), stmt(n.body), n.pos);
        }
        case ir::StmtKind::While:
        case ir::StmtKind::Swap: return s; // compile() refuses them before this pass
        }
        return s;
    }

private:
    ir::Expr expr(const ir::Expr& e) {
        return ir::mutate(e, [&](const ir::Expr& x) -> ir::Expr {
            const auto* a = x->as<ir::Access>();
            if (!a || outputs_.count(a->tensor) || !out_.signatures.count(a->tensor)) return x;
            std::string temp = temporary_for(*a);
            if (temp.empty()) return x;
            return ir::Access::make(temp, a->indices, a->protocols, a->pos);
        });
    }

    // The temporary serving a discordant read, or "" when the read is fine as it is.
    std::string temporary_for(const ir::Access& a) {
        const TensorSignature& sig = out_.signatures.at(a.tensor);
        if (!reads_discordantly(a, sig.format, loops_)) return "";
        TensorSignature temp_sig = sig;
        temp_sig.format = format_in_loop_order(sig.format, a.indices, loops_);

        for (const auto& t : out_.transposes)
            if (t.source == a.tensor && t.signature.format == temp_sig.format) return t.temp;
        std::string name = temporary_name(a.tensor, temp_sig.format);
        while (names_.count(name)) name += "_";
        names_.insert(name);
        out_.signatures.emplace(name, temp_sig);
        out_.transposes.push_back({name, a.tensor, sig, temp_sig});
        return name;
    }

    Concordized& out_;
    std::set<std::string> outputs_, names_;
    std::vector<std::string> loops_;
};

} // namespace

Format format_in_loop_order(const Format& format, const std::vector<ir::Expr>& indices,
                            const std::vector<std::string>& loops) {
    std::vector<int> order = format.mode_order();
    std::vector<int> depth;
    for (int mode : order) depth.push_back(loop_depth(indices.at(static_cast<size_t>(mode)), loops));
    // The modes sorted by loop depth (stable), dealt out to the same levels.
    std::vector<size_t> perm(order.size());
    std::iota(perm.begin(), perm.end(), 0);
    std::stable_sort(perm.begin(), perm.end(), [&](size_t x, size_t y) { return depth[x] < depth[y]; });
    std::vector<LevelSpec> levels = format.levels();
    size_t k = 0;
    for (auto& level : levels)
        for (auto& mode : level.modes) mode = order[perm[k++]];
    return Format(levels, format.leaf());
}

std::string temporary_name(const std::string& tensor, const Format& format) {
    std::string modes;
    for (int m : format.mode_order()) modes += fmt::format("{}", m);
    return fmt::format("{}_by{}", tensor, modes);
}

bool reads_discordantly(const ir::Access& a, const Format& format, const std::vector<std::string>& loops) {
    const auto& levels = format.levels();
    std::vector<size_t> level_of;
    for (size_t l = 0; l < levels.size(); ++l)
        for (size_t m = 0; m < levels[l].modes.size(); ++m) level_of.push_back(l);
    std::vector<int> order = format.mode_order();
    // A level whose index is bound before an earlier level's index is located at random.
    int deepest = -1;
    for (size_t k = 0; k < order.size(); ++k) {
        int d = loop_depth(a.indices.at(static_cast<size_t>(order[k])), loops);
        // `follow` asks for random access explicitly.
        bool follow = a.protocols.at(static_cast<size_t>(order[k])) == "follow";
        auto props = levels::properties_of(levels[level_of[k]]);
        if (d >= 0 && d < deepest && !props.implicit && !props.direct_locate && !follow) return true;
        deepest = std::max(deepest, d);
    }
    return false;
}

Concordized concordize(const ir::Program& program,
                       const std::map<std::string, TensorSignature>& signatures) {
    Concordized out;
    out.signatures = signatures;
    Concordizer c(program, out);
    out.program.body = c.stmt(program.body);
    if (out.transposes.empty()) out.program = program;
    return out;
}

std::optional<ForwardedCopy> forwarded_copy(const Concordized& cz) {
    std::set<std::string> loops;
    ir::Stmt s = cz.program.body;
    for (;;) {
        if (const auto* b = s->as<ir::Block>(); b && b->stmts.size() == 1) s = b->stmts.front();
        else if (const auto* f = s->as<ir::For>(); f && !f->lo && !f->hi && loops.insert(f->index).second)
            s = f->body;
        else break;
    }
    const auto* a = s->as<ir::Assign>();
    if (!a || !a->op.empty()) return std::nullopt;
    const auto* from = a->rhs->as<ir::Access>();
    if (!from || from->indices.size() != a->lhs->indices.size() || loops.size() != from->indices.size())
        return std::nullopt;
    auto temp = std::find_if(cz.transposes.begin(), cz.transposes.end(),
                             [&](const Transpose& t) { return t.temp == from->tensor; });
    if (temp == cz.transposes.end()) return std::nullopt;
    for (size_t k = 0; k < from->indices.size(); ++k) {
        const auto* to_index = a->lhs->indices[k]->as<ir::Index>();
        const auto* from_index = from->indices[k]->as<ir::Index>();
        if (!to_index || !from_index || to_index->slice || from_index->slice ||
            to_index->name != from_index->name || !loops.count(to_index->name))
            return std::nullopt;
    }
    auto out = cz.signatures.find(a->lhs->tensor);
    if (out == cz.signatures.end() || !out->second.matches(temp->signature)) return std::nullopt;
    return ForwardedCopy{a->lhs->tensor, temp->temp};
}

} // namespace siskin::compiler
