// Float reductions along a fibre with four partial results (codegen split_accumulators,
// CompileOptions::reassociate): every fibre length around the split (0-15 entries: fibres of
// eight or more split, with 0-3 left over), every format that walks a fibre, sum and product,
// float32 and float64. Values that add exactly
// (small integers) give the reference evaluator's result bit for bit; real values agree up to
// rounding, and exactly again with reassociate off. Integer sums keep the order.
#include <cmath>
#include <optional>
#include <random>

#include "compiler_test_util.hpp"

namespace siskin::testing {
namespace {

bool has(const std::string& c, const std::string& what) { return c.find(what) != std::string::npos; }

// Rows of every length from 0 to 15 (row i holds i % 16 entries at scattered columns), entry k
// of row i holding value(rng, i, k), the unstored elements `fill` (zero by default).
template <class Value>
Tensor rows_of_every_length(const std::string& format, ValueType type, Value value, uint64_t seed,
                            std::optional<Scalar> fill = std::nullopt) {
    std::mt19937_64 rng(seed);
    const int64_t m = 48, n = 40;
    CoordinateList list;
    list.ndims = 2;
    for (int64_t i = 0; i < m; ++i)
        for (int64_t k = 0; k < i % 16; ++k) list.add(std::vector<int64_t>{i, (k * 7 + i) % n}, value(rng, i, k));
    return Tensor::from_coordinates({m, n}, type, fill.value_or(Scalar::zero(type)), Format::parse(format, 2), list);
}

Tensor vector_of(int64_t n, ValueType type, double (*value)(int64_t)) {
    std::vector<Scalar> xs;
    for (int64_t j = 0; j < n; ++j) xs.push_back(Scalar::of(value(j)).cast(type));
    return Tensor::from_dense({n}, type, Scalar::zero(type), Format::dense(1), xs);
}

Scalar small_integer(std::mt19937_64& rng, int64_t = 0, int64_t = 0) {
    return Scalar::of(static_cast<double>(std::uniform_int_distribution<int>(-8, 8)(rng)));
}
Scalar real_value(std::mt19937_64& rng, int64_t, int64_t) {
    return Scalar::of(std::uniform_real_distribution<double>(-1, 1)(rng));
}

TEST(CompilerReassociation, ExactSumsMatchTheReferenceForEveryRowLength) {
    for (const char* format : {"csr", "dense", "coo", "csc"})
        for (ValueType type : {ValueType::Float64, ValueType::Float32}) {
            SCOPED_TRACE(std::string(format) + " " + std::string(type_name(type)));
            Tensor A = rows_of_every_length(
                format, type, [&](std::mt19937_64& rng, int64_t, int64_t) { return small_integer(rng).cast(type); }, 7);
            Tensor x = vector_of(40, type, [](int64_t j) { return static_cast<double>(j % 5) - 2; });
            compiled_matching_reference("y[i] += A[i,j] * x[j]", {{"A", &A}, {"x", &x}});
            compiled_matching_reference("r[i] += A[i,j]", {{"A", &A}});
            compiled_matching_reference("s[] += A[i,j] * A[i,j]", {{"A", &A}});
        }
}

TEST(CompilerReassociation, ProductsAlongARowMatchTheReference) {
    // Powers of two multiply exactly in any order. The fill 1 makes the product a walk of the
    // stored entries; an infinite entry leaves no zero to stop at early, so the walk is plain.
    Tensor B = rows_of_every_length("csr", ValueType::Float64, [](std::mt19937_64& rng, int64_t i, int64_t k) {
        double v = std::ldexp(1.0, std::uniform_int_distribution<int>(-3, 3)(rng));
        return Scalar::of(i == 30 && k == 2 ? INFINITY : v);
    }, 11, Scalar::of(1.0));
    auto got = compiled_matching_reference("p[i] *= B[i,j]", {{"B", &B}});
    EXPECT_TRUE(std::isinf(got.at("p").at({30}).as_double()));
    ir::Program program = ir::parse_program("p[i] *= B[i,j]");
    auto sigs = infer_signatures(program, {{"B", TensorSignature::of(B, true)}});
    std::string c = generate_c(program, sigs);
    EXPECT_TRUE(has(c, "p_values_row_3")) << c;
}

TEST(CompilerReassociation, RealSumsAgreeUpToRoundingAndExactlyInOrder) {
    Tensor A = rows_of_every_length("csr", ValueType::Float64, real_value, 3);
    Tensor x = vector_of(40, ValueType::Float64, [](int64_t j) { return 1.0 / (j + 3); });
    ir::Program p = ir::parse_program("y[i] += A[i,j] * x[j]");
    std::map<std::string, const Tensor*> inputs{{"A", &A}, {"x", &x}};
    Tensor want = evaluate_reference(p, inputs).at("y");
    Tensor got = evaluate_compiled(p, inputs, {}, test_options()).at("y");
    CompileOptions in_order = test_options();
    in_order.reassociate = false;
    Tensor ordered = evaluate_compiled(p, inputs, {}, in_order).at("y");
    EXPECT_TRUE(ordered.equals(want)) << ordered.to_string() << "\n" << want.to_string();
    std::vector<Scalar> w = want.to_dense(), g = got.to_dense();
    bool some_differ = false;
    for (size_t i = 0; i < w.size(); ++i) {
        EXPECT_NEAR(g[i].as_double(), w[i].as_double(), 1e-14) << "row " << i;
        some_differ = some_differ || g[i].as_double() != w[i].as_double();
    }
    // Rows of 8 entries or more do reassociate (a check that the partial sums ran at all).
    EXPECT_TRUE(some_differ) << got.to_string();
}

TEST(CompilerReassociation, TheCKeepsPartialsOnlyForFloatReductions) {
    auto c_for = [](ValueType type, bool reassociate) {
        Tensor A = rows_of_every_length(
            "csr", type, [&](std::mt19937_64& rng, int64_t, int64_t) { return small_integer(rng).cast(type); }, 1);
        ir::Program program = ir::parse_program("r[i] += A[i,j]");
        CompileOptions o;
        o.reassociate = reassociate;
        return generate_c(program, infer_signatures(program, {{"A", TensorSignature::of(A, true)}}), o);
    };
    EXPECT_TRUE(has(c_for(ValueType::Float64, true), "r_values_row_3")) << c_for(ValueType::Float64, true);
    EXPECT_TRUE(has(c_for(ValueType::Float32, true), "r_values_row_3"));
    EXPECT_FALSE(has(c_for(ValueType::Float64, false), "r_values_row_1"));
    EXPECT_FALSE(has(c_for(ValueType::Int64, true), "r_values_row_1")) << c_for(ValueType::Int64, true);
    Tensor A = rows_of_every_length("csr", ValueType::Int64, [](std::mt19937_64& rng, int64_t, int64_t) {
        return Scalar::of(static_cast<int64_t>(std::uniform_int_distribution<int>(-8, 8)(rng)));
    }, 5);
    compiled_matching_reference("r[i] += A[i,j]", {{"A", &A}});
}

} // namespace
} // namespace siskin::testing
