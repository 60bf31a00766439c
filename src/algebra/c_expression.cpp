// Instantiating an operator's c_template for given argument types and C expressions.
#include <cctype>

#include <fmt/format.h>

#include "siskin/error.hpp"
#include "siskin/operators.hpp"

namespace siskin {

namespace {

// The short type name helpers of runtime/siskin_ops.h are suffixed with.
std::string_view c_suffix(ValueType t) {
    static constexpr std::string_view kSuffix[] = {"b",  "i8",  "i16", "i32", "i64", "u8",
                                                   "u16", "u32", "u64", "f32", "f64"};
    return kSuffix[static_cast<int>(t)];
}

// Index just past the bracket group opening at s[open], or npos when unbalanced.
size_t skip_group(std::string_view s, size_t open) {
    int depth = 0;
    for (size_t k = open; k < s.size(); ++k) {
        if (s[k] == '(' || s[k] == '[') ++depth;
        if (s[k] == ')' || s[k] == ']') {
            if (--depth == 0) return k + 1;
        }
    }
    return std::string_view::npos;
}

bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Needs no parentheses in any operand position: a name or number followed by subscripts and
// calls (`x`, `2.5`, `a[i]`, `f(x)`), or an expression already in parentheses.
bool is_primary(std::string_view s) {
    if (s.empty()) return false;
    size_t k = 0;
    if (s[0] == '(') {
        k = skip_group(s, 0);
    } else {
        while (k < s.size() && (ident_char(s[k]) || s[k] == '.')) ++k;
        if (k == 0) return false;
    }
    while (k != std::string_view::npos && k < s.size() && (s[k] == '[' || s[k] == '('))
        k = skip_group(s, k);
    return k == s.size();
}

std::string operand(std::string_view expr, ValueType from, ValueType to) {
    std::string e = is_primary(expr) ? std::string(expr) : fmt::format("({})", expr);
    if (from == to) return e;
    return fmt::format("(({}){})", c_type_name(to), e);
}

} // namespace

std::string c_expression(const Operator& op, std::span<const ValueType> arg_types,
                         std::span<const std::string> args) {
    if (arg_types.size() != args.size())
        throw Error(fmt::format("c_expression for '{}': {} argument types but {} expressions",
                                op.name, arg_types.size(), args.size()));
    if (args.size() != static_cast<size_t>(op.arity))
        throw Error(fmt::format("operator '{}' takes {} argument{}, not {}", op.name, op.arity,
                                op.arity == 1 ? "" : "s", args.size()));
    if (op.c_template.empty())
        throw Error(fmt::format("operator '{}' has no C template, so it cannot be compiled",
                                op.name),
                    Error::Kind::Unsupported);
    ValueType result = op.result_type(arg_types);
    std::vector<ValueType> to(arg_types.begin(), arg_types.end());
    if (op.operand_types) to = op.operand_types(arg_types);
    SISKIN_ASSERT(to.size() == args.size(), "operand_types gave the wrong number of types");

    std::string out;
    const std::string& t = op.c_template;
    for (size_t k = 0; k < t.size(); ++k) {
        char c = k + 1 < t.size() ? t[k + 1] : '\0';
        if (t[k] != '$') {
            out += t[k];
        } else if (c >= '0' && c <= '9' && static_cast<size_t>(c - '0') < args.size()) {
            size_t i = static_cast<size_t>(c - '0');
            out += operand(args[i], arg_types[i], to[i]);
            ++k;
        } else if (c == 'T') {
            out += c_type_name(result);
            ++k;
        } else if (c == 't') {
            out += c_suffix(result);
            ++k;
        } else {
            throw Error(fmt::format("operator '{}': bad placeholder in C template '{}'", op.name,
                                    t));
        }
    }
    return out;
}

} // namespace siskin
