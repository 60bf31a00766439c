#pragma once
// User-defined scalar functions: a body in a small C-like language, declared algebraic
// properties and special cases, registered as an Operator (operators.hpp) so that the parser,
// the verifier, the reference evaluator, fill inference and the code generator use them like
// builtins. The language and the program-text syntax are in docs/syntax.md ("Functions").
//
//   FunctionDef gcd("gcd");
//   gcd.param("a", ValueType::Int64).param("b", ValueType::Int64).returns(ValueType::Int64)
//      .body("while b != 0 { let t = b; b = a % b; a = t }\nreturn abs(a)")
//      .commutative().annihilator(Scalar::of(int64_t{1}))
//      .special_case("gcd(x, 0) = abs(x)");
//   const Operator& op = define_function(gcd);   // now `gcd(A[i], B[i])` works in programs
//
// The operator's evaluate() runs the body in an interpreter (loops are limited to step_limit()
// iterations per call, so a body that never finishes is an Error, not a hang); its result_type
// and operand_types follow the declared types (an argument is accepted when its type converts
// to the parameter's type by NumPy's safe casting, promote(arg, param) == param); its c_template
// calls a `static inline` C function that op.c_definition defines.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "siskin/error.hpp"
#include "siskin/operators.hpp"
#include "siskin/value.hpp"

namespace siskin {

namespace functions {
struct Body; // parsed statements (src/functions/ast.hpp)
struct Case; // a parsed special case
struct Space; // a parsed iteration space
} // namespace functions

struct FunctionParam {
    std::string name;
    ValueType type;
};

/// An identity or annihilator value, for both argument positions or only one.
struct DeclaredValue {
    Scalar value;                 // converted exactly to the parameter type when checked
    std::optional<int> position;  // 0-based argument position; nullopt: both
};

struct FunctionProperties {
    bool commutative = false;
    bool associative = false;
    bool idempotent = false;
    std::optional<DeclaredValue> identity;
    /// f(..., z, ...) == z (converted to the result type) whatever the other argument is.
    std::optional<DeclaredValue> annihilator;
    bool annihilator_finite_only = false; // the annihilator holds for finite others only
};

class FunctionDef {
public:
    explicit FunctionDef(std::string name);

    // ---- Building (each returns *this). Text is parsed at once: a syntax error throws Error
    // with line and column in that text. Types, names and returns are checked when the
    // function is defined (define_function) or built (function_operator).
    FunctionDef& param(std::string name, ValueType type);
    FunctionDef& returns(ValueType type);
    /// The statements of the body, e.g. "if a < b { return b }\nreturn a".
    FunctionDef& body(std::string_view statements);
    FunctionDef& commutative(bool on = true);
    FunctionDef& associative(bool on = true);
    FunctionDef& idempotent(bool on = true);
    FunctionDef& identity(Scalar value, std::optional<int> position = std::nullopt);
    FunctionDef& annihilator(Scalar value, std::optional<int> position = std::nullopt,
                             bool finite_only = false);
    /// An explicit iteration space (the paper's iteration algebra), "(x | y) & !(x & y)": a set
    /// expression over the parameters with | (union), & (intersection), ^ (symmetric
    /// difference) and ! (complement) whose atoms are `x != c` (x differs from the constant c),
    /// `x == c` (its complement) and a bare `x` (x != 0). Trusted like the properties: outside
    /// the space the function is one constant (its value at a point outside), so the compiler
    /// folds a call whose constant arguments already place it outside; check_function tests
    /// it. Program text: the property `space(...)`.
    FunctionDef& space(std::string_view set_expression);
    /// A special case, "gcd(x, 0) = abs(x)": where the arguments equal the given constants
    /// (NaN matches NaN, -0.0 matches 0.0), the result is the expression instead of the body.
    /// Cases are tried in the order given.
    FunctionDef& special_case(std::string_view text);
    /// The most loop iterations one call may run (default 1,000,000) before it is an Error.
    FunctionDef& step_limit(int64_t steps);

    // ---- Reading.
    const std::string& name() const { return name_; }
    const std::vector<FunctionParam>& params() const { return params_; }
    ValueType result() const { return result_; }
    const FunctionProperties& properties() const { return properties_; }
    int64_t steps() const { return step_limit_; }
    /// Where the definition was written (program text or a functions file); nullopt when built
    /// in C++.
    const std::optional<SourceLocation>& where() const { return where_; }

    /// The definition in program text: `def ...` and its `case` lines, ending in a newline.
    /// parse_functions(to_string()) gives back an equal definition.
    std::string to_string() const;

    // ---- Used by the parser and the implementation (src/functions/).
    void set_body(std::shared_ptr<const functions::Body> body) { body_ = std::move(body); }
    void add_case(std::shared_ptr<const functions::Case> c) { cases_.push_back(std::move(c)); }
    void set_where(SourceLocation where) { where_ = std::move(where); }
    void set_space(std::shared_ptr<const functions::Space> space) { space_ = std::move(space); }
    /// The declared space as parsed; null when none.
    const std::shared_ptr<const functions::Space>& space_ast() const { return space_; }
    FunctionProperties& mutable_properties() { return properties_; }
    const std::shared_ptr<const functions::Body>& body_ast() const { return body_; }
    const std::vector<std::shared_ptr<const functions::Case>>& cases() const { return cases_; }

private:
    std::string name_;
    std::vector<FunctionParam> params_;
    ValueType result_ = ValueType::Float64;
    FunctionProperties properties_;
    std::shared_ptr<const functions::Body> body_;
    std::vector<std::shared_ptr<const functions::Case>> cases_;
    std::shared_ptr<const functions::Space> space_;
    int64_t step_limit_ = 1'000'000;
    std::optional<SourceLocation> where_;
};

/// Definitions share one registry with the builtins, so a name means one thing in a process.
enum class Redefinition {
    /// Defining a name again is fine only with the same definition (same to_string()); a
    /// different one, or the name of a builtin or other registered operator, is an Error.
    Refuse,
    /// Replace whatever operator has that name (for interactive use and tests).
    Replace,
};

/// Checks the definition (an Error with line:column for unknown names, type mismatches, a
/// path without return, bad properties or cases) and registers its operator.
const Operator& define_function(const FunctionDef& def,
                                Redefinition mode = Redefinition::Refuse);

/// Checks the definition and builds its operator without registering it.
Operator function_operator(const FunctionDef& def);

/// Parses `def` and `case` forms (the syntax of program text, docs/syntax.md); nothing else
/// may appear. Does not define them.
std::vector<FunctionDef> parse_functions(std::string_view text,
                                         std::string_view source_name = "<functions>");
/// parse_functions, then define_function on each in order (a later one may call an earlier
/// one). Returns the definitions.
std::vector<FunctionDef> define_functions(std::string_view text,
                                          std::string_view source_name = "<functions>");

/// The definition behind a user-defined operator; nullptr for builtins and unknown names.
std::shared_ptr<const FunctionDef> find_function(std::string_view name);

/// Evaluates every declared property on sample values (check_properties in operators.hpp),
/// every special case against the body (property "case") and, for a declared space, the body
/// at sample points outside the space against its value there (property "space"); a call
/// that throws (a loop over the step limit) is a violation too. Nothing returned: every check
/// holds.
std::vector<PropertyViolation> check_function(const FunctionDef& def);

} // namespace siskin
