#pragma once
// The nodes of a lazy array expression. Every node knows its shape, dtype and fill when it is
// built, so shape and type errors surface at the operation that causes them, not at compute().
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "siskin/array.hpp"

namespace siskin {

/// Where a view reads one dimension of what it wraps: at `offset + stride * o` for the view's
/// dimension `o` (stride may be negative or 0), or at the constant `offset` when `from` is empty.
struct DimSource {
    std::optional<int> from;
    int64_t offset = 0;
    int64_t stride = 1;
};

struct Array::Node {
    enum class Kind {
        Tensor,  // a stored tensor
        Scalar,  // a constant (0-d)
        Call,    // an operator applied element by element; children have this node's shape,
                 // or are 0-d constants
        View,    // index renaming of one child (transpose, slices, broadcasting, ...)
        Reduce,  // op= over `reduced` dimensions of the child (the others kept, in order)
        ArgReduce, // argmin/argmax: the C-order linear position of the first extreme
        Einsum,  // sum over labels not in the output of the product of the children
        Concat,  // the children one after another along `axis` (equal sizes elsewhere)
        Reshape, // the child's elements in C order, in this node's shape
    };
    Kind kind;
    std::vector<int64_t> shape;
    ValueType type = ValueType::Float64;
    siskin::Scalar fill;
    std::vector<Array> children;

    std::shared_ptr<const siskin::Tensor> tensor; // Tensor
    std::string name;                             // Tensor: the name the user gave, if any
    bool weak = false;                            // Scalar: a C++ number (NumPy's weak scalar)
    std::string op;                               // Call: operator; Reduce: reduction operator
                                                  // ("add", "mul", "min", "max", "or", "and");
                                                  // ArgReduce: "min" or "max"
    std::vector<DimSource> sources;               // View: one per dimension of the child
    std::vector<bool> reduced;                    // Reduce, ArgReduce: per child dimension
    std::vector<std::vector<int>> labels;         // Einsum: per child, a label per dimension
    std::vector<int> out_labels;                  // Einsum: a label per output dimension
    int axis = 0;                                 // Concat
};

namespace array_detail {

std::shared_ptr<Array::Node> make_node(Array::Node::Kind kind, std::vector<int64_t> shape,
                                       ValueType type, Scalar fill, std::vector<Array> children);
/// "A (shape (3, 4))" or "an operand of shape (3, 4)" for messages.
std::string describe(const Array& a);
std::string shape_text(const std::vector<int64_t>& shape);
/// `axis` normalised into 0..ndim-1 (negative counts from the end); an Error naming `what`
/// otherwise.
int normalize_axis(int axis, int ndim, const std::string& what);
/// A view of `a` with the given shape and sources (views of views are merged into one).
Array make_view(const Array& a, std::vector<int64_t> shape, std::vector<DimSource> sources);
/// The broadcast shape of `arrays`, or an Error naming `what` and every operand.
std::vector<int64_t> broadcast_shapes(const std::vector<Array>& arrays, const std::string& what);

} // namespace array_detail
} // namespace siskin
