// check_properties: evaluates every property an operator declares on sample values of every
// type, so a user function's claims (issue 4's `siskin check-function`) and the builtins' are
// checked the same way.
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "algebra/samples.hpp"
#include "siskin/error.hpp"
#include "siskin/operators.hpp"

namespace siskin {

namespace {

using algebra::Samples;
using algebra::sample_values;

constexpr int kExamplesPerProperty = 3;

std::string show(const Scalar& s) { return fmt::format("{} {}", type_name(s.type()), s.to_string()); }

// Equal for the properties' purposes: same type and value, NaN == NaN, -0.0 == 0.0.
bool equal(const Scalar& a, const Scalar& b) { return a.same(b); }

class Checker {
public:
    explicit Checker(const Operator& op) : op_(op) {}

    std::vector<PropertyViolation> run() {
        check_types();
        if (op_.arity == 2) {
            if (op_.commutative) check_commutative();
            if (op_.associative) check_associative();
            if (op_.idempotent) check_idempotent();
            if (op_.identity) check_identity();
            if (op_.annihilator) check_annihilator();
        }
        return std::move(out_);
    }

private:
    const Operator& op_;
    std::vector<PropertyViolation> out_;
    std::map<std::string, int> count_;

    void report(const std::string& property, std::string message) {
        if (count_[property]++ < kExamplesPerProperty) out_.push_back({property, std::move(message)});
    }

    std::optional<ValueType> accepts(std::span<const ValueType> types) const {
        try {
            return op_.result_type(types);
        } catch (const Error&) {
            return std::nullopt;
        }
    }

    std::string call(const std::vector<Scalar>& args) const {
        std::string s = op_.name + "(";
        for (size_t k = 0; k < args.size(); ++k) s += (k ? ", " : "") + show(args[k]);
        return s + ")";
    }

    // evaluate(), with a failure reported under `property` rather than thrown.
    std::optional<Scalar> eval(const std::string& property, std::vector<Scalar> args) {
        try {
            return op_.evaluate(args);
        } catch (const Error& e) {
            report(property, fmt::format("{} throws: {}", call(args), e.message()));
            return std::nullopt;
        }
    }

    // result_type and evaluate agree on every combination of argument types: accepted
    // combinations evaluate to the announced type, refused ones throw.
    void check_types() {
        std::vector<ValueType> types = algebra::all_value_types();
        std::vector<ValueType> combo(op_.arity);
        size_t n = types.size(), total = 1;
        for (int k = 0; k < op_.arity; ++k) total *= n;
        for (size_t code = 0; code < total; ++code) {
            size_t c = code;
            for (int k = 0; k < op_.arity; ++k, c /= n) combo[k] = types[c % n];
            check_type_combination(combo);
        }
    }

    void check_type_combination(const std::vector<ValueType>& combo) {
        std::optional<ValueType> r = accepts(combo);
        std::vector<std::vector<Scalar>> samples;
        for (ValueType t : combo) {
            std::vector<Scalar> s = sample_values(t);
            if (!r || op_.arity > 2) s.resize(std::min<size_t>(s.size(), r ? 3 : 1));
            samples.push_back(std::move(s));
        }
        for_each_tuple(samples, [&](const std::vector<Scalar>& args) {
            if (!r) {
                try {
                    Scalar v = op_.evaluate(args);
                    report("types", fmt::format("result_type refuses {} but it evaluates to {}",
                                                call(args), show(v)));
                } catch (const Error&) {
                }
                return;
            }
            std::optional<Scalar> v = eval("types", args);
            if (v && v->type() != *r)
                report("types", fmt::format("{} = {} but result_type says {}", call(args),
                                            show(*v), type_name(*r)));
        });
    }

    template <class F>
    static void for_each_tuple(const std::vector<std::vector<Scalar>>& samples, F&& f) {
        std::vector<Scalar> args(samples.size());
        std::function<void(size_t)> rec = [&](size_t k) {
            if (k == samples.size()) return f(args);
            for (const Scalar& s : samples[k]) {
                args[k] = s;
                rec(k + 1);
            }
        };
        rec(0);
    }

    void check_commutative() {
        for (ValueType a : algebra::all_value_types()) {
            for (ValueType b : algebra::all_value_types()) {
                ValueType ab[2] = {a, b}, ba[2] = {b, a};
                if (!accepts(ab)) continue;
                if (!accepts(ba)) {
                    report("commutative", fmt::format("it takes ({}, {}) but not ({}, {})",
                                                      type_name(a), type_name(b), type_name(b),
                                                      type_name(a)));
                    continue;
                }
                for (const Scalar& x : sample_values(a)) {
                    for (const Scalar& y : sample_values(b)) {
                        auto xy = eval("commutative", {x, y}), yx = eval("commutative", {y, x});
                        if (xy && yx && !equal(*xy, *yx))
                            report("commutative",
                                   fmt::format("{} = {} but {} = {}", call({x, y}), show(*xy),
                                               call({y, x}), show(*yx)));
                    }
                }
            }
        }
    }

    void check_associative() {
        for (ValueType t : algebra::all_value_types()) {
            ValueType tt[2] = {t, t};
            std::optional<ValueType> r = accepts(tt);
            if (!r) continue;
            ValueType rt[2] = {*r, t}, tr[2] = {t, *r};
            if (!accepts(rt) || !accepts(tr)) {
                report("associative", fmt::format("on {} it gives {}, which it cannot combine "
                                                  "with {} again",
                                                  type_name(t), type_name(*r), type_name(t)));
                continue;
            }
            std::vector<Scalar> s = sample_values(t, Samples::Exact);
            for (const Scalar& x : s) {
                for (const Scalar& y : s) {
                    auto xy = eval("associative", {x, y});
                    for (const Scalar& z : s) {
                        auto yz = eval("associative", {y, z});
                        if (!xy || !yz) continue;
                        auto left = eval("associative", {*xy, z});
                        auto right = eval("associative", {x, *yz});
                        if (left && right && !equal(*left, *right))
                            report("associative",
                                   fmt::format("op(op(x, y), z) = {} but op(x, op(y, z)) = {} "
                                               "for x = {}, y = {}, z = {} in {}",
                                               show(*left), show(*right), show(x), show(y),
                                               show(z), op_.name));
                    }
                }
            }
        }
    }

    void check_idempotent() {
        for (ValueType t : algebra::all_value_types()) {
            ValueType tt[2] = {t, t};
            std::optional<ValueType> r = accepts(tt);
            if (!r) continue;
            for (const Scalar& x : sample_values(t)) {
                auto xx = eval("idempotent", {x, x});
                if (xx && !equal(*xx, x.cast(*r)))
                    report("idempotent", fmt::format("{} = {}", call({x, x}), show(*xx)));
            }
        }
    }

    // Arguments with `special` at position arg and x at the other one.
    static std::vector<Scalar> placed(const Scalar& special, int arg, const Scalar& x) {
        return arg == 0 ? std::vector<Scalar>{special, x} : std::vector<Scalar>{x, special};
    }

    // The result type with `special` at position arg and a value of type t at the other, or a
    // report when the operator refuses the combination its own property names.
    std::optional<ValueType> placed_type(const std::string& property, const Scalar& special,
                                         int arg, ValueType t) {
        ValueType types[2] = {t, t};
        types[arg] = special.type();
        std::optional<ValueType> r = accepts(types);
        if (!r)
            report(property, fmt::format("its {} {} at position {} for {} is a combination of "
                                         "types it refuses",
                                         property, show(special), arg, type_name(t)));
        return r;
    }

    void check_identity() {
        for (ValueType t : algebra::all_value_types()) {
            for (int arg = 0; arg < 2; ++arg) {
                std::optional<Scalar> e = op_.identity(t, arg);
                if (!e) continue;
                std::optional<ValueType> r = placed_type("identity", *e, arg, t);
                if (!r) continue;
                for (const Scalar& x : sample_values(t)) {
                    std::vector<Scalar> args = placed(*e, arg, x);
                    auto v = eval("identity", args);
                    if (v && !equal(*v, x.cast(*r)))
                        report("identity", fmt::format("{} = {}, not {} (identity {} at "
                                                       "position {})",
                                                       call(args), show(*v), show(x.cast(*r)),
                                                       show(*e), arg));
                }
            }
        }
    }

    void check_annihilator() {
        Samples which = op_.annihilator_finite_only ? Samples::Finite : Samples::All;
        for (ValueType t : algebra::all_value_types()) {
            for (int arg = 0; arg < 2; ++arg) {
                auto za = op_.annihilator(t, arg);
                if (!za) continue;
                const auto& [z, result] = *za;
                if (!placed_type("annihilator", z, arg, t)) continue;
                for (const Scalar& x : sample_values(t, which)) {
                    std::vector<Scalar> args = placed(z, arg, x);
                    auto v = eval("annihilator", args);
                    if (v && !equal(*v, result))
                        report("annihilator",
                               fmt::format("{} = {}, not {} (annihilator {} at position {})",
                                           call(args), show(*v), show(result), show(z), arg));
                }
            }
        }
    }
};

} // namespace

std::vector<PropertyViolation> check_properties(const Operator& op) { return Checker(op).run(); }

} // namespace siskin
