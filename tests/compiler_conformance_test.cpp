// Conformance cases of the Looplets paper (notes §10) that the first levels can express, run
// through the whole compiler: values checked by hand, and the shape of the generated C where it
// says something about the work done (no dense loop over a sparse operand, galloping searches).
#include <cmath>
#include <limits>

#include "compiler_test_util.hpp"

namespace siskin::testing {
namespace {

Tensor list(int64_t n, std::initializer_list<std::pair<std::vector<int64_t>, double>> entries,
            double fill = 0.0) {
    return make({n}, "sparselist(0)", entries, fill);
}

std::map<std::string, TensorSignature> signatures(const std::map<std::string, const Tensor*>& in,
                                                  ValueType out_type = ValueType::Float64,
                                                  Scalar out_fill = Scalar::of(0.0)) {
    std::map<std::string, TensorSignature> s;
    for (const auto& [name, t] : in) s[name] = TensorSignature::of(*t, true);
    TensorSignature out;
    out.format = Format::dense(0);
    out.type = out_type;
    out.fill = out_fill;
    s["s"] = out;
    return s;
}

double dot(const std::string& program, const Tensor& a, const Tensor& b, std::string* c = nullptr) {
    std::map<std::string, const Tensor*> in{{"A", &a}, {"B", &b}};
    if (c) *c = generate_c(ir::parse_program(program), signatures(in));
    return run_compiled(program, in).at("s").at({}).as_double();
}

bool dense_loop_over_i(const std::string& c) { return c.find("for (int64_t i = ") != std::string::npos; }

TEST(CompilerConformance, WalkTimesWalkIsATwoFingerMerge) {
    Tensor a = list(15, {{{0}, 1}, {{3}, 2}, {{5}, 3}, {{9}, 4}});
    Tensor b = list(15, {{{3}, 10}, {{4}, 20}, {{9}, 30}, {{12}, 40}});
    std::string c;
    EXPECT_EQ(dot("for i { s[] += A[i] * B[i] }", a, b, &c), 140.0);
    EXPECT_FALSE(dense_loop_over_i(c)) << c;
    EXPECT_NE(c.find("while ("), std::string::npos) << c;
}

TEST(CompilerConformance, GallopTimesGallop) {
    CoordinateList all;
    all.ndims = 1;
    for (int64_t i = 0; i < 1000; ++i) all.add(std::vector<int64_t>{i}, Scalar::of(1.0));
    Tensor a = Tensor::from_coordinates({1000}, ValueType::Float64, Scalar::of(0.0),
                                        Format::parse("sparselist(0)", 1), all);
    Tensor b = list(1000, {{{499}, 2}, {{999}, 3}});
    std::string c;
    EXPECT_EQ(dot("for i { s[] += A[gallop(i)] * B[gallop(i)] }", a, b, &c), 5.0);
    EXPECT_NE(c.find("siskin_gallop_"), std::string::npos) << c;
    EXPECT_FALSE(dense_loop_over_i(c)) << c;

    Tensor odd = list(8, {{{1}, 1}, {{3}, 1}, {{5}, 1}, {{7}, 1}});
    Tensor even = list(8, {{{0}, 1}, {{2}, 1}, {{4}, 1}, {{6}, 1}, {{7}, 5}});
    EXPECT_EQ(dot("for i { s[] += A[gallop(i)] * B[gallop(i)] }", odd, even), 5.0);
}

TEST(CompilerConformance, LeaderAndFollower) {
    CoordinateList all;
    all.ndims = 1;
    for (int64_t i = 0; i < 1000; ++i) all.add(std::vector<int64_t>{i}, Scalar::of(1.0));
    Tensor a = Tensor::from_coordinates({1000}, ValueType::Float64, Scalar::of(0.0),
                                        Format::parse("sparselist(0)", 1), all);
    Tensor b = list(1000, {{{499}, 2}, {{999}, 3}});
    // B leads (gallop), A follows (walk, fast-forwarded by its seek).
    EXPECT_EQ(dot("for i { s[] += A[walk(i)] * B[gallop(i)] }", a, b), 5.0);
    // A followed by binary search at each entry of B.
    std::string c;
    EXPECT_EQ(dot("for i { s[] += A[follow(i)] * B[i] }", a, b, &c), 5.0);
    EXPECT_NE(c.find("siskin_lower_bound_"), std::string::npos) << c;
    // B walked against a dense vector: only B's entries are visited.
    Tensor ones = Tensor::from_dense({1000}, ValueType::Float64, Scalar::of(0.0), Format::dense(1),
                                     std::vector<Scalar>(1000, Scalar::of(1.0)));
    EXPECT_EQ(dot("for i { s[] += A[i] * B[i] }", ones, b, &c), 5.0);
    EXPECT_FALSE(dense_loop_over_i(c)) << c;
}

TEST(CompilerConformance, ZeroAnnihilatesARun) {
    // Fill regions: A is 7 and B is 0 wherever nothing is stored. Only stored entries are
    // visited: the regions where B holds its fill are never looped over.
    Tensor sevens = list(1000, {{{3}, 1}}, 7.0);
    Tensor zeros = list(1000, {{{3}, 2}, {{500}, 3}}, 0.0);
    std::string c;
    EXPECT_EQ(dot("for i { s[] += A[i] * B[i] }", sevens, zeros, &c), 2.0 + 21.0);
    EXPECT_FALSE(dense_loop_over_i(c)) << c;
}

TEST(CompilerConformance, RunsAreIntegratedNotLooped) {
    auto s = run_compiled("for i in 0:10 { s[] += 2 }", {});
    EXPECT_EQ(s.at("s").at({}).as_int(), 20);
    auto m = run_compiled("for i in 0:10 { m[] min= 3 }", {});
    EXPECT_EQ(m.at("m").at({}).as_int(), 3);
    // A loop whose output is indexed by i must not be collapsed.
    auto y = run_compiled("for i in 0:10 { y[i] += 2 }", {});
    for (int64_t i = 0; i < 10; ++i) EXPECT_EQ(y.at("y").at({i}).as_int(), 2);
    // With a fill, the run of A's fill between entries is summed as one multiplication.
    Tensor a = list(10, {{{4}, 5}}, 1.0);
    EXPECT_EQ(run_compiled("for i { s[] += A[i] }", {{"A", &a}}).at("s").at({}).as_double(), 14.0);
}

TEST(CompilerConformance, SpMSpVAllProtocolsAgree) {
    Tensor a = make({3, 6}, "csr", {{{0, 0}, 1}, {{0, 2}, 2}, {{0, 4}, 3}, {{1, 1}, 4}, {{1, 5}, 5}});
    Tensor x = list(6, {{{2}, 10}, {{5}, 100}});
    for (const char* pa : {"walk", "gallop", "follow"})
        for (const char* px : {"walk", "gallop"}) {
            std::string program = std::string("for i { for j { y[i] += A[i, ") + pa + "(j)] * x[" + px + "(j)] } }";
            auto y = run_compiled(program, {{"A", &a}, {"x", &x}}).at("y");
            EXPECT_EQ(y.at({0}).as_double(), 20.0) << program;
            EXPECT_EQ(y.at({1}).as_double(), 500.0) << program;
            EXPECT_EQ(y.at({2}).as_double(), 0.0) << program;
        }
}

TEST(CompilerConformance, AnnihilationRespectsInfinityAndNaN) {
    // 0 * inf is NaN: a zero of A must not skip an infinite x[j].
    const double inf = std::numeric_limits<double>::infinity();
    Tensor a = make({2, 3}, "csr", {{{0, 0}, 1}});
    Tensor x = make({3}, "dense", {{{0}, 1}, {{1}, inf}, {{2}, 1}});
    auto y = run_compiled("for i { for j { y[i] += A[i, j] * x[j] } }", {{"A", &a}, {"x", &x}}).at("y");
    EXPECT_TRUE(std::isnan(y.at({0}).as_double()));
    EXPECT_TRUE(std::isnan(y.at({1}).as_double()));
    // With finite x the same program skips A's zeros: no dense loop over j in the C.
    Tensor finite_x = make({3}, "dense", {{{0}, 1}, {{1}, 2}, {{2}, 1}});
    auto program = ir::parse_program("for i { for j { y[i] += A[i, j] * x[j] } }");
    std::map<std::string, TensorSignature> sigs{{"A", TensorSignature::of(a, true)},
                                                {"x", TensorSignature::of(finite_x, true)}};
    TensorSignature ys;
    ys.format = Format::dense(1).with_index_bits(32);
    ys.ndims = 1;
    ys.fill = Scalar::of(0.0);
    sigs["y"] = ys;
    std::string c = generate_c(program, sigs);
    EXPECT_EQ(c.find("x_values[j]"), std::string::npos) << c;
    EXPECT_NE(c.find("for (; p < p_end; p++)"), std::string::npos) << c;
    sigs["x"].finite = false;
    EXPECT_NE(generate_c(program, sigs).find("x_values[j]"), std::string::npos);
}

} // namespace
} // namespace siskin::testing
