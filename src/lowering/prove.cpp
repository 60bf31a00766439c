#include "lowering/prove.hpp"

#include <map>

#include "codegen/c_printer.hpp"
#include "siskin/error.hpp"

namespace siskin::lowering {

namespace {

constexpr const char* kMin = "siskin_min_i64";
constexpr const char* kMax = "siskin_max_i64";

// sum of coefficient * atom, plus a constant. Atoms are keyed structurally.
struct Linear {
    std::map<std::string, std::pair<cast::Expr, int64_t>> terms;
    int64_t constant = 0;

    void add(const Linear& o, int64_t scale) {
        constant += scale * o.constant;
        if (scale == 0) return;
        for (const auto& [key, term] : o.terms) {
            auto it = terms.find(key);
            if (it == terms.end()) {
                if (term.second * scale != 0)
                    terms.emplace(key, std::make_pair(term.first, term.second * scale));
            } else {
                it->second.second += term.second * scale;
                if (it->second.second == 0) terms.erase(it);
            }
        }
    }
};

bool is_integer_literal(const cast::Expr& e) {
    if (e.kind() != cast::ExprKind::Literal) return false;
    return is_integer(e.as<cast::Literal>().value.type());
}

Linear linear(const cast::Expr& e) {
    Linear out;
    switch (e.kind()) {
    case cast::ExprKind::Literal:
        if (is_integer_literal(e)) {
            out.constant = e.as<cast::Literal>().value.as_int();
            return out;
        }
        break;
    case cast::ExprKind::Binary: {
        const auto& b = e.as<cast::Binary>();
        if (b.op == cast::BinaryOp::Add || b.op == cast::BinaryOp::Sub) {
            out = linear(b.lhs);
            out.add(linear(b.rhs), b.op == cast::BinaryOp::Add ? 1 : -1);
            return out;
        }
        if (b.op == cast::BinaryOp::Mul) {
            Linear l = linear(b.lhs), r = linear(b.rhs);
            if (l.terms.empty()) {
                out.add(r, l.constant);
                return out;
            }
            if (r.terms.empty()) {
                out.add(l, r.constant);
                return out;
            }
        }
        break;
    }
    case cast::ExprKind::Unary:
        if (e.as<cast::Unary>().op == cast::UnaryOp::Neg) {
            out.add(linear(e.as<cast::Unary>().operand), -1);
            return out;
        }
        break;
    default: break;
    }
    out.terms.emplace(expr_key(e), std::make_pair(e, int64_t{1}));
    return out;
}

cast::Expr rebuild(const Linear& l) {
    std::optional<cast::Expr> acc;
    for (const auto& [key, term] : l.terms) {
        auto [atom, coef] = term;
        int64_t mag = coef < 0 ? -coef : coef;
        cast::Expr t = mag == 1 ? atom : cast::bin(cast::BinaryOp::Mul, c_int(mag), atom);
        if (!acc) acc = coef < 0 ? cast::un(cast::UnaryOp::Neg, t) : t;
        else acc = cast::bin(coef < 0 ? cast::BinaryOp::Sub : cast::BinaryOp::Add, *acc, t);
    }
    if (!acc) return c_int(l.constant);
    if (l.constant > 0) return cast::bin(cast::BinaryOp::Add, *acc, c_int(l.constant));
    if (l.constant < 0) return cast::bin(cast::BinaryOp::Sub, *acc, c_int(-l.constant));
    return *acc;
}

// The arguments of a min (or max) call, flattened.
bool is_call_to(const cast::Expr& e, const char* name) {
    return e.kind() == cast::ExprKind::Call && e.as<cast::Call>().function == name;
}

void flatten(const cast::Expr& e, const char* name, std::vector<cast::Expr>& out) {
    if (is_call_to(e, name)) {
        for (const auto& a : e.as<cast::Call>().args) flatten(a, name, out);
    } else {
        out.push_back(e);
    }
}

} // namespace

std::string expr_key(const cast::Expr& e) { return cast::print(e); }

cast::Expr c_int(int64_t v) { return cast::i64(v); }

cast::Expr c_add(const cast::Expr& a, const cast::Expr& b) {
    Linear l = linear(a);
    l.add(linear(b), 1);
    return rebuild(l);
}

cast::Expr c_add(const cast::Expr& a, int64_t b) { return c_add(a, c_int(b)); }

cast::Expr c_sub(const cast::Expr& a, const cast::Expr& b) {
    Linear l = linear(a);
    l.add(linear(b), -1);
    return rebuild(l);
}

cast::Expr c_mul(const cast::Expr& a, const cast::Expr& b) {
    Linear l = linear(a), r = linear(b);
    if (l.terms.empty() || r.terms.empty()) {
        Linear out;
        if (l.terms.empty()) out.add(r, l.constant);
        else out.add(l, r.constant);
        return rebuild(out);
    }
    return cast::bin(cast::BinaryOp::Mul, a, b);
}

std::optional<int64_t> c_constant(const cast::Expr& e) {
    Linear l = linear(e);
    if (l.terms.empty()) return l.constant;
    return std::nullopt;
}

std::optional<int64_t> Prover::difference(const cast::Expr& a, const cast::Expr& b) const {
    Linear l = linear(b);
    l.add(linear(a), -1);
    if (l.terms.empty()) return l.constant;
    return std::nullopt;
}

bool Prover::eq(const cast::Expr& a, const cast::Expr& b) const {
    auto d = difference(a, b);
    return d && *d == 0;
}

bool Prover::le(const cast::Expr& a, const cast::Expr& b) const { return le_depth(a, b, 3); }

bool Prover::le_depth(const cast::Expr& a, const cast::Expr& b, int depth) const {
    if (auto d = difference(a, b)) return *d >= 0;
    if (depth <= 0) return false;
    if (is_call_to(b, kMin)) {
        for (const auto& arg : b.as<cast::Call>().args)
            if (!le_depth(a, arg, depth - 1)) return false;
        return true;
    }
    if (is_call_to(a, kMax)) {
        for (const auto& arg : a.as<cast::Call>().args)
            if (!le_depth(arg, b, depth - 1)) return false;
        return true;
    }
    if (is_call_to(b, kMax)) {
        for (const auto& arg : b.as<cast::Call>().args)
            if (le_depth(a, arg, depth - 1)) return true;
    }
    if (is_call_to(a, kMin)) {
        for (const auto& arg : a.as<cast::Call>().args)
            if (le_depth(arg, b, depth - 1)) return true;
    }
    // a <= x + c1, x <= y a fact, y + c2 <= b.
    for (const auto& [x, y] : facts_) {
        auto before = difference(a, x);
        if (!before || *before < 0) continue;
        auto after = difference(y, b);
        if (after && *after >= 0) return true;
        if (le_depth(y, b, depth - 1)) return true;
    }
    return false;
}

cast::Expr Prover::min(std::vector<cast::Expr> args) const {
    std::vector<cast::Expr> flat;
    for (const auto& a : args) flatten(a, kMin, flat);
    std::vector<cast::Expr> kept;
    for (size_t k = 0; k < flat.size(); ++k) {
        bool dominated = false; // another argument is provably <= this one
        for (size_t m = 0; m < flat.size() && !dominated; ++m) {
            if (m == k) continue;
            // Of two provably equal arguments keep the first.
            if (le(flat[m], flat[k]) && (!le(flat[k], flat[m]) || m < k)) dominated = true;
        }
        if (!dominated) kept.push_back(flat[k]);
    }
    SISKIN_ASSERT(!kept.empty(), "min of nothing");
    cast::Expr acc = kept.front();
    for (size_t k = 1; k < kept.size(); ++k) acc = cast::call(kMin, {acc, kept[k]});
    return acc;
}

cast::Expr Prover::max(std::vector<cast::Expr> args) const {
    std::vector<cast::Expr> flat;
    for (const auto& a : args) flatten(a, kMax, flat);
    std::vector<cast::Expr> kept;
    for (size_t k = 0; k < flat.size(); ++k) {
        bool dominated = false;
        for (size_t m = 0; m < flat.size() && !dominated; ++m) {
            if (m == k) continue;
            if (le(flat[k], flat[m]) && (!le(flat[m], flat[k]) || m < k)) dominated = true;
        }
        if (!dominated) kept.push_back(flat[k]);
    }
    SISKIN_ASSERT(!kept.empty(), "max of nothing");
    cast::Expr acc = kept.front();
    for (size_t k = 1; k < kept.size(); ++k) acc = cast::call(kMax, {acc, kept[k]});
    return acc;
}

void Prover::assume_le(const cast::Expr& a, const cast::Expr& b) { facts_.emplace_back(a, b); }

} // namespace siskin::lowering
