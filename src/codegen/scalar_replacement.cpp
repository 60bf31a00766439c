// Scalar replacement (c_optimize.hpp): `y[i] = add(y[i], ...)` in the j loop of SpMV becomes an
// update of a local, so the sum stays in a register instead of a load and a store per entry.
// Without it the C compiler must assume the store to y[i] may change what the next iteration
// loads (y's buffer is reached through a plain pointer).
#include <vector>

#include "codegen/c_optimize.hpp"
#include "codegen/c_walk.hpp"

namespace siskin::cast {

namespace {

bool is_element(const Expr& e, const std::string& array) {
    return e.kind() == ExprKind::Index && is_var(e.as<Index>().base, array);
}

bool can_leave(const Stmt& s) {
    bool leaves = false;
    for_each_node(s, {}, [&](const Stmt& c) {
        leaves |= c.kind() == StmtKind::Break || c.kind() == StmtKind::Continue ||
                  c.kind() == StmtKind::Return || c.kind() == StmtKind::Goto;
    });
    return leaves;
}

bool has_return(const Stmt& s) {
    bool found = false;
    for_each_node(s, {}, [&](const Stmt& c) { found |= c.kind() == StmtKind::Return; });
    return found;
}

// s with `stores` run before each goto in it: an early exit leaves the loop past the store
// that follows it, so the local goes back to its element first.
Stmt store_before_gotos(const Stmt& s, const std::vector<Stmt>& stores) {
    auto re = [&](const Stmt& c) { return store_before_gotos(c, stores); };
    switch (s.kind()) {
    case StmtKind::Goto: {
        std::vector<Stmt> out = stores;
        out.push_back(s);
        return Block::make(std::move(out));
    }
    case StmtKind::Block: {
        std::vector<Stmt> out;
        for (const auto& c : s.as<Block>().stmts) {
            if (c.kind() == StmtKind::Goto) out.insert(out.end(), stores.begin(), stores.end());
            out.push_back(c.kind() == StmtKind::Goto ? c : re(c));
        }
        return Block::make(std::move(out));
    }
    default: return map_bodies(s, re);
    }
}

struct Candidate {
    std::string array;
    Expr element;    // array[e]
    bool load;       // false: the first store does not read the element
    std::string local;
};

class Replacer {
public:
    Replacer(const Stmt& body, const std::map<std::string, Type>& arrays) : arrays_(arrays), names_(body) {}

    Stmt walk(const Stmt& s) {
        switch (s.kind()) {
        case StmtKind::Block: {
            std::vector<Stmt> out;
            // Elements stored at their current address before this point: by the code before
            // the block (when it is the body of an if, not of a loop), then by the block itself.
            std::vector<Expr> written = context_;
            for (const auto& c : s.as<Block>().stmts) {
                context_ = written;
                Stmt w = walk(c);
                if (w.kind() == StmtKind::For || w.kind() == StmtKind::While) {
                    written_before_ = written;
                    if (auto r = replace(w, std::nullopt)) w = *r;
                }
                out.push_back(w);
                track_written(w, written);
            }
            return Block::make(std::move(out));
        }
        case StmtKind::If: {
            const auto& n = s.as<If>();
            // Testing a pure condition stores nothing and moves no address.
            const std::vector<Expr> entry = is_pure(n.cond) ? context_ : std::vector<Expr>{};
            // if (c) { loop with condition c }: the if is the loop's guard already.
            const auto& then_stmts = n.then_body.as<Block>().stmts;
            if (!n.else_body && then_stmts.size() == 1) {
                Stmt loop = then_stmts.front();
                bool guarded = (loop.kind() == StmtKind::For && !loop.as<For>().init &&
                                loop.as<For>().cond && same_expr(*loop.as<For>().cond, n.cond)) ||
                               (loop.kind() == StmtKind::While && same_expr(loop.as<While>().cond, n.cond));
                if (guarded) {
                    Stmt w = walk_loop(loop);
                    written_before_ = entry;
                    if (auto r = replace(w, n.cond)) return *r;
                    return If::make(n.cond, w);
                }
            }
            context_ = entry;
            Stmt then = walk(n.then_body);
            std::optional<Stmt> otherwise;
            if (n.else_body) {
                context_ = entry;
                otherwise = walk(*n.else_body);
            }
            return If::make(n.cond, then, otherwise);
        }
        case StmtKind::For:
        case StmtKind::While: return walk_loop(s);
        default: return s;
        }
    }

private:
    // After statement s of a block: forget the elements whose address s may change, and add the
    // element s stores when it is a plain store `X[e] = ...` with a simple index.
    void track_written(const Stmt& s, std::vector<Expr>& written) {
        std::set<std::string> changed;
        for_each_node(s, {}, [&](const Stmt& c) {
            if (auto v = assigned_var(c)) changed.insert(*v);
            if (c.kind() == StmtKind::Decl) changed.insert(c.as<Decl>().name);
        });
        std::erase_if(written, [&](const Expr& e) {
            for (const auto& v : changed)
                if (mentions(e, v)) return true;
            return false;
        });
        if (s.kind() == StmtKind::Assign) {
            const Expr& t = s.as<Assign>().target;
            if (t.kind() == ExprKind::Index && t.as<Index>().base.kind() == ExprKind::Var &&
                is_arithmetic(t.as<Index>().index))
                written.push_back(t);
        }
    }

    bool written_before(const Expr& element) const {
        for (const auto& e : written_before_)
            if (same_expr(e, element)) return true;
        return false;
    }

    Stmt walk_loop(const Stmt& s) {
        // An iteration may move what the code before the loop stored.
        context_.clear();
        return map_bodies(s, [this](const Stmt& c) { return walk(c); });
    }

    // The element of `array` the loop may keep in a local, if any.
    std::optional<Candidate> candidate(const Stmt& loop, const Expr& cond, const Stmt& body,
                                       const std::string& array, const std::set<std::string>& assigned) {
        int vars = 0, elements = 0;
        std::optional<Expr> element;
        bool same = true;
        for_each_node(loop, [&](const Expr& e) {
            if (is_var(e, array)) ++vars;
            if (!is_element(e, array)) return;
            ++elements;
            if (!element) element = e;
            else same &= same_expr(*element, e);
        });
        if (!element || vars != elements || !same || mentions(cond, array)) return std::nullopt;
        const Expr& index = element->as<Index>().index;
        if (!is_arithmetic(index)) return std::nullopt;
        for (const auto& v : assigned)
            if (mentions(index, v)) return std::nullopt;
        // The init runs before the local exists (it may even become the guard): an element it
        // reads stays an element.
        if (loop.kind() == StmtKind::For) {
            const auto& f = loop.as<For>();
            if ((f.step && mentions(*f.step, array)) || (f.init && mentions(*f.init, array))) return std::nullopt;
        }
        // The element is loaded before the loop unless every iteration overwrites it first: the
        // first top-level statement that uses it is a store that reads nothing of it and that no
        // earlier break or continue can skip.
        bool leaves = false;
        for (const auto& st : body.as<Block>().stmts) {
            if (!mentions(st, array)) {
                leaves |= can_leave(st);
                continue;
            }
            bool stores = st.kind() == StmtKind::Assign && is_element(st.as<Assign>().target, array);
            if (stores && !leaves) {
                const auto& a = st.as<Assign>();
                return Candidate{array, *element, a.op != AssignOp::Set || mentions(a.value, array), ""};
            }
            break;
        }
        // Otherwise the loop may touch the element on some iterations only; loading it before the
        // loop is safe when the code just before the loop stored it at this very address.
        if (!written_before(*element)) return std::nullopt;
        return Candidate{array, *element, true, ""};
    }

    std::optional<Stmt> replace(const Stmt& loop, const std::optional<Expr>& guard) {
        bool is_for = loop.kind() == StmtKind::For;
        std::optional<Expr> cond = is_for ? loop.as<For>().cond : std::optional<Expr>(loop.as<While>().cond);
        if (!cond || !is_pure(*cond) || has_return(loop)) return std::nullopt;
        const Stmt& body = is_for ? loop.as<For>().body : loop.as<While>().body;

        std::set<std::string> assigned;
        for_each_node(loop, {}, [&](const Stmt& s) {
            if (auto v = assigned_var(s)) assigned.insert(*v);
            if (s.kind() == StmtKind::Decl) assigned.insert(s.as<Decl>().name);
        });
        std::vector<Candidate> found;
        for (const auto& [array, type] : arrays_) {
            if (assigned.count(array)) continue;
            if (auto c = candidate(loop, *cond, body, array, assigned)) found.push_back(*c);
        }
        if (found.empty()) return std::nullopt;

        for (auto& c : found) c.local = names_.fresh(c.array + "_acc");
        Stmt inner = rewrite_exprs(loop, [&](const Expr& e) -> std::optional<Expr> {
            for (const auto& c : found)
                if (is_element(e, c.array)) return var(c.local);
            return std::nullopt;
        });
        std::vector<Stmt> stores;
        for (const auto& c : found) stores.push_back(assign(c.element, var(c.local)));
        inner = store_before_gotos(inner, stores);
        std::vector<Stmt> outer, guarded;
        Expr test = guard ? *guard : *cond;
        if (is_for && inner.as<For>().init) {
            const auto& f = inner.as<For>();
            const auto* d = f.init->kind() == StmtKind::Decl ? &f.init->as<Decl>() : nullptr;
            if (d && d->init && is_pure(*d->init) && !mentions(*d->init, d->name)) {
                // for (T j = a; j < n; ...): guarded by a < n, the loop kept as it is.
                test = substitute(*cond, d->name, *d->init);
            } else {
                // The init runs whether or not the loop does: it goes before the guard.
                outer.push_back(*f.init);
                inner = For::make(std::nullopt, f.cond, f.step, f.body);
            }
        }
        for (const auto& c : found)
            guarded.push_back(Decl::make(arrays_.at(c.array), c.local,
                                         c.load ? std::optional<Expr>(c.element) : std::nullopt));
        guarded.push_back(inner);
        for (const auto& s : stores) guarded.push_back(s);
        outer.push_back(If::make(test, Block::make(std::move(guarded))));
        if (outer.size() == 1) return outer.front();
        return Block::make(std::move(outer));
    }

    const std::map<std::string, Type>& arrays_;
    std::vector<Expr> written_before_; // what the enclosing block stored before the loop at hand
    std::vector<Expr> context_;        // what was stored before the statement being walked
    FreshNames names_;
};

} // namespace

Stmt replace_scalars(const Stmt& body, const std::map<std::string, Type>& arrays) {
    std::map<std::string, Type> safe = indexed_only(body, arrays);
    if (safe.empty()) return body;
    Replacer r(body, safe);
    return r.walk(body);
}

} // namespace siskin::cast
