#include "ir/affine.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "siskin/error.hpp"

namespace siskin::ir {

namespace {

std::optional<int64_t> mul(int64_t a, int64_t b) {
    int64_t r = 0;
    if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
    return r;
}

std::optional<int64_t> add(int64_t a, int64_t b) {
    int64_t r = 0;
    if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
    return r;
}

// a + k * b, term by term.
std::optional<Affine> combine(const Affine& a, const Affine& b, int64_t k) {
    Affine out = a;
    auto c = mul(b.constant, k);
    if (!c) return std::nullopt;
    auto sum = add(out.constant, *c);
    if (!sum) return std::nullopt;
    out.constant = *sum;
    for (const auto& t : b.terms) {
        auto scaled = mul(t.coef, k);
        if (!scaled) return std::nullopt;
        auto it = std::find_if(out.terms.begin(), out.terms.end(),
                               [&](const AffineTerm& x) { return x.index == t.index; });
        if (it == out.terms.end()) {
            out.terms.push_back({t.index, *scaled});
            continue;
        }
        auto s = add(it->coef, *scaled);
        if (!s) return std::nullopt;
        it->coef = *s;
    }
    std::erase_if(out.terms, [](const AffineTerm& t) { return t.coef == 0; });
    return out;
}

} // namespace

int64_t Affine::coef(const std::string& index) const {
    for (const auto& t : terms)
        if (t.index == index) return t.coef;
    return 0;
}

std::optional<Affine> affine_of(const Expr& e) {
    if (const auto* i = e->as<Index>()) {
        if (i->slice) return std::nullopt;
        return Affine{{{i->name, 1}}, 0};
    }
    if (const auto* l = e->as<Literal>()) {
        if (!is_integer(l->value.type())) return std::nullopt;
        return Affine{{}, l->value.as_int()};
    }
    const auto* c = e->as<Call>();
    if (!c) return std::nullopt;
    std::vector<Affine> args;
    for (const auto& x : c->args) {
        auto a = affine_of(x);
        if (!a) return std::nullopt;
        args.push_back(std::move(*a));
    }
    if (c->op == "neg" && args.size() == 1) return combine(Affine{}, args[0], -1);
    if (args.size() != 2) return std::nullopt;
    if (c->op == "add") return combine(args[0], args[1], 1);
    if (c->op == "sub") return combine(args[0], args[1], -1);
    if (c->op == "mul") {
        // A product is affine when one factor is a constant.
        if (args[0].terms.empty()) return combine(Affine{}, args[1], args[0].constant);
        if (args[1].terms.empty()) return combine(Affine{}, args[0], args[1].constant);
    }
    return std::nullopt;
}

const Expr* permissive_inner(const Expr& s) {
    const auto* c = s->as<Call>();
    if (!c || c->op != "bitwise_not" || c->args.size() != 1) return nullptr;
    return &c->args[0];
}

std::optional<int64_t> constant_of(const Expr& e) {
    auto a = affine_of(e);
    if (!a || !a->terms.empty()) return std::nullopt;
    return a->constant;
}

int64_t floor_div(int64_t a, int64_t b) {
    int64_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

int64_t ceil_div(int64_t a, int64_t b) {
    int64_t q = a / b;
    return (a % b != 0 && ((a < 0) == (b < 0))) ? q + 1 : q;
}

AffineOps<int64_t> checked_int_ops(const std::string& what) {
    auto overflow = [what]() -> int64_t {
        throw Error(fmt::format("the coordinates of {} overflow a 64-bit integer", what));
    };
    AffineOps<int64_t> ops;
    ops.constant = [](int64_t v) { return v; };
    ops.add = [overflow](int64_t a, int64_t b) { auto r = ir::add(a, b); return r ? *r : overflow(); };
    ops.scale = [overflow](int64_t a, int64_t k) { auto r = ir::mul(a, k); return r ? *r : overflow(); };
    ops.floor_div = [](int64_t a, int64_t k) { return floor_div(a, k); };
    ops.ceil_div = [](int64_t a, int64_t k) { return ceil_div(a, k); };
    ops.min = [](int64_t a, int64_t b) { return std::min(a, b); };
    ops.max = [](int64_t a, int64_t b) { return std::max(a, b); };
    return ops;
}

} // namespace siskin::ir
