// The verifier: scoping and arity in one walk that also collects where each loop index gets its
// extent, then value types to a fixed point (an output may be read before it is written, and its
// type depends on everything assigned to it), then output shapes from the resolved loops.
#include "siskin/ir/verify.hpp"

#include <algorithm>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "ir/affine.hpp"
#include "ir/syntax.hpp"
#include "siskin/error.hpp"
#include "siskin/ir/text.hpp"
#include "siskin/ir/visit.hpp"
#include "siskin/operators.hpp"

namespace siskin::ir {

namespace {

std::optional<SourceLocation> where(Position p) {
    if (p.line <= 0) return std::nullopt;
    return SourceLocation{"<program>", p.line, p.column};
}

std::string at(Position p) { return p.line > 0 ? fmt::format(" at {}:{}", p.line, p.column) : ""; }

[[noreturn]] void fail(Position p, const std::string& message,
                       Error::Kind kind = Error::Kind::User) {
    throw Error(message, kind, where(p));
}

std::string plural(size_t n, std::string_view word) {
    if (n == 1) return fmt::format("1 {}", word);
    return word == "index" ? fmt::format("{} indices", n) : fmt::format("{} {}s", n, word);
}

struct Range {
    int64_t lo = 0, hi = 0;
    bool operator==(const Range&) const = default;
};

class Verifier {
public:
    Verifier(const Program& p, const std::map<std::string, TensorInfo>& given)
        : program_(p), given_(given), outputs_(p.outputs()) {}

    VerifiedProgram run() {
        SISKIN_ASSERT(program_.body, "a program needs a body");
        check(program_.body);
        resolve_through_outputs();
        check_swap_shapes();
        infer_types();
        return std::move(result_);
    }

private:
    struct Binding {
        std::string name;
        bool is_let;
        Position pos;
        size_t loop = 0;                   // into loops_, for loop indices
        std::optional<ValueType> type;     // for let variables, during type inference
    };
    struct ExtentSource {
        std::string tensor;
        size_t dim;
        int64_t size;
        Position pos;
        std::string slice = {}; // "0:8:2" when the access slices the dimension
        std::string dimension() const {
            return fmt::format("{}'s dimension {}{}", tensor, dim, slice.empty() ? "" : " sliced " + slice);
        }
    };
    struct Loop {
        const For* node;
        std::optional<Range> given;
        std::vector<ExtentSource> sources;
        std::optional<Range> range; // once resolved
        std::vector<size_t> affine; // into affine_uses_: compound subscripts that mention it
    };
    // A compound subscript of a tensor of known shape (`I[x + i]`): it bounds the indices it
    // mentions (the valid range of one that nothing else sizes) and must stay inside.
    struct AffineUse {
        std::string tensor;
        size_t dim;
        int64_t size;
        Affine affine;
        Position pos;
        std::string text;
    };
    struct OutputUse { // an output of unknown shape indexed by a plain loop index
        std::string tensor;
        size_t dim;
        size_t loop;
        Position pos;
    };

    const Program& program_;
    const std::map<std::string, TensorInfo>& given_;
    std::vector<std::string> outputs_;
    std::vector<Binding> scope_; // innermost last
    std::vector<Loop> loops_;
    std::vector<OutputUse> output_uses_;
    std::vector<AffineUse> affine_uses_;
    std::map<std::string, std::pair<size_t, Position>> output_arity_; // first use
    std::map<std::string, size_t> range_of_name_; // into loops_, which grows
    std::map<std::string, ValueType> types_; // inferred output types so far
    bool types_changed_ = false;
    bool checking_types_ = false;
    bool in_subscript_ = false; // checking an Index that is directly a subscript (may be sliced)
    bool padded_read_ = false;  // checking the first argument of coalesce (may be permissive)
    VerifiedProgram result_;
    int nested_ = 0; // inside a for, if or let: no while or swap there
    std::vector<const Swap*> swaps_;

    bool is_output(const std::string& t) const {
        return std::find(outputs_.begin(), outputs_.end(), t) != outputs_.end();
    }
    const Binding* find_binding(const std::string& name, bool is_let) const {
        for (auto it = scope_.rbegin(); it != scope_.rend(); ++it)
            if (it->name == name && it->is_let == is_let) return &*it;
        return nullptr;
    }

    // ---- scoping, arity, operators and extent sources ----

    void check(const Stmt& s) {
        SISKIN_ASSERT(s, "null statement in a program");
        switch (s->kind) {
        case StmtKind::For: return check_for(*s->as<For>());
        case StmtKind::Assign: {
            auto a = s->as<Assign>();
            check(Expr(a->lhs));
            check(a->rhs);
            if (!a->op.empty()) {
                const Operator& op = find(a->op, a->pos);
                if (op.arity != 2)
                    fail(a->pos, fmt::format("{} needs a binary operator, but {} takes {}",
                                             syntax::assign_spelling(a->op), a->op,
                                             plural(op.arity, "argument")));
            }
            return;
        }
        case StmtKind::If: {
            auto i = s->as<If>();
            check(i->cond);
            ++nested_;
            check(i->then_body);
            if (i->else_body) check(i->else_body);
            --nested_;
            return;
        }
        case StmtKind::Let: {
            auto l = s->as<Let>();
            check(l->value);
            no_shadowing(l->name, "let", l->pos);
            scope_.push_back({l->name, true, l->pos, 0, std::nullopt});
            ++nested_;
            check(l->body);
            --nested_;
            scope_.pop_back();
            return;
        }
        case StmtKind::Block:
            for (const auto& x : s->as<Block>()->stmts) check(x);
            return;
        case StmtKind::While: return check_while(*s->as<While>());
        case StmtKind::Swap: return check_swap(*s->as<Swap>());
        }
    }

    // A while runs whole statements, each a loop nest of its own: it may stand at the top level
    // or in another while's body, never inside a for, if or let. Its condition reads scalars
    // only, and some statement of its body must be able to change one of them, else the loop
    // never runs or never ends.
    void check_while(const While& w) {
        if (nested_ > 0)
            fail(w.pos, "while may stand only at the top level of a program (or in the body of "
                        "another while), not inside a for, if or let");
        std::vector<std::string> read;
        visit(w.cond, [&](const Expr& e) {
            auto a = e->as<Access>();
            if (!a) return;
            if (!a->indices.empty())
                fail(a->pos, fmt::format("the condition of a while reads scalars (0-d tensors, as "
                                         "in n[] > 0), but {} has indices",
                                         print(e)));
            if (std::find(read.begin(), read.end(), a->tensor) == read.end())
                read.push_back(a->tensor);
        });
        check(w.cond);
        check(w.body);
        bool changes = false;
        visit(w.body, [&](const Stmt& s) {
            if (auto a = s->as<Assign>())
                changes |= std::find(read.begin(), read.end(), a->lhs->tensor) != read.end();
            if (auto x = s->as<Swap>())
                changes |= std::find(read.begin(), read.end(), x->first) != read.end() ||
                           std::find(read.begin(), read.end(), x->second) != read.end();
        });
        if (!changes)
            fail(w.pos, fmt::format("no statement in the body of this while changes what its "
                                    "condition {} reads{}, so the loop would never run or never "
                                    "end; assign one of them in the body",
                                    print(w.cond),
                                    read.empty() ? " (it reads no tensor)"
                                                 : fmt::format(" ({})", fmt::join(read, ", "))));
    }

    void check_swap(const Swap& x) {
        if (nested_ > 0)
            fail(x.pos, "swap may stand only at the top level of a program (or in the body of a "
                        "while), not inside a for, if or let");
        if (x.first == x.second)
            fail(x.pos, fmt::format("swap({}, {}) names one tensor twice", x.first, x.second));
        for (const auto& name : {x.first, x.second})
            if (!is_output(name))
                fail(x.pos, fmt::format("swap exchanges two outputs of the program, but {} is "
                                        "assigned by no statement{}",
                                        name, given_.count(name) ? " (it is an input)" : ""));
        swaps_.push_back(&x);
    }

    void check_swap_shapes() const {
        for (const Swap* x : swaps_) {
            const auto& a = result_.output_shapes.at(x->first);
            const auto& b = result_.output_shapes.at(x->second);
            if (a != b)
                fail(x->pos, fmt::format("swap({}, {}) needs tensors of one shape, but {} is [{}] "
                                         "and {} is [{}]",
                                         x->first, x->second, x->first, fmt::join(a, ", "),
                                         x->second, fmt::join(b, ", ")));
        }
    }

    void no_shadowing(const std::string& name, std::string_view what, Position pos) {
        if (auto b = find_binding(name, false))
            fail(pos, fmt::format("{} {} is nested inside a loop over {}{}; use another name",
                                  what == "let" ? "let" : "the loop over", name, name, at(b->pos)));
        if (auto b = find_binding(name, true))
            fail(pos, fmt::format("{} {} shadows the let variable {}{}; use another name",
                                  what == "let" ? "let" : "the loop over", name, name, at(b->pos)));
    }

    void check_for(const For& f) {
        if (!f.lo != !f.hi)
            fail(f.pos, fmt::format("the loop over {} has only one bound; give both, as in "
                                    "for {} in 0:n, or neither",
                                    f.index, f.index));
        no_shadowing(f.index, "for", f.pos);
        Loop loop{&f, std::nullopt, {}, {}, {}};
        if (f.lo) {
            auto lo = constant_of(f.lo), hi = constant_of(f.hi);
            if (!lo || !hi)
                fail(f.pos,
                     fmt::format("the bounds of the loop over {} must be constant integers, not "
                                 "{}:{} (bounds that depend on indices or tensors are not "
                                 "supported yet)",
                                 f.index, print(f.lo), print(f.hi)),
                     Error::Kind::Unsupported);
            if (*lo > *hi)
                fail(f.pos, fmt::format("the loop over {} runs over {}:{}, whose lower bound is "
                                        "above its upper bound",
                                        f.index, *lo, *hi));
            loop.given = Range{*lo, *hi};
        }
        size_t id = loops_.size();
        loops_.push_back(std::move(loop));
        scope_.push_back({f.index, false, f.pos, id, std::nullopt});
        ++nested_;
        check(f.body);
        --nested_;
        scope_.pop_back();
        if (loops_[id].given || !loops_[id].sources.empty()) resolve_direct(loops_[id]);
    }

    // A loop with bounds, or over an index that indexes tensors of known shape.
    void resolve_direct(Loop& loop) {
        const std::string& i = loop.node->index;
        if (loop.given) {
            for (const auto& s : loop.sources)
                if (loop.given->lo != 0 || loop.given->hi != s.size)
                    fail(s.pos, fmt::format("the loop over {}{} runs over {}:{}, but {} indexes "
                                            "{}, which has size {} (0:{})",
                                            i, at(loop.node->pos), loop.given->lo,
                                            loop.given->hi, i, s.dimension(), s.size, s.size));
            return settle(loop, *loop.given);
        }
        const ExtentSource& first = loop.sources[0];
        for (const auto& s : loop.sources)
            if (s.size != first.size)
                fail(s.pos, fmt::format("index {} ranges over {} (size {}) and {} (size {})", i,
                                        first.dimension(), first.size, s.dimension(), s.size));
        settle(loop, Range{0, first.size});
    }

    // VerifiedProgram keeps one range per index name, so all loops over a name must agree.
    void settle(Loop& loop, Range r) {
        loop.range = r;
        const std::string& i = loop.node->index;
        auto [it, inserted] = range_of_name_.emplace(i, static_cast<size_t>(&loop - loops_.data()));
        const Loop& other = loops_[it->second];
        if (!inserted && !(*other.range == r))
            fail(loop.node->pos,
                 fmt::format("index {} runs over {}:{} here but over {}:{} in the loop{}; use a "
                             "different index name in one of the loops",
                             i, r.lo, r.hi, other.range->lo, other.range->hi,
                             at(other.node->pos)));
    }

    // The other loops take their range from another loop over the same name, or from an output
    // dimension sized by a resolved loop (`z[i] = y[i]` where `y[i] = x[i]` sized y), until
    // nothing changes. Output shapes fall out on the way.
    void resolve_through_outputs() {
        std::map<std::pair<std::string, size_t>, const OutputUse*> sized; // by the first use
        auto size_of = [&](const OutputUse* u) { return loops_[u->loop].range->hi; };
        for (bool progress = true; progress;) {
            progress = false;
            for (auto& loop : loops_)
                if (auto it = range_of_name_.find(loop.node->index);
                    !loop.range && it != range_of_name_.end()) {
                    loop.range = loops_[it->second].range;
                    progress = true;
                }
            for (auto& loop : loops_)
                if (!loop.range && !range_of(loop.node->index))
                    if (auto r = valid_range_of(loop)) {
                        settle(loop, *r);
                        progress = true;
                    }
            for (const auto& u : output_uses_) {
                Loop& loop = loops_[u.loop];
                auto s = sized.find({u.tensor, u.dim});
                if (loop.range && s == sized.end()) {
                    sized.emplace(std::pair{u.tensor, u.dim}, &u);
                } else if (loop.range && size_of(s->second) != loop.range->hi) {
                    const OutputUse& f = *s->second;
                    fail(u.pos, fmt::format("{}'s dimension {} is indexed by {} (size {}){} and "
                                            "by {} (size {}); give {}'s shape",
                                            u.tensor, u.dim, loops_[f.loop].node->index,
                                            size_of(&f), at(f.pos), loop.node->index,
                                            loop.range->hi, u.tensor));
                } else if (!loop.range && s != sized.end()) {
                    settle(loop, Range{0, size_of(s->second)});
                    progress = true;
                }
            }
        }
        for (const auto& loop : loops_) {
            const std::string& i = loop.node->index;
            if (!loop.range)
                fail(loop.node->pos,
                     fmt::format("cannot infer the extent of index {}: it does not index a tensor "
                                 "of known shape directly (as in A[{}]); give it bounds, as in "
                                 "for {} in 0:n",
                                 i, i, i));
            result_.extents[i] = loop.range->hi - loop.range->lo;
            result_.starts[i] = loop.range->lo;
        }
        check_affine_bounds();
        for (const auto& name : outputs_) {
            if (auto g = given_.find(name); g != given_.end()) {
                result_.output_shapes[name] = g->second.shape;
                continue;
            }
            auto [n, first_use] = output_arity_.at(name);
            std::vector<int64_t> shape;
            for (size_t k = 0; k < n; ++k) {
                auto s = sized.find({name, k});
                if (s == sized.end())
                    fail(first_use, fmt::format("cannot infer the size of {}'s dimension {}: no "
                                                "loop index indexes it directly (as in {}[i]); "
                                                "give {}'s shape",
                                                name, k, name, name));
                shape.push_back(size_of(s->second));
            }
            result_.output_shapes[name] = std::move(shape);
        }
    }

    const Operator& find(const std::string& name, Position pos) {
        try {
            return find_operator(name);
        } catch (const Error& e) {
            fail(pos, e.message());
        }
    }

    void check(const Expr& e) {
        SISKIN_ASSERT(e, "null expression in a program");
        switch (e->kind) {
        case ExprKind::Literal: return;
        case ExprKind::Index: {
            auto i = e->as<Index>();
            if (i->slice && !in_subscript_)
                fail(i->pos, fmt::format("the slice {}({}) may only be a subscript of a tensor, "
                                         "as in A[{}({})]",
                                         i->name, slice_text(*i->slice), i->name,
                                         slice_text(*i->slice)));
            if (!find_binding(i->name, false))
                fail(i->pos, fmt::format("index {} is used outside any loop over {}", i->name,
                                         i->name));
            return;
        }
        case ExprKind::Variable: {
            auto v = e->as<Variable>();
            if (!find_binding(v->name, true))
                fail(v->pos, fmt::format("variable {} is used outside the let that binds it",
                                         v->name));
            return;
        }
        case ExprKind::Access: return check_access(*e->as<Access>());
        case ExprKind::Call: {
            auto c = e->as<Call>();
            const Operator& op = find(c->op, c->pos);
            if (op.arity != static_cast<int>(c->args.size()))
                fail(c->pos, fmt::format("{} takes {} but is given {}", c->op,
                                         plural(op.arity, "argument"), c->args.size()));
            for (size_t k = 0; k < c->args.size(); ++k) {
                // coalesce(A[~(i+1)], v): the one place a permissive read may stand.
                padded_read_ = c->op == "coalesce" && k == 0 && c->args[0]->as<Access>();
                check(c->args[k]);
                padded_read_ = false;
            }
            return;
        }
        }
    }

    void check_access(const Access& a) {
        auto info = given_.find(a.tensor);
        bool known = info != given_.end();
        if (!known && !is_output(a.tensor)) {
            std::string names;
            for (const auto& [name, _] : given_) names += (names.empty() ? "" : ", ") + name;
            fail(a.pos, fmt::format("unknown tensor {}: it is neither given nor assigned by the "
                                    "program (given: {})",
                                    a.tensor, names.empty() ? "none" : names));
        }
        size_t n = a.indices.size();
        if (known && info->second.shape.size() != n)
            fail(a.pos, fmt::format("{} has {} but is accessed with {}", a.tensor,
                                    plural(info->second.shape.size(), "dimension"),
                                    plural(n, "index")));
        if (!known) {
            auto [it, first] = output_arity_.emplace(a.tensor, std::pair{n, a.pos});
            if (!first && it->second.first != n)
                fail(a.pos, fmt::format("{} is used with {} here but with {}{}", a.tensor,
                                        plural(n, "index"), plural(it->second.first, "index"),
                                        at(it->second.second)));
        }
        bool padded = padded_read_;
        padded_read_ = false;
        for (size_t k = 0; k < n; ++k) {
            if (const Expr* inner = permissive_inner(a.indices[k])) {
                if (!padded)
                    fail(a.indices[k]->pos,
                         fmt::format("the permissive subscript {} of {} may leave {}, where it reads "
                                     "missing; read it as the first argument of coalesce, which "
                                     "pads it (as in coalesce({}, 0))",
                                     print(a.indices[k]), a.tensor, a.tensor, print(Expr(std::make_shared<Access>(a)))));
                check(*inner); // no extent and no bounds: it may leave the tensor
                continue;
            }
            auto i = a.indices[k]->as<Index>();
            in_subscript_ = i != nullptr;
            check(a.indices[k]);
            in_subscript_ = false;
            if (!i) {
                if (known) note_affine(a, k, info->second.shape[k]);
                continue;
            }
            size_t loop = find_binding(i->name, false)->loop;
            if (i->slice && !known)
                fail(i->pos, fmt::format("{} is written through the slice {}({}), so its shape "
                                         "cannot be inferred; give {}'s shape",
                                         a.tensor, i->name, slice_text(*i->slice), a.tensor));
            if (known) {
                ExtentSource src{a.tensor, k, info->second.shape[k], a.indices[k]->pos};
                if (i->slice) {
                    // A sliced access sizes its index by the slice's length.
                    try {
                        src.size = resolve_slice(*i->slice, src.size,
                                                 fmt::format("dimension {} of {}", k, a.tensor))
                                       .length;
                    } catch (const Error& e) {
                        fail(i->pos, e.message());
                    }
                    src.slice = slice_text(*i->slice);
                }
                loops_[loop].sources.push_back(std::move(src));
            } else {
                output_uses_.push_back({a.tensor, k, loop, a.indices[k]->pos});
            }
        }
    }

    void note_affine(const Access& a, size_t k, int64_t size) {
        auto affine = affine_of(a.indices[k]);
        if (!affine || affine->terms.empty()) return;
        size_t id = affine_uses_.size();
        affine_uses_.push_back({a.tensor, k, size, *affine, a.indices[k]->pos, print(a.indices[k])});
        for (const auto& t : affine->terms)
            if (const Binding* b = find_binding(t.index, false)) loops_[b->loop].affine.push_back(id);
    }

    // The range of an index once some loop over its name has one.
    std::optional<Range> range_of(const std::string& index) const {
        auto it = range_of_name_.find(index);
        if (it == range_of_name_.end()) return std::nullopt;
        return loops_[it->second].range;
    }

    // The valid range of a loop that only compound subscripts mention: the values for which
    // every one of them stays inside its tensor (|x| = |I| - |F| + 1 for I[x + i] with i over
    // F), once the other indices they mention have ranges.
    std::optional<Range> valid_range_of(const Loop& loop) const {
        if (loop.affine.empty()) return std::nullopt;
        const std::string& index = loop.node->index;
        for (size_t id : loop.affine)
            for (const auto& t : affine_uses_[id].affine.terms)
                if (t.index != index && !range_of(t.index)) return std::nullopt;
        std::optional<Range> r;
        auto range = [&](const std::string& name) {
            Range x = *range_of(name);
            return IndexRange<int64_t>{x.lo, x.hi};
        };
        for (size_t id : loop.affine) {
            const AffineUse& u = affine_uses_[id];
            auto ops = checked_int_ops(fmt::format("{}[{}]", u.tensor, u.text));
            auto v = valid_range<int64_t>(u.affine, index, u.size, range, ops);
            r = r ? Range{std::max(r->lo, v.lo), std::max(std::max(r->lo, v.lo), std::min(r->hi, v.hi))}
                  : Range{v.lo, v.hi};
        }
        return r;
    }

    // Every compound subscript stays inside its tensor over the ranges of its indices.
    void check_affine_bounds() const {
        for (const auto& u : affine_uses_) {
            std::vector<std::string> ranges;
            bool empty = false;
            for (const auto& t : u.affine.terms) {
                Range r = *range_of(t.index);
                empty |= r.hi <= r.lo;
                ranges.push_back(fmt::format("{} over {}:{}", t.index, r.lo, r.hi));
            }
            if (empty) continue; // never evaluated
            auto [lo, hi] = affine_span<int64_t>(
                u.affine, "",
                [&](const std::string& name) {
                    Range x = *range_of(name);
                    return IndexRange<int64_t>{x.lo, x.hi};
                },
                checked_int_ops(fmt::format("{}[{}]", u.tensor, u.text)));
            if (lo >= 0 && hi < u.size) continue;
            fail(u.pos, fmt::format("the subscript {} of {} reads coordinates {}..{} of its "
                                    "dimension {} (size {}) when {}; give the loops ranges that "
                                    "stay inside",
                                    u.text, u.tensor, lo, hi, u.dim, u.size,
                                    fmt::join(ranges, ", ")));
        }
    }

    // ---- value types ----

    void infer_types() {
        for (const auto& [name, info] : given_)
            if (is_output(name) && info.type) types_[name] = *info.type;
        // Output types only rise in the promotion order, so this settles; the bound is a guard.
        for (int pass = 0;; ++pass) {
            SISKIN_ASSERT(pass < 100, "output types did not settle");
            types_changed_ = false;
            types(program_.body);
            if (!types_changed_) break;
        }
        checking_types_ = true;
        types(program_.body);
        for (const auto& name : outputs_)
            result_.output_types[name] = types_.count(name) ? types_[name] : ValueType::Float64;
    }

    std::optional<ValueType> result_type(const Operator& op, std::span<const ValueType> args,
                                         const Expr& e, Position pos) {
        try {
            return op.result_type_of(args);
        } catch (const Error& err) {
            if (checking_types_) fail(pos, fmt::format("in {}: {}", print(e), err.message()));
            return std::nullopt;
        }
    }

    std::optional<ValueType> type_of(const Expr& e) {
        switch (e->kind) {
        case ExprKind::Literal: return e->as<Literal>()->value.type();
        case ExprKind::Index: return ValueType::Int64;
        case ExprKind::Variable: return find_binding(e->as<Variable>()->name, true)->type;
        case ExprKind::Access: {
            auto a = e->as<Access>();
            for (size_t k = 0; k < a->indices.size(); ++k) {
                auto t = type_of(a->indices[k]);
                if (checking_types_ && t && !is_integer(*t))
                    fail(a->indices[k]->pos,
                         fmt::format("coordinate {} of {} is {}, of type {}; coordinates must be "
                                     "integers",
                                     k, a->tensor, print(a->indices[k]), type_name(*t)));
            }
            if (auto g = given_.find(a->tensor); g != given_.end() && g->second.type) return g->second.type;
            if (auto o = types_.find(a->tensor); o != types_.end()) return o->second;
            return std::nullopt; // an output read before anything typed it
        }
        case ExprKind::Call: {
            auto c = e->as<Call>();
            std::vector<ValueType> args;
            bool all = true;
            for (const auto& x : c->args) {
                auto t = type_of(x);
                if (t) args.push_back(*t);
                all &= t.has_value();
            }
            if (!all) return std::nullopt;
            return result_type(find_operator(c->op), args, e, c->pos);
        }
        }
        return std::nullopt;
    }

    void types(const Stmt& s) {
        switch (s->kind) {
        case StmtKind::For:
            scope_.push_back({s->as<For>()->index, false, s->pos, 0, std::nullopt});
            types(s->as<For>()->body);
            scope_.pop_back();
            return;
        case StmtKind::Assign: return assign_type(*s->as<Assign>());
        case StmtKind::If: {
            auto i = s->as<If>();
            type_of(i->cond);
            types(i->then_body);
            if (i->else_body) types(i->else_body);
            return;
        }
        case StmtKind::Let: {
            auto l = s->as<Let>();
            scope_.push_back({l->name, true, l->pos, 0, type_of(l->value)});
            types(l->body);
            scope_.pop_back();
            return;
        }
        case StmtKind::Block:
            for (const auto& x : s->as<Block>()->stmts) types(x);
            return;
        case StmtKind::While:
            type_of(s->as<While>()->cond);
            types(s->as<While>()->body);
            return;
        case StmtKind::Swap: return swap_type(*s->as<Swap>());
        }
    }

    // The two tensors of a swap hold each other's values: they take one type.
    void swap_type(const Swap& x) {
        auto a = types_.find(x.first), b = types_.find(x.second);
        if (a == types_.end() || b == types_.end()) return;
        ValueType t = promote(a->second, b->second);
        for (const auto& name : {x.first, x.second}) {
            if (given_.count(name) || types_[name] == t) continue;
            types_[name] = t;
            types_changed_ = true;
        }
    }

    // `y = e` gives y e's type; `y op= e` gives op's result on y and e. Across assignments the
    // types promote, so `y[i] = A[i]` (int32) then `y[i] += x[i]` (float64) makes y float64.
    void assign_type(const Assign& a) {
        type_of(Expr(a.lhs));
        auto value = type_of(a.rhs);
        if (!value) return;
        const std::string& y = a.lhs->tensor;
        auto current = types_.find(y);
        std::optional<ValueType> candidate = value;
        if (!a.op.empty()) {
            ValueType old = current != types_.end() ? current->second : *value;
            ValueType args[] = {old, *value};
            Expr as_call = Call::make(a.op, {a.lhs, a.rhs});
            candidate = result_type(find_operator(a.op), args, as_call, a.pos);
        }
        if (!candidate || given_.count(y)) return;
        if (current == types_.end()) {
            types_[y] = *candidate;
            types_changed_ = true;
        } else if (ValueType t = promote(current->second, *candidate); t != current->second) {
            current->second = t;
            types_changed_ = true;
        }
    }

};

} // namespace

VerifiedProgram verify(const Program& p, const std::map<std::string, TensorInfo>& tensors) {
    return Verifier(p, tensors).run();
}

} // namespace siskin::ir
