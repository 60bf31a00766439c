#include "ir/syntax.hpp"

#include <algorithm>

namespace siskin::ir::syntax {

namespace {
// C's precedence ladder, so expressions read the way a C programmer expects.
constexpr BinarySymbol kBinary[] = {
    {"||", "or", 1},          {"&&", "and", 2},
    {"|", "bitwise_or", 3},   {"^", "bitwise_xor", 4},
    {"&", "bitwise_and", 5},  {"==", "eq", 6},
    {"!=", "ne", 6},          {"<", "lt", 7},
    {"<=", "le", 7},          {">", "gt", 7},
    {">=", "ge", 7},          {"<<", "shl", 8},
    {">>", "shr", 8},         {"+", "add", 9},
    {"-", "sub", 9},          {"*", "mul", 10},
    {"/", "div", 10},         {"%", "mod", 10},
};

constexpr UnarySymbol kUnary[] = {{"-", "neg"}, {"!", "not"}, {"~", "bitwise_not"}};

constexpr AssignSymbol kAssign[] = {{"=", ""},       {"+=", "add"}, {"*=", "mul"},
                                    {"min=", "min"}, {"max=", "max"}, {"|=", "or"},
                                    {"&=", "and"}};

constexpr std::string_view kKeywords[] = {"for", "in", "if", "else", "let",
                                          "true", "false", "inf", "nan"};
// Statements of function bodies only: a program may still call a tensor `return`.
constexpr std::string_view kBodyOnlyKeywords[] = {"while", "return"};
constexpr std::string_view kProtocols[] = {"walk", "gallop", "follow"};

template <class T, class F> const T* find_in(std::span<const T> table, F&& pred) {
    auto it = std::find_if(table.begin(), table.end(), pred);
    return it == table.end() ? nullptr : &*it;
}
} // namespace

std::span<const BinarySymbol> binary_symbols() { return kBinary; }
std::span<const UnarySymbol> unary_symbols() { return kUnary; }
std::span<const AssignSymbol> assign_symbols() { return kAssign; }

const BinarySymbol* binary_by_symbol(std::string_view s) {
    return find_in(binary_symbols(), [&](const BinarySymbol& b) { return b.symbol == s; });
}
const BinarySymbol* binary_by_op(std::string_view op) {
    return find_in(binary_symbols(), [&](const BinarySymbol& b) { return b.op == op; });
}
const UnarySymbol* unary_by_symbol(std::string_view s) {
    return find_in(unary_symbols(), [&](const UnarySymbol& u) { return u.symbol == s; });
}
const UnarySymbol* unary_by_op(std::string_view op) {
    return find_in(unary_symbols(), [&](const UnarySymbol& u) { return u.op == op; });
}

std::string assign_spelling(std::string_view op) {
    for (const auto& a : kAssign)
        if (a.op == op) return std::string(a.symbol);
    return "<<" + std::string(op) + ">>=";
}

bool is_keyword(std::string_view word) {
    return std::find(std::begin(kKeywords), std::end(kKeywords), word) != std::end(kKeywords);
}
bool is_body_keyword(std::string_view word) {
    return is_keyword(word) || std::find(std::begin(kBodyOnlyKeywords),
                                         std::end(kBodyOnlyKeywords),
                                         word) != std::end(kBodyOnlyKeywords);
}
std::optional<ValueType> type_named(std::string_view word) {
    for (int t = 0; t <= static_cast<int>(ValueType::Float64); ++t)
        if (type_name(static_cast<ValueType>(t)) == word) return static_cast<ValueType>(t);
    return std::nullopt;
}
bool is_protocol(std::string_view word) {
    return std::find(std::begin(kProtocols), std::end(kProtocols), word) != std::end(kProtocols);
}

} // namespace siskin::ir::syntax
