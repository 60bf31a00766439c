// The NumPy expression language of `siskin eval` (parse_array_expression) and the command.
#include <gtest/gtest.h>

#include "cli_test_util.hpp"
#include "compiler_test_util.hpp"
#include "siskin/array.hpp"
#include "siskin/error.hpp"
#include "siskin/io.hpp"

namespace siskin::testing {
namespace {

struct Inputs {
    Array A{make({3, 4}, "csr", {{{0, 1}, 2.0}, {{1, 3}, -1.0}, {{2, 0}, 4.0}}), "A"};
    Array B{make({3, 4}, "dense", {{{0, 1}, 1.0}, {{2, 2}, 3.0}}), "B"};
    Array x{make({4}, "dense", {{{0}, 1.0}, {{3}, 2.0}}), "x"};
    std::map<std::string, Array> names() const { return {{"A", A}, {"B", B}, {"x", x}}; }
};

/// The text parses to the program the C++ expression builds.
void expect_same(const std::string& text, const Array& built) {
    Inputs in;
    EXPECT_EQ(parse_array_expression(text, in.names()).program_text(), built.program_text())
        << text;
}

TEST(ArrayText, NumPySpellingsBuildTheSameProgramsAsTheCppApi) {
    Inputs in;
    const Array &A = in.A, &B = in.B, &x = in.x;
    expect_same("A.T", A.T());
    expect_same("A @ x", matmul(A, x));
    expect_same("np.matmul(A, x)", matmul(A, x));
    expect_same("sum(A * B.T.T, axis=1)", sum(A * B, 1));
    expect_same("A.sum(axis=0, keepdims=True)", sum(A, 0, true));
    expect_same("where(A > 0, A, 0)", where(A > 0, A, 0));
    expect_same("A[1:5:2]", A[{IndexItem::slice(1, 5, 2)}]);
    expect_same("A[-1, ::2]", A[{IndexItem::at(-1), IndexItem::slice({}, {}, 2)}]);
    expect_same("A[..., None]", A[{IndexItem::ellipsis(), IndexItem::new_axis()}]);
    expect_same("np.maximum(A, 1) - -2.5", maximum(A, 1) - (-2.5));
    expect_same("-A ** 2", -power(A, 2));              // ** binds tighter than unary minus
    expect_same("A + B * 2 > 1", (A + B * 2) > 1);
    expect_same("A > 1 | (B > 0)", A > (1 | (B > 0)));  // Python: | binds tighter than >
    expect_same("argmax(A, axis=-1)", argmax(A, -1));
    expect_same("einsum('ij,ij->i', A, B)", einsum("ij,ij->i", {A, B}));
    expect_same("tensordot(A, B, axes=((1,), (1,)))", tensordot(A, B, {1}, {1}));
    expect_same("transpose(expand_dims(x, 0))", transpose(expand_dims(x, 0)));
    expect_same("broadcast_to(x, (3, 4)) / mean(A)", broadcast_to(x, {3, 4}) / mean(A));
    expect_same("logical_xor(A > 0, B > 0)", ufunc("logical_xor", {A > 0, B > 0}));
    expect_same("concatenate((A, B), axis=0) @ x", matmul(concatenate({A, B}, 0), x));
    expect_same("vstack((A, B))", vstack({A, B}));
    expect_same("hstack((A, B))", hstack({A, B}));
    expect_same("stack((A, B), axis=1)", stack({A, B}, 1));
    expect_same("reshape(A, (6, -1))[1:5:2]", reshape(A, {6, -1})[{IndexItem::slice(1, 5, 2)}]);
    expect_same("A.reshape(2, -1)", reshape(A, {2, -1}));
    expect_same("A.flatten()", reshape(A, {-1}));
    expect_same("np.pad(A, ((1, 0), (0, 2)), constant_values=3)",
                pad(A, {{1, 0}, {0, 2}}, 3));
    expect_same("pad(x, 2)", pad(x, {{2, 2}}));
    expect_same("tile(x, (2, 1))", tile(x, {2, 1}));
    expect_same("flip(A, axis=0)", flip(A, 0));
}

TEST(ArrayText, ErrorsPointIntoTheText) {
    Inputs in;
    auto error = [&](const std::string& text) {
        try {
            parse_array_expression(text, in.names());
        } catch (const Error& e) {
            return e.message().substr(0, e.message().find('\n')) + " @" +
                   std::to_string(e.where() ? e.where()->column : 0);
        }
        return std::string("no error");
    };
    EXPECT_EQ(error("A + C"), "'C' is not an input: give it with -i C=FILE @5");
    EXPECT_EQ(error("A +"), "expected an expression, found the end @4");
    EXPECT_EQ(error("A @ A"), "matmul: the last dimension of A (shape (3, 4)) has size 4 but the "
                              "second-to-last of A (shape (3, 4)) has size 3 @3");
    EXPECT_EQ(error("sum(A, axis=x)"), "axis must be an integer @13");
    EXPECT_EQ(error("A[1:2:0]"), "slice step cannot be zero @8");
    EXPECT_EQ(error("frobnicate(A)"), "unknown function 'frobnicate' @1");
    EXPECT_EQ(error("sum(A, axis=0, axes=1)"), "sum() takes no argument 'axes' @21");
    EXPECT_EQ(error("A $ B"), "unexpected character '$' @3");
}

class ArrayEvalCli : public test::CliScratch {};

TEST_F(ArrayEvalCli, EvaluatesWritesPrintsAndShowsTheProgram) {
    Inputs in;
    write_matrix_market(in.A.compute(), path("a.mtx"));
    write_matrix_market(in.B.compute(), path("b.mtx"));
    auto r = cli("eval 'where(A > 0, A, 0.5) * B[::1] + sum(A, axis=0)' -i A=" + path("a.mtx") +
                 ":csc -i B=" + path("b.mtx") + ":dense -o " + path("out.tns") +
                 " --show-program --stats " + path("stats.json"));
    ASSERT_EQ(r.status, 0) << r.output;
    EXPECT_NE(r.output.find("tmp0[i2] += A[i3, i2]"), std::string::npos) << r.output;
    Tensor got = read_tensor(path("out.tns"));
    Array want = where(in.A > 0, in.A, 0.5) * in.B + sum(in.A, 0);
    EXPECT_TRUE(got.equals(want.compute(ComputeOptions{{}, true}))) << got.to_string();
    EXPECT_NE(test::file_contents(path("stats.json")).find("\"engine\": \"compiled\""),
              std::string::npos);
    // A vector format reads an n x 1 file as a vector; --print shows the result.
    write_matrix_market(in.x.compute(), path("x.mtx"));
    auto v = cli("eval 'x * 2' -i 'x=" + path("x.mtx") + ":dense(0)' --print --interpret");
    ASSERT_EQ(v.status, 0) << v.output;
    EXPECT_NE(v.output.find("[2 0 0 4]"), std::string::npos) << v.output;
    auto bad = cli("eval 'A @ A' -i A=" + path("a.mtx") + " --print");
    EXPECT_EQ(bad.status, 1);
    EXPECT_NE(bad.output.find("siskin: error: <expression>:1:3: matmul: the last dimension of A"),
              std::string::npos) << bad.output;
}

TEST_F(ArrayEvalCli, ACscProductRunsThePlannersPlanAndAsWrittenTheProgram) {
    // A @ x over a csc A into a dense y: plan 0 reads A by columns; --as-written transposes it.
    // Both, and the reference evaluator, write the same y. (A matrix of a few entries is
    // transposed cheaply: this one has some columns' worth. Into a sparse y the program as written
    // is plan 0: the compiler itself reorders it through a row workspace.)
    write_matrix_market(random_matrix_of(60, 50, 0.05, "csc", 31, 0.0, [](double u) { return double(int(u * 7) + 1); }),
                        path("a.mtx"));
    write_matrix_market(random_tensor_of({50}, "dense", 1.0, Scalar::of(0.0), 32, [](auto&) { return Scalar::of(2.0); }),
                        path("x.mtx"));
    const std::string base = "eval 'A @ x' -i A=" + path("a.mtx") + ":csc -i 'x=" + path("x.mtx") + ":dense(0)' ";
    auto planned = cli(base + "--show-program -o " + path("planned.tns") + ":dense");
    ASSERT_EQ(planned.status, 0) << planned.output;
    EXPECT_NE(planned.output.find("runs the planner's plan 0: loops i1, i0; outer products"), std::string::npos)
        << planned.output;
    auto written = cli(base + "--show-program --as-written -o " + path("written.tns") + ":dense");
    ASSERT_EQ(written.status, 0) << written.output;
    EXPECT_EQ(written.output.find("runs the planner's plan"), std::string::npos) << written.output;
    auto reference = cli(base + "--interpret -o " + path("reference.tns") + ":dense");
    ASSERT_EQ(reference.status, 0) << reference.output;
    const Tensor want = read_tensor(path("reference.tns"));
    EXPECT_TRUE(read_tensor(path("planned.tns")).equals(want));
    EXPECT_TRUE(read_tensor(path("written.tns")).equals(want));
}

} // namespace
} // namespace siskin::testing
