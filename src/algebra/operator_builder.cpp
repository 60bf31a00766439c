#include "algebra/operator_builder.hpp"

#include <limits>

#include <fmt/format.h>

namespace siskin::algebra {

void refuse(std::string_view op, std::span<const ValueType> types, std::string_view takes) {
    std::string list;
    for (size_t k = 0; k < types.size(); ++k) {
        if (k > 0) list += k + 1 == types.size() ? " and " : ", ";
        list += type_name(types[k]);
    }
    if (types.size() == 1)
        throw Error(fmt::format("operator '{}' does not take {} {} argument; it takes {}", op,
                                list.front() == 'i' ? "an" : "a", list, takes));
    throw Error(fmt::format("operator '{}' does not take {} arguments; it takes {}", op, list,
                            takes));
}

void check_arity(std::string_view op, int arity, size_t got) {
    if (got != static_cast<size_t>(arity))
        throw Error(fmt::format("operator '{}' takes {} argument{}, not {}", op, arity,
                                arity == 1 ? "" : "s", got));
}

ValueType promote_all(std::span<const ValueType> types) {
    SISKIN_ASSERT(!types.empty(), "promote_all of no types");
    ValueType t = types[0];
    for (ValueType u : types.subspan(1)) t = promote(t, u);
    return t;
}

Signature uniform(ValueType t) { return {t, {t, t, t}}; }

void unexpected_type(ValueType t) {
    detail::assert_failed("dispatch", fmt::format("kernel not instantiated for {}", type_name(t)),
                          __FILE__, __LINE__);
}

Operator make_operator(std::string name, int arity, Typing typing, Body body,
                       std::string c_template) {
    Operator op;
    op.name = name;
    op.arity = arity;
    op.c_template = std::move(c_template);
    op.result_type = [name, arity, typing](std::span<const ValueType> types) {
        check_arity(name, arity, types.size());
        return typing(types).result;
    };
    op.operand_types = [name, arity, typing](std::span<const ValueType> types) {
        check_arity(name, arity, types.size());
        Signature sig = typing(types);
        return std::vector<ValueType>(sig.operands.begin(), sig.operands.begin() + arity);
    };
    op.evaluate = [name, arity, typing, body](std::span<const Scalar> args) {
        check_arity(name, arity, args.size());
        std::array<ValueType, 3> types{};
        std::array<Scalar, 3> converted;
        for (int k = 0; k < arity; ++k) types[k] = args[k].type();
        Signature sig = typing(std::span<const ValueType>(types.data(), arity));
        for (int k = 0; k < arity; ++k) converted[k] = args[k].cast(sig.operands[k]);
        Scalar r = body(sig, std::span<const Scalar>(converted.data(), arity));
        SISKIN_ASSERT(r.type() == sig.result,
                      fmt::format("operator '{}' computed a {} where its result type is {}", name,
                                  type_name(r.type()), type_name(sig.result)));
        return r;
    };
    return op;
}

Scalar all_ones(ValueType t) {
    SISKIN_ASSERT(!is_float(t), "all_ones of a float type");
    if (t == ValueType::Bool) return Scalar::of(true);
    return Scalar::of(int64_t{-1}).cast(t); // wraps to the unsigned maximum
}

Scalar greatest(ValueType t) {
    if (t == ValueType::Bool) return Scalar::of(true);
    if (is_float(t)) return Scalar::of(std::numeric_limits<double>::infinity()).cast(t);
    if (is_unsigned_integer(t)) return all_ones(t);
    // The signed maximum: all ones shifted right once, in t's width.
    uint64_t bits = type_size(t) * 8;
    return Scalar::of(static_cast<int64_t>((uint64_t{1} << (bits - 1)) - 1)).cast(t);
}

Scalar least(ValueType t) {
    if (t == ValueType::Bool) return Scalar::of(false);
    if (is_float(t)) return Scalar::of(-std::numeric_limits<double>::infinity()).cast(t);
    if (is_unsigned_integer(t)) return Scalar::zero(t);
    uint64_t bits = type_size(t) * 8;
    return Scalar::of(static_cast<int64_t>(uint64_t{1} << (bits - 1))).cast(t);
}

Scalar small(int64_t v, ValueType t) { return Scalar::of(v).cast(t); }

} // namespace siskin::algebra
