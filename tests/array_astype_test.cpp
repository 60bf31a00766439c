// Conversions (astype, the type-named operators), NaN/inf classification and reductions with a
// dtype on lazy arrays: compiled kernels against the reference evaluator and against the values
// Scalar::cast gives element by element, over formats and fills (0, 1, NaN, inf) with NaN, inf,
// huge and negative values stored.
#include <cmath>
#include <limits>
#include <random>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "array_test_util.hpp"
#include "compiler_test_util.hpp"
#include "siskin/array.hpp"
#include "siskin/error.hpp"

namespace siskin::testing {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

/// A seeded 5x4 float64 tensor in `format` with fill `fill`: about half the elements stored,
/// drawn from values that stress conversions (NaN, inf, beyond int64, negative, fractional).
Tensor stressing(const std::string& format, double fill, uint32_t seed) {
    static const double values[] = {0.0,  1.0,   -1.0, 2.75,  -3.5, 300.25, -129.0, 1e19,
                                    -1e19, 4e9, kInf, -kInf, kNaN, 0.5,   65536.0, -0.0};
    std::mt19937 rng(seed);
    std::vector<Scalar> dense;
    for (int k = 0; k < 20; ++k) {
        bool stored = rng() % 2 == 0;
        dense.push_back(Scalar::of(stored ? values[rng() % std::size(values)] : fill));
    }
    return Tensor::from_dense({5, 4}, ValueType::Float64, Scalar::of(fill), Format::parse(format, 2),
                              dense);
}

void expect_same(const Tensor& got, const Tensor& want, const std::string& what) {
    ASSERT_EQ(got.shape(), want.shape()) << what;
    ASSERT_EQ(got.type(), want.type()) << what;
    std::vector<Scalar> g = got.to_dense(), w = want.to_dense();
    for (size_t k = 0; k < g.size(); ++k)
        ASSERT_TRUE(g[k].same(w[k])) << what << ": element " << k << " is " << g[k].to_string()
                                     << ", want " << w[k].to_string();
}

struct Case {
    std::string format;
    double fill;
};

const Case kCases[] = {{"dense", 0.0}, {"csr", 0.0}, {"csc", 1.0}, {"coo", kNaN}, {"dcsr", kInf}};

TEST(ArrayAstype, ConversionsMatchScalarCastCompiledAndInterpreted) {
    const ValueType targets[] = {ValueType::Bool,   ValueType::Int8,   ValueType::Int32,
                                 ValueType::Int64,  ValueType::UInt8,  ValueType::UInt64,
                                 ValueType::Float32};
    int k = 0;
    for (ValueType target : targets) {
        const Case& c = kCases[k % std::size(kCases)];
        Tensor t = stressing(c.format, c.fill, 11 + k++);
        std::string what = fmt::format("astype {} of {} fill {}", type_name(target), c.format, c.fill);
        Array x(t, "X");
        Array y = astype(x, target);
        EXPECT_EQ(y.dtype(), target) << what;
        EXPECT_TRUE(y.fill().same(Scalar::of(c.fill).cast(target))) << what;
        std::vector<Scalar> want;
        for (const Scalar& v : t.to_dense()) want.push_back(v.cast(target));
        Tensor expected = Tensor::from_dense({5, 4}, target, Scalar::of(c.fill).cast(target),
                                             Format::parse("dense", 2), want);
        expect_same(y.compute(compiled()), expected, what + " (compiled)");
        expect_same(y.compute(interpreted()), expected, what + " (interpreted)");
    }
    // The same type is the array itself; a conversion is also program text's `int8(x)`.
    Array x(stressing("csr", 0.0, 3), "X");
    EXPECT_EQ(&astype(x, ValueType::Float64).node(), &x.node());
    EXPECT_NE(astype(x, ValueType::Int8).program_text().find("int8(X["), std::string::npos)
        << astype(x, ValueType::Int8).program_text();
}

TEST(ArrayAstype, ClassificationsGiveBoolForEveryType) {
    int k = 0;
    for (const char* name : {"isnan", "isinf", "isfinite"}) {
        const Case& c = kCases[(k + 2) % std::size(kCases)];
        Tensor t = stressing(c.format, c.fill, 40 + k++);
        Array y = ufunc(name, {Array(t, "X")});
        EXPECT_EQ(y.dtype(), ValueType::Bool) << name;
        std::vector<Scalar> want;
        for (const Scalar& v : t.to_dense()) {
            double d = v.as_double();
            bool r = std::string(name) == "isnan" ? std::isnan(d)
                     : std::string(name) == "isinf" ? std::isinf(d)
                                                    : std::isfinite(d);
            want.push_back(Scalar::of(r));
        }
        Tensor expected = Tensor::from_dense({5, 4}, ValueType::Bool,
                                             ufunc(name, {Array(Scalar::of(c.fill))}).fill(),
                                             Format::parse("dense", 2), want);
        expect_same(y.compute(compiled()), expected, fmt::format("{} of {}", name, c.format));
        expect_same(y.compute(interpreted()), expected, fmt::format("{} of {}", name, c.format));
    }
    // Integers are never NaN or infinite.
    Array i(astype(Array(stressing("csr", 0.0, 5), "X"), ValueType::Int32));
    EXPECT_FALSE(any(ufunc("isnan", {i})).compute(compiled()).at({}).as_bool());
    EXPECT_TRUE(all(ufunc("isfinite", {i})).compute(compiled()).at({}).as_bool());
}

TEST(ArrayAstype, ReductionsWithADtypeConvertThenReduceInIt) {
    // int8 values whose sum wraps in int8 (NumPy's sum(dtype=int8)) but not in the default int64.
    std::vector<Scalar> v;
    for (int k = 0; k < 12; ++k) v.push_back(Scalar::of(static_cast<int64_t>(k % 3 == 0 ? 0 : 100)).cast(ValueType::Int8));
    Tensor t = Tensor::from_dense({3, 4}, ValueType::Int8, Scalar::of(int8_t{0}), Format::parse("csr", 2), v);
    Array x(t, "X");
    Tensor wrapped = sum(x, 1, false, ValueType::Int8).compute(compiled());
    Tensor wide = sum(x, 1).compute(compiled());
    ASSERT_EQ(wrapped.type(), ValueType::Int8);
    ASSERT_EQ(wide.type(), ValueType::Int64);
    for (int64_t r = 0; r < 3; ++r) {
        int64_t total = 0;
        for (int64_t c = 0; c < 4; ++c) total += v[r * 4 + c].as_int();
        EXPECT_EQ(wide.at({r}).as_int(), total) << r;
        EXPECT_EQ(wrapped.at({r}).as_int(), Scalar::of(total).cast(ValueType::Int8).as_int()) << r;
    }
    expect_same(sum(x, 1, false, ValueType::Int8).compute(interpreted()), wrapped, "sum int8 interpreted");

    // A float sum into an integer dtype converts each element first (2.75 -> 2), as NumPy does.
    Tensor f = stressing("csc", 0.0, 7);
    Array F(f, "F");
    Array finite = where(ufunc("isfinite", {F}), F, 0.5) * 0.001;
    Tensor s = sum(finite * 1000.0, {0, 1}, true, ValueType::Int64).compute(compiled());
    ASSERT_EQ(s.shape(), (std::vector<int64_t>{1, 1}));
    int64_t want = 0;
    for (const Scalar& e : f.to_dense()) {
        double d = std::isfinite(e.as_double()) ? e.as_double() : 0.5;
        // Integer sums wrap, as NumPy's do (1e19 saturates to the int64 maximum first).
        want = static_cast<int64_t>(static_cast<uint64_t>(want) +
                                    static_cast<uint64_t>(Scalar::of(d * 0.001 * 1000.0).as_int()));
    }
    EXPECT_EQ(s.at({0, 0}).as_int(), want);
    expect_same(sum(finite * 1000.0, {0, 1}, true, ValueType::Int64).compute(interpreted()), s,
                "sum float into int64 interpreted");

    // prod in float32, mean in float32 and in an integer dtype (the quotient truncated).
    Array small = where(ufunc("isfinite", {F}), F, 1.0) * 0.0 + 1.5;
    EXPECT_EQ(prod(small, 0, false, ValueType::Float32).dtype(), ValueType::Float32);
    Tensor p = prod(small, 0, false, ValueType::Float32).compute(compiled());
    for (int64_t c = 0; c < 4; ++c) EXPECT_EQ(p.at({c}).as_double(), static_cast<double>(std::pow(1.5f, 5)));
    Tensor m32 = mean(small, 1, false, ValueType::Float32).compute(compiled());
    EXPECT_EQ(m32.type(), ValueType::Float32);
    EXPECT_EQ(m32.at({2}).as_double(), 1.5);
    Tensor mi = mean(small, {}, false, ValueType::Int64).compute(compiled());
    EXPECT_EQ(mi.type(), ValueType::Int64);
    EXPECT_EQ(mi.at({}).as_int(), 1); // each 1.5 becomes 1 first, as NumPy converts
}

} // namespace
} // namespace siskin::testing
