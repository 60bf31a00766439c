// concordize: discordant reads of levels that cannot locate cheaply are served by transposed
// temporaries, built by Kernel::run; dense levels and `follow` keep random access.
#include <algorithm>
#include <random>

#include "compiler_test_util.hpp"

namespace siskin::testing {
namespace {

Tensor random_matrix(int64_t m, int64_t n, double density, const std::string& format, uint64_t seed,
                     double fill = 0.0) {
    return random_matrix_of(m, n, density, format, seed, fill, [](double u) { return std::floor(u * 8) - 3; });
}

std::shared_ptr<const Kernel> kernel_for(const std::string& text,
                                         const std::map<std::string, const Tensor*>& inputs,
                                         const std::map<std::string, std::string>& outputs,
                                         bool count_work = false) {
    std::map<std::string, TensorSignature> sigs;
    for (const auto& [name, t] : inputs) sigs.emplace(name, TensorSignature::of(*t, true));
    for (const auto& [name, format] : outputs) {
        TensorSignature s;
        s.ndims = name == "y" ? 1 : name == "s" ? 0 : 2;
        s.format = Format::parse(format, s.ndims).with_index_bits(64);
        s.fill = Scalar::of(0.0);
        sigs.emplace(name, s);
    }
    CompileOptions o = test_options();
    o.count_work = count_work;
    return compile(ir::parse_program(text), sigs, o);
}

bool has_input(const Kernel& k, const std::string& name) {
    return std::find(k.inputs().begin(), k.inputs().end(), name) != k.inputs().end();
}

TEST(CompilerConcordize, TacoAddOfATransposeAllCsr) {
    for (uint64_t seed = 1; seed <= 4; ++seed) {
        for (double fill : {0.0, 1.0}) {
            Tensor B = random_matrix(23, 23, 0.15, "csr", seed, fill);
            Tensor C = random_matrix(23, 23, 0.15, "csr", seed + 100, fill);
            const std::string text = "A[i,j] = B[i,j] + C[j,i]";
            auto program = ir::parse_program(text);
            OutputSpec out = with_format("csr", 2);
            auto want = evaluate_reference(program, {{"B", &B}, {"C", &C}}, {{"A", out}}).at("A");
            auto got = run_compiled(text, {{"B", &B}, {"C", &C}}, {{"A", out}}).at("A");
            EXPECT_TRUE(got.equals(want)) << "seed " << seed << " fill " << fill;
            EXPECT_EQ(stored_coordinates(got), stored_coordinates(want));
        }
    }
    Tensor B = random_matrix(5, 5, 0.3, "csr", 9), C = random_matrix(5, 5, 0.3, "csr", 10);
    auto k = kernel_for("A[i,j] = B[i,j] + C[j,i]", {{"B", &B}, {"C", &C}}, {{"A", "csr"}});
    // C is read through its transpose, B directly; no binary search is left.
    EXPECT_TRUE(has_input(*k, "C_by10"));
    EXPECT_FALSE(has_input(*k, "C"));
    EXPECT_TRUE(has_input(*k, "B"));
    EXPECT_EQ(k->c_source().find("siskin_lower_bound"), std::string::npos) << k->c_source();
}

// CSR to CSC as a program: the transposed temporary already is the output, so it is moved there
// and no copy kernel runs (work 0), with the copy's meaning kept: entries equal to the fill are
// not stored, for fill 0 and 1 alike. An output of another signature still gets the copy.
TEST(CompilerConcordize, CopyOfATransposeMovesTheTemporary) {
    const std::string text = "for i1, i0 { B[i0,i1] = A[i0,i1] }";
    for (double fill : {0.0, 1.0}) {
        CoordinateList e;
        e.ndims = 2;
        for (auto [i, j, v] : {std::tuple{0, 3, 2.0}, {1, 0, fill}, {2, 3, -1.0}, {2, 1, 5.0}, {4, 4, fill}})
            e.add(std::vector<int64_t>{i, j}, Scalar::of(v));
        Tensor A = Tensor::from_coordinates({5, 6}, ValueType::Float64, Scalar::of(fill),
                                            Format::parse("csr", 2), e);
        ASSERT_EQ(A.stored(), 5);
        std::map<std::string, TensorSignature> sigs{{"A", TensorSignature::of(A, true)}};
        TensorSignature b = sigs.at("A");
        b.finite = false;
        b.format = Format::parse("csc", 2).with_index_bits(A.format().levels()[1].index_bits);
        sigs.emplace("B", b);
        CompileOptions o = test_options();
        o.count_work = true;
        auto k = compile(ir::parse_program(text), sigs, o);
        auto out = k->prepare({{"B", {5, 6}}});
        k->run({{"A", &A}}, out);
        EXPECT_EQ(k->last_work(), 0) << "fill " << fill;
        EXPECT_TRUE(out.at("B").equals(A)) << "fill " << fill;
        EXPECT_EQ(out.at("B").format().to_string(), b.format.to_string());
        EXPECT_EQ(out.at("B").stored(), 3) << "fill " << fill;

        // A float32 output is a real conversion: the kernel runs.
        b.type = ValueType::Float32;
        b.fill = b.fill.cast(ValueType::Float32);
        sigs["B"] = b;
        auto k32 = compile(ir::parse_program(text), sigs, o);
        auto out32 = k32->prepare({{"B", {5, 6}}});
        k32->run({{"A", &A}}, out32);
        EXPECT_GT(k32->last_work(), 0);
        EXPECT_EQ(out32.at("B").stored(), 3);
        for (int64_t i = 0; i < 5; ++i)
            for (int64_t j = 0; j < 6; ++j)
                EXPECT_EQ(out32.at("B").at({i, j}).as_double(), A.at({i, j}).as_double()) << i << "," << j;
    }
}

TEST(CompilerConcordize, TransposedSpmvWalksATransposeOnce) {
    Tensor A = random_matrix(40, 30, 0.1, "csr", 3);
    std::vector<Scalar> xs;
    for (int i = 0; i < 40; ++i) xs.push_back(Scalar::of(static_cast<double>(i % 4) + 1));
    Tensor x = Tensor::from_dense({40}, ValueType::Float64, Scalar::of(0.0), Format::dense(1), xs);
    const std::string text = "y[j] += A[i,j] * x[i]"; // loops j, i: against A's rows
    auto program = ir::parse_program(text);
    auto want = evaluate_reference(program, {{"A", &A}, {"x", &x}}).at("y");
    auto got = run_compiled(text, {{"A", &A}, {"x", &x}}).at("y");
    EXPECT_TRUE(got.equals(want));

    auto k = kernel_for(text, {{"A", &A}, {"x", &x}}, {{"y", "dense"}}, true);
    EXPECT_TRUE(has_input(*k, "A_by10"));
    auto out = k->prepare({{"y", {30}}});
    k->run({{"A", &A}, {"x", &x}}, out);
    EXPECT_TRUE(out.at("y").equals(want));
    // The transpose (csc) is walked: 30 columns and every stored entry once.
    EXPECT_EQ(k->last_work(), 30 + A.convert(Format::parse("csc", 2)).stored());

    // The source is checked against the signature the kernel was compiled for.
    Tensor csc = A.convert(Format::parse("csc", 2));
    EXPECT_TRUE(throws_error([&] { k->run({{"A", &csc}, {"x", &x}}, out); }, {"input A", "compiled for"}));
    EXPECT_TRUE(throws_error([&] { k->run({{"x", &x}}, out); }, {"input A", "missing"}));
}

TEST(CompilerConcordize, DenseLevelsAndFollowKeepRandomAccess) {
    Tensor A = random_matrix(6, 7, 0.5, "dense", 5);
    auto k = kernel_for("for j, i { s[] += A[i,j] }", {{"A", &A}}, {{"s", "dense"}});
    EXPECT_TRUE(has_input(*k, "A"));
    EXPECT_EQ(k->inputs().size(), 1u);

    Tensor S = random_matrix(6, 7, 0.3, "csr", 7);
    auto f = kernel_for("for j, i { s[] += S[i, follow(j)] }", {{"S", &S}}, {{"s", "dense"}});
    EXPECT_TRUE(has_input(*f, "S"));
    EXPECT_NE(f->c_source().find("siskin_lower_bound"), std::string::npos);
    auto sum = run_compiled("for j, i { s[] += S[i, follow(j)] }", {{"S", &S}}).at("s");
    auto want = evaluate_reference(ir::parse_program("s[] += S[i,j]"), {{"S", &S}}).at("s");
    EXPECT_DOUBLE_EQ(sum.at(std::vector<int64_t>{}).as_double(), want.at(std::vector<int64_t>{}).as_double());
}

TEST(CompilerConcordize, CooAndThreeDimensionalReads) {
    Tensor C = random_matrix(9, 8, 0.3, "coo", 11);
    const std::string text = "for j { for i { y[j] += C[i, j] } }";
    auto got = run_compiled(text, {{"C", &C}}).at("y");
    auto want = evaluate_reference(ir::parse_program(text), {{"C", &C}}).at("y");
    EXPECT_TRUE(got.equals(want));

    CoordinateList list;
    list.ndims = 3;
    std::mt19937_64 rng(4);
    for (int n = 0; n < 60; ++n)
        list.add(std::vector<int64_t>{static_cast<int64_t>(rng() % 5), static_cast<int64_t>(rng() % 6),
                                      static_cast<int64_t>(rng() % 7)},
                 Scalar::of(static_cast<double>(rng() % 9)));
    Tensor T = Tensor::from_coordinates({5, 6, 7}, ValueType::Float64, Scalar::of(0.0),
                                        Format::parse("csf", 3), list);
    const std::string t3 = "for k, i, j { Y[k,i] += T[i,j,k] }";
    auto g3 = run_compiled(t3, {{"T", &T}}).at("Y");
    auto w3 = evaluate_reference(ir::parse_program(t3), {{"T", &T}}).at("Y");
    EXPECT_TRUE(g3.equals(w3));
}

} // namespace
} // namespace siskin::testing
