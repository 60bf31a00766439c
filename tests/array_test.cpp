// The lazy array layer (include/siskin/array.hpp) against a direct NumPy model
// (array_numpy_model.hpp): random chains of shape and compute operators over formats and fills,
// compiled and through the reference evaluator; types, default formats, fusion and errors.
#include <cmath>
#include <random>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "array_numpy_model.hpp"
#include "array_test_util.hpp"
#include "compiler_test_util.hpp"
#include "siskin/array.hpp"
#include "siskin/error.hpp"

namespace siskin::testing {
namespace {

/// Equal shapes and types, and every element the same value (floats within a relative 1e-9:
/// compiled sums may be reassociated).
void expect_matches(const Tensor& got, const NdArray& want, const std::string& what) {
    ASSERT_EQ(got.shape(), want.shape) << what;
    ASSERT_EQ(got.type(), want.type) << what << ": " << type_name(got.type()) << " vs "
                                     << type_name(want.type);
    std::vector<Scalar> g = got.to_dense();
    for (size_t k = 0; k < g.size(); ++k) {
        const Scalar &a = g[k], &b = want.data[k];
        bool ok = a.same_value(b);
        if (!ok && is_float(a.type()) && std::isfinite(a.as_double()) &&
            std::isfinite(b.as_double()))
            ok = std::abs(a.as_double() - b.as_double()) <=
                 1e-9 * std::max(1.0, std::abs(b.as_double()));
        ASSERT_TRUE(ok) << what << ": element " << k << " is " << a.to_string() << ", NumPy gives "
                        << b.to_string();
    }
}

/// An array built twice: lazily, and in the NumPy model.
struct Pair {
    Array lazy;
    NdArray model;
    std::string text;
};

class ChainGenerator {
public:
    explicit ChainGenerator(uint32_t seed) : rng_(seed) {}

    Pair leaf(std::vector<int64_t> shape) {
        static const char* const formats2[] = {"dense", "csr", "csc", "coo", "dcsr"};
        static const char* const formats1[] = {"dense", "sparselist(0)"};
        static const double fills[] = {0.0, 0.0, 1.0, -2.5};
        std::string format = shape.size() == 2 ? formats2[pick(5)]
                             : shape.size() == 1 ? formats1[pick(2)]
                                                 : "dense";
        double fill = fills[pick(4)];
        int64_t n = 1;
        for (int64_t d : shape) n *= d;
        std::vector<Scalar> values;
        for (int64_t k = 0; k < n; ++k)
            values.push_back(Scalar::of(pick(10) < 4 ? static_cast<double>(pick(7)) - 3.0 : fill));
        Tensor t = Tensor::from_dense(shape, ValueType::Float64, Scalar::of(fill),
                                      Format::parse(format, static_cast<int>(shape.size())), values);
        std::string name = fmt::format("L{}", leaves_++);
        NdArray m = NdArray::of(t);
        return {Array(std::move(t), name), m, fmt::format("{}:{}:fill {}", name, format, fill)};
    }

    /// One more operator on top of `p`.
    Pair step(const Pair& p) {
        const int nd = p.lazy.ndim();
        switch (pick(16)) {
        case 0: { // binary ufunc with a broadcastable operand
            static const char* const ops[] = {"add", "mul", "sub", "maximum", "minimum"};
            std::string op = ops[pick(5)];
            std::vector<int64_t> s = p.lazy.shape();
            if (!s.empty() && pick(2)) s[pick(static_cast<int>(s.size()))] = 1;
            if (s.size() > 1 && pick(3) == 0) s.erase(s.begin());
            Pair q = leaf(s);
            bool swap = pick(2);
            const Pair& x = swap ? q : p;
            const Pair& y = swap ? p : q;
            return {ufunc(op, {x.lazy, y.lazy}), np_ufunc(op, {x.model, y.model}),
                    fmt::format("{}({}, {})", op, x.text, y.text)};
        }
        case 1: { // unary, or a strong scalar operand
            if (pick(2)) return {abs(p.lazy), np_ufunc("abs", {p.model}), "abs(" + p.text + ")"};
            Scalar two = Scalar::of(2.0);
            return {p.lazy * Array(two), np_ufunc("mul", {p.model, NdArray{{}, two.type(), {two}}}),
                    "(" + p.text + " * 2)"};
        }
        case 2: { // where(x > 0, x, other)
            Pair q = leaf(p.lazy.shape());
            Scalar zero = Scalar::of(0.0);
            NdArray z{{}, zero.type(), {zero}};
            return {where(p.lazy > Array(zero), p.lazy, q.lazy),
                    np_ufunc("ifelse", {np_ufunc("gt", {p.model, z}), p.model, q.model}),
                    fmt::format("where({0} > 0, {0}, {1})", p.text, q.text)};
        }
        case 3: { // transpose
            if (nd < 2) break;
            std::vector<int> axes(nd);
            std::iota(axes.rbegin(), axes.rend(), 0);
            return {p.lazy.T(), np_transpose(p.model, axes), p.text + ".T"};
        }
        case 4: { // slice with a positive step
            if (nd < 1) break;
            int ax = pick(nd);
            int64_t n = p.lazy.shape()[ax];
            int64_t lo = pick(static_cast<int>(n) + 1) - (pick(3) == 0 ? n : 0);
            int64_t hi = n - pick(static_cast<int>(n) + 1);
            int64_t st = 1 + pick(2);
            std::vector<IndexItem> items(ax, IndexItem::all());
            items.push_back(IndexItem::slice(lo, hi, st));
            return {p.lazy[items], np_slice(p.model, ax, lo, hi, st),
                    fmt::format("{}[{}{}:{}:{}]", p.text, std::string(ax * 2, ':'), lo, hi, st)};
        }
        case 5: { // an integer index
            if (nd < 2) break;
            int ax = pick(nd);
            int64_t n = p.lazy.shape()[ax];
            if (n == 0) break;
            int64_t i = pick(static_cast<int>(n)) - (pick(2) ? n : 0);
            std::vector<IndexItem> items(ax, IndexItem::all());
            items.push_back(IndexItem::at(i));
            return {p.lazy[items], np_take(p.model, ax, i),
                    fmt::format("{}[axis {} = {}]", p.text, ax, i)};
        }
        case 6: { // expand_dims then broadcast over the new axis
            if (nd > 2) break;
            int ax = pick(nd + 1);
            std::vector<int64_t> s = p.lazy.shape();
            s.insert(s.begin() + ax, 2);
            Array e = broadcast_to(expand_dims(p.lazy, ax), s);
            return {e, np_broadcast_to(np_expand(p.model, ax), s),
                    fmt::format("broadcast(expand_dims({}, {}))", p.text, ax)};
        }
        case 7:
        case 8: { // a reduction along one axis
            if (nd < 1) break;
            int ax = pick(nd);
            bool keep = pick(2);
            const ValueType t = p.model.type;
            const ValueType st = t == ValueType::Bool ? ValueType::Int64 : t;
            switch (pick(3)) {
            case 0:
                return {sum(p.lazy, ax, keep),
                        np_reduce(p.model, "add", {ax}, keep, st, Scalar::zero(st)),
                        fmt::format("sum({}, {}, {})", p.text, ax, keep)};
            case 1:
                if (p.lazy.shape()[ax] == 0) break;
                return {max(p.lazy, ax, keep),
                        np_reduce(p.model, "max", {ax}, keep, t,
                                  *find_operator("max").reduction_identity(t)),
                        fmt::format("max({}, {}, {})", p.text, ax, keep)};
            default:
                return {any(p.lazy, ax, keep),
                        np_reduce(p.model, "or", {ax}, keep, ValueType::Bool, Scalar::of(false)),
                        fmt::format("any({}, {}, {})", p.text, ax, keep)};
            }
            break;
        }
        case 9: { // matmul with a new matrix
            if (nd != 2 || p.lazy.dtype() != ValueType::Float64) break;
            Pair q = leaf({p.lazy.shape()[1], 3});
            return {matmul(p.lazy, q.lazy), np_matmul2(p.model, q.model),
                    fmt::format("({} @ {})", p.text, q.text)};
        }
        case 11: { // concatenate with a new operand
            if (nd < 1) break;
            int ax = pick(nd);
            std::vector<int64_t> s = p.lazy.shape();
            s[ax] = 1 + pick(3);
            Pair q = leaf(s);
            return {concatenate({p.lazy, q.lazy}, ax), np_concatenate({p.model, q.model}, ax),
                    fmt::format("concatenate(({}, {}), {})", p.text, q.text, ax)};
        }
        case 12: { // constant padding
            if (nd < 1) break;
            std::vector<std::pair<int64_t, int64_t>> widths;
            for (int d = 0; d < nd; ++d) widths.push_back({pick(2), pick(3)});
            const Scalar c = Scalar::of(pick(2) ? 0.0 : 1.5).cast(p.lazy.dtype());
            NdArray m = p.model;
            for (int d = 0; d < nd; ++d) {
                auto block = [&](int64_t w) {
                    auto s = m.shape;
                    s[d] = w;
                    return np_constant(s, c);
                };
                m = np_concatenate({block(widths[d].first), m, block(widths[d].second)}, d);
            }
            return {pad(p.lazy, widths, Array(c)), m, fmt::format("pad({}, {})", p.text, c.to_string())};
        }
        case 13: { // reshape: flatten, or two rows
            std::vector<int64_t> s = {-1};
            int64_t n = p.model.size();
            if (n % 2 == 0 && pick(2)) s = {2, -1};
            std::vector<int64_t> real = s.size() == 1 ? std::vector<int64_t>{n}
                                                      : std::vector<int64_t>{2, n / 2};
            return {reshape(p.lazy, s), np_reshape(p.model, real),
                    fmt::format("reshape({}, {})", p.text, real.size())};
        }
        case 14: { // tile along the last axis
            if (nd < 1) break;
            Array t = tile(p.lazy, {2});
            return {t, np_concatenate({p.model, p.model}, nd - 1), "tile(" + p.text + ", 2)"};
        }
        case 15: { // stack with a new operand
            Pair q = leaf(p.lazy.shape());
            if (p.lazy.dtype() != ValueType::Float64) break;
            return {stack({p.lazy, q.lazy}, 0),
                    np_concatenate({np_expand(p.model, 0), np_expand(q.model, 0)}, 0),
                    fmt::format("stack(({}, {}))", p.text, q.text)};
        }
        default: { // swapaxes on 3-D, squeeze on a size-1 axis
            for (int ax = 0; ax < nd; ++ax)
                if (p.lazy.shape()[ax] == 1)
                    return {squeeze(p.lazy, std::vector<int>{ax}), np_take(p.model, ax, 0),
                            fmt::format("squeeze({}, {})", p.text, ax)};
            if (nd == 3)
                return {swapaxes(p.lazy, 0, 2), np_transpose(p.model, {2, 1, 0}),
                        "swapaxes(" + p.text + ", 0, 2)"};
        }
        }
        return p;
    }

    int pick(int n) { return static_cast<int>(rng_() % static_cast<uint32_t>(n)); }

private:
    std::mt19937 rng_;
    int leaves_ = 0;
};

TEST(Arrays, RandomChainsMatchNumPyCompiledAndInterpreted) {
    int checked = 0;
    for (uint32_t seed = 1; seed <= 22; ++seed) {
        ChainGenerator gen(seed);
        Pair p = gen.leaf({3 + gen.pick(2), 4});
        int steps = 2 + gen.pick(3);
        for (int k = 0; k < steps; ++k) p = gen.step(p);
        SCOPED_TRACE(fmt::format("seed {}: {}\n{}", seed, p.text, p.lazy.program_text()));
        try {
            expect_matches(p.lazy.compute(interpreted()), p.model, "interpreted");
            expect_matches(p.lazy.compute(compiled()), p.model, "compiled");
        } catch (const Error& e) {
            ADD_FAILURE() << e.what();
            continue;
        }
        if (p.lazy.ndim() == 2 && seed % 3 == 0) {
            // A requested format: the result's loops follow its storage order.
            ComputeOptions o = compiled();
            o.format = Format::parse(seed % 2 == 0 ? "csc" : "coo", 2);
            std::optional<Tensor> t;
            try {
                t = p.lazy.compute(o);
            } catch (const Error& e) {
                ADD_FAILURE() << e.what();
                continue;
            }
            EXPECT_EQ(t->format().levels()[0].kind, o.format->levels()[0].kind);
            expect_matches(*t, p.model, "compiled into " + o.format->to_string());
        }
        ++checked;
    }
    EXPECT_EQ(checked, 22);
}

} // namespace
} // namespace siskin::testing

namespace siskin::testing {
namespace {

Tensor matrix(const std::string& format, double fill = 0.0) {
    return make({3, 4}, format, {{{0, 1}, 2.0}, {{1, 3}, -1.0}, {{2, 0}, 4.0}, {{2, 3}, 5.0}}, fill);
}

Tensor vector_of(std::vector<double> v, ValueType type = ValueType::Float64) {
    std::vector<Scalar> s;
    for (double x : v) s.push_back(Scalar::of(x).cast(type));
    return Tensor::from_dense({static_cast<int64_t>(v.size())}, type, Scalar::zero(type),
                              Format::dense(1), s);
}

TEST(Arrays, TypesFollowNumPyWithWeakScalars) {
    Array i8(vector_of({1, 2, 3}, ValueType::Int8));
    Array f32(vector_of({1, 2, 3}, ValueType::Float32));
    EXPECT_EQ((i8 + 1).dtype(), ValueType::Int8);         // a Python int adopts int8
    EXPECT_EQ((i8 + 1.5).dtype(), ValueType::Float64);    // a float meeting integers
    EXPECT_EQ((f32 * 2.0).dtype(), ValueType::Float32);   // stays float32
    EXPECT_EQ((i8 + Array(Scalar::of(int64_t{1}))).dtype(), ValueType::Int64); // strong scalar
    EXPECT_EQ((i8 / 2).dtype(), ValueType::Float64);
    EXPECT_EQ(sum(i8).dtype(), ValueType::Int64);
    EXPECT_EQ(sum(i8 > 1).dtype(), ValueType::Int64);
    EXPECT_EQ(mean(i8).dtype(), ValueType::Float64);
    EXPECT_EQ(mean(f32).dtype(), ValueType::Float32);
    EXPECT_EQ(any(f32).dtype(), ValueType::Bool);
    EXPECT_EQ(argmax(f32).dtype(), ValueType::Int64);
    // int8 sums wrap in NumPy only past int64: 100 + 100 + 100 is 300.
    Array big(vector_of({100, 100, 100}, ValueType::Int8));
    EXPECT_EQ(sum(big).compute(compiled()).at({}).as_int(), 300);
    EXPECT_EQ(mean(f32).compute(compiled()).at({}).as_double(), 2.0);
}

TEST(Arrays, ReductionsArgReductionsAndContractions) {
    Tensor a = matrix("csr", 0.0);
    Array A(a, "A");
    NdArray m = NdArray::of(a);
    expect_matches(argmax(A, 1).compute(compiled()), NdArray{{3}, ValueType::Int64,
                   {Scalar::of(int64_t{1}), Scalar::of(int64_t{0}), Scalar::of(int64_t{3})}},
                   "argmax axis 1");
    // The flat C-order position of the first minimum (-1 at (1, 3)).
    EXPECT_EQ(argmin(A).compute(compiled()).at({}).as_int(), 7);
    EXPECT_EQ(argmax(A, 0, true).shape(), (std::vector<int64_t>{1, 4}));
    expect_matches(prod(A + 1, 0).compute(compiled()),
                   np_reduce(np_ufunc("add", {m, NdArray{{}, ValueType::Float64, {Scalar::of(1.0)}}}),
                             "mul", {0}, false, ValueType::Float64, Scalar::of(1.0)),
                   "prod");
    expect_matches(all(A, {0, 1}, true).compute(compiled()),
                   np_reduce(m, "and", {0, 1}, true, ValueType::Bool, Scalar::of(true)), "all");
    Tensor b = make({4, 2}, "csc", {{{0, 0}, 1.0}, {{3, 1}, 2.0}, {{1, 1}, 3.0}});
    Array B(b, "B");
    NdArray mb = NdArray::of(b);
    NdArray ab = np_matmul2(m, mb);
    expect_matches(matmul(A, B).compute(compiled()), ab, "A @ B");
    expect_matches(einsum("ij,jk->ik", {A, B}).compute(compiled()), ab, "einsum");
    expect_matches(tensordot(A, B, 1).compute(compiled()), ab, "tensordot");
    expect_matches(einsum("ij,jk->ki", {A, B}).compute(compiled()), np_transpose(ab, {1, 0}),
                   "einsum into a transposed output");
    // A vector operand: matmul drops the added dimension again.
    Array x(vector_of({1, 2, 3, 4}), "x");
    EXPECT_EQ(matmul(A, x).shape(), (std::vector<int64_t>{3}));
    EXPECT_EQ(matmul(x, B).shape(), (std::vector<int64_t>{2}));
    EXPECT_EQ(matmul(A, x).compute(compiled()).at({2}).as_double(), 4.0 + 20.0);
}

TEST(Arrays, ElementwiseChainsAndViewsFuseIntoOneStatement) {
    Array A(matrix("csr"), "A");
    Array x(vector_of({1, 2, 3, 4}), "x");
    Array e = where(A > 0, A * x, -A)[{IndexItem::slice(1, std::nullopt)}].T() * 2.0;
    ir::Program p = e.program();
    // One statement writing the result: no temporary for any of the views or calls.
    EXPECT_EQ(p.outputs(), std::vector<std::string>{"out"});
    EXPECT_NE(e.program_text().find("A[i1(1:3), i0]"), std::string::npos) << e.program_text();
    // A reduction below the root is one dense temporary.
    Array r = sum(A, 1) + 1.0;
    EXPECT_EQ(r.program().outputs(), (std::vector<std::string>{"tmp0", "out"}));
}

TEST(Arrays, DefaultFormatIsTheLeadingSparseOperands) {
    Array A(matrix("csr"), "A");
    Array D(matrix("dense"), "D");
    EXPECT_EQ((A * D).compute(compiled()).format().to_string(), "dense(0)@32/sparselist(1)@32");
    EXPECT_EQ((A + D).compute(compiled()).format().levels()[1].kind, "dense");
    Tensor t = A.T().compute(compiled());
    EXPECT_EQ(t.format().levels()[0].modes, std::vector<int>{1}); // csr read transposed is csc
    EXPECT_TRUE(t.equals(A.T().compute(interpreted())));
    EXPECT_EQ(sum(A, 0).compute(compiled()).format().levels()[0].kind, "sparselist");
    EXPECT_EQ(sum(A, 1).compute(compiled()).format().levels()[0].kind, "dense");
    ComputeOptions coo = compiled();
    coo.format = Format::coo(2);
    Tensor c = (A * 3.0).compute(coo);
    EXPECT_EQ(c.format().levels()[0].kind, "coo");
    EXPECT_EQ(c.at({2, 3}).as_double(), 15.0);
}

TEST(Arrays, IndexingFollowsPython) {
    Array A(matrix("dense"), "A");
    NdArray m = NdArray::of(matrix("dense"));
    expect_matches(A[{IndexItem::ellipsis(), IndexItem::at(-1)}].compute(compiled()),
                   np_take(m, 1, 3), "A[..., -1]");
    expect_matches(A[{IndexItem::new_axis(), IndexItem::slice(-2, 100)}].compute(compiled()),
                   np_expand(np_slice(m, 0, 1, 3, 1), 0), "A[None, -2:100]");
    // Negative steps read backwards (tests/array_flip_test.cpp has them across formats).
    Array rev = A[{IndexItem::slice(std::nullopt, std::nullopt, -2)}];
    expect_matches(rev.compute(interpreted()), np_slice(m, 0, 2, -4, -2), "A[::-2]");
    expect_matches(rev.compute(compiled()), np_slice(m, 0, 2, -4, -2), "A[::-2] compiled");
}

TEST(Arrays, ShapeErrorsNameOperatorOperandsAndSizes) {
    Array A(matrix("csr"), "A");
    Array y(vector_of({1, 2, 3}), "y");
    EXPECT_EQ(error_message([&] { (void)(A + y); }),
              "add: operands could not be broadcast together: A (shape (3, 4)), y (shape (3,)) "
              "(dimension 1 from the end has sizes 4 and 3)");
    EXPECT_EQ(error_message([&] { (void)matmul(A, A); }),
              "matmul: the last dimension of A (shape (3, 4)) has size 4 but the second-to-last "
              "of A (shape (3, 4)) has size 3");
    EXPECT_EQ(error_message([&] { (void)einsum("ij,jk->ik", {A, A}); }),
              "einsum: subscript 'j' has size 4 in A (shape (3, 4)) but size 3 in A (shape (3, 4))");
    EXPECT_EQ(error_message([&] { (void)sum(A, 2); }),
              "sum: axis 2 is out of bounds for an array of 2 dimensions");
    EXPECT_EQ(error_message([&] { (void)A[{IndexItem::at(3)}]; }),
              "indexing: index 3 is out of bounds for axis 0 of A (shape (3, 4)) (size 3)");
    EXPECT_EQ(error_message([&] { (void)broadcast_to(y, {3, 2}); }),
              "broadcast_to: y (shape (3,)) cannot be broadcast to shape (3, 2)");
    EXPECT_EQ(error_message([&] { (void)squeeze(A, std::vector<int>{0}); }),
              "squeeze: axis 0 of A (shape (3, 4)) has size 3, not 1");
    EXPECT_EQ(error_message([&] { (void)(A << 1); }).rfind("shl: ", 0), 0u);
}

} // namespace
} // namespace siskin::testing
