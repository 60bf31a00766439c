// The driver of the lowerer: statements, loops (unfurling), and the dispatch on looplet kinds.
#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "compiler/affine_subscript.hpp"
#include "compiler/looplet_priority.hpp"
#include "compiler/mask.hpp"
#include "compiler/early_exit.hpp"
#include "compiler/lower.hpp"
#include "compiler/storage_order_reduction.hpp"
#include "compiler/value_specialisation.hpp"
#include "lowering/tensor_binding.hpp"
#include "levels/level_codegen.hpp"
#include "lowering/index_wrapper.hpp"
#include "looplets/truncate.hpp"
#include "simplify/simplify.hpp"
#include "siskin/error.hpp"
#include "siskin/operators.hpp"
#include "wrappers/reverse.hpp"
#include "compiler/vocabulary.hpp"

namespace siskin::compiler {

namespace {

// Hoist nodes reachable without entering a Select case (a case may only be evaluated once its
// condition held), another Hoist (its inner ones are emitted when the body without it is
// lowered) or, for a guard (a computed subscript's check), an if's branches: the check runs
// where the if holds, when the branch is lowered. Other hoists in a branch (an output's slot,
// used after the loops inside it) are set up above the if. In order of appearance.
std::vector<const Hoist*> hoists_of(const LStmt& s) {
    std::vector<const Hoist*> out;
    bool in_branch = false;
    std::function<void(const LExpr&)> walk = [&](const LExpr& e) {
        if (!e) return;
        switch (e->kind) {
        case NodeKind::Hoist: {
            const auto* h = e->as<Hoist>();
            if (h->guard && in_branch) return;
            if (std::find(out.begin(), out.end(), h) == out.end()) out.push_back(h);
            return;
        }
        case NodeKind::Call:
            for (const auto& a : e->as<Call>()->args) walk(a);
            return;
        case NodeKind::Fiber:
            for (const auto& a : e->as<Fiber>()->subscripts) walk(a);
            return;
        default: return;
        }
    };
    std::function<void(const LStmt&)> visit = [&](const LStmt& st) {
        if (!st) return;
        switch (st->kind) {
        case StmtKind::If: {
            const auto& n = *st->as<If>();
            walk(n.cond);
            bool outer = in_branch;
            in_branch = true;
            visit(n.then_body);
            visit(n.else_body);
            in_branch = outer;
            return;
        }
        case StmtKind::Block:
            for (const auto& c : st->as<Block>()->stmts) visit(c);
            return;
        case StmtKind::For: {
            const auto& n = *st->as<For>();
            walk(n.lo);
            walk(n.hi);
            visit(n.body);
            return;
        }
        case StmtKind::Let:
            walk(st->as<Let>()->value);
            visit(st->as<Let>()->body);
            return;
        case StmtKind::Assign:
            walk(st->as<Assign>()->lhs);
            walk(st->as<Assign>()->rhs);
            return;
        }
    };
    visit(s);
    return out;
}

// Whether `s` may run for every slot instead of those a Select's condition picks: a reduction
// (`op=`) whose right side calls no function with a loop in its body (which could run long) and
// holds no other Select.
bool untested_read_pays(const LStmt& s) {
    const auto* a = s->as<Assign>();
    if (!a || !a->op) return false;
    int selects = 0;
    bool cheap = true;
    std::function<void(const LExpr&)> walk = [&](const LExpr& e) {
        switch (e->kind) {
        case NodeKind::Select: ++selects; return;
        case NodeKind::Call: {
            const auto* c = e->as<Call>();
            const std::string& def = c->op->c_definition;
            if (def.find("while") != std::string::npos || def.find("for (") != std::string::npos)
                cheap = false;
            for (const auto& x : c->args) walk(x);
            return;
        }
        case NodeKind::Fiber:
            for (const auto& x : e->as<Fiber>()->subscripts) walk(x);
            return;
        case NodeKind::Hoist: walk(e->as<Hoist>()->inner); return;
        default: return;
        }
    };
    walk(a->rhs);
    return cheap && selects == 1;
}

const Select* first_select(const LStmt& s) {
    const Select* found = nullptr;
    std::function<void(const LExpr&)> walk = [&](const LExpr& e) {
        if (found) return;
        switch (e->kind) {
        case NodeKind::Select: found = e->as<Select>(); return;
        case NodeKind::Call:
            for (const auto& a : e->as<Call>()->args) walk(a);
            return;
        case NodeKind::Fiber:
            for (const auto& a : e->as<Fiber>()->subscripts) walk(a);
            return;
        case NodeKind::Hoist:
            // A guard still here is in an if's branch (hoists_of): what it guards is chosen
            // when the branch is lowered.
            if (!e->as<Hoist>()->guard) walk(e->as<Hoist>()->inner);
            return;
        default: return;
        }
    };
    map_stmt_shallow(s, [&](const LExpr& e) {
        walk(e);
        return e;
    });
    return found;
}

void emit_assign(LowerCtx& ctx, const Assign& a) {
    const auto* slot = a.lhs->as<Slot>();
    SISKIN_ASSERT(slot, "assignment to " + a.tensor->name + " reached code generation without a slot");
    cast::Expr rhs = c_value(ctx, a.rhs);
    ValueType out = a.lhs->type;
    cast::Expr value = rhs;
    ValueType vt = a.rhs->type;
    if (a.op) {
        value = ctx.apply(*a.op, {out, a.rhs->type}, {slot->target, rhs});
        vt = a.op->result_type(std::vector<ValueType>{out, a.rhs->type});
    }
    if (vt != out) value = cast::Cast::make(cast::Type::of(out), value);
    ctx.emit(cast::assign(slot->target, value));
    // A fibre above is stored only if something written into it differs from the fill, so an
    // explicit fill written into a dense row under a sparse level leaves the row out.
    if (slot->dirty) {
        const Scalar& fill = a.tensor->fill;
        cast::Expr differs = fill.is_nan() ? cast::bin(cast::BinaryOp::Eq, slot->target, slot->target)
                                           : cast::bin(cast::BinaryOp::Ne, slot->target, cast::lit(fill));
        ctx.emit(cast::assign(*slot->dirty, cast::bin(cast::BinaryOp::LogOr, *slot->dirty, differs)));
    }
    if (auto& exit = ctx.early_exit; exit && exit->when.tensor == a.tensor) {
        // The element holds the annihilator (for choose: anything but its identity), so
        // nothing later in the nest can change it.
        ctx.emit(cast::If::make(exit_reached(*a.op, exit->when, slot->target), cast::Goto::make(exit->label)));
        exit->used = true;
    }
}

// A loop nest that may stop early (early_exit.hpp): its assignments jump past its end.
void lower_exiting_for(LowerCtx& ctx, const For& loop, ExitCondition when) {
    ctx.early_exit = EarlyExit{when, ctx.fresh("siskin_exit"), false};
    struct Reset {
        LowerCtx& c;
        ~Reset() { c.early_exit.reset(); }
    } reset{ctx};
    lower_for(ctx, loop);
    if (ctx.early_exit->used) ctx.emit(cast::Label::make(ctx.early_exit->label));
}

// Structural key of a subscript list of an access (indices, literals, C values).
std::string subscripts_key(const std::vector<LExpr>& subs) {
    std::string key;
    for (const auto& s : subs) {
        if (const auto* i = s->as<Index>())
            key += "i:" + i->name + (i->wrapper ? "@" + i->wrapper->key() : "");
        else if (const auto* l = s->as<Literal>()) key += "l:" + l->value.to_string();
        else if (const auto* c = s->as<CValue>()) key += "c:" + expr_key(c->expr);
        else key += fmt::format("n:{}", static_cast<const void*>(s.get()));
        key += ",";
    }
    return key;
}

std::string fibre_key(const Fiber& f) {
    std::string key = fmt::format("{}/{}/{}/", f.tensor->name, f.level, f.sub);
    for (const auto& p : f.pos) key += expr_key(p) + ",";
    return key;
}

// `if (test) { loop with the value known } else { loop }` (value_specialisation.hpp).
void lower_specialised(LowerCtx& ctx, const ValueSpecialisation& known) {
    ctx.tested_values.insert(known.value);
    struct Untest {
        LowerCtx& c;
        const std::string& value;
        ~Untest() { c.tested_values.erase(value); }
    } untest{ctx, known.value};
    auto claims = ctx.claims(); // the branches exclude each other
    auto then_code = ctx.capture([&] { lower_body(ctx, known.known); });
    auto after_then = ctx.claims();
    ctx.restore_claims(claims);
    auto else_code = ctx.capture([&] { lower_body(ctx, known.otherwise); });
    auto after = ctx.claims();
    after.insert(after_then.begin(), after_then.end());
    ctx.restore_claims(after);
    emit_chain(ctx, {{known.test, then_code}, {std::nullopt, else_code}});
}

} // namespace

void emit_chain(LowerCtx& ctx,
                const std::vector<std::pair<std::optional<cast::Expr>, std::vector<cast::Stmt>>>& branches) {
    size_t n = branches.size();
    while (n > 0 && branches[n - 1].second.empty() && !branches[n - 1].first) --n; // empty else
    while (n > 0 && branches[n - 1].second.empty()) --n; // trailing empty else-ifs change nothing
    if (n == 0) return;
    std::optional<cast::Stmt> tail;
    for (size_t k = n; k-- > 0;) {
        const auto& [cond, code] = branches[k];
        cast::Stmt body = cast::Block::make(code);
        if (!cond) {
            SISKIN_ASSERT(k == n - 1, "an otherwise branch before the last");
            tail = body;
            continue;
        }
        if (code.empty() && !tail) continue;
        if (code.empty()) { // if (c) {} else T  ->  if (!c) T
            tail = cast::If::make(cast::un(cast::UnaryOp::Not, *cond), *tail);
            continue;
        }
        tail = cast::If::make(*cond, body, tail);
    }
    if (!tail) return;
    if (tail->kind() == cast::StmtKind::Block) {
        for (const auto& s : tail->as<cast::Block>().stmts) ctx.emit(s);
    } else {
        ctx.emit(*tail);
    }
}

void lower_body(LowerCtx& ctx, const LStmt& input) {
    LStmt s = simplify_stmt(ctx, input);
    if (is_nothing(s)) return;

    if (auto hoists = hoists_of(s); !hoists.empty()) {
        for (const auto* h : hoists) ctx.emit(h->pre);
        LStmt inner = replace_nodes(s, [&](const Node* n) -> LExpr {
            for (const auto* h : hoists)
                if (n == h) return h->inner;
            return nullptr;
        });
        lower_body(ctx, inner);
        for (size_t k = hoists.size(); k-- > 0;) ctx.emit(hoists[k]->post);
        return;
    }
    if (const Select* sel = first_select(s)) {
        auto with_case = [&](const LExpr& value) {
            return replace_nodes(s, [&](const Node* n) -> LExpr { return n == sel ? value : nullptr; });
        };
        // A reduction that the fill leaves unchanged, over a value that can be read untested:
        // update it unconditionally. The otherwise-case computes op(acc, f(fill)) == acc, and a
        // few arithmetic instructions cost less than a branch on the slot (mispredicted at
        // every stored entry of a sparse operand).
        if (sel->first_total && untested_read_pays(s) &&
            is_nothing(simplify_stmt(ctx, with_case(sel->cases.back().value))))
            return lower_body(ctx, with_case(sel->cases.front().value));
        std::vector<std::pair<std::optional<cast::Expr>, std::vector<cast::Stmt>>> branches;
        auto claims = ctx.claims();
        for (const auto& c : sel->cases) {
            LStmt branch = with_case(c.value);
            ctx.restore_claims(claims);
            branches.emplace_back(c.cond, ctx.capture([&] { lower_body(ctx, branch); }));
        }
        emit_chain(ctx, branches);
        return;
    }

    switch (s->kind) {
    case StmtKind::Block:
        for (const auto& c : s->as<Block>()->stmts) lower_body(ctx, c);
        return;
    case StmtKind::For: {
        if (auto known = value_specialisation(ctx, s)) return lower_specialised(ctx, *known);
        const auto& loop = *s->as<For>();
        if (lower_storage_order_reduction(ctx, loop)) return;
        if (!ctx.early_exit)
            if (auto when = early_exit_of(loop)) return lower_exiting_for(ctx, loop, *when);
        return lower_for(ctx, loop);
    }
    case StmtKind::Assign: return emit_assign(ctx, *s->as<Assign>());
    case StmtKind::If: {
        const auto& n = *s->as<If>();
        cast::Expr cond = c_value(ctx, n.cond);
        auto claims = ctx.claims();
        auto then_code = ctx.capture([&] { lower_body(ctx, n.then_body); });
        std::vector<cast::Stmt> else_code;
        auto after_then = ctx.claims();
        ctx.restore_claims(claims);
        if (n.else_body) else_code = ctx.capture([&] { lower_body(ctx, n.else_body); });
        // After the if, a fibre either branch wrote counts as written.
        auto after = ctx.claims();
        after.insert(after_then.begin(), after_then.end());
        ctx.restore_claims(after);
        emit_chain(ctx, {{cond, then_code}, {std::nullopt, else_code}});
        return;
    }
    case StmtKind::Let: {
        const auto& n = *s->as<Let>();
        cast::Expr v = ctx.local(n.name, c_value(ctx, n.value), n.value->type);
        LExpr bound = CValue::make(v, n.value->type, known_finite(n.value));
        LStmt body = map_stmt(n.body, [&](const LExpr& e) -> LExpr {
            if (const auto* var = e->as<Variable>(); var && var->name == n.name) return bound;
            return e;
        });
        lower_body(ctx, body);
        return;
    }
    }
}

void lower_for(LowerCtx& ctx, const For& loop) {
    cast::Expr lo = c_value(ctx, simplify_expr(ctx, loop.lo));
    cast::Expr hi = c_value(ctx, simplify_expr(ctx, loop.hi));
    LStmt body = simplify_stmt(ctx, loop.body);
    if (is_nothing(body)) return;
    ++ctx.depth;
    struct DepthGuard {
        LowerCtx& c;
        ~DepthGuard() { --c.depth; }
    } guard{ctx};

    // Unfurl every access whose next subscript is this loop's index. Writes of one fibre with
    // the same subscripts share one looplet (one slot per coordinate); so do plain reads of one
    // fibre with the same subscripts and protocol (T[i,j] read by two statements is one walk of
    // the fibre, not a merge of the fibre with itself).
    std::map<const Node*, LExpr> unfurled;
    std::map<std::string, LExpr> writes;
    std::map<std::string, LExpr> reads;
    visit_stmt(body, [&](const LExpr& e) {
        const auto* f = e->as<Fiber>();
        if (!f || unfurled.count(f) || f->subscripts.empty()) return;
        std::vector<LExpr> subscripts = f->subscripts;
        const auto* idx = subscripts.front()->as<Index>();
        // A compound subscript (affine_subscript.hpp): resolved here through its slice window,
        // or reduced by the offsets of its non-empty windows.
        // A permissive subscript reads its pad outside the tensor (wrappers/padding.hpp).
        LExpr pad = f->pad();
        std::optional<AffineRead> affine;
        if (!idx || pad) {
            if (idx && (idx->name != loop.index || idx->wrapper)) return;
            affine = idx ? AffineRead{1, c_int(0), std::nullopt}
                         : affine_read(ctx, subscripts.front(), loop.index, body);
            if (!affine) return;
            if (!affine->width) {
                if (affine->coef < 0 && (pad || f->write))
                    throw Error(fmt::format("{} is {} backwards in loop {} (the subscript's "
                                            "coefficient of {} is {}), which compiled code does "
                                            "not support {}",
                                            f->tensor->name, f->write ? "written" : "read",
                                            loop.index, loop.index, affine->coef,
                                            f->write ? "for outputs" : "through padding"),
                                Error::Kind::Unsupported);
                subscripts.front() = resolved_subscript(loop.index, *affine, pad);
                idx = subscripts.front()->as<Index>();
            } else if (f->write || affine->coef < 0 || pad || f->tensor->properties(f->level).implicit) {
                return; // plain index arithmetic once the inner loops bind their indices
            }
        }
        if (!affine && (!idx || idx->name != loop.index)) return;
        const auto& spec = f->tensor->format.levels().at(static_cast<size_t>(f->level));
        const LevelCodegen& level = f->tensor->level(f->level);
        if (f->write) {
            std::string key = fibre_key(*f) + subscripts_key(subscripts);
            if (auto it = writes.find(key); it != writes.end()) {
                unfurled.emplace(f, it->second);
                return;
            }
            if (f->tensor->properties(f->level).append_only) {
                // A collapse writes the fibre from the innermost loop of its compound subscript,
                // below the loops the subscript also runs over (ordered_writes.hpp).
                bool collapsed = affine && f->tensor->collapsed_in_order && f->depth < ctx.depth;
                if ((f->depth != ctx.depth - 1 && !collapsed) || !ctx.claim_fibre(f->id))
                    throw Error(fmt::format("output {} would be written out of order: its {} "
                                            "level (mode {}) is append-only, but loop {} writes "
                                            "it more than once per fibre (it runs inside another "
                                            "loop that does not index the output, or after "
                                            "another loop that wrote it); this needs a "
                                            "workspace, which is not supported yet",
                                            f->tensor->name, spec.kind,
                                            spec.modes.at(static_cast<size_t>(f->sub)), loop.index),
                                Error::Kind::Unsupported);
            }
            LoopletPtr looplet = level.unfurl_write(ctx, *f);
            if (idx->wrapper) // a window: of a dense output, or written in order (ordered_writes.hpp)
                looplet = idx->wrapper->unfurl(ctx, looplet, f->tensor->level_dim(f->level, f->sub),
                                               Extent{lo, hi}, f->tensor->name);
            LExpr u = Unfurled::make(loop.index, looplet, f->type, true, f->tensor);
            writes.emplace(key, u);
            unfurled.emplace(f, u);
            return;
        }
        std::string protocol = f->protocols.front();
        auto known = level.protocols();
        if (protocol.empty()) protocol = std::string(known.front());
        // Shared: a plain index here (perhaps wrapped: its key names the wrapper), and the same
        // subscripts, protocols and pads on the levels below too.
        bool shareable = !affine && std::none_of(f->pads.begin(), f->pads.end(), [](const LExpr& p) { return p != nullptr; });
        std::string read_key;
        if (shareable) {
            read_key = fibre_key(*f) + subscripts_key(subscripts) + "|" + protocol + "|" +
                       fmt::format("{}", fmt::join(f->protocols, ",")) +
                       (f->resume ? "|" + expr_key(*f->resume) : "");
            if (auto it = reads.find(read_key); it != reads.end()) {
                unfurled.emplace(f, it->second);
                return;
            }
        }
        if (std::find(known.begin(), known.end(), protocol) == known.end())
            throw Error(fmt::format("{} cannot be read with protocol '{}' at its {} level "
                                    "(it offers: {})",
                                    f->tensor->name, protocol, spec.kind, fmt::join(known, ", ")),
                        Error::Kind::Unsupported);
        std::string what = fmt::format("{} ({} level, mode {})", f->tensor->name, spec.kind,
                                       spec.modes.at(static_cast<size_t>(f->sub)));
        cast::Expr dim = f->tensor->level_dim(f->level, f->sub);
        // A backward read walks the fibre from its end (wrappers/reverse.hpp).
        LoopletPtr looplet = idx && idx->wrapper && idx->wrapper->reads_backwards()
                                 ? wrappers::reversed_fibre(ctx, level, *f, dim, what)
                                 : level.unfurl(ctx, *f, protocol);
        // A wrapped read sees its level's fibre through the wrapper (index_wrapper.hpp).
        if (affine && affine->width)
            looplet = reduced_read(ctx, *affine, looplet, dim, Extent{lo, hi}, e,
                                   Literal::make(f->tensor->fill), what);
        else if (idx->wrapper)
            looplet = idx->wrapper->unfurl(ctx, looplet, dim, Extent{lo, hi}, what);
        LExpr u = Unfurled::make(loop.index, looplet, f->type, false, f->tensor);
        if (shareable) reads.emplace(read_key, u);
        unfurled.emplace(f, u);
    });
    // Comparisons of the index with bound values are runs of false and true (mask.hpp).
    visit_stmt(body, [&](const LExpr& e) {
        if (e->kind != NodeKind::Call || unfurled.count(e.get())) return;
        if (auto mask = mask_looplet(ctx, e, loop.index))
            unfurled.emplace(e.get(), Unfurled::make(loop.index, *mask, ValueType::Bool, false, nullptr));
    });
    body = replace_unfurled(body, unfurled);
    lower_extent(ctx, loop.index, Extent{lo, hi}, body);
}

void lower_extent(LowerCtx& ctx, const std::string& index, const Extent& ext, const LStmt& input) {
    ctx.step();
    LStmt body = simplify_stmt(ctx, input);
    if (is_nothing(body)) return;
    if (ctx.prover().le(ext.hi, ext.lo)) return;
    if (const auto* sieve = body->as<If>(); sieve && !sieve->else_body && is_closed(sieve->cond)) {
        // A sieve on a value fixed over the extent (a run's value: a RunList mask): tested once,
        // around the loop, so a false run costs one test instead of one body per coordinate. A
        // closed condition is C over values bound outside the loop (no index, no pending access),
        // and the body cannot change them (lifecycle: a statement never reads what it updates).
        // The extent may be empty, where the sieve was never evaluated, so that is tested first.
        cast::Expr cond = c_value(ctx, sieve->cond);
        if (!ctx.prover().lt(ext.lo, ext.hi))
            cond = cast::bin(cast::BinaryOp::LogAnd, cast::bin(cast::BinaryOp::Lt, ext.lo, ext.hi), cond);
        auto code = ctx.capture([&] { lower_extent(ctx, index, ext, sieve->then_body); });
        emit_chain(ctx, {{cond, code}});
        return;
    }
    auto looplets = unfurled_of(body, index);
    if (looplets.empty()) return lower_plain(ctx, index, ext, body);
    std::vector<LoopletKind> kinds;
    for (const auto* u : looplets) kinds.push_back(u->looplet->kind);
    switch (highest_priority(kinds)) {
    case LoopletKind::Lookup: return lower_lookup(ctx, index, ext, body);
    case LoopletKind::Run: return lower_run(ctx, index, ext, body);
    case LoopletKind::Spike: return lower_spike(ctx, index, ext, body);
    case LoopletKind::Sequence: return lower_sequence(ctx, index, ext, body);
    case LoopletKind::Stepper: return lower_stepper(ctx, index, ext, body);
    case LoopletKind::Jumper: return lower_jumper(ctx, index, ext, body);
    case LoopletKind::Switch: return lower_switch(ctx, index, ext, body);
    case LoopletKind::Thunk: return lower_thunk(ctx, index, ext, body);
    case LoopletKind::Shift: return lower_shift(ctx, index, ext, body);
    }
}

std::vector<const Unfurled*> unfurled_of(const LStmt& body, const std::string& index,
                                         std::optional<LoopletKind> kind) {
    std::vector<const Unfurled*> out;
    visit_stmt(body, [&](const LExpr& e) {
        const auto* u = e->as<Unfurled>();
        if (!u || u->index != index) return;
        if (kind && u->looplet->kind != *kind) return;
        if (std::find(out.begin(), out.end(), u) == out.end()) out.push_back(u);
    });
    return out;
}

LStmt replace_unfurled(const LStmt& body, const std::map<const Node*, LExpr>& by) {
    if (by.empty()) return body;
    return replace_nodes(body, [&](const Node* n) -> LExpr {
        auto it = by.find(n);
        return it == by.end() ? nullptr : it->second;
    });
}

LStmt truncate_all(LowerCtx& ctx, const LStmt& body, const std::string& index, const Extent& from,
                   const Extent& to, const std::set<const Node*>& skip) {
    std::map<const Node*, LExpr> by;
    for (const auto* u : unfurled_of(body, index)) {
        if (skip.count(u)) continue;
        LoopletPtr t = truncate(ctx, u->looplet, from, to);
        if (t != u->looplet) by.emplace(u, u->with(t));
    }
    return replace_unfurled(body, by);
}

void lower_range(LowerCtx& ctx, const std::string& index, const Extent& ext, const LStmt& body,
                 const std::optional<cast::Expr>& guard) {
    Prover& pr = ctx.prover();
    if (pr.le(ext.hi, ext.lo)) return;
    auto code = ctx.capture([&] { lower_extent(ctx, index, ext, body); });
    if (code.empty()) return;
    if (pr.lt(ext.lo, ext.hi)) {
        ctx.emit(code);
        return;
    }
    ctx.emit(cast::If::make(guard ? *guard : cast::bin(cast::BinaryOp::Lt, ext.lo, ext.hi),
                            cast::Block::make(code)));
}

} // namespace siskin::compiler
