// Level-specific cases the random programs do not reach: pattern inputs, a 3-d coo, other value
// types, and the structure of sparse outputs.
#include <limits>
#include <tuple>

#include "compiler_test_util.hpp"

namespace siskin::testing {
namespace {

const double kInf = std::numeric_limits<double>::infinity();

Tensor pattern_csr() {
    CoordinateList e;
    e.ndims = 2;
    for (auto [i, j] : std::vector<std::pair<int64_t, int64_t>>{{0, 1}, {0, 2}, {2, 0}})
        e.add(std::vector<int64_t>{i, j}, Scalar::of(true));
    return Tensor::from_coordinates({3, 3}, ValueType::Bool, Scalar::of(false),
                                    Format::parse("dense(0)/sparselist(1)/pattern", 2), e);
}

TEST(CompilerLevels, PatternInputsReadAsTrue) {
    Tensor p = pattern_csr();
    Tensor a = make({3, 3}, "dense", {{{0, 1}, 5}, {{0, 0}, 7}, {{2, 0}, 2}, {{2, 2}, 9}});
    auto masked = run_compiled("for i { for j { if P[i, j] { s[] += A[i, j] } } }", {{"P", &p}, {"A", &a}});
    EXPECT_EQ(masked.at("s").at({}).as_double(), 7.0); // A[0,1] + A[0,2] + A[2,0]
    auto counted = run_compiled("for i { for j { if P[i, j] { n[] += 1 } } }", {{"P", &p}});
    EXPECT_EQ(counted.at("n").at({}).as_int(), 3);
}

TEST(CompilerLevels, CooOfThreeDimensions) {
    CoordinateList e;
    e.ndims = 3;
    e.add(std::vector<int64_t>{0, 1, 2}, Scalar::of(1.0));
    e.add(std::vector<int64_t>{0, 1, 3}, Scalar::of(2.0));
    e.add(std::vector<int64_t>{1, 0, 0}, Scalar::of(4.0));
    e.add(std::vector<int64_t>{1, 2, 3}, Scalar::of(8.0));
    Tensor t = Tensor::from_coordinates({2, 3, 4}, ValueType::Float64, Scalar::of(0.0),
                                        Format::parse("coo", 3), e);
    auto r = run_compiled("for i { for j { for k { y[i, j] += T[i, j, k] } } }", {{"T", &t}});
    const Tensor& y = r.at("y");
    EXPECT_EQ(y.at({0, 1}).as_double(), 3.0);
    EXPECT_EQ(y.at({1, 0}).as_double(), 4.0);
    EXPECT_EQ(y.at({1, 2}).as_double(), 8.0);
    EXPECT_EQ(y.at({0, 0}).as_double(), 0.0);
    auto s = run_compiled("for i { for j { for k { s[] += T[i, j, k] * k } } }", {{"T", &t}});
    EXPECT_EQ(s.at("s").at({}).as_double(), 1.0 * 2 + 2.0 * 3 + 8.0 * 3);
}

TEST(CompilerLevels, IntegerAndBoolValues) {
    CoordinateList e;
    e.ndims = 2;
    e.add(std::vector<int64_t>{0, 1}, Scalar::of(int32_t{3}));
    e.add(std::vector<int64_t>{1, 0}, Scalar::of(int32_t{-2}));
    Tensor a = Tensor::from_coordinates({2, 2}, ValueType::Int32, Scalar::of(int32_t{0}),
                                        Format::parse("csr@32", 2), e);
    auto y = run_compiled("for i { for j { y[i] += A[i, j] * j } }", {{"A", &a}}).at("y");
    EXPECT_EQ(y.type(), ValueType::Int64);
    EXPECT_EQ(y.at({0}).as_int(), 3);
    EXPECT_EQ(y.at({1}).as_int(), 0);
    auto any = run_compiled("for i { for j { b[i] |= A[i, j] < 0 } }", {{"A", &a}}).at("b");
    EXPECT_EQ(any.type(), ValueType::Bool);
    EXPECT_FALSE(any.at({0}).as_bool());
    EXPECT_TRUE(any.at({1}).as_bool());
}

TEST(CompilerLevels, SparseOutputsStoreExactlyTheNonFillEntries) {
    Tensor a = make({3, 4}, "dcsr", {{{0, 1}, 2}, {{0, 3}, -2}, {{2, 2}, 5}});
    Tensor b = make({3, 4}, "csr", {{{0, 1}, -2}, {{0, 3}, 3}, {{1, 0}, 1}});
    OutputSpec dcsr;
    dcsr.format = Format::parse("dcsr", 2);
    auto c = run_compiled("for i { for j { C[i, j] = A[i, j] + B[i, j] } }", {{"A", &a}, {"B", &b}},
                          {{"C", dcsr}}).at("C");
    // A + B cancels at (0, 1): not stored.
    EXPECT_EQ(stored_coordinates(c), (std::vector<std::vector<int64_t>>{{0, 3}, {1, 0}, {2, 2}}));
    EXPECT_EQ(c.at({0, 3}).as_double(), 1.0);
    EXPECT_EQ(ints(c.level(0).buffer("pos")), (std::vector<int64_t>{0, 3}));
    EXPECT_EQ(ints(c.level(0).buffer("crd")), (std::vector<int64_t>{0, 1, 2}));
    EXPECT_EQ(ints(c.level(1).buffer("pos")), (std::vector<int64_t>{0, 1, 2, 3}));
    // The product is an intersection; as csr, empty rows still have their pos entries.
    OutputSpec csr;
    csr.format = Format::parse("csr", 2);
    auto p = run_compiled("for i { for j { C[i, j] = A[i, j] * B[i, j] } }", {{"A", &a}, {"B", &b}},
                          {{"C", csr}}).at("C");
    EXPECT_EQ(stored_coordinates(p), (std::vector<std::vector<int64_t>>{{0, 1}, {0, 3}}));
    EXPECT_EQ(ints(p.level(1).buffer("pos")), (std::vector<int64_t>{0, 2, 2, 2}));
    EXPECT_EQ(doubles(p.values()), (std::vector<double>{-4.0, -6.0}));
}

TEST(CompilerLevels, StatementsSharingASparseOutputSlot) {
    Tensor x = make({6}, "sparselist(0)", {{{1}, 1}, {{3}, 2}, {{4}, -5}});
    Tensor v = make({6}, "sparselist(0)", {{{3}, -2}, {{4}, 5}, {{5}, 7}});
    OutputSpec list;
    list.format = Format::parse("sparselist(0)", 1);
    // Two writes of w[i] in one loop share the slot of coordinate i; entries that come back to
    // the fill (3 and 4) are not stored.
    const char* program = "for i { w[i] = x[i]; w[i] += v[i] }";
    auto w = run_compiled(program, {{"x", &x}, {"v", &v}}, {{"w", list}}).at("w");
    auto want = evaluate_reference(ir::parse_program(program), {{"x", &x}, {"v", &v}}, {{"w", list}}).at("w");
    EXPECT_TRUE(w.equals(want));
    EXPECT_EQ(stored_coordinates(w), (std::vector<std::vector<int64_t>>{{1}, {5}}));
    // if/else writing the same sparse output in each branch.
    const char* branches = "for i { if x[i] > 0 { w[i] = x[i] } else { w[i] = v[i] * 2 } }";
    auto b = run_compiled(branches, {{"x", &x}, {"v", &v}}, {{"w", list}}).at("w");
    auto b_want = evaluate_reference(ir::parse_program(branches), {{"x", &x}, {"v", &v}}, {{"w", list}}).at("w");
    EXPECT_TRUE(b.equals(b_want)) << b.to_string() << "\n" << b_want.to_string();
    EXPECT_EQ(stored_coordinates(b), stored_coordinates(b_want));
}

TEST(CompilerLevels, DiagonalReadsLocateTheSecondCoordinate) {
    Tensor a = make({3, 3}, "dcsr", {{{0, 0}, 1}, {{0, 2}, 5}, {{1, 1}, 2}, {{2, 1}, 7}});
    EXPECT_EQ(run_compiled("for i { s[] += A[i, i] }", {{"A", &a}}).at("s").at({}).as_double(), 3.0);
    Tensor c = a.convert(Format::parse("csr", 2));
    EXPECT_EQ(run_compiled("for i { s[] += A[i, i] }", {{"A", &c}}).at("s").at({}).as_double(), 3.0);
}


// sparsepoint and sparseinterval inputs in every place they take, read with each protocol, with
// fills 0, 1 and inf, against the reference evaluator.
TEST(CompilerLevels, SingularLevelsInEveryPlace) {
    using List = std::vector<std::pair<std::vector<int64_t>, double>>;
    auto tensor = [](const std::string& format, const List& list, double fill) {
        CoordinateList e;
        e.ndims = 2;
        for (const auto& [c, v] : list) e.add(c, Scalar::of(v));
        return Tensor::from_coordinates({5, 6}, ValueType::Float64, Scalar::of(fill), Format::parse(format, 2), e);
    };
    // Points: one per row (per column when column-major), row 2 empty. Runs: one per row.
    const List points{{{0, 4}, 2}, {{1, 0}, -1}, {{3, 3}, 5}, {{4, 4}, 2}};
    const List runs{{{0, 1}, 3}, {{0, 2}, 3}, {{0, 3}, 3}, {{1, 5}, -2}, {{3, 0}, 4}, {{4, 0}, 1},
                    {{4, 1}, 1}, {{4, 2}, 1}, {{4, 3}, 1}, {{4, 4}, 1}, {{4, 5}, 1}};
    const List one_row{{{3, 1}, 7}, {{3, 2}, 7}};
    struct Place {
        std::string format;
        bool row_major; // stored rows first: loops i, j
        List entries;
    };
    const std::vector<Place> places{
        {"dense(0)/sparsepoint(1)", true, points},
        {"sparselist(0)/sparsepoint(1)@64", true, points},
        {"dense(1)/sparsepoint(0)@32", false, {{{4, 0}, 2}, {{0, 1}, -1}, {{3, 3}, 5}}},
        {"sparsepoint(0)/sparsepoint(1)", true, {{{3, 2}, 6}}},
        {"sparsepoint(0)/dense(1)", true, one_row},
        {"dense(0)/sparseinterval(1)", true, runs},
        {"sparselist(0)/sparseinterval(1)@32", true, runs},
        {"sparsepoint(0)/sparseinterval(1)@64", true, one_row},
    };
    const char* protocols[] = {"walk", "gallop", "follow"};
    Tensor x = make({6}, "dense", {{{0}, 1}, {{1}, 2}, {{2}, -3}, {{3}, 4}, {{4}, 0.5}, {{5}, 6}});
    int k = 0;
    for (const Place& place : places)
        for (double fill : {0.0, 1.0, kInf}) {
            Tensor a = tensor(place.format, place.entries, fill);
            std::string p = protocols[k++ % 3];
            std::string access = place.row_major ? "A[i, " + p + "(j)]" : "A[" + p + "(i), j]";
            std::string body = fill == 0.0   ? "y[i] += " + access + " * x[j]"
                               : fill == 1.0 ? "y[i] max= " + access
                                             : "y[i] min= " + access + " + x[j]";
            std::string program = place.row_major ? "for i { for j { " + body + " } }" : "for j { for i { " + body + " } }";
            SCOPED_TRACE(place.format + ": " + program);
            compiled_matching_reference(program, {{"A", &a}, {"x", &x}});
        }
    // Random access into the other order, and two singular operands together.
    Tensor p = tensor("dense(0)/sparsepoint(1)", points, 0.0);
    Tensor r = tensor("dense(0)/sparseinterval(1)", runs, 0.0);
    compiled_matching_reference("for j { for i { s[] += P[i, j] * j } }", {{"P", &p}});
    compiled_matching_reference("for i { for j { C[i, j] = P[i, j] + R[i, j] * 2 } }", {{"P", &p}, {"R", &r}});
    compiled_matching_reference("for i { for j { s[] += P[i, j] * R[i, j] } }", {{"P", &p}, {"R", &r}});
}

// A point's extent clipped to the loop's ([pt, min(n, pt + 1)), at most one index) is the body
// at pt behind the emptiness test, not a loop (with its unrolled copies) that runs once.
TEST(CompilerLevels, APointIsOneBodyNotALoop) {
    CoordinateList e;
    e.ndims = 2;
    for (auto [i, j, v] : {std::tuple{0, 4, 2.0}, {1, 0, -1.0}, {3, 3, 5.0}, {4, 5, 2.0}})
        e.add(std::vector<int64_t>{i, j}, Scalar::of(v));
    Tensor a = Tensor::from_coordinates({5, 6}, ValueType::Float64, Scalar::of(0.0),
                                        Format::parse("dense(0)/sparsepoint(1)", 2), e);
    Tensor x = make({6}, "dense", {{{0}, 1}, {{1}, 2}, {{2}, -3}, {{3}, 4}, {{4}, 0.5}, {{5}, 6}});
    std::string c;
    counted("y[i] += A[i, j] * x[j]", {{"A", &a}, {"x", &x}}, {}, &c);
    EXPECT_EQ(c.find("j++"), std::string::npos) << c;
    EXPECT_EQ(c.find("j += "), std::string::npos) << c;
}

} // namespace
} // namespace siskin::testing
