// The Operator of a user function: typing from the declared parameter and result types,
// evaluate() through the interpreter, properties as declared, and the C form from the emitter.
#include "functions/operator_adapter.hpp"

#include <fmt/format.h>

#include "functions/c_emitter.hpp"
#include "functions/interpreter.hpp"
#include "functions/iteration_space.hpp"
#include "siskin/error.hpp"

namespace siskin::functions {

bool converts_without_loss(ValueType from, ValueType to) {
    return from == to || promote(from, to) == to;
}

namespace {

// Throws unless the argument types are ones the function takes.
void accept(const std::string& name, const std::vector<FunctionParam>& params,
            std::span<const ValueType> types) {
    if (types.size() != params.size())
        throw Error(fmt::format("function '{}' takes {} argument{}, not {}", name, params.size(),
                                params.size() == 1 ? "" : "s", types.size()));
    for (size_t k = 0; k < types.size(); ++k)
        if (!converts_without_loss(types[k], params[k].type))
            throw Error(fmt::format("function '{}' takes {} as argument {} ({}); {} {} argument "
                                    "does not convert to {} without loss",
                                    name, type_name(params[k].type), k + 1, params[k].name,
                                    type_name(types[k])[0] == 'i' ? "an" : "a",
                                    type_name(types[k]), type_name(params[k].type)));
}

} // namespace

BuiltFunction build_function(const FunctionDef& def) {
    std::shared_ptr<const Code> code = compile(def);
    const std::string name = def.name();
    const std::vector<FunctionParam> params = def.params();
    const ValueType result = def.result();
    const int arity = static_cast<int>(params.size());

    Operator op;
    op.name = name;
    op.arity = arity;
    const FunctionProperties& p = def.properties();
    op.commutative = p.commutative;
    op.associative = p.associative;
    op.idempotent = p.idempotent;
    op.annihilator_finite_only = p.annihilator_finite_only;

    op.result_type = [name, params, result](std::span<const ValueType> types) {
        accept(name, params, types);
        return result;
    };
    op.operand_types = [name, params](std::span<const ValueType> types) {
        accept(name, params, types);
        std::vector<ValueType> out;
        for (const auto& p : params) out.push_back(p.type);
        return out;
    };
    op.evaluate = [name, params, code](std::span<const Scalar> args) {
        std::vector<ValueType> types;
        for (const Scalar& a : args) types.push_back(a.type());
        accept(name, params, types);
        std::vector<Scalar> converted;
        for (size_t k = 0; k < args.size(); ++k) converted.push_back(args[k].cast(params[k].type));
        return interpret(*code, converted);
    };

    // Value at position `arg` when the other argument has type t (which the function must take
    // at the other position), or nullopt.
    auto placed = [params](const DeclaredValue& d, ValueType t, int arg) -> std::optional<Scalar> {
        if (arg < 0 || arg > 1 || (d.position && *d.position != arg)) return std::nullopt;
        if (!converts_without_loss(t, params[1 - arg].type)) return std::nullopt;
        return d.value.cast(params[arg].type);
    };
    if (p.identity) {
        DeclaredValue d = *p.identity;
        op.identity = [placed, d](ValueType t, int arg) { return placed(d, t, arg); };
    }
    if (p.annihilator) {
        DeclaredValue d = *p.annihilator;
        op.annihilator = [placed, d, result](ValueType t, int arg)
            -> std::optional<std::pair<Scalar, Scalar>> {
            auto z = placed(d, t, arg);
            if (!z) return std::nullopt;
            return std::pair{*z, d.value.cast(result)};
        };
    }

    // A declared space: outside it the function is one value, so a call whose constant
    // arguments already place it outside is that constant.
    if (auto outside = outside_value(*code)) {
        Scalar v = outside->value;
        op.known_result = [code, params, v](std::span<const std::optional<Scalar>> args)
            -> std::optional<Scalar> {
            if (args.size() != params.size()) return std::nullopt;
            std::vector<std::optional<Scalar>> known;
            for (size_t k = 0; k < args.size(); ++k) {
                if (args[k]) known.emplace_back(args[k]->cast(params[k].type));
                else known.emplace_back(std::nullopt);
            }
            if (space_contains(*code->space, known) == false) return v;
            return std::nullopt;
        };
    }

    std::string c_name = c_function_name(def.to_string(), *code);
    std::string args;
    for (int k = 0; k < arity; ++k) args += fmt::format("{}${}", k ? ", " : "", k);
    op.c_template = fmt::format("{}({})", c_name, args);
    op.c_definition = emit_c_definition(*code, c_name);
    return {std::move(op), std::move(code)};
}

} // namespace siskin::functions
