#pragma once
// The spelling of program text: the one table that maps symbols to operator names and
// precedences, and the words that are no names. Shared by the parsers, the printer and
// docs/syntax.md; the operator registry (siskin/operators.hpp) deliberately knows nothing about
// syntax.
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "siskin/value.hpp"

namespace siskin::ir::syntax {

struct BinarySymbol {
    std::string_view symbol; // "+"
    std::string_view op;     // "add"
    int precedence;          // higher binds tighter; all binary operators are left-associative
};

struct UnarySymbol {
    std::string_view symbol; // "-"
    std::string_view op;     // "neg"
};

struct AssignSymbol {
    std::string_view symbol; // "+="
    std::string_view op;     // "add"; "" for plain `=`
};

/// Unary operators bind tighter than every binary one; primaries tighter still.
inline constexpr int kUnaryPrecedence = 11;
inline constexpr int kPrimaryPrecedence = 12;

std::span<const BinarySymbol> binary_symbols();
std::span<const UnarySymbol> unary_symbols();
std::span<const AssignSymbol> assign_symbols();

const BinarySymbol* binary_by_symbol(std::string_view symbol);
const BinarySymbol* binary_by_op(std::string_view op);
const UnarySymbol* unary_by_symbol(std::string_view symbol);
const UnarySymbol* unary_by_op(std::string_view op);
/// The assignment spelling of an operator: "=" for "", "+=" for add, else "<<op>>=".
std::string assign_spelling(std::string_view op);

/// Words that cannot name an index, variable or tensor.
bool is_keyword(std::string_view word);
/// The keywords, and `while` and `return`: words that cannot name a variable of a function body.
bool is_body_keyword(std::string_view word);
/// The type a type name spells (`int8`, `float64`; none of parse_type's aliases): `int8(x)` is a
/// conversion or a typed literal, never a call.
std::optional<ValueType> type_named(std::string_view word);
/// `walk`, `gallop`, `follow`: written as `A[gallop(i)]`.
bool is_protocol(std::string_view word);

} // namespace siskin::ir::syntax
