// NumPy's ufunc names for the builtins. They are names, not operators: looking one up gives the
// builtin itself (whose name stays siskin's), so properties, typing and C code are shared and
// cannot drift apart. docs/ufuncs.md documents each name; a test checks the two agree.
#include "algebra/builtin_operators.hpp"

namespace siskin::algebra {

namespace {

struct NumpyName {
    std::string_view numpy;
    std::string_view builtin;
};

// NumPy 1.x names, then the NumPy 2 / array-API spellings of the same ufuncs. Names that are
// already builtins (add, bitwise_and, exp, ldexp, fmin, ...) are not repeated here.
constexpr NumpyName kNames[] = {
    {"subtract", "sub"},
    {"multiply", "mul"},
    {"divide", "div"},
    {"true_divide", "div"},
    {"floor_divide", "floordiv"},
    {"remainder", "mod"},
    {"power", "pow"},
    {"negative", "neg"},
    {"absolute", "abs"},
    {"minimum", "min"},
    {"maximum", "max"},
    {"left_shift", "shl"},
    {"right_shift", "shr"},
    {"invert", "bitwise_not"},
    {"logical_and", "and"},
    {"logical_or", "or"},
    {"logical_xor", "xor"},
    {"logical_not", "not"},
    {"equal", "eq"},
    {"not_equal", "ne"},
    {"less", "lt"},
    {"less_equal", "le"},
    {"greater", "gt"},
    {"greater_equal", "ge"},
    {"where", "ifelse"},
    {"arcsin", "asin"},
    {"arccos", "acos"},
    {"arctan", "atan"},
    {"arcsinh", "asinh"},
    {"arccosh", "acosh"},
    {"arctanh", "atanh"},
    {"arctan2", "atan2"},
    {"rint", "round"},
    {"bitwise_invert", "bitwise_not"},
    {"bitwise_left_shift", "shl"},
    {"bitwise_right_shift", "shr"},
};

} // namespace

std::optional<std::string_view> numpy_name_target(std::string_view name) {
    for (const auto& n : kNames)
        if (n.numpy == name) return n.builtin;
    return std::nullopt;
}

std::vector<std::pair<std::string, std::string>> numpy_names() {
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& n : kNames) out.emplace_back(n.numpy, n.builtin);
    return out;
}

} // namespace siskin::algebra
