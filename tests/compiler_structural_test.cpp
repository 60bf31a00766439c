// The structural levels in compiled code: sparseband, runlist and sparsebytemap read with every
// protocol, the sparsebytemap written in any order (the Gustavson workspace), and the Looplets
// conformance cases that involve runs and bands (notes §10: 1, 6 and the run integration of 25).
// Values are checked by hand; the generated C is checked where its shape is the point (a run is
// one step, not a loop over its coordinates).
#include <algorithm>

#include "compiler_test_util.hpp"

namespace siskin::testing {
namespace {

// A float64 vector of `format` holding `values` densely (equal neighbours merge into runs).
Tensor vec(const std::string& format, const std::vector<double>& values, double fill = 0.0) {
    CoordinateList e;
    e.ndims = 1;
    for (size_t i = 0; i < values.size(); ++i)
        if (values[i] != fill) e.add(std::vector<int64_t>{static_cast<int64_t>(i)}, Scalar::of(values[i]));
    return Tensor::from_coordinates({static_cast<int64_t>(values.size())}, ValueType::Float64,
                                    Scalar::of(fill), Format::parse(format, 1), e);
}

// The C of a program over these inputs with a float64 scalar output s.
std::string c_of(const std::string& program, const std::map<std::string, const Tensor*>& in) {
    std::map<std::string, TensorSignature> sigs;
    for (const auto& [name, t] : in) sigs[name] = TensorSignature::of(*t, true);
    TensorSignature out;
    out.format = Format::dense(0);
    out.type = ValueType::Float64;
    out.fill = Scalar::of(0.0);
    sigs["s"] = out;
    return generate_c(ir::parse_program(program), sigs);
}

double scalar(const std::string& program, const std::map<std::string, const Tensor*>& in) {
    return run_compiled(program, in).at("s").at({}).as_double();
}

size_t count(const std::string& text, const std::string& what) {
    size_t n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
}

::testing::AssertionResult unsupported(const std::function<void()>& fn, const std::vector<std::string>& parts) {
    try {
        fn();
    } catch (const Error& e) {
        if (e.kind() != Error::Kind::Unsupported)
            return ::testing::AssertionFailure() << "not an Unsupported error: " << e.what();
    } catch (...) {
    }
    return throws_error(fn, parts);
}

// Notes §10 case 6 (Fig. 3g): runs ending at 2, 5, 9 (inclusive) with 1, 2, 3 and at 1, 6, 9
// with 10, 20, 30. The steps are [0,2) 1*10, [2,3) 1*20, [3,6) 2*20, [6,7) 3*20, [7,10) 3*30:
// 20 + 20 + 120 + 60 + 270 = 490, in one while loop of five steps with no loop inside a step.
TEST(CompilerStructural, RunTimesRunIsOneStepPerRunBoundary) {
    Tensor a = vec("runlist(0)", {1, 1, 1, 2, 2, 2, 3, 3, 3, 3});
    Tensor b = vec("runlist(0)", {10, 10, 20, 20, 20, 20, 20, 30, 30, 30});
    ASSERT_EQ(a.stored(), 3);
    ASSERT_EQ(b.stored(), 3);
    std::map<std::string, const Tensor*> in{{"A", &a}, {"B", &b}};
    const std::string program = "for i { s[] += A[i] * B[i] }";
    EXPECT_EQ(scalar(program, in), 490.0);
    std::string c = c_of(program, in);
    EXPECT_EQ(count(c, "while ("), 1u) << c;
    EXPECT_EQ(count(c, "for ("), 0u) << c;
}

// Notes §10 case 25 on a runlist input: a sum over a run is one multiply-add per run.
TEST(CompilerStructural, SumOverARunlistDoesNotLoopOverARun) {
    Tensor a = vec("runlist(0)", {5, 5, 5, 5, 0, 0, 7, 7, 7, 7, 7, 7});
    std::map<std::string, const Tensor*> in{{"A", &a}};
    EXPECT_EQ(scalar("for i { s[] += A[i] }", in), 20.0 + 42.0);
    std::string c = c_of("for i { s[] += A[i] }", in);
    EXPECT_EQ(count(c, "while ("), 1u) << c;
    EXPECT_EQ(count(c, "for ("), 0u) << c;
    // max= over runs: idempotent, so a run is one update too.
    EXPECT_EQ(scalar("for i { s[] max= A[i] }", in), 7.0);
    EXPECT_EQ(count(c_of("for i { s[] max= A[i] }", in), "for ("), 0u);
}

TEST(CompilerStructural, RunlistProtocolsAgree) {
    Tensor a = vec("runlist(0)", {1, 1, 1, 2, 2, 2, 3, 3, 3, 3});
    Tensor x = vec("sparselist(0)", {0, 0, 4, 0, 5, 0, 0, 0, 0, 6});
    // 1*4 + 2*5 + 3*6 = 32, whichever side leads.
    for (const char* pa : {"walk", "gallop", "follow"})
        for (const char* px : {"walk", "gallop"}) {
            std::string program = std::string("for i { s[] += A[") + pa + "(i)] * B[" + px + "(i)] }";
            EXPECT_EQ(scalar(program, {{"A", &a}, {"B", &x}}), 32.0) << program;
        }
    // Random access: a runlist read in the other order of a matrix, through its binary search.
    Tensor m = Tensor::from_coordinates({2, 3}, ValueType::Float64, Scalar::of(0.0),
                                        Format::parse("dense(0)/runlist(1)", 2),
                                        entries(2, {{{0, 0}, 1}, {{0, 1}, 1}, {{1, 2}, 4}}));
    auto y = run_compiled("for j { for i { y[j] += A[i, j] } }", {{"A", &m}}).at("y");
    EXPECT_EQ(y.at({0}).as_double(), 1.0);
    EXPECT_EQ(y.at({1}).as_double(), 1.0);
    EXPECT_EQ(y.at({2}).as_double(), 4.0);
}

// Notes §10 case 1 (Fig. 1): A = list n=11 {1: 1.9, 3: 3.0, 4: 2.7, 8: 5.5}, B = band 3..6 with
// 1, 2, 3, 4: the dot is 3.0*1 + 2.7*2 = 8.4. Outside the band nothing is visited: no dense loop.
TEST(CompilerStructural, ListTimesBand) {
    Tensor a = vec("sparselist(0)", {0, 1.9, 0, 3.0, 2.7, 0, 0, 0, 5.5, 0, 0});
    Tensor b = vec("sparseband(0)", {0, 0, 0, 1, 2, 3, 4, 0, 0, 0, 0});
    ASSERT_EQ(b.stored(), 4);
    for (const char* program : {"for i { s[] += A[i] * B[i] }", "for i { s[] += A[gallop(i)] * B[i] }",
                                "for i { s[] += A[i] * B[follow(i)] }"}) {
        std::map<std::string, const Tensor*> in{{"A", &a}, {"B", &b}};
        EXPECT_DOUBLE_EQ(scalar(program, in), 8.4) << program;
    }
    std::string c = c_of("for i { s[] += A[i] * B[i] }", {{"A", &a}, {"B", &b}});
    EXPECT_EQ(c.find("for (int64_t i = "), std::string::npos) << c;
    // A band alone: a dense loop over its block only; the fill outside is a run.
    Tensor ones = vec("sparseband(0)", {0, 0, 1, 1, 1, 0}, 0.0);
    EXPECT_EQ(scalar("for i { s[] += A[i] }", {{"A", &ones}}), 3.0);
    Tensor filled = vec("sparseband(0)", {2, 2, 5, 0, 5, 2, 2}, 2.0);
    // Fill 2 outside the block [2, 5), whose middle is an explicit 0: 4*2 + 5 + 0 + 5.
    EXPECT_EQ(scalar("for i { s[] += A[i] }", {{"A", &filled}}), 18.0);
}

TEST(CompilerStructural, BytemapInputsWithEveryProtocol) {
    // Notes §10 case 11 with x as a bytemap.
    Tensor a = make({3, 6}, "csr", {{{0, 0}, 1}, {{0, 2}, 2}, {{0, 4}, 3}, {{1, 1}, 4}, {{1, 5}, 5}});
    Tensor x = make({6}, "sparsebytemap(0)", {{{2}, 10}, {{5}, 100}});
    for (const char* pa : {"walk", "gallop", "follow"})
        for (const char* px : {"walk", "gallop", "follow"}) {
            std::string program = std::string("for i { for j { y[i] += A[i, ") + pa + "(j)] * x[" + px + "(j)] } }";
            auto y = run_compiled(program, {{"A", &a}, {"x", &x}}).at("y");
            EXPECT_EQ(y.at({0}).as_double(), 20.0) << program;
            EXPECT_EQ(y.at({1}).as_double(), 500.0) << program;
            EXPECT_EQ(y.at({2}).as_double(), 0.0) << program;
        }
}

// The Gustavson workspace: SpGEMM in the order i, k, j writes row i of C once per k, out of
// column order; a bytemap row takes that, and freezing sorts its coordinates.
// A = [[1,0,2],[0,3,0]], B = [[0,4,0],[5,0,6],[7,0,0]]: C = [[14,4,0],[15,0,18]].
TEST(CompilerStructural, BytemapOutputIsAGustavsonWorkspace) {
    Tensor a = make({2, 3}, "csr", {{{0, 0}, 1}, {{0, 2}, 2}, {{1, 1}, 3}});
    Tensor b = make({3, 3}, "csr", {{{0, 1}, 4}, {{1, 0}, 5}, {{1, 2}, 6}, {{2, 0}, 7}});
    auto out = run_compiled("for i { for k { for j { C[i, j] += A[i, k] * B[k, j] } } }",
                            {{"A", &a}, {"B", &b}}, {{"C", with_format("dense(0)/bytemap(1)", 2)}});
    const Tensor& c = out.at("C");
    EXPECT_EQ(c.format().levels()[1].kind, "sparsebytemap");
    EXPECT_EQ(c.at({0, 0}).as_double(), 14.0);
    EXPECT_EQ(c.at({0, 1}).as_double(), 4.0);
    EXPECT_EQ(c.at({0, 2}).as_double(), 0.0);
    EXPECT_EQ(c.at({1, 0}).as_double(), 15.0);
    EXPECT_EQ(c.at({1, 2}).as_double(), 18.0);
    std::vector<std::vector<int64_t>> want{{0, 0}, {0, 1}, {1, 0}, {1, 2}};
    EXPECT_EQ(stored_coordinates(c), want);
    EXPECT_EQ(c.stored(), 4);

    // Writes that cancel to the fill leave no entry; an explicit write of the fill neither.
    Tensor p = make({1, 2}, "csr", {{{0, 0}, 1}, {{0, 1}, 1}});
    Tensor q = make({2, 1}, "csr", {{{0, 0}, 1}, {{1, 0}, -1}});
    auto zero = run_compiled("for i { for k { for j { C[i, j] += A[i, k] * B[k, j] } } }",
                             {{"A", &p}, {"B", &q}}, {{"C", with_format("dense(0)/bytemap(1)", 2)}});
    EXPECT_EQ(zero.at("C").stored(), 0);
    EXPECT_EQ(zero.at("C").at({0, 0}).as_double(), 0.0);
}

TEST(CompilerStructural, BytemapVectorOutputInAnyOrder) {
    // Column sums of a csr matrix in row order: y[j] is written in the order of A's entries.
    Tensor a = make({3, 4}, "csr", {{{0, 3}, 1}, {{1, 0}, 2}, {{2, 3}, 4}, {{2, 1}, -1}});
    auto y = run_compiled("for i { for j { y[j] += A[i, j] } }", {{"A", &a}},
                          {{"y", with_format("bytemap(0)", 1)}}).at("y");
    std::vector<std::vector<int64_t>> want{{0}, {1}, {3}};
    EXPECT_EQ(stored_coordinates(y), want);
    EXPECT_EQ(y.at({0}).as_double(), 2.0);
    EXPECT_EQ(y.at({1}).as_double(), -1.0);
    EXPECT_EQ(y.at({2}).as_double(), 0.0);
    EXPECT_EQ(y.at({3}).as_double(), 5.0);
}

TEST(CompilerStructural, UnwritableLevelsAreRefused) {
    // Runlist and sparseband outputs are written (compiler_write_levels_test), and so is a
    // sparsebytemap above another level; a scatter into one above a level appended in order is not.
    Tensor a = make({3}, "sparselist(0)", {{{1}, 2}});
    for (const char* f : {"runlist(0)", "sparseband(0)"})
        EXPECT_TRUE(run_compiled("for i { y[i] = A[i] }", {{"A", &a}}, {{"y", with_format(f, 1)}}).at("y").equals(a))
            << f;
    Tensor m = make({2, 3}, "csr", {{{1, 1}, 2}});
    std::vector<Scalar> rows{Scalar::of(int64_t{1}), Scalar::of(int64_t{0})};
    Tensor p = Tensor::from_dense({2}, ValueType::Int64, Scalar::of(int64_t{0}), Format::dense(1), rows);
    OutputSpec c = with_format("bytemap(0)/sparselist(1)", 2);
    c.shape = {2, 3};
    EXPECT_TRUE(unsupported(
        [&] { run_compiled("for i { for j { C[P[i], j] = A[i, j] } }", {{"A", &m}, {"P", &p}}, {{"C", c}}); },
        {"output C", "computed subscript", "sparselist level"}));
}

} // namespace
} // namespace siskin::testing
