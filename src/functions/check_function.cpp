// check_function: the declared properties through the algebra's check_properties (the same
// sample values and counterexample messages as for the builtins), then every special case
// against the body alone, and the body outside a declared iteration space against its one value
// there.
#include <functional>

#include <fmt/format.h>

#include "algebra/samples.hpp"
#include "functions/interpreter.hpp"
#include "functions/iteration_space.hpp"
#include "functions/operator_adapter.hpp"
#include "siskin/error.hpp"
#include "siskin/functions.hpp"

namespace siskin {

namespace {

constexpr int kExamplesPerCase = 3;

std::string show(const Scalar& s) {
    return fmt::format("{} {}", type_name(s.type()), s.to_string());
}

std::string call_text(const std::string& name, const std::vector<Scalar>& args) {
    std::string s = name + "(";
    for (size_t k = 0; k < args.size(); ++k) s += (k ? ", " : "") + show(args[k]);
    return s + ")";
}

// Calls check on every point of the grid samples[0] x samples[1] x ... until it has reported a
// violation (returned true) kExamplesPerCase times.
void for_each_sample_point(const std::vector<std::vector<Scalar>>& samples,
                           const std::function<bool(const std::vector<Scalar>&)>& check) {
    int reported = 0;
    std::vector<Scalar> args(samples.size());
    std::function<void(size_t)> each = [&](size_t k) {
        if (reported >= kExamplesPerCase) return;
        if (k == samples.size()) {
            reported += check(args) ? 1 : 0;
            return;
        }
        for (const Scalar& s : samples[k]) {
            args[k] = s;
            each(k + 1);
        }
    };
    each(0);
}

void check_cases(const functions::Code& code, std::vector<PropertyViolation>& out) {
    for (size_t c = 0; c < code.cases.size(); ++c) {
        const functions::CodeCase& kase = code.cases[c];
        // Every argument the case leaves free runs over the samples of its parameter type.
        std::vector<std::vector<Scalar>> samples;
        for (size_t k = 0; k < code.params.size(); ++k)
            samples.push_back(kase.fixed[k] ? std::vector<Scalar>{*kase.fixed[k]}
                                            : algebra::sample_values(code.params[k]));
        for_each_sample_point(samples, [&](const std::vector<Scalar>& args) {
            std::string prefix =
                fmt::format("case {}: at {}", kase.text, call_text(code.name, args));
            try {
                Scalar by_case = functions::interpret_case(code, c, args);
                Scalar by_body = functions::interpret(code, args, false);
                if (by_case.same(by_body)) return false;
                out.push_back({"case", fmt::format("{} the case gives {} but the body gives {}",
                                                   prefix, show(by_case), show(by_body))});
            } catch (const Error& e) {
                out.push_back({"case", fmt::format("{} it throws: {}", prefix, e.message())});
            }
            return true;
        });
    }
}

// The body at sample points outside the declared space (each parameter over its type's
// samples and the constants the space names) against the one value it must have there.
void check_space(const functions::Code& code, std::vector<PropertyViolation>& out) {
    if (!code.space) return;
    std::optional<functions::Outside> outside;
    try {
        outside = functions::outside_value(code);
    } catch (const Error& e) {
        out.push_back({"space", e.message()});
        return;
    }
    if (!outside) return; // the space is everything
    std::vector<std::vector<Scalar>> samples;
    for (size_t k = 0; k < code.params.size(); ++k) {
        std::vector<Scalar> s = functions::space_constants(*code.space, static_cast<int>(k));
        for (const Scalar& v : algebra::sample_values(code.params[k])) s.push_back(v);
        samples.push_back(std::move(s));
    }
    for_each_sample_point(samples, [&](const std::vector<Scalar>& args) {
        std::vector<std::optional<Scalar>> known(args.begin(), args.end());
        if (functions::space_contains(*code.space, known) != false) return false;
        std::string where = fmt::format("{} is outside the space {}, where {} is {} (its value "
                                        "at {}),",
                                        call_text(code.name, args), code.space_text, code.name,
                                        show(outside->value),
                                        call_text(code.name, outside->point));
        try {
            Scalar got = functions::interpret(code, args);
            if (got.same_value(outside->value)) return false;
            out.push_back({"space", fmt::format("{} but the body gives {}", where, show(got))});
        } catch (const Error& e) {
            out.push_back({"space", fmt::format("{} but it throws: {}", where, e.message())});
        }
        return true;
    });
}

} // namespace

std::vector<PropertyViolation> check_function(const FunctionDef& def) {
    functions::BuiltFunction built = functions::build_function(def);
    std::vector<PropertyViolation> out = check_properties(built.op);
    check_cases(*built.code, out);
    check_space(*built.code, out);
    return out;
}

} // namespace siskin
