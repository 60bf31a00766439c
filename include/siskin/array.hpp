#pragma once
// Lazy arrays with NumPy semantics. An Array is a tensor or an unevaluated expression over
// tensors, with a shape, a value type (dtype) and a fill. Operations only build the expression;
// compute() turns the whole expression into ONE siskin program (a few einsum statements with
// explicit loops), compiles it through the compiler (kernels cached as for any program) and
// runs it. Shape operators that only rename indices (transpose, expand_dims, squeeze,
// broadcast_to, indexing with integers, slices, None and ...) become subscripts of the tensor
// accesses, so they fuse with the compute around them and nothing is copied.
//
//   Array A(read_matrix_market("a.mtx"), "A");                 // csr, float64, fill 0
//   Array x(Tensor::from_dense(...), "x");
//   Array y = sum(A * A.T(), 1) + 2 * matmul(A, x);            // nothing computed yet
//   Tensor t = y.compute();                                    // one program, compiled once
//   std::cout << y.program_text();                             // the program it compiles to
//
// Semantics are NumPy's (docs/arrays.md): C order, broadcasting of size-1 dimensions, NumPy 2
// type promotion (a C++ number mixed with an Array is a "weak" scalar: `A_f32 * 2.0` stays
// float32), the ufuncs of docs/ufuncs.md. Every shape error is a siskin::Error naming the
// operation, its operands and the sizes.
#include <cstdint>
#include <initializer_list>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "siskin/compiler.hpp"
#include "siskin/format.hpp"
#include "siskin/ir/program.hpp"
#include "siskin/planner.hpp"
#include "siskin/reference.hpp"
#include "siskin/tensor.hpp"
#include "siskin/value.hpp"

namespace siskin {

/// One item of a NumPy index: `A[2]`, `A[1:5:2]`, `A[::-1]`, `A[None]`, `A[...]`.
struct IndexItem {
    enum class Kind { Integer, Slice, NewAxis, Ellipsis };
    Kind kind = Kind::Slice;
    int64_t integer = 0;                // Integer: negative counts from the end
    std::optional<int64_t> start, stop; // Slice: Python's meaning, clamped as Python clamps
    int64_t step = 1;                   // Slice: nonzero, negative walks backwards
    static IndexItem at(int64_t i) { return {Kind::Integer, i, {}, {}, 1}; }
    static IndexItem slice(std::optional<int64_t> start, std::optional<int64_t> stop,
                           int64_t step = 1) {
        return {Kind::Slice, 0, start, stop, step};
    }
    static IndexItem all() { return {}; }
    static IndexItem new_axis() { return {Kind::NewAxis, 0, {}, {}, 1}; }
    static IndexItem ellipsis() { return {Kind::Ellipsis, 0, {}, {}, 1}; }
};

/// The axes of a reduction: none given means every axis. Negative axes count from the end.
struct Axes {
    std::optional<std::vector<int>> axes;
    Axes() = default;
    Axes(int axis) : axes(std::vector<int>{axis}) {}
    Axes(std::initializer_list<int> list) : axes(std::vector<int>(list)) {}
    Axes(std::vector<int> list) : axes(std::move(list)) {}
};

/// How compute() evaluates.
struct ComputeOptions {
    /// The result's format; default: dense when the result is dense, else the format of the
    /// leading sparse operand with its modes in the result's dimension order.
    std::optional<Format> format = {};
    /// Run the dense reference evaluator instead of compiled code (the oracle of the tests).
    bool interpret = false;
    CompileOptions compile = {};
    /// Which of the planner's plans runs (include/siskin/planner.hpp): by default the cheapest
    /// estimate on the inputs computed first (the loops of the expression's program are the
    /// array layer's, so the planner may reorder them: a matrix-vector product over a csc
    /// matrix reads it by columns); `as_written` the program as lower() builds it.
    PlanChoice plan = {};
};

/// What compute() runs: the program, its input tensors, every output's spec (dense temporaries
/// and the result, whose format is resolved as compute() resolves it) and the result's name.
/// For tools that compile once and run many times, or show the program.
struct ArrayProgram {
    ir::Program program;
    std::map<std::string, std::shared_ptr<const Tensor>> inputs;
    std::map<std::string, OutputSpec> outputs;
    std::string result;
    /// The inputs as evaluate_compiled and compile_for take them.
    std::map<std::string, const Tensor*> input_pointers() const;
};

class Array {
public:
    struct Node; // src/array/node.hpp

    /// A tensor, shared read-only by every expression built on it. `name` names it in the
    /// program text and in error messages (default: t0, t1, ...).
    explicit Array(Tensor t, std::string name = "");
    explicit Array(std::shared_ptr<const Tensor> t, std::string name = "");
    /// A 0-d array holding `v` (a "strong" scalar: its type takes part in promotion).
    explicit Array(Scalar v);
    /// A C++ number: a weak scalar as NumPy 2 treats Python numbers (it adopts the type of the
    /// array it meets where the kinds allow: int with int8 stays int8, float with int is float64).
    template <class T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
    Array(T v) : Array(weak_scalar(number_scalar(v))) {}

    const std::vector<int64_t>& shape() const;
    int ndim() const { return static_cast<int>(shape().size()); }
    /// Number of elements (checked: an Error when it does not fit 64 bits).
    int64_t size() const;
    ValueType dtype() const;
    /// The value of every element where every tensor below holds its fill.
    const Scalar& fill() const;

    /// Evaluates the expression: one program, compiled (or interpreted) and run.
    Tensor compute(const ComputeOptions& options = {}) const;
    /// The program compute() runs.
    ir::Program program() const;
    /// The program with its inputs and outputs; `format` as in ComputeOptions.
    ArrayProgram lower(std::optional<Format> format = {}) const;
    std::string program_text() const;

    /// NumPy indexing: integers, slices (any step), new axes and one ellipsis.
    Array operator[](const std::vector<IndexItem>& items) const;
    Array operator[](int64_t i) const { return (*this)[std::vector<IndexItem>{IndexItem::at(i)}]; }
    /// The transpose (reversed axes): NumPy's `A.T`.
    Array T() const;

    const Node& node() const { return *node_; }
    explicit Array(std::shared_ptr<const Node> node) : node_(std::move(node)) {}

private:
    static Array weak_scalar(Scalar v);
    template <class T> static Scalar number_scalar(T v) {
        if constexpr (std::is_same_v<T, bool>) return Scalar::of(v);
        else if constexpr (std::is_floating_point_v<T>) return Scalar::of(static_cast<double>(v));
        else if constexpr (std::is_signed_v<T>) return Scalar::of(static_cast<int64_t>(v));
        else return Scalar::of(static_cast<uint64_t>(v));
    }
    std::shared_ptr<const Node> node_;
};

// ---- element-wise: any operator of the registry by name (ufuncs, user functions) ----

/// `name` applied element by element after broadcasting: "add", "maximum", "where", "gcd", ...
Array ufunc(const std::string& name, const std::vector<Array>& args);
Array where(const Array& condition, const Array& x, const Array& y);

Array operator+(const Array& a, const Array& b);
Array operator-(const Array& a, const Array& b);
Array operator*(const Array& a, const Array& b);
Array operator/(const Array& a, const Array& b);
Array operator%(const Array& a, const Array& b);
Array operator&(const Array& a, const Array& b);
Array operator|(const Array& a, const Array& b);
Array operator^(const Array& a, const Array& b);
Array operator<<(const Array& a, const Array& b);
Array operator>>(const Array& a, const Array& b);
Array operator<(const Array& a, const Array& b);
Array operator<=(const Array& a, const Array& b);
Array operator>(const Array& a, const Array& b);
Array operator>=(const Array& a, const Array& b);
Array operator==(const Array& a, const Array& b);
Array operator!=(const Array& a, const Array& b);
Array operator-(const Array& a);
Array operator~(const Array& a);
Array operator!(const Array& a);
Array abs(const Array& a);
Array exp(const Array& a);
Array log(const Array& a);
Array sqrt(const Array& a);
Array maximum(const Array& a, const Array& b);
Array minimum(const Array& a, const Array& b);
Array power(const Array& a, const Array& b);
Array floor_divide(const Array& a, const Array& b);
/// The values converted to `type` (NumPy's astype, Scalar::cast's semantics: integers wrap, a
/// float becomes an integer through 64 bits, NaN giving 0 and values beyond the range
/// saturating first); `a` itself when it has that type. isnan, isinf and isfinite are ufuncs
/// by name: ufunc("isnan", {a}).
Array astype(const Array& a, ValueType type);

// ---- reductions (NumPy dtypes: sum/prod of bool and small integers give int64 or uint64,
//      mean of integers float64, any/all bool; argmin/argmax int64, the first extreme).
//      `dtype`, as NumPy's: the elements are converted to it and reduced in it (an int8 sum
//      with dtype int8 wraps; a mean with an integer dtype truncates the quotient). ----

Array sum(const Array& a, Axes axis = {}, bool keepdims = false);
Array sum(const Array& a, Axes axis, bool keepdims, ValueType dtype);
Array prod(const Array& a, Axes axis = {}, bool keepdims = false);
Array prod(const Array& a, Axes axis, bool keepdims, ValueType dtype);
Array min(const Array& a, Axes axis = {}, bool keepdims = false);
Array max(const Array& a, Axes axis = {}, bool keepdims = false);
Array any(const Array& a, Axes axis = {}, bool keepdims = false);
Array all(const Array& a, Axes axis = {}, bool keepdims = false);
Array mean(const Array& a, Axes axis = {}, bool keepdims = false);
Array mean(const Array& a, Axes axis, bool keepdims, ValueType dtype);
/// One axis, or none for the index into the C-order flattening.
Array argmin(const Array& a, std::optional<int> axis = {}, bool keepdims = false);
Array argmax(const Array& a, std::optional<int> axis = {}, bool keepdims = false);

// ---- contractions ----

/// NumPy's einsum with explicit output: "ij,jk->ik" (no ellipsis). Labels not in the output
/// are summed over; the dtype is the operands' promotion.
Array einsum(const std::string& subscripts, const std::vector<Array>& operands);
/// NumPy's matmul: 1-D operands get a dimension added and removed, batch dimensions broadcast.
Array matmul(const Array& a, const Array& b);
/// tensordot over the last `axes` of a and the first of b.
Array tensordot(const Array& a, const Array& b, int axes = 2);
/// tensordot over the given pairs of axes.
Array tensordot(const Array& a, const Array& b, const std::vector<int>& axes_a,
                const std::vector<int>& axes_b);

// ---- shape operators that rename indices (views: nothing is copied) ----

Array permute_dims(const Array& a, std::vector<int> axes);
Array transpose(const Array& a);
Array swapaxes(const Array& a, int axis1, int axis2);
Array moveaxis(const Array& a, int source, int destination);
Array expand_dims(const Array& a, int axis);
/// Removes every size-1 axis, or the given ones (each must have size 1).
Array squeeze(const Array& a, std::optional<std::vector<int>> axes = {});
Array broadcast_to(const Array& a, const std::vector<int64_t>& shape);

// ---- shape operators that move elements (views too: each compiles into the program that
//      reads it, never into a copied array) ----

/// The arrays one after another along `axis`; the other sizes must agree. In the program a
/// concatenation along a dimension that a loop runs over splits that loop into one phase per
/// operand (sequential loops, no per-element test of which operand is active).
Array concatenate(const std::vector<Array>& arrays, int axis = 0);
/// The arrays (all of one shape) along a new axis.
Array stack(const std::vector<Array>& arrays, int axis = 0);
/// NumPy's hstack (1-D arrays concatenate along axis 0, others along 1) and vstack (1-D arrays
/// become rows).
Array hstack(const std::vector<Array>& arrays);
Array vstack(const std::vector<Array>& arrays);
/// Constant padding: `widths[d] = {before, after}` elements of `value` around dimension d
/// (one pair for every dimension, or a single pair for all).
Array pad(const Array& a, std::vector<std::pair<int64_t, int64_t>> widths, const Array& value = 0);
/// The array repeated `reps[d]` times along each dimension (NumPy's tile: fewer reps than
/// dimensions repeat the last ones; more add leading dimensions).
Array tile(const Array& a, std::vector<int64_t> reps);
/// The elements along `axis` (all axes when none) in reverse order: a negative-step slice.
Array flip(const Array& a, std::optional<int> axis = {});
/// The elements in C order in another shape (one size may be -1). A read of the reshaped array
/// computes the linear position in 64-bit arithmetic and reads the operand there (a split of a
/// dimension is an affine subscript `J*i + j`, a collapse the subscripts `k / J`, `k % J`).
Array reshape(const Array& a, std::vector<int64_t> shape);

// ---- text ----

/// An array expression in NumPy's spelling over the named arrays, as `siskin eval` reads it:
/// `sum(A * B.T, axis=1)`, `A @ x`, `where(A > 0, A, 0)`, `A[1:5:2, ::2]`, `np.maximum(A, 1)`.
/// Functions: every operator of the registry by name (ufuncs, user functions), the reductions,
/// argmin/argmax, matmul/dot, tensordot, einsum('ij,jk->ik', ...), transpose/permute_dims,
/// swapaxes, moveaxis, expand_dims, squeeze, broadcast_to; methods `A.sum(axis=0)` likewise;
/// `A.T`. Errors point into the text (line, column, caret).
Array parse_array_expression(std::string_view text, const std::map<std::string, Array>& names);

} // namespace siskin
