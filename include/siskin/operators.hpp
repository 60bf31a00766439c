#pragma once
// The registry of named scalar operators and their algebraic properties. The properties are data
// the compiler uses to skip work (an annihilator makes a product sparse, an identity makes a
// reduction skip fill regions); tests check that each declared property holds on sample values.
//
// Builtins (NumPy ufunc semantics; arguments are promoted with siskin::promote and computed in
// the promoted type's C arithmetic, float32 rounded to float):
//   add sub mul div floordiv mod neg abs pow            arithmetic (integers wrap around)
//   min max                                             NumPy minimum/maximum: NaN propagates
//   fmin fmax                                           NumPy fmin/fmax: NaN is ignored
//   and or xor not                                      logical, any argument type, bool result
//   bitwise_and bitwise_or bitwise_xor bitwise_not      integers and bool only
//   shl shr                                             NumPy left_shift/right_shift, integers
//   eq ne lt le gt ge                                   compare in the promoted type, bool result
//   exp log sqrt ldexp                                  floating point
//   isnan isinf isfinite                                classification, any type, bool result
//   bool int8 ... uint64 float32 float64                conversion to the named type
//                                                       (Scalar::cast: wraps; NaN to int is 0)
//   ifelse(c, a, b)                                     NumPy where: c converted to bool
// Type rules, where they differ from plain promotion:
//   - div is true division: integers and bool give float64.
//   - exp, log, sqrt and ldexp's mantissa: bool and integers give float64 (NumPy gives float16
//     for 8-bit and float32 for 16-bit inputs; siskin has no float16, so it uses float64).
//   - On bool: add is `or`, mul is `and`, abs is the identity, min/max are and/or;
//     floordiv, mod, pow, shl and shr compute in int8; sub and neg refuse bool (as NumPy does).
//   - ldexp(x, n): n is bool or any integer type but uint64 (computed as int64); a uint64 or
//     float exponent is refused, as NumPy refuses types with no safe cast to its int exponent.
//   - Comparisons of int64 with uint64 compare as float64 (the promotion rule).
// Integer edge cases are defined, never C undefined behaviour or a trap:
//   - x // 0 == 0 and x % 0 == 0; INT_MIN // -1 == INT_MIN (wraps) and INT_MIN % -1 == 0;
//     floordiv rounds toward -inf and mod has the sign of the divisor (NumPy, Python).
//   - Float floordiv/mod follow NumPy's divmod (x // 0.0 is x / 0.0, x % 0.0 is NaN).
//   - shl/shr: a count outside 0..width-1 (a negative count counts as huge) gives 0, or -1 for
//     shr of a negative signed value; shr of a negative value rounds toward -inf.
//   - pow on integers with a negative exponent: NumPy raises; siskin defines it as the
//     truncation of 1 / x^-n: 1 for base 1, +-1 for base -1 (by parity), 0 otherwise (also 0
//     for base 0). 0^0 == 1.
//   - min(-0.0, 0.0) == -0.0 and max(-0.0, 0.0) == 0.0 in either order.
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "siskin/value.hpp"

namespace siskin {

class Operator {
public:
    std::string name;       // "add", "mul", "max", "lt", "ifelse", ...
    int arity = 2;          // number of arguments

    // Binary operators only. For floats, "associative" means associative in exact arithmetic
    // (float + is rounded, and may overflow): the checker tests it on samples whose sums and
    // products are exact. Equalities below are up to Scalar::same_value (NaN == NaN, -0 == 0).
    bool commutative = false;
    bool associative = false;
    bool idempotent = false; // op(x, x) == x converted to the result type

    /// Result type for the given argument types; throws Error for types the operator refuses.
    std::function<ValueType(std::span<const ValueType>)> result_type;
    /// Evaluates on argument values of any types (promotes them as result_type says).
    std::function<Scalar(std::span<const Scalar>)> evaluate;

    /// Value e of type t with op(..., e at position `arg`, ...) == the other argument, for every
    /// other argument value; nullopt when there is none. For binary operators only.
    /// `t` is the type of the other argument; e has the type the operator takes at `arg` (t
    /// itself, except bool for the logical operators and int64 for ldexp's exponent), and the
    /// equality is with the other argument converted to the result type (div(x, 1) is x as
    /// float64 for an integer x).
    std::function<std::optional<Scalar>(ValueType t, int arg)> identity;
    /// Value z of type t with op(..., z at position `arg`, ...) == z' for a fixed result z'
    /// (the result, returned as second) whatever the other argument is. `t` and the type of z
    /// as for identity; z' has the result type.
    std::function<std::optional<std::pair<Scalar, Scalar>>(ValueType t, int arg)> annihilator;
    /// True when the annihilator holds only for finite other arguments (0 * inf is NaN;
    /// min(-inf, NaN) is NaN).
    bool annihilator_finite_only = false;

    /// Optional partial evaluation: given the arguments that are known constants (nullopt
    /// for the others), the result when those alone decide it, else nullopt. A user function
    /// with a declared iteration space (functions.hpp) answers its value outside the space
    /// when the known arguments place the call outside; the simplifier folds such calls.
    std::function<std::optional<Scalar>(std::span<const std::optional<Scalar>>)> known_result;

    /// C expression template for code generation: "$0 + $1", "fmax($0, $1)", ...; may use
    /// helpers from the kernel prelude.
    ///
    /// Convention (use c_expression() below rather than substituting by hand):
    ///   $0 $1 $2  the argument expressions, already converted to operand_types (a C cast is
    ///             inserted where an argument's type differs) and parenthesised;
    ///   $T        the C type of the result ("int32_t", "double", "bool");
    ///   $t        the short name of the result type: b i8 i16 i32 i64 u8 u16 u32 u64 f32 f64,
    ///             used to pick the helper of runtime/siskin_ops.h for that type, as in
    ///             "siskin_floordiv_$t($0, $1)" -> "siskin_floordiv_i32(a, b)".
    /// The expression evaluates exactly as `evaluate` does (the tests compile and compare).
    /// Generated kernels include runtime/siskin_ops.h (C11, needs only stdint, stdbool, math).
    std::string c_template;

    /// File-scope C text a kernel must contain, after the prelude and before the first use of
    /// c_template; empty for the builtins. A user-defined function (siskin/functions.hpp) puts
    /// its `static inline` C function here (and those of the user functions it calls), every
    /// definition inside an include guard, so a code generator can emit the c_definition of
    /// each operator it uses, in any order and any number of times.
    std::string c_definition;

    /// The types the arguments are converted to before the operation, for the given argument
    /// types (e.g. {float64, float64} for div on two int32; {bool, int64, int64} for ifelse on
    /// bool, int8, int64). Throws Error like result_type. When empty, arguments are used as
    /// they are.
    std::function<std::vector<ValueType>(std::span<const ValueType>)> operand_types;

    ValueType result_type_of(std::span<const ValueType> args) const { return result_type(args); }
    Scalar apply(std::span<const Scalar> args) const { return evaluate(args); }
    /// The identity for both positions (what a reduction starts from), if any.
    std::optional<Scalar> reduction_identity(ValueType t) const;
};

/// The operator of that name; throws Error("unknown operator 'x'") listing near names.
const Operator& find_operator(std::string_view name);
/// nullptr when unknown.
const Operator* lookup_operator(std::string_view name);
/// Adds or replaces an operator; throws Error when it is malformed (no evaluate, bad arity).
/// References returned by find_operator stay valid after a replacement (the old operator is
/// kept alive, only the name now finds the new one).
void register_operator(Operator op);
/// The registered names (NumPy aliases left out), sorted.
std::vector<std::string> operator_names();
/// NumPy's ufunc names for builtins, as (alias, builtin) pairs: ("subtract", "sub"),
/// ("where", "ifelse"), ("maximum", "max"), ... find_operator and lookup_operator accept each
/// alias and return the builtin itself (its `name` stays siskin's), unless an operator was
/// registered under the alias. docs/ufuncs.md lists them with their semantics.
std::vector<std::pair<std::string, std::string>> operator_aliases();

/// The C expression computing `op` on arguments of the given types whose C expressions are
/// `args`, by instantiating op.c_template. Throws Error when the types are refused or the
/// operator has no c_template. Example: add on (int32 "a[i]", float32 "x") gives
/// "siskin_add_f64(((double)a[i]), ((double)x))".
std::string c_expression(const Operator& op, std::span<const ValueType> arg_types,
                         std::span<const std::string> args);

/// One declared property that does not hold, with a counterexample in the message.
struct PropertyViolation {
    std::string property; // "commutative", "associative", "idempotent", "identity",
                          // "annihilator", "types"
    std::string message;  // e.g. "sub(1, 2) = -1 but sub(2, 1) = 1 (int8)"
};

/// Evaluates every declared property of `op` on sample values of every type it accepts
/// (integer extremes, 0, ±1, -0.0, ±inf, NaN, ...; finite ones only where
/// annihilator_finite_only says so) and checks that result_type and evaluate agree. Returns
/// nothing when all hold. A few counterexamples per property at most.
std::vector<PropertyViolation> check_properties(const Operator& op);

} // namespace siskin
