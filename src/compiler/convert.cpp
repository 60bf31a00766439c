#include "compiler/convert.hpp"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "levels/level_codegen.hpp"
#include "levels/level_format.hpp"
#include "siskin/error.hpp"
#include "wrappers/slice.hpp"
#include "ir/affine.hpp"
#include "siskin/ir/text.hpp"
#include "siskin/ir/visit.hpp"
#include "siskin/operators.hpp"
#include "compiler/ordered_writes.hpp"
#include "compiler/perfect_nest.hpp"
#include "compiler/vocabulary.hpp"

namespace siskin::compiler {

namespace {

std::string where(const ir::Position& p) {
    return p.line ? fmt::format("{}:{}: ", p.line, p.column) : std::string();
}

class Converter {
public:
    Converter(LowerCtx& ctx, const KernelTensors& kt, const ir::Program& program)
        : ctx_(ctx), kt_(kt), program_(program) {
        const auto* top = program.body->as<ir::Block>();
        size_t count = top ? top->stmts.size() : 1;
        for (size_t k = 0; k < count; ++k)
            ir::visit(top ? top->stmts[k] : program.body, [&](const ir::Stmt& s) {
                if (const auto* a = s->as<ir::Assign>()) {
                    ++assigns_[a->lhs->tensor];
                    writers_[a->lhs->tensor].insert(a->op.empty() ? nullptr : lookup_operator(a->op));
                    last_write_[a->lhs->tensor] = {k, a->pos};
                }
            });
    }

    /// The top-level statement being converted (a program that is one statement: 0).
    size_t top = 0;
    /// Sparse outputs that a statement after their last write reads: frozen before it.
    std::set<std::string> read_after_writes;
    size_t last_write(const std::string& tensor) const { return last_write_.at(tensor).first; }

    LStmt stmt(const ir::Stmt& s) {
        switch (s->kind) {
        case ir::StmtKind::Block: {
            std::vector<LStmt> out;
            for (const auto& c : s->as<ir::Block>()->stmts) out.push_back(stmt(c));
            return std::make_shared<Block>(std::move(out));
        }
        case ir::StmtKind::For: return loop(*s->as<ir::For>());
        case ir::StmtKind::Assign: return assign(*s->as<ir::Assign>());
        case ir::StmtKind::If: {
            const auto& n = *s->as<ir::If>();
            return std::make_shared<If>(expr(n.cond), stmt(n.then_body),
                                        n.else_body ? stmt(n.else_body) : nullptr);
        }
        case ir::StmtKind::Let: {
            const auto& n = *s->as<ir::Let>();
            LExpr value = expr(n.value);
            auto saved = vars_;
            vars_[n.name] = value->type;
            LStmt body = stmt(n.body);
            vars_ = std::move(saved);
            return std::make_shared<Let>(n.name, value, body);
        }
        case ir::StmtKind::While:
        case ir::StmtKind::Swap: break; // compile() refuses them before this pass
        }
        SISKIN_ASSERT(false, "a while or swap reached the lowering");
    }

    std::vector<DimCheck> checks;
    std::vector<std::string> computed;
    std::vector<AffineCheck> affine_checks;
    std::vector<SliceCheck> slice_checks;

private:
    LStmt loop(const ir::For& f) {
        LExpr lo = Literal::make(Scalar::of(int64_t{0})), hi;
        if (f.lo) {
            auto l = ir::constant_of(f.lo), h = ir::constant_of(f.hi);
            if (!l || !h)
                throw Error(fmt::format("{}the range of loop {} must be constant to be compiled",
                                        where(f.pos), f.index),
                            Error::Kind::Unsupported);
            ranges_[f.index] = {*l, *h};
            lo = Literal::make(Scalar::of(*l));
            hi = Literal::make(Scalar::of(*h));
        } else {
            hi = CValue::make(kt_.index_extent.at(f.index), ValueType::Int64);
            if (auto s = kt_.index_start.find(f.index); s != kt_.index_start.end())
                lo = CValue::make(s->second, ValueType::Int64);
        }
        loops_.push_back(f.index);
        LStmt body = stmt(f.body);
        loops_.pop_back();
        return std::make_shared<For>(f.index, lo, hi, body);
    }

    LStmt assign(const ir::Assign& a) {
        const TensorBinding& t = kt_.at(a.lhs->tensor);
        const Operator* op = nullptr;
        if (!a.op.empty()) {
            op = &find_operator(a.op);
            if (op->arity != 2)
                throw Error(fmt::format("{}{}= needs a binary operator, and {} takes {} arguments",
                                        where(a.pos), a.op, a.op, op->arity));
        }
        // An overwrite that is its tensor's only write and hits every element at most once
        // (every loop around it indexes the output) may skip writing the fill. Write sites in
        // window order (a concatenation's phases) cover disjoint windows, so each is such a
        // write for the elements it reaches.
        bool single = !op && (assigns_[t.name] == 1 || in_window_order(t));
        // For a reduction, single_write says that every write to the tensor is this reduction
        // and its operator is idempotent, commutative and associative: the element is its fill
        // combined with what was reduced into it, so reducing the fill again changes nothing
        // (y max= 0 from fill 0, as in a (max, *) product where A holds its fill).
        if (op && op->idempotent && op->commutative && op->associative)
            single = writers_[t.name] == std::set<const Operator*>{op};
        // Both rules rely on the element starting at the fill, which a kept output's does not.
        if (t.keep_contents) single = false;
        for (const auto& i : loops_) {
            bool indexed = false;
            for (const auto& s : a.lhs->indices) {
                if (const auto* idx = s->as<ir::Index>(); idx && idx->name == i) indexed = true;
                // A collapse reaches each element once through its compound subscripts.
                if (auto af = t.collapsed_in_order ? ir::affine_of(s) : std::nullopt; af && af->coef(i))
                    indexed = true;
            }
            single = single && indexed;
        }
        LExpr lhs = access(*a.lhs, true);
        return std::make_shared<Assign>(&t, lhs, op, expr(a.rhs), single);
    }

    LExpr expr(const ir::Expr& e) {
        switch (e->kind) {
        case ir::ExprKind::Literal: return Literal::make(e->as<ir::Literal>()->value);
        case ir::ExprKind::Index: return Index::make(e->as<ir::Index>()->name);
        case ir::ExprKind::Variable: {
            const auto& name = e->as<ir::Variable>()->name;
            return Variable::make(name, vars_.at(name));
        }
        case ir::ExprKind::Access: return access(*e->as<ir::Access>(), false);
        case ir::ExprKind::Call: {
            const auto& c = *e->as<ir::Call>();
            if (const auto* a = c.args[0]->as<ir::Access>(); a && c.op == "coalesce")
                return padded_read(*a, c.args[1]);
            std::vector<LExpr> args;
            for (const auto& a : c.args) args.push_back(expr(a));
            return Call::make(find_operator(c.op), std::move(args));
        }
        }
        SISKIN_ASSERT(false, "unknown expression kind");
    }

    // coalesce(A[~(i+1)], v): A read with its permissive subscripts padded by v, which must be
    // a constant that A's type holds (the wrapper's runs outside the tensor are that value).
    LExpr padded_read(const ir::Access& a, const ir::Expr& pad_expr) {
        const TensorBinding& t = kt_.at(a.tensor);
        LExpr pad = expr(pad_expr);
        const auto* lit = pad->as<Literal>();
        if (!lit || !lit->value.cast(t.type).same_value(lit->value))
            throw Error(fmt::format("{}coalesce pads {} with {}; compiled code pads with a constant "
                                    "that {}'s type ({}) holds, so far",
                                    where(a.pos), a.tensor, ir::print(pad_expr), a.tensor,
                                    type_name(t.type)),
                        Error::Kind::Unsupported);
        LExpr read = access(a, false, Literal::make(lit->value.cast(t.type)));
        return Call::make(find_operator("coalesce"), {read, pad});
    }

    LExpr access(const ir::Access& a, bool write, const LExpr& pad = nullptr) {
        const TensorBinding& t = kt_.at(a.tensor);
        // A workspace is read by the copy of its own pass (a sparsebytemap one drains itself).
        // A sparse output is readable once frozen: after the last statement that writes it.
        bool sparse = !levels::all_levels_implicit(t.format);
        if (!write && t.output && !t.workspace && sparse) {
            const auto& [statement, at] = last_write_.at(a.tensor);
            if (statement >= top)
                throw Error(fmt::format("{}the program reads output {} before its last write ({}); "
                                        "compiled code reads a sparse output only in statements "
                                        "after every one that writes it (a dense output anywhere)",
                                        where(a.pos), a.tensor,
                                        at.line ? fmt::format("line {}", at.line) : "the same statement"),
                                Error::Kind::Unsupported);
            read_after_writes.insert(a.tensor);
        }
        auto order = t.format.mode_order();
        std::vector<LExpr> subs, pads;
        std::vector<std::string> protos;
        for (int mode : order) {
            const ir::Expr& s = a.indices.at(static_cast<size_t>(mode));
            protos.push_back(a.protocols.at(static_cast<size_t>(mode)));
            pads.push_back(nullptr);
            if (const ir::Expr* inner = ir::permissive_inner(s)) {
                // It may leave the tensor: no bounds for the host to check.
                if (!ir::affine_of(*inner))
                    throw Error(fmt::format("{}permissive subscript '{}' of {}: compiled code pads "
                                            "affine subscripts (~(i + 1), ~(2*i - j)) so far",
                                            where(a.pos), ir::print(s), a.tensor),
                                Error::Kind::Unsupported);
                subs.push_back(expr(*inner));
                pads.back() = pad;
                continue;
            }
            subs.push_back(subscript(a, t, mode, s, write));
            // Computed from data: located under a run-time check (simplify/resolve.cpp).
            if (!s->as<ir::Index>() && !ir::affine_of(s)) protos.back() = "checked";
        }
        if (!pad) pads.clear();
        if (t.format.levels().empty()) {
            const auto& leaf = t.leaf();
            return write ? leaf.write(ctx_, t, c_int(0), std::nullopt) : leaf.read(ctx_, t, c_int(0));
        }
        // All writes of a tensor with the same subscripts are one fibre: one loop may write it.
        uint64_t id = Fiber::next_id();
        if (write) {
            std::string key = t.name;
            for (const auto& s : a.indices) key += "," + ir::print(s);
            id = write_ids_.emplace(key, id).first->second;
            check_one_write_site(t, a, key);
        }
        return std::make_shared<Fiber>(&t, t.type, 0, 0, std::vector<cast::Expr>{c_int(0)},
                                       std::move(subs), std::move(protos), write, std::nullopt, 0, id,
                                       std::move(pads));
    }

    LExpr subscript(const ir::Access& a, const TensorBinding& t, int mode, const ir::Expr& s,
                    bool write) {
        if (const auto* idx = s->as<ir::Index>(); idx && idx->slice) return sliced(a, t, mode, *idx, write);
        if (const auto* idx = s->as<ir::Index>()) {
            if (auto r = ranges_.find(idx->name); r != ranges_.end() && r->second.second > r->second.first) {
                if (r->second.first < 0)
                    throw Error(fmt::format("{}loop {} starts at {}, outside {} (coordinates start "
                                            "at 0)",
                                            where(a.pos), idx->name, r->second.first, a.tensor));
                checks.push_back({{t.name, mode}, r->second.second});
            }
            return Index::make(idx->name);
        }
        if (const auto* lit = s->as<ir::Literal>(); lit && is_integer(lit->value.type())) {
            int64_t v = lit->value.as_int();
            if (v < 0)
                throw Error(fmt::format("{}coordinate {} of {} is {}, outside the tensor",
                                        where(a.pos), mode, a.tensor, v));
            checks.push_back({{t.name, mode}, v + 1});
            return Literal::make(Scalar::of(v));
        }
        auto affine = ir::affine_of(s);
        if (!affine) return computed_subscript(a, t, s, write);
        if (affine->terms.empty()) return Literal::make(Scalar::of(affine->constant));
        note_affine_check(t, mode, *affine, s);
        // A compound subscript writes like a window: into dense outputs (the host checked that
        // it stays inside), or into any output it reaches in coordinate order (a collapse,
        // ordered_writes.hpp); it is read anywhere (affine_subscript.hpp).
        if (write && !t.collapsed_in_order)
            for (const auto& level : t.format.levels())
                if (!levels::properties_of(level).implicit)
                    throw Error(fmt::format("{}output {} is written through the compound subscript "
                                            "{}; compiled code writes through compound subscripts "
                                            "into dense outputs only, and {} has a {} level (give "
                                            "it a dense format)",
                                            where(a.pos), a.tensor, ir::print(s), a.tensor, level.kind),
                                Error::Kind::Unsupported);
        return expr(s);
    }

    // The host checks a compound subscript whose every index it can size; one with an index whose
    // valid range the kernel computes (affine_extents.hpp) stays inside by construction.
    void note_affine_check(const TensorBinding& t, int mode, const ir::Affine& affine, const ir::Expr& s) {
        AffineCheck c{{t.name, mode}, affine, ir::print(s), {}};
        for (const auto& term : affine.terms) {
            if (auto r = ranges_.find(term.index); r != ranges_.end()) {
                c.ranges.emplace(term.index, r->second);
                continue;
            }
            auto d = kt_.index_dim.find(term.index);
            if (d == kt_.index_dim.end() || kt_.index_start.count(term.index)) return;
            c.ranges.emplace(term.index, d->second);
        }
        affine_checks.push_back(std::move(c));
    }

    // A subscript computed from data (x[P[i]], bins[floordiv(v[i], 16)], B[(3*i) % 7]): read or
    // written at random once its value is known, under a run-time check of the coordinate
    // (the `checked` protocol, simplify/resolve.cpp). A write needs a level that takes
    // random-order writes.
    LExpr computed_subscript(const ir::Access& a, const TensorBinding& t, const ir::Expr& s, bool write) {
        if (write)
            for (const auto& level : t.format.levels())
                if (t.output && levels::properties_of(level).append_only)
                    throw Error(fmt::format("{}output {} is written through the computed subscript "
                                            "{}, in an order only the data knows; its {} level is "
                                            "appended in order, so give {} a format whose levels "
                                            "all take random-order writes: {}",
                                            where(a.pos), a.tensor, ir::print(s), level.kind, a.tensor,
                                            levels::random_write_formats(t.format.ndims())),
                                Error::Kind::Unsupported);
        std::string text = ir::print(ir::Expr(std::make_shared<ir::Access>(a)));
        if (std::find(computed.begin(), computed.end(), text) == computed.end()) computed.push_back(text);
        return expr(s);
    }

    // `T[.., i(lo:hi:st), ..]`: the index, with the window's first coordinate as a C expression
    // of T's dimension; the host checks the bounds and the length (SliceCheck).
    LExpr sliced(const ir::Access& a, const TensorBinding& t, int mode, const ir::Index& idx,
                 bool write) {
        const ir::Slice& sl = *idx.slice;
        // A window of a dense output is located like a sliced read; the levels that append
        // fibre after fibre take windows written in coordinate order (ordered_writes.hpp).
        if (write && !in_window_order(t))
            for (const auto& level : t.format.levels())
                if (!levels::properties_of(level).implicit)
                    throw Error(fmt::format("{}output {} is written through the slice {}({}); "
                                            "compiled code writes into slices of dense outputs "
                                            "only, and {} has a {} level (give it a dense format)",
                                            where(a.pos), a.tensor, idx.name, ir::slice_text(sl),
                                            a.tensor, level.kind),
                                Error::Kind::Unsupported);
        if (sl.step <= 0)
            throw Error(fmt::format("{}slice {} of dimension {} of {} has step {}; the step must "
                                    "be positive",
                                    where(a.pos), ir::slice_text(sl), mode, a.tensor, sl.step));
        SliceCheck c{{t.name, mode}, sl, idx.name, std::nullopt, 0};
        if (auto d = kt_.index_dim.find(idx.name); d != kt_.index_dim.end()) c.index_dim = d->second;
        if (auto r = ranges_.find(idx.name); r != ranges_.end()) {
            if (r->second.first < 0)
                throw Error(fmt::format("{}loop {} starts at {}, outside the slice {}({}) of {}",
                                        where(a.pos), idx.name, r->second.first, idx.name,
                                        ir::slice_text(sl), a.tensor));
            c.at_least = r->second.second;
        }
        slice_checks.push_back(std::move(c));
        return Index::wrapped(
            idx.name, wrappers::slice_window(wrappers::slice_first(sl, t.dims.at(static_cast<size_t>(mode))), sl.step));
    }

    // A level appended in order (sparselist, runlist, ...) is written in one pass, fibre after
    // fibre: two accesses with different subscripts (B[i, j] and B[1, j]) could reach its fibres
    // out of order, which it cannot detect, so such a tensor is written through one subscript
    // list only.
    void check_one_write_site(const TensorBinding& t, const ir::Access& a, const std::string& key) {
        auto [it, first] = write_sites_.emplace(t.name, key);
        if (first || it->second == key || in_window_order(t)) return;
        for (int l = 0; l < t.num_levels(); ++l) {
            const LevelSpec& level = t.format.levels()[static_cast<size_t>(l)];
            if (!t.properties(l).append_only) continue;
            throw Error(fmt::format("{}output {} is written through two different subscript lists; "
                                    "its {} level is appended in order, once per fibre, so compiled "
                                    "code writes it through one subscript list only (or give {} a "
                                    "dense format)",
                                    where(a.pos), t.name, level.kind, t.name),
                        Error::Kind::Unsupported);
        }
    }

    // Whether the output's write sites reach its coordinates in order (ordered_writes.hpp).
    bool in_window_order(const TensorBinding& t) {
        auto it = window_order_.find(t.name);
        if (it == window_order_.end())
            it = window_order_.emplace(t.name, writes_in_window_order(program_, t.name, t.format)).first;
        return it->second;
    }

    LowerCtx& ctx_;
    const KernelTensors& kt_;
    const ir::Program& program_;
    std::map<std::string, bool> window_order_;
    std::map<std::string, int> assigns_;
    std::map<std::string, std::pair<size_t, ir::Position>> last_write_; // top-level statement
    std::map<std::string, std::set<const Operator*>> writers_; // nullptr: `=`
    std::vector<std::string> loops_;
    std::map<std::string, ValueType> vars_;
    std::map<std::string, std::pair<int64_t, int64_t>> ranges_;
    std::map<std::string, uint64_t> write_ids_;
    std::map<std::string, std::string> write_sites_; // tensor -> its first write's key
};

// Whether top-level statement s writes the fill into every element of an output that starts
// at its fill (declared by this kernel, not kept from before) and that no earlier statement
// mentions: a no-op, left out (bfs.siskin's `G[j] = false` at each pass would otherwise cost a
// pass over every vertex, however small the frontier).
bool writes_fill_into_fresh_output(const ir::Stmt& s, const KernelTensors& tensors,
                                   const std::set<std::string>& mentioned) {
    auto nest = perfect_nest(s);
    if (!nest || !nest->assign->op.empty()) return false;
    const auto* lit = nest->assign->rhs->as<ir::Literal>();
    const std::string& name = nest->assign->lhs->tensor;
    const auto& outs = tensors.outputs;
    if (!lit || mentioned.count(name) || std::find(outs.begin(), outs.end(), name) == outs.end()) return false;
    const TensorBinding& t = tensors.at(name);
    if (t.keep_contents || !lit->value.cast(t.type).same(t.fill)) return false;
    const auto& subscripts = nest->assign->lhs->indices;
    if (subscripts.size() != nest->loops.size()) return false;
    std::set<std::string> seen;
    for (size_t k = 0; k < subscripts.size(); ++k) {
        const auto* i = subscripts[k]->as<ir::Index>();
        if (!i || i->slice || !seen.insert(i->name).second) return false;
        bool bound = false;
        for (const auto* loop : nest->loops) bound = bound || loop->index == i->name;
        if (!bound) return false;
    }
    return true;
}

} // namespace

Converted convert_program(LowerCtx& ctx, const ir::Program& program, const KernelTensors& tensors) {
    Converter c(ctx, tensors, program);
    Converted out;
    if (const auto* top = program.body->as<ir::Block>()) {
        std::vector<LStmt> statements;
        std::set<std::string> mentioned;
        for (const auto& s : top->stmts) {
            statements.push_back(writes_fill_into_fresh_output(s, tensors, mentioned) ? nothing() : c.stmt(s));
            ir::visit(s, {}, [&](const ir::Expr& e) {
                if (const auto* a = e->as<ir::Access>()) mentioned.insert(a->tensor);
            });
            ++c.top;
        }
        out.body = std::make_shared<Block>(std::move(statements));
    } else {
        out.body = c.stmt(program.body);
    }
    for (const auto& name : c.read_after_writes) out.freeze_after[c.last_write(name)].push_back(name);
    out.checks = std::move(c.checks);
    out.slice_checks = std::move(c.slice_checks);
    out.computed = std::move(c.computed);
    out.affine_checks = std::move(c.affine_checks);
    return out;
}

} // namespace siskin::compiler
