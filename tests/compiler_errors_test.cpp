// What the compiler refuses, and how: programs outside what it supports yet raise
// Error(Unsupported) with a message naming the problem, never a wrong answer; misuse of a
// Kernel raises a user Error.
#include <limits>

#include "compiler_test_util.hpp"

namespace siskin::testing {
namespace {

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

TEST(CompilerErrors, SparseOutputWrittenOutOfOrder) {
    Tensor a = make({3, 3}, "csr", {{{0, 1}, 1}, {{2, 0}, 2}});
    Tensor b = make({3, 3}, "csr", {{{1, 1}, 3}});
    // SpGEMM in the order i, k, j appends to row i of C once per k: it gets a row workspace
    // (compiler_workspaces_test); so does the order k, i, j, which reads the csr A against its
    // order and is reordered. With a csc A, k, i, j is refused (compiler_workspaces_test).
    for (const char* text : {"for i { for k { for j { C[i, j] += A[i, k] * B[k, j] } } }",
                             "for k { for i { for j { C[i, j] += A[i, k] * B[k, j] } } }"})
        EXPECT_EQ(run_compiled(text, {{"A", &a}, {"B", &b}}, {{"C", with_format("csr", 2)}})
                      .at("C").at({0, 1}).as_double(), 3.0) << text;
    // Column-major loops over a row-major sparse output run in its order (output_order).
    EXPECT_TRUE(run_compiled("for j { for i { C[i, j] = A[i, j] } }", {{"A", &a}}, {{"C", with_format("csr", 2)}})
                    .at("C").equals(a));
    // Two loops appending to the same sparse vector.
    Tensor x = make({3}, "sparselist(0)", {{{1}, 1}});
    EXPECT_TRUE(unsupported(
        [&] {
            run_compiled("for i { y[i] = x[i] }\nfor i { y[i] += x[i] }", {{"x", &x}},
                         {{"y", with_format("sparselist(0)", 1)}});
        },
        {"output y", "more than once"}));
    // The same programs into dense outputs are fine.
    auto c = run_compiled("for i { for k { for j { C[i, j] += A[i, k] * B[k, j] } } }", {{"A", &a}, {"B", &b}});
    EXPECT_EQ(c.at("C").at({0, 1}).as_double(), 3.0);
}

TEST(CompilerErrors, SubscriptsAndProtocols) {
    Tensor x = make({4}, "dense", {{{1}, 1}});
    // Affine subscripts compile (compiler_affine_test); a padded non-affine one does not yet.
    EXPECT_EQ(run_compiled("for i in 0:3 { y[i] = x[i + 1] }", {{"x", &x}}).at("y").at({0}).as_double(), 1.0);
    EXPECT_TRUE(unsupported([&] { run_compiled("for i in 0:3 { y[i] = coalesce(x[~(i * i)], 0) }", {{"x", &x}}); },
                            {"subscript", "x", "pads affine subscripts"}));
    Tensor c = make({2, 2}, "coo", {{{0, 1}, 1}});
    EXPECT_TRUE(unsupported([&] { run_compiled("for i { for j { s[] += C[gallop(i), j] } }", {{"C", &c}}); },
                            {"protocol 'gallop'", "offers: walk"}));
    // coo cannot be read by random access: a discordant loop order reads a transposed copy.
    EXPECT_EQ(run_compiled("for j { for i { s[] += C[i, j] } }", {{"C", &c}}).at("s").at(std::vector<int64_t>{}).as_double(), 1.0);
    EXPECT_TRUE(unsupported([&] { run_compiled("for j { for i { s[] += C[i, follow(j)] } }", {{"C", &c}}); },
                            {"coo"}));
    // An output cannot be read in the statement that writes it, whatever its format (the
    // lifecycle pass, Finch's case 33); after its last write it can (compiler_lifecycle_test).
    Tensor v = make({2}, "sparselist(0)", {{{1}, 1}});
    EXPECT_TRUE(throws_error(
        [&] {
            run_compiled("for i { y[i] = v[i]; z[i] = y[i] }", {{"v", &v}},
                         {{"y", with_format("sparselist(0)", 1)}});
        },
        {"y is read and updated in one statement"}));
}

TEST(CompilerErrors, DiscordantReadsUseRandomAccess) {
    // csc read in row order: read through a transposed copy (concordize), or searched where
    // the subscript asks for follow.
    Tensor a = make({3, 4}, "csc", {{{0, 1}, 2}, {{2, 3}, 5}, {{1, 1}, 7}});
    Tensor x = make({4}, "dense", {{{1}, 1}, {{3}, 10}});
    auto y = run_compiled("for i { for j { y[i] += A[i, j] * x[j] } }", {{"A", &a}, {"x", &x}}).at("y");
    EXPECT_EQ(y.at({0}).as_double(), 2.0);
    EXPECT_EQ(y.at({1}).as_double(), 7.0);
    EXPECT_EQ(y.at({2}).as_double(), 50.0);
    auto z = run_compiled("for i { for j { y[i] += A[i, follow(j)] * x[j] } }", {{"A", &a}, {"x", &x}}).at("y");
    EXPECT_TRUE(z.equals(y));
}

TEST(CompilerErrors, LiteralSubscriptsAreBoundsChecked) {
    Tensor x = make({3}, "sparselist(0)", {{{2}, 4}});
    EXPECT_EQ(run_compiled("s[] = x[2]", {{"x", &x}}).at("s").at({}).as_double(), 4.0);
    auto program = ir::parse_program("s[] = x[2]");
    TensorSignature out;
    out.format = Format::dense(0);
    out.fill = Scalar::of(0.0);
    auto kernel = compile(program, {{"x", TensorSignature::of(x)}, {"s", out}}, test_options());
    Tensor small = Tensor::from_coordinates({2}, ValueType::Float64, Scalar::of(0.0), x.format(), entries(1, {}));
    auto outputs = kernel->prepare({{"s", {}}});
    EXPECT_TRUE(throws_error([&] { kernel->run({{"x", &small}}, outputs); }, {"x", "coordinate 2", "size 2"}));
}

TEST(CompilerErrors, KernelChecksItsInputs) {
    Tensor a = make({2, 3}, "csr", {{{0, 1}, 1}});
    Tensor x = make({3}, "dense", {{{0}, 1}});
    auto program = ir::parse_program("for i { for j { y[i] += A[i, j] * x[j] } }");
    TensorSignature ys;
    ys.format = Format::dense(1).with_index_bits(32);
    ys.ndims = 1;
    ys.fill = Scalar::of(0.0);
    auto kernel = compile(program, {{"A", TensorSignature::of(a)}, {"x", TensorSignature::of(x, true)}, {"y", ys}},
                          test_options());
    auto outputs = kernel->prepare({{"y", {2}}});
    kernel->run({{"A", &a}, {"x", &x}}, outputs);
    EXPECT_EQ(outputs.at("y").at({0}).as_double(), 0.0);

    EXPECT_TRUE(throws_error([&] { kernel->run({{"A", &a}}, outputs); }, {"input x", "missing"}));
    Tensor a64 = a.convert(Format::parse("csr@64", 2));
    EXPECT_TRUE(throws_error([&] { kernel->run({{"A", &a64}, {"x", &x}}, outputs); },
                             {"input A", "compiled for"}));
    Tensor x4 = make({4}, "dense", {{{0}, 1}});
    EXPECT_TRUE(throws_error([&] { kernel->run({{"A", &a}, {"x", &x4}}, outputs); },
                             {"dimension", "is 4", "same loop index"}));
    Tensor x_inf = make({3}, "dense", {{{0}, std::numeric_limits<double>::infinity()}});
    EXPECT_TRUE(throws_error([&] { kernel->run({{"A", &a}, {"x", &x_inf}}, outputs); },
                             {"input x", "inf or NaN"}));
    EXPECT_TRUE(throws_error([&] { kernel->prepare({}); }, {"no shape", "y"}));
    TensorSignature no_width = TensorSignature::of(a);
    no_width.format = Format::csr();
    EXPECT_TRUE(throws_error([&] { compile(program, {{"A", no_width}, {"x", TensorSignature::of(x)}, {"y", ys}}); },
                             {"index width"}));
}

} // namespace
} // namespace siskin::testing
