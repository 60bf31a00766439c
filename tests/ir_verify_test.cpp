// The verifier: inferred extents, shapes and types, and one test per problem it reports.
#include "ir_test_support.hpp"
#include "siskin/ir/verify.hpp"

using namespace siskin;
using namespace siskin::ir;
using namespace siskin::ir::test;

namespace {
using Tensors = std::map<std::string, TensorInfo>;

TensorInfo T(std::vector<int64_t> shape, ValueType t = ValueType::Float64) {
    return TensorInfo{std::move(shape), t};
}

VerifiedProgram verify_text(std::string_view text, const Tensors& tensors) {
    return verify(parse_program(text), tensors);
}

// Expects verification to fail with `part` in the message, at line:column.
void expect_verify_error(std::string_view text, const Tensors& tensors, const std::string& part,
                         int line, int column) {
    SCOPED_TRACE(std::string(text));
    Program p = parse_program(text);
    Error e = expect_error([&] { verify(p, tensors); }, part);
    ASSERT_TRUE(e.where().has_value()) << e.what();
    EXPECT_EQ(e.where()->line, line) << e.what();
    EXPECT_EQ(e.where()->column, column) << e.what();
}

const ValueType f64 = ValueType::Float64, f32 = ValueType::Float32, i32 = ValueType::Int32,
                i64 = ValueType::Int64, i8 = ValueType::Int8, b8 = ValueType::Bool;
} // namespace

TEST(IrVerify, SpmvExtentsShapesAndTypes) {
    VerifiedProgram v = verify_text("y[i] += A[i,j] * x[j]", {{"A", T({3, 5})}, {"x", T({5})}});
    EXPECT_EQ(v.extents, (std::map<std::string, int64_t>{{"i", 3}, {"j", 5}}));
    EXPECT_EQ(v.starts, (std::map<std::string, int64_t>{{"i", 0}, {"j", 0}}));
    EXPECT_EQ(v.output_shapes, (std::map<std::string, std::vector<int64_t>>{{"y", {3}}}));
    EXPECT_EQ(v.output_types, (std::map<std::string, ValueType>{{"y", f64}}));
}

TEST(IrVerify, GivenBoundsAndScalarOutputs) {
    VerifiedProgram v = verify_text("for i in 2:7 { y[i] = i }\ns[] max= A[k, l]",
                                    {{"A", T({2, 4}, i32)}});
    EXPECT_EQ(v.extents, (std::map<std::string, int64_t>{{"i", 5}, {"k", 2}, {"l", 4}}));
    EXPECT_EQ(v.starts.at("i"), 2);
    // y[i] with i in 2:7 writes coordinates up to 6, so y has 7 elements.
    EXPECT_EQ(v.output_shapes.at("y"), std::vector<int64_t>{7});
    EXPECT_EQ(v.output_shapes.at("s"), std::vector<int64_t>{});
    EXPECT_EQ(v.output_types.at("y"), i64);
    EXPECT_EQ(v.output_types.at("s"), i32);
}

TEST(IrVerify, OutputTypesPromoteAcrossAssignments) {
    Tensors t{{"a", T({4}, i8)}, {"b", T({4}, i32)}, {"x", T({4}, f32)}, {"m", T({4}, b8)}};
    // Overwrite with int8, then with int32: int32 holds both.
    EXPECT_EQ(verify_text("y[i] = a[i]\ny[i] = b[i]", t).output_types.at("y"), i32);
    // A reduction keeps the promotion of its operator: int8 += float32 is float32.
    EXPECT_EQ(verify_text("y[i] = a[i]\ny[i] += x[i]", t).output_types.at("y"), f32);
    // Comparisons give bool; a later assignment of int8 promotes.
    EXPECT_EQ(verify_text("y[i] = a[i] < b[i]", t).output_types.at("y"), b8);
    EXPECT_EQ(verify_text("y[i] = m[i]\ny[i] = a[i]", t).output_types.at("y"), i8);
    // A let variable carries the type of its value; float32 times an int64 literal is float64
    // (promotion does not special-case literals), times a float32 literal stays float32.
    EXPECT_EQ(verify_text("for i { let v = x[i] * 2 { y[i] = v } }", t).output_types.at("y"), f64);
    EXPECT_EQ(verify_text("for i { let v = x[i] * float32(2) { y[i] = v } }", t)
                  .output_types.at("y"),
              f32);
    // A type given for an output is kept.
    t["z"] = T({4}, i64);
    EXPECT_EQ(verify_text("z[i] = x[i]", t).output_types.at("z"), i64);
}

TEST(IrVerify, ReadingAnOutputBeforeItIsWrittenIsAllowed) {
    // z reads y before y is written: z's loop gets its extent from y, sized by the second nest.
    VerifiedProgram v = verify_text("z[i] = y[i] * 2\ny[i] = x[i]", {{"x", T({6}, i32)}});
    EXPECT_EQ(v.extents.at("i"), 6);
    EXPECT_EQ(v.output_shapes.at("z"), std::vector<int64_t>{6});
    EXPECT_EQ(v.output_types.at("y"), i32);
    EXPECT_EQ(v.output_types.at("z"), i64); // int32 * int64
    // A chain through outputs: w from z from y from x.
    v = verify_text("y[j] = x[j]\nz[k] = y[k]\nw[l] = z[l]", {{"x", T({4})}});
    EXPECT_EQ(v.extents, (std::map<std::string, int64_t>{{"j", 4}, {"k", 4}, {"l", 4}}));
    EXPECT_EQ(v.output_shapes.at("w"), std::vector<int64_t>{4});
    // An output only ever assigned from itself defaults to float64.
    EXPECT_EQ(verify_text("for i in 0:3 { y[i] += y[i] }", {}).output_types.at("y"), f64);
}

TEST(IrVerify, OutputsWithGivenShapesAreExtentSources) {
    VerifiedProgram v = verify_text("y[i] = 1", {{"y", T({9}, i8)}});
    EXPECT_EQ(v.extents.at("i"), 9);
    EXPECT_EQ(v.output_shapes.at("y"), std::vector<int64_t>{9});
    EXPECT_EQ(v.output_types.at("y"), i8);
}

TEST(IrVerify, AccessesWithExpressionsAndProtocols) {
    VerifiedProgram v = verify_text("for i in 0:3 { y[i] = x[gallop(i)] + x[2 - i] }",
                                    {{"x", T({3})}});
    EXPECT_EQ(v.extents.at("i"), 3);
    v = verify_text("let k = 2 { y[i] = A[i, k] }", {{"A", T({5, 3})}});
    EXPECT_EQ(v.extents.at("i"), 5);
}

// ---- one test per problem ----

TEST(IrVerify, UnknownTensor) {
    expect_verify_error("y[i] = B[i]", {{"A", T({3})}},
                        "unknown tensor B: it is neither given nor assigned by the program "
                        "(given: A)",
                        1, 8);
}

TEST(IrVerify, AccessArityMustMatchDimensions) {
    expect_verify_error("y[i] += A[i] * x[i]", {{"A", T({3, 3})}, {"x", T({3})}},
                        "A has 2 dimensions but is accessed with 1 index", 1, 9);
    expect_verify_error("y[] = x[0, 1]", {{"x", T({3})}},
                        "x has 1 dimension but is accessed with 2 indices", 1, 7);
}

TEST(IrVerify, OutputUsedWithDifferentArities) {
    expect_verify_error("y[i] = x[i]\nfor j { y[i, j] = x[i] }", {{"x", T({3})}},
                        "y is used with 2 indices here but with 1 index at 1:1", 2, 9);
}

TEST(IrVerify, UnknownOperator) {
    expect_verify_error("y[i] = frobnicate(x[i])", {{"x", T({3})}}, "frobnicate", 1, 8);
    expect_verify_error("y[i] <<frobnicate>>= x[i]", {{"x", T({3})}}, "frobnicate", 1, 1);
}

TEST(IrVerify, CallArity) {
    expect_verify_error("y[i] = max(x[i])", {{"x", T({3})}},
                        "max takes 2 arguments but is given 1", 1, 8);
    expect_verify_error("y[i] = x[i] + neg(x[i], 1)", {{"x", T({3})}},
                        "neg takes 1 argument but is given 2", 1, 15);
}

TEST(IrVerify, ReductionNeedsABinaryOperator) {
    expect_verify_error("y[i] <<neg>>= x[i]", {{"x", T({3})}},
                        "<<neg>>= needs a binary operator, but neg takes 1 argument", 1, 1);
}

TEST(IrVerify, OperatorRefusesTheTypes) {
    expect_verify_error("y[i] = x[i] << 1", {{"x", T({3})}}, "in x[i] << 1:", 1, 13);
}

TEST(IrVerify, IndexUsedOutsideItsLoop) {
    expect_verify_error("if i > 0 { y[] = 1 }", {}, "index i is used outside any loop over i", 1,
                        4);
    Program p{For_("i", Set(A("y", {I("i")}), "", I("j")))};
    expect_error([&] { verify(p, {{"y", T({2})}}); }, "index j is used outside any loop over j");
}

TEST(IrVerify, VariableUsedOutsideItsLet) {
    Program p{For_("i", Set(A("y", {I("i")}), "", V("v")))};
    expect_error([&] { verify(p, {{"y", T({2})}}); },
                 "variable v is used outside the let that binds it");
}

TEST(IrVerify, LoopIndexReboundByANestedLoop) {
    expect_verify_error("for i { for i { y[i] = x[i] } }", {{"x", T({3})}},
                        "the loop over i is nested inside a loop over i at 1:1", 1, 9);
    expect_verify_error("let i = 1 { y[j] = x[j] + i\nfor i { z[i] = x[i] } }", {{"x", T({3})}},
                        "the loop over i shadows the let variable i at 1:1", 2, 1);
}

TEST(IrVerify, LetShadowing) {
    expect_verify_error("let a = 1 { let a = 2 { s[] = a } }", {},
                        "let a shadows the let variable a at 1:1", 1, 13);
    expect_verify_error("for i { let i = 2 { y[i] = x[i] } }", {{"x", T({3})}},
                        "let i is nested inside a loop over i at 1:1", 1, 9);
}

TEST(IrVerify, ExtentMismatchNamesBothTensors) {
    expect_verify_error("y[i] += A[i,j] * x[j]", {{"A", T({3, 5})}, {"x", T({4})}},
                        "index j ranges over A's dimension 1 (size 5) and x's dimension 0 "
                        "(size 4)",
                        1, 20);
}

TEST(IrVerify, GivenBoundsMustMatchTheTensors) {
    expect_verify_error("for i in 0:4 { y[i] = x[i] }", {{"x", T({5})}},
                        "the loop over i at 1:1 runs over 0:4, but i indexes x's dimension 0, "
                        "which has size 5 (0:5)",
                        1, 25);
    expect_verify_error("for i in 1:5 { y[i] = x[i] }", {{"x", T({5})}}, "runs over 1:5", 1, 25);
}

TEST(IrVerify, BoundsMustBeOrderedConstants) {
    expect_verify_error("for i in 5:3 { y[i] = 1 }", {},
                        "the loop over i runs over 5:3, whose lower bound is above its upper "
                        "bound",
                        1, 1);
    Program p = parse_program("for i in 0:n { y[i] = 1 }");
    Error e = expect_error([&] { verify(p, {}); },
                           "the bounds of the loop over i must be constant integers, not 0:n");
    EXPECT_EQ(e.kind(), Error::Kind::Unsupported);
    expect_verify_error("for i in 0:2.5 { y[i] = 1 }", {}, "constant integers, not 0:2.5", 1, 1);
    // Constant arithmetic is fine.
    VerifiedProgram v = verify_text("for i in -1:2 * 3 - 1 { y[i + 1] = 1 }", {{"y", T({6})}});
    EXPECT_EQ(v.extents.at("i"), 6);
    EXPECT_EQ(v.starts.at("i"), -1);
}

TEST(IrVerify, IndexWithNoExtentSource) {
    expect_verify_error("y[i] = 1", {},
                        "cannot infer the extent of index i: it does not index a tensor of known "
                        "shape directly (as in A[i]); give it bounds, as in for i in 0:n",
                        1, 3);
    expect_verify_error("for i { y[] += i }", {}, "cannot infer the extent of index i", 1, 1);
}

TEST(IrVerify, SameIndexNameWithDifferentRanges) {
    expect_verify_error("y[i] = x[i]\nz[i] = w[i]", {{"x", T({3})}, {"w", T({5})}},
                        "index i runs over 0:5 here but over 0:3 in the loop at 1:3", 2, 3);
}

TEST(IrVerify, OutputDimensionSizedTwoWays) {
    expect_verify_error("for i in 0:3 { y[i] = 1 }\nfor j in 0:5 { y[j] = 2 }", {},
                        "y's dimension 0 is indexed by i (size 3) at 1:18 and by j (size 5); "
                        "give y's shape",
                        2, 18);
}

TEST(IrVerify, OutputDimensionNotInferable) {
    expect_verify_error("for i in 0:3 { y[i + 1] = 1 }", {},
                        "cannot infer the size of y's dimension 0: no loop index indexes it "
                        "directly (as in y[i]); give y's shape",
                        1, 16);
}

TEST(IrVerify, CoordinatesMustBeIntegers) {
    expect_verify_error("let v = 1.5 { y[i] = x[v] }", {{"x", T({3})}, {"y", T({3})}},
                        "coordinate 0 of x is v, of type float64; coordinates must be integers",
                        1, 24);
    // Integer-valued index arithmetic is fine.
    EXPECT_NO_THROW(verify_text("for i in 0:2 { y[i] = x[2 * i + 1] }", {{"x", T({5})}}));
}

TEST(IrVerify, MessagesCarryTheProgramPosition) {
    Program p = parse_program("\n  y[i] += A[i,j] * x[j]");
    Error e = expect_error([&] { verify(p, {{"A", T({3, 5})}, {"x", T({4})}}); },
                           "<program>:2:22: index j ranges over");
    EXPECT_EQ(e.kind(), Error::Kind::User);
}
