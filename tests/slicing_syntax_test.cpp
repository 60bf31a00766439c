// Slices in program text (`b[i(0:8:2)]`): parsing, printing, the verifier's checks, the bounds
// of a resolved slice, and the reference evaluator's values on the paper's examples (Fig. 8,
// Fig. 19 and the slice sizes of notes/sparse-array-programming.md, checked by hand).
#include <gtest/gtest.h>

#include "ir_test_support.hpp"
#include "siskin/ir/verify.hpp"
#include "siskin/reference.hpp"
#include "storage_helpers.hpp"

namespace siskin::ir::test {
namespace {

Expr S(std::string i, std::optional<int64_t> lo, std::optional<int64_t> hi, int64_t step = 1) {
    return Index::sliced(std::move(i), Slice{lo, hi, step});
}

TEST(SlicingSyntax, ParsesSlicesOfIndices) {
    Program p = parse_program("a[i] = b[i(0:8:2)] + c[i(0:8:2)]");
    Stmt want = For_("i", Set(A("a", {I("i")}), "",
                              C("add", {A("b", {S("i", 0, 8, 2)}), A("c", {S("i", 0, 8, 2)})})));
    EXPECT_IR_EQ(p.body, want);

    Program q = parse_program("A[i,j] = B[i(0:2), j(1:3)]");
    EXPECT_IR_EQ(q.body, For_("i", For_("j", Set(A("A", {I("i"), I("j")}), "",
                                                 A("B", {S("i", 0, 2), S("j", 1, 3)})))));
}

TEST(SlicingSyntax, OmittedAndNegativeBounds) {
    auto rhs = [](const std::string& text) {
        return parse_program(text).body->as<For>()->body->as<Assign>()->rhs;
    };
    EXPECT_IR_EQ(rhs("y[i] = x[i(:4)]"), Expr(A("x", {S("i", std::nullopt, 4)})));
    EXPECT_IR_EQ(rhs("y[i] = x[i(2:)]"), Expr(A("x", {S("i", 2, std::nullopt)})));
    EXPECT_IR_EQ(rhs("y[i] = x[i(::2)]"), Expr(A("x", {S("i", std::nullopt, std::nullopt, 2)})));
    EXPECT_IR_EQ(rhs("y[i] = x[i(:)]"), Expr(A("x", {S("i", std::nullopt, std::nullopt)})));
    EXPECT_IR_EQ(rhs("y[i] = x[i(-3:-1)]"), Expr(A("x", {S("i", -3, -1)})));
    EXPECT_IR_EQ(rhs("y[i] = x[i(1:7:)]"), Expr(A("x", {S("i", 1, 7)})));
    // A slice inside a protocol.
    EXPECT_IR_EQ(rhs("y[i] = x[gallop(i(1:5))]"), Expr(A("x", {S("i", 1, 5)}, {"gallop"})));
    // A plain slice and a plain index differ.
    EXPECT_FALSE(equal(rhs("y[i] = x[i(0:4)]"), rhs("y[i] = x[i(0:4:2)]")));
    EXPECT_FALSE(equal(rhs("y[i] = x[i(0:4)]"), rhs("y[i] = x[i]")));
}

TEST(SlicingSyntax, PrintsAndReadsBack) {
    for (const char* text : {"a[i] = b[i(0:8:2)] + c[i(0:8:2)]", "A[i,j] = B[i(0:2), j(1:3)]",
                             "y[i] = x[i(:4)]", "y[i] = x[i(2:)]", "y[i] = x[i(::2)]",
                             "y[i] = x[i(-3:-1)]", "y[i] = x[gallop(i(1:5))]", "y[i] = x[i(:)]",
                             "y[i] += A[i(1::3), j] * x[j(-9:-1:4)]"}) {
        Program p = parse_program(text);
        std::string printed = print(p);
        EXPECT_IR_EQ(parse_program(printed).body, p.body) << printed;
    }
    EXPECT_NE(print(parse_program("y[i] = x[i(0:8:2)]")).find("x[i(0:8:2)]"), std::string::npos);
    EXPECT_NE(print(parse_program("y[i] = x[i(::3)]")).find("x[i(::3)]"), std::string::npos);
    EXPECT_NE(print(parse_program("y[i] = x[i(2:)]")).find("x[i(2:)]"), std::string::npos);
    EXPECT_NE(print(parse_program("y[i] = x[i(-4:-1:1)]")).find("x[i(-4:-1)]"), std::string::npos);
    EXPECT_EQ(slice_text(Slice{std::nullopt, 4, 1}), ":4");
    EXPECT_EQ(slice_text(Slice{1, std::nullopt, 3}), "1::3");
}

TEST(SlicingSyntax, ParseErrors) {
    expect_error([] { parse_program("y[i] = x[i(a:3)]"); }, "integer bound in the slice of i");
    expect_error([] { parse_program("y[i] = x[i(1.5:3)]"); }, "integer bound in the slice of i");
    expect_error([] { parse_program("y[i] = x[i(1:2:3:4)]"); }, "')' to close the slice of i");
    expect_error([] { parse_program("y[i] = x[i(1 3:4)]"); }, "':' in the slice of i");
    expect_error([] { parse_program("let k = 2 { y[] = x[k(0:1)] }"); }, "only a loop index can be sliced");
    // Positions point at the problem.
    Error e = expect_error([] { parse_program("y[i] = x[i(0:n)]"); }, "integer bound");
    EXPECT_NE(std::string(e.what()).find("1:14"), std::string::npos) << e.what();
}

TEST(SlicingSyntax, ResolvedBoundsFollowPython) {
    auto w = [](Slice s, int64_t n) { return resolve_slice(s, n, "dimension 0 of x"); };
    EXPECT_EQ(w({0, 5, 2}, 6).length, 3); // 0, 2, 4: ceil(5 / 2), not 5 / 2
    EXPECT_EQ(w({2, 10, 3}, 10).length, 3);
    EXPECT_EQ(w({3, 10, 3}, 10).first, 3);
    EXPECT_EQ(w({5, 2, 1}, 8).length, 0); // empty, not an error
    EXPECT_EQ(w({-3, std::nullopt, 1}, 8).first, 5);
    EXPECT_EQ(w({-3, std::nullopt, 1}, 8).length, 3);
    EXPECT_EQ(w({std::nullopt, -1, 1}, 8).length, 7);
    EXPECT_EQ(w({std::nullopt, std::nullopt, 3}, 8).length, 3); // 0, 3, 6
    EXPECT_EQ(w({8, 8, 1}, 8).length, 0);                       // n and -n are in range
    EXPECT_EQ(w({-8, std::nullopt, 1}, 8).length, 8);
    expect_error([&] { w({0, 9, 1}, 8); },
                 "slice 0:9 of dimension 0 of x is out of range: bound 9 is outside [-8, 8]");
    expect_error([&] { w({-9, std::nullopt, 1}, 8); }, "bound -9 is outside [-8, 8]");
    expect_error([&] { w({0, 8, 0}, 8); }, "slice 0:8:0 of dimension 0 of x has step 0; the step must be positive");
    expect_error([&] { w({8, 0, -1}, 8); }, "has step -1");
}

std::map<std::string, TensorInfo> vec(std::initializer_list<std::pair<const char*, int64_t>> l) {
    std::map<std::string, TensorInfo> out;
    for (const auto& [name, n] : l) out[name] = {{n}, ValueType::Float64};
    return out;
}

TEST(SlicingSyntax, VerifierSizesIndicesBySliceLengths) {
    auto v = verify(parse_program("a[i] = b[i(0:8:2)] + c[i(0:8:2)]"), vec({{"b", 8}, {"c", 8}}));
    EXPECT_EQ(v.extents.at("i"), 4);
    EXPECT_EQ(v.output_shapes.at("a"), std::vector<int64_t>{4});
    auto w = verify(parse_program("a[i] = b[i(-5:)] + c[i]"), vec({{"b", 9}, {"c", 5}}));
    EXPECT_EQ(w.extents.at("i"), 5);
}

TEST(SlicingSyntax, VerifierErrors) {
    auto check = [](const std::string& text, std::map<std::string, TensorInfo> t, const std::string& part) {
        expect_error([&] { verify(parse_program(text), t); }, part);
    };
    check("y[i] = x[i(0:9)]", vec({{"x", 8}}),
          "slice 0:9 of dimension 0 of x is out of range: bound 9 is outside [-8, 8] (the dimension has size 8)");
    check("y[i] = x[i(-9:)]", vec({{"x", 8}}), "bound -9 is outside [-8, 8]");
    check("y[i] = x[i(0:8:0)]", vec({{"x", 8}}), "slice 0:8:0 of dimension 0 of x has step 0");
    check("y[i] = x[i(6:0:-2)]", vec({{"x", 8}}), "has step -2");
    check("a[i] = b[i(0:8:2)] + c[i(0:6:2)]", vec({{"b", 8}, {"c", 8}}),
          "index i ranges over b's dimension 0 sliced 0:8:2 (size 4) and c's dimension 0 sliced 0:6:2 (size 3)");
    check("a[i] = b[i(1:)] + c[i]", vec({{"b", 8}, {"c", 8}}),
          "index i ranges over b's dimension 0 sliced 1: (size 7) and c's dimension 0 (size 8)");
    check("y[i(0:2)] = x[i]", vec({{"x", 2}}), "y is written through the slice i(0:2), so its shape cannot be inferred");
    // Errors carry the position of the slice.
    Error e = expect_error([] { verify(parse_program("y[i] = x[i(0:9)]"), vec({{"x", 8}})); }, "out of range");
    EXPECT_NE(std::string(e.what()).find("1:10"), std::string::npos) << e.what();
    // Built in C++: a slice used as a value.
    Program p{For_("i", Set(A("y", {I("i")}), "", S("i", 0, 2)))};
    expect_error([&] { verify(p, vec({{"x", 2}})); }, "the slice i(0:2) may only be a subscript");
}

Tensor vector_of(int64_t n, std::initializer_list<std::pair<std::vector<int64_t>, double>> list, const char* format) {
    return Tensor::from_coordinates({n}, ValueType::Float64, Scalar::of(0.0), Format::parse(format, 1),
                                    siskin::testing::entries(1, list));
}

std::vector<double> values_of(const Tensor& t) {
    std::vector<double> out;
    for (const auto& s : t.to_dense()) out.push_back(s.as_double());
    return out;
}

TEST(SlicingSyntax, ReferenceEvaluatesThePapersExamples) {
    // Fig. 8b: the even coordinates of b and c, added.
    Tensor b = vector_of(8, {{{0}, 1}, {{3}, 2}, {{4}, 3}, {{6}, 4}}, "dense");
    Tensor c = vector_of(8, {{{1}, 5}, {{2}, 6}, {{6}, 7}}, "dense");
    auto r = evaluate_reference(parse_program("a[i] = b[i(0:8:2)] + c[i(0:8:2)]"), {{"b", &b}, {"c", &c}});
    EXPECT_EQ(values_of(r.at("a")), (std::vector<double>{1, 6, 3, 11}));
    // Negative bounds count from the end: coordinates 2, 4, 6 of b ([0, 3, 4]) and 5, 6, 7 of
    // c ([0, 7, 0]).
    auto n = evaluate_reference(parse_program("a[i] = b[i(-6:-1:2)] + c[i(-3:)]"), {{"b", &b}, {"c", &c}});
    EXPECT_EQ(values_of(n.at("a")), (std::vector<double>{0 + 0, 3 + 7, 4 + 0}));
}

} // namespace
} // namespace siskin::ir::test
