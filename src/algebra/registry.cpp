// The operator registry: builtins are registered on first use; users add or replace operators
// with register_operator. Lookups hand out references that stay valid for the whole run.
#include <algorithm>
#include <cctype>
#include <map>
#include <memory>
#include <mutex>

#include <fmt/format.h>

#include "algebra/builtin_operators.hpp"
#include "siskin/error.hpp"
#include "siskin/operators.hpp"

namespace siskin {

namespace {

void validate(const Operator& op);

class Registry {
public:
    Registry() {
        std::vector<Operator> builtins;
        algebra::add_arithmetic_operators(builtins);
        algebra::add_comparison_operators(builtins);
        algebra::add_logical_operators(builtins);
        algebra::add_bitwise_operators(builtins);
        algebra::add_math_operators(builtins);
        algebra::add_conversion_operators(builtins);
        for (Operator& op : builtins) {
            validate(op); // the builtins obey the rules users do
            add(std::move(op));
        }
    }

    // A registered name first (a user may register a NumPy name for an operator of their own),
    // then NumPy's name for a builtin.
    const Operator* lookup(std::string_view name) {
        std::lock_guard lock(mutex_);
        auto it = ops_.find(name);
        if (it == ops_.end())
            if (auto target = algebra::numpy_name_target(name)) it = ops_.find(*target);
        return it == ops_.end() ? nullptr : it->second.get();
    }

    void add(Operator op) {
        std::lock_guard lock(mutex_);
        auto& slot = ops_[op.name];
        // A replaced operator stays alive: callers may still hold a reference to it.
        if (slot) retired_.push_back(std::move(slot));
        slot = std::make_unique<const Operator>(std::move(op));
    }

    std::vector<std::string> names() {
        std::lock_guard lock(mutex_);
        std::vector<std::string> out;
        for (const auto& [name, op] : ops_) out.push_back(name);
        return out; // sorted: the map is ordered
    }

private:
    std::mutex mutex_;
    std::map<std::string, std::unique_ptr<const Operator>, std::less<>> ops_;
    std::vector<std::unique_ptr<const Operator>> retired_;
};

Registry& registry() {
    static Registry r;
    return r;
}

// Levenshtein distance, case-insensitive.
size_t edit_distance(std::string_view a, std::string_view b) {
    std::vector<size_t> row(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (size_t i = 1; i <= a.size(); ++i) {
        size_t diagonal = row[0];
        row[0] = i;
        for (size_t j = 1; j <= b.size(); ++j) {
            size_t above = row[j];
            bool same = std::tolower(static_cast<unsigned char>(a[i - 1])) ==
                        std::tolower(static_cast<unsigned char>(b[j - 1]));
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (same ? 0 : 1)});
            diagonal = above;
        }
    }
    return row[b.size()];
}

// Spellings users reach for that are not names of the registry: C symbols (the parser turns
// them into these operators) and np.select. NumPy's ufunc names are real names (numpy_names.cpp).
constexpr std::pair<std::string_view, std::string_view> kSuggestions[] = {
    {"+", "add"}, {"-", "sub"}, {"*", "mul"}, {"/", "div"}, {"//", "floordiv"}, {"%", "mod"},
    {"**", "pow"}, {"<<", "shl"}, {">>", "shr"}, {"&", "bitwise_and"}, {"|", "bitwise_or"},
    {"^", "bitwise_xor"}, {"~", "bitwise_not"}, {"!", "not"}, {"&&", "and"}, {"||", "or"},
    {"==", "eq"}, {"!=", "ne"}, {"<", "lt"}, {"<=", "le"}, {">", "gt"}, {">=", "ge"},
    {"select", "ifelse"},
};

std::vector<std::string> near_names(std::string_view name) {
    std::vector<std::string> names = registry().names();
    for (const auto& [alias, target] : kSuggestions)
        if (alias == name && std::find(names.begin(), names.end(), target) != names.end())
            return {std::string(target)};
    size_t limit = name.size() <= 3 ? 1 : 2;
    std::vector<std::pair<size_t, std::string>> scored;
    for (const auto& [alias, target] : algebra::numpy_names()) names.push_back(alias);
    for (const std::string& n : names) {
        size_t d = edit_distance(name, n);
        if (d <= limit) scored.emplace_back(d, n);
    }
    std::stable_sort(scored.begin(), scored.end(),
                     [](const auto& x, const auto& y) { return x.first < y.first; });
    std::vector<std::string> out;
    for (size_t k = 0; k < scored.size() && k < 3; ++k) out.push_back(scored[k].second);
    return out;
}

bool is_identifier(std::string_view s) {
    if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
    return std::all_of(s.begin(), s.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
    });
}

void validate(const Operator& op) {
    auto fail = [&](std::string_view why) {
        throw Error(fmt::format("cannot register operator '{}': {}", op.name, why));
    };
    if (op.name.empty()) throw Error("cannot register an operator without a name");
    if (!is_identifier(op.name)) fail("its name must be an identifier (letters, digits, _)");
    if (op.arity < 1 || op.arity > 3)
        fail(fmt::format("arity {} is not 1, 2 or 3", op.arity));
    if (!op.evaluate) fail("it has no evaluate function");
    if (!op.result_type) fail("it has no result_type function");
    if (op.arity != 2) {
        if (op.identity) fail("only binary operators have an identity");
        if (op.annihilator) fail("only binary operators have an annihilator");
        if (op.commutative || op.associative || op.idempotent)
            fail("only binary operators are commutative, associative or idempotent");
    }
    if (op.annihilator_finite_only && !op.annihilator)
        fail("annihilator_finite_only is set but there is no annihilator");
    const std::string& t = op.c_template;
    for (size_t k = 0; k < t.size(); ++k) {
        if (t[k] != '$') continue;
        char c = k + 1 < t.size() ? t[k + 1] : '\0';
        if (c == 'T' || c == 't') continue;
        if (c >= '0' && c <= '9') {
            if (c - '0' >= op.arity)
                fail(fmt::format("its c_template uses ${} but it takes {} argument{}", c,
                                 op.arity, op.arity == 1 ? "" : "s"));
            continue;
        }
        fail(fmt::format("its c_template has '${}'; only $0, $1, $2, $T and $t are placeholders",
                         c == '\0' ? std::string() : std::string(1, c)));
    }
}

} // namespace

std::optional<Scalar> Operator::reduction_identity(ValueType t) const {
    if (arity != 2 || !identity) return std::nullopt;
    std::optional<Scalar> left = identity(t, 0), right = identity(t, 1);
    if (!left || !right || !left->same(*right)) return std::nullopt;
    return left;
}

const Operator* lookup_operator(std::string_view name) { return registry().lookup(name); }

const Operator& find_operator(std::string_view name) {
    if (const Operator* op = lookup_operator(name)) return *op;
    std::vector<std::string> near = near_names(name);
    std::string hint;
    for (size_t k = 0; k < near.size(); ++k) {
        if (k > 0) hint += k + 1 == near.size() ? " or " : ", ";
        hint += "'" + near[k] + "'";
    }
    throw Error(fmt::format("unknown operator '{}'{}", name,
                            hint.empty() ? "" : " (did you mean " + hint + "?)"));
}

void register_operator(Operator op) {
    validate(op);
    registry().add(std::move(op));
}

std::vector<std::string> operator_names() { return registry().names(); }

std::vector<std::pair<std::string, std::string>> operator_aliases() {
    return algebra::numpy_names();
}

} // namespace siskin
