// Programs whose fills come from their text (`fill A = inf`): compiled code equals the reference
// evaluator, an input of another fill is refused by both, a declared output fill acts as
// OutputSpec::fill (the impossible-fill error included), and a contradicting OutputSpec or
// signature is refused.
#include <cmath>
#include <limits>

#include "compiler_test_util.hpp"
#include "ir_test_support.hpp"

namespace siskin::testing {
namespace {

using ir::test::expect_error;

const double kInf = std::numeric_limits<double>::infinity();

std::vector<double> dense_values(const Tensor& t) {
    std::vector<double> out;
    for (const Scalar& s : t.to_dense()) out.push_back(s.as_double());
    return out;
}

// Both engines refuse the program with a message holding `part`.
void both_refuse(const std::string& text, const std::map<std::string, const Tensor*>& in,
                 const std::map<std::string, OutputSpec>& specs, const std::string& part) {
    SCOPED_TRACE(text);
    ir::Program p = ir::parse_program(text);
    expect_error([&] { evaluate_reference(p, in, specs); }, part);
    expect_error([&] { evaluate_compiled(p, in, specs, test_options()); }, part);
}

TEST(FillsCompiled, MinPlusWithFillsFromTheText) {
    // A row i: y[i] = min_j A[i,j] + x[j], where an unstored A or x is +inf (no edge).
    Tensor A = make({3, 4}, "csr", {{{0, 0}, 1}, {{0, 2}, 4}, {{1, 1}, 2}, {{2, 3}, 0.5}}, kInf);
    Tensor x = make({4}, "sparselist(0)", {{{0}, 10}, {{2}, 1}, {{3}, 7}}, kInf);
    const std::string text = "fill A = inf\nfill x = inf\nfill y = inf\n"
                             "y[i] min= A[i,j] + x[j]";
    for (const char* format : {"dense", "sparselist(0)"}) {
        auto y = compiled_matching_reference(text, {{"A", &A}, {"x", &x}}, {{"y", with_format(format, 1)}}).at("y");
        EXPECT_TRUE(y.fill().same(Scalar::of(kInf))) << format;
        // Row 0: min(1 + 10, 4 + 1) = 5; row 1: 2 + inf; row 2: 0.5 + 7.
        EXPECT_EQ(dense_values(y), (std::vector<double>{5, kInf, 7.5})) << format;
    }
}

TEST(FillsCompiled, MaskedPowerWithItsOutputFillDeclared) {
    // The paper's masked power A^B * !D: its output fill is 1 (0^0 = 1), declared here.
    Tensor b = make({6}, "sparselist(0)", {{{0}, 2}, {{2}, 3}, {{4}, 5}});
    Tensor c = make({6}, "sparselist(0)", {{{0}, 3}, {{1}, 2}, {{4}, 2}});
    CoordinateList dl;
    dl.ndims = 1;
    dl.add(std::vector<int64_t>{4}, Scalar::of(true));
    Tensor d = Tensor::from_coordinates({6}, ValueType::Bool, Scalar::of(false),
                                        Format::parse("sparselist(0)", 1), dl);
    std::map<std::string, const Tensor*> in{{"b", &b}, {"c", &c}, {"d", &d}};
    const std::string body = "a[i] = pow(b[i], c[i]) * !d[i]";
    auto a = compiled_matching_reference("fill a = 1\nfill b = 0\nfill c = 0\nfill d = false\n" + body, in,
                  {{"a", with_format("sparselist(0)", 1)}})
                 .at("a");
    EXPECT_TRUE(a.fill().same(Scalar::of(1.0)));
    // pow: 2^3, 0^2, 3^0, 0^0, 5^2 (masked), 0^0.
    EXPECT_EQ(dense_values(a), (std::vector<double>{8, 0, 1, 1, 0, 1}));
    EXPECT_EQ(stored_coordinates(a), (std::vector<std::vector<int64_t>>{{0}, {1}, {4}}));
    // Fill 0 is impossible for a sparse output (the program gives 1 where the inputs are fill),
    // the same error as OutputSpec::fill gives; a dense output takes it.
    both_refuse("fill a = 0\n" + body, in, {{"a", with_format("sparselist(0)", 1)}},
                "output a cannot have fill 0: where every input holds its fill the program "
                "gives it 1");
    auto a0 = compiled_matching_reference("fill a = 0\n" + body, in).at("a");
    EXPECT_TRUE(a0.fill().same(Scalar::of(0.0)));
    EXPECT_EQ(dense_values(a0), (std::vector<double>{8, 0, 1, 1, 0, 1}));
}

TEST(FillsCompiled, MaxWithIdentityAndAnotherFill) {
    // max with identity -inf on A and fill 42 on B: the output's fill is 42, declared or not.
    Tensor A = make({2, 3}, "csr", {{{0, 1}, 50}, {{1, 2}, 3}}, -kInf);
    Tensor B = make({2, 3}, "csr", {{{0, 0}, 7}, {{1, 2}, 99}}, 42);
    std::map<std::string, const Tensor*> in{{"A", &A}, {"B", &B}};
    const std::string body = "C[i,j] = max(A[i,j], B[i,j])";
    for (const char* header : {"fill A = -inf\nfill B = 42\n",
                               "fill A = -inf\nfill B = 42\nfill C = 42\n"}) {
        auto C = compiled_matching_reference(std::string(header) + body, in, {{"C", with_format("csr", 2)}}).at("C");
        EXPECT_TRUE(C.fill().same(Scalar::of(42.0))) << header;
        EXPECT_EQ(dense_values(C), (std::vector<double>{7, 50, 42, 42, 42, 99})) << header;
    }
    both_refuse("fill C = 0\n" + body, in, {{"C", with_format("csr", 2)}},
                "output C cannot have fill 0");
}

TEST(FillsCompiled, DifferentialOverFills) {
    // Every fill of issue 4's list, given to the inputs by the text only: compiled == reference.
    const double kNaN = std::numeric_limits<double>::quiet_NaN();
    // (Each case compiles a kernel: B takes three of the fills to keep the test short.)
    const std::vector<std::pair<std::string, double>> fills = {
        {"0", 0.0}, {"1", 1.0}, {"inf", kInf}, {"-inf", -kInf}, {"nan", kNaN}};
    const std::vector<std::pair<std::string, double>> b_fills = {
        {"0", 0.0}, {"inf", kInf}, {"nan", kNaN}};
    const std::vector<std::string> bodies = {
        "C[i,j] = min(A[i,j], B[i,j])",
        "C[i,j] = A[i,j] * B[i,j]",
        "y[i] += A[i,j] + B[i,j]",
    };
    uint64_t seed = 1;
    for (const auto& [fa_text, fa] : fills)
        for (const auto& [fb_text, fb] : b_fills)
            for (const auto& body : bodies) {
                Tensor A = random_matrix_of(5, 6, 0.3, "csr", seed++, fa,
                                            [](double u) { return std::floor(u * 8) - 3; });
                Tensor B = random_matrix_of(5, 6, 0.3, "dcsr", seed++, fb,
                                            [](double u) { return std::floor(u * 8) - 3; });
                std::string text = "fill A = " + fa_text + "\nfill B = " + fb_text + "\n" + body;
                SCOPED_TRACE(text);
                compiled_matching_reference(text, {{"A", &A}, {"B", &B}});
            }
}

TEST(FillsCompiled, AnInputOfAnotherFillIsRefused) {
    Tensor A = make({2, 2}, "csr", {{{0, 0}, 1}}); // fill 0
    Tensor x = make({2}, "dense", {});
    both_refuse("fill A = inf\ny[i] min= A[i,j] + x[j]", {{"A", &A}, {"x", &x}}, {},
                "input A has fill 0 (float64), but the program declares fill A = inf (line 1)");
    // An integer tensor cannot meet a fractional declaration.
    Tensor n = Tensor({2}, ValueType::Int64, Scalar::of(int64_t{0}), Format::dense(1));
    both_refuse("\n\nfill n = 0.5\ny[i] = n[i]", {{"n", &n}}, {},
                "input n has fill 0 (int64), but the program declares fill n = 0.5 (line 3)");
    // Declared 0 is met by a float64 0.0 and a bool false alike.
    Tensor m = Tensor({2}, ValueType::Bool, Scalar::of(false), Format::dense(1));
    compiled_matching_reference("fill A = 0\nfill m = 0\nC[i,j] = A[i,j] * m[j]", {{"A", &A}, {"m", &m}});
    // compile() checks the signatures it is given.
    ir::Program p = ir::parse_program("fill A = inf\ny[i] min= A[i,j]");
    TensorSignature a = TensorSignature::of(A);
    TensorSignature y;
    y.format = Format::dense(1).with_index_bits(32);
    y.ndims = 1;
    y.fill = Scalar::of(kInf);
    expect_error([&] { compile(p, {{"A", a}, {"y", y}}, test_options()); },
                 "the signature of A has fill 0 (float64), but the program declares fill A = inf "
                 "(line 1)");
    a.fill = Scalar::of(kInf);
    y.fill = Scalar::of(0.0);
    ir::Program q = ir::parse_program("fill y = inf\ny[i] min= A[i,j]");
    expect_error([&] { generate_c(q, {{"A", a}, {"y", y}}); },
                 "the signature of y has fill 0 (float64), but the program declares fill y = inf");
}

TEST(FillsCompiled, OutputSpecsMustAgreeWithTheText) {
    Tensor A = make({2, 2}, "csr", {{{0, 0}, 1}, {{1, 0}, 3}}, kInf);
    OutputSpec zero;
    zero.fill = Scalar::of(0.0);
    both_refuse("fill A = inf\nfill y = inf\ny[i] min= A[i,j]", {{"A", &A}}, {{"y", zero}},
                "fill 0 was requested for output y, but the program declares fill y = inf (line 2)");
    // An agreeing spec is fine, in any spelling of the value.
    OutputSpec inf32;
    inf32.fill = Scalar::of(static_cast<float>(kInf));
    auto y = compiled_matching_reference("fill y = inf\ny[i] min= A[i,j]", {{"A", &A}}, {{"y", inf32}}).at("y");
    EXPECT_EQ(dense_values(y), (std::vector<double>{1, 3}));
    // infer_signatures (siskin c) applies the declaration too.
    auto sigs = infer_signatures(ir::parse_program("fill y = inf\ny[i] min= A[i,j]"),
                                 {{"A", TensorSignature::of(A)}});
    EXPECT_TRUE(sigs.at("y").fill.same(Scalar::of(kInf)));
    TensorSignature zero_a = TensorSignature::of(A);
    zero_a.fill = Scalar::of(0.0);
    expect_error([&] {
        infer_signatures(ir::parse_program("fill A = inf\ny[i] min= A[i,j]"), {{"A", zero_a}});
    }, "input A has fill 0 (float64), but the program declares fill A = inf");
    // An output type that cannot hold the declared fill.
    Tensor k = Tensor({2}, ValueType::Int64, Scalar::of(int64_t{0}), Format::dense(1));
    both_refuse("fill s = inf\ns[] += k[i]", {{"k", &k}}, {},
                "output s cannot have fill inf: it is not a value of the output's type int64");
}

} // namespace
} // namespace siskin::testing
