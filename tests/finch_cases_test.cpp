// The Finch paper's test cases (../shared/papers/notes/finch.md §6) for the structured levels,
// with their expected values and work bounds. Cases 13-16 and 19-21 (index modifiers, scatter,
// erosion, the masked histogram) live in compiler_affine_test.cpp as AffineCompiled.FinchCase*;
// the exact storage of each level on the §2.4 examples is in the levels_*_test.cpp files.
//
// The cases of this file: 18 (runs of sub-fibres), 19 and 20 on run-length images
// (sparserunlist), 22 (sparseinterval), 23 (sparsepoint), 25 (sparseblocklist), 32 (a scalar at
// its fill skips the loop at run time).
#include <limits>

#include "compiler_test_util.hpp"

namespace siskin::testing {
namespace {

int64_t count(const std::string& text, const std::string& what) {
    int64_t n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
}

// The C of `program`, whose output `out` is a dense float64 tensor of `ndims` dimensions.
std::string c_of(const std::string& program, const std::map<std::string, const Tensor*>& inputs,
                 const std::string& out = "s", int ndims = 0) {
    std::map<std::string, TensorSignature> sigs;
    for (const auto& [name, t] : inputs) sigs.emplace(name, TensorSignature::of(*t, true));
    TensorSignature o;
    o.format = Format::dense(ndims).with_index_bits(64);
    o.type = ValueType::Float64;
    o.fill = Scalar::of(0.0);
    o.ndims = ndims;
    sigs.emplace(out, o);
    return generate_c(ir::parse_program(program), sigs);
}

// Case 18: a kernel writing [1,1,2,2,2,1] into a runlist stores right = [2,5,6] (exclusive ends)
// and values [1,2,1]; one writing the rows [1,2],[1,2],[3,4],[3,4] into runlist(0)/dense(1)
// stores 2 runs, right = [2,4], and 4 leaves: equal neighbouring sub-fibres are merged, however
// many rows a run covers.
TEST(FinchCases, Case18RunsOfSubFibres) {
    auto numbers = [](const Buffer& b) {
        std::vector<double> out;
        for (int64_t i = 0; i < b.size(); ++i) out.push_back(b.get(i).as_double());
        return out;
    };
    Tensor v = make({6}, "dense", {{{0}, 1}, {{1}, 1}, {{2}, 2}, {{3}, 2}, {{4}, 2}, {{5}, 1}});
    OutputSpec rle;
    rle.format = Format::parse("runlist(0)", 1);
    Tensor w = compiled_matching_reference("for i { w[i] = v[i] }", {{"v", &v}}, {{"w", rle}}).at("w");
    EXPECT_EQ(numbers(w.level(0).buffer("right")), (std::vector<double>{2, 5, 6}));
    EXPECT_EQ(numbers(w.values()), (std::vector<double>{1, 2, 1}));

    auto rows_of = [](int64_t repeat) {
        std::vector<Scalar> values;
        for (double row : {0.0, 1.0})
            for (int64_t r = 0; r < 2 * repeat; ++r)
                for (double col : {1.0, 2.0}) values.push_back(Scalar::of(2 * row + col));
        return Tensor::from_dense({4 * repeat, 2}, ValueType::Float64, Scalar::of(0.0), Format::dense(2), values);
    };
    Tensor a = rows_of(1);
    OutputSpec runs;
    runs.format = Format::parse("runlist(0)/dense(1)", 2);
    Tensor c = compiled_matching_reference("for i { for j { C[i, j] = A[i, j] } }", {{"A", &a}}, {{"C", runs}}).at("C");
    EXPECT_EQ(numbers(c.level(0).buffer("pos")), (std::vector<double>{0, 2}));
    EXPECT_EQ(numbers(c.level(0).buffer("right")), (std::vector<double>{2, 4}));
    EXPECT_EQ(numbers(c.values()), (std::vector<double>{1, 2, 3, 4}));
    auto s = compiled_matching_reference("for i { for j { s[] += C[i, j] } }", {{"C", &c}}).at("s");
    EXPECT_EQ(s.at({}).as_double(), 20.0);
    Tensor tall = rows_of(1000).convert(Format::parse("runlist(0)/dense(1)", 2));
    EXPECT_EQ(tall.stored(), 4);
}

// Case 22: one run [3:6] (1-based) of n = 10 in a SparseInterval: the sum is 4, as one
// multiply-add (no loop over the run's coordinates); a second run cannot be written.
TEST(FinchCases, Case22SparseInterval) {
    Tensor v = make({10}, "sparseinterval(0)", {{{2}, 1}, {{3}, 1}, {{4}, 1}, {{5}, 1}});
    EXPECT_EQ(scalar_work_of("for i { s[] += v[i] }", {{"v", &v}}), 0); // no loop runs at all
    Tensor wide = make({100000}, "sparseinterval(0)", {});
    EXPECT_EQ(scalar_work_of("for i { s[] += v[i] * 2 }", {{"v", &wide}}), 0);
    EXPECT_EQ(count(c_of("for i { s[] += v[i] }", {{"v", &v}}), "for ("), 0);
    auto s = run_compiled("for i { s[] += v[i] }", {{"v", &v}}).at("s");
    EXPECT_EQ(s.at({}).as_double(), 4.0);
    Tensor two = make({10}, "dense", {{{2}, 1}, {{6}, 1}});
    OutputSpec interval;
    interval.format = Format::parse("sparseinterval(0)", 1);
    EXPECT_TRUE(throws_error([&] { run_compiled("for i { w[i] = x[i] }", {{"x", &two}}, {{"w", interval}}); },
                             {"sparseinterval fibre one run of one value"}));
}

// Case 23: the reverse permutation A[4-j, j] = 1 (n = 5) in dense(0)/sparsepoint(1), x = 1..5:
// y = [5, 4, 3, 2, 1], one inner step per row, and the level has no pos array.
TEST(FinchCases, Case23SparsePoint) {
    CoordinateList e;
    e.ndims = 2;
    for (int64_t j = 0; j < 5; ++j) e.add(std::vector<int64_t>{4 - j, j}, Scalar::of(1.0));
    Tensor a = Tensor::from_coordinates({5, 5}, ValueType::Float64, Scalar::of(0.0),
                                        Format::parse("dense(0)/sparsepoint(1)", 2), e);
    EXPECT_EQ(a.level(1).names, (std::vector<std::string>{"idx"}));
    Tensor x = make({5}, "dense", {{{0}, 1}, {{1}, 2}, {{2}, 3}, {{3}, 4}, {{4}, 5}});
    auto y = compiled_matching_reference("for i { for j { y[i] += A[i, j] * x[j] } }", {{"A", &a}, {"x", &x}}).at("y");
    for (int64_t i = 0; i < 5; ++i) EXPECT_EQ(y.at({i}).as_double(), 5.0 - static_cast<double>(i));
    // The inner loop is one step per row: no stepper, no search.
    std::string c = c_of("for i { for j { y[i] += A[i, j] * x[j] } }", {{"A", &a}, {"x", &x}}, "y", 1);
    EXPECT_EQ(count(c, "while ("), 0) << c;
    EXPECT_EQ(count(c, "siskin_lower_bound"), 0) << c;
    // One body per row: the point's one coordinate is the row's body behind its emptiness test, not
    // a loop (lower_lookup), so nothing more is counted for it.
    EXPECT_EQ(scalar_work_of("for i { for j { s[] += A[i, j] * x[j] } }", {{"A", &a}, {"x", &x}}), 5);
}


// Case 19 on run-length images: in = [1,1,1,0,0,1,1,1,1,0] as sparserunlist(0)/pattern (runs
// [1:3], [6:9], 1-based), the 3-point AND with coalesce(true) gives runs [1:2], [7:8], stored as
// runs; scaling n by 1000 with the same runs, scaled, leaves the loop trips unchanged.
TEST(FinchCases, Case19RunLengthErosion) {
    const std::string erode = "for i { out[i] = coalesce(v[~(i-1)], true) & v[i] & coalesce(v[~(i+1)], true) }";
    auto image = [](int64_t scale, const std::string& format) {
        std::vector<Scalar> px;
        for (int b : {1, 1, 1, 0, 0, 1, 1, 1, 1, 0})
            for (int64_t k = 0; k < scale; ++k) px.push_back(Scalar::of(b != 0));
        return Tensor::from_dense({static_cast<int64_t>(px.size())}, ValueType::Bool, Scalar::of(false),
                                  Format::parse(format, 1), px);
    };
    OutputSpec rle = with_format("sparserunlist(0)/pattern", 1);
    rle.type = ValueType::Bool;
    rle.fill = Scalar::of(false);
    Tensor in = image(1, "sparserunlist(0)/pattern");
    auto out = compiled_matching_reference(erode, {{"v", &in}}, {{"out", rle}}).at("out");
    EXPECT_EQ(ints(out.level(0).buffer("left")), (std::vector<int64_t>{0, 6}));
    EXPECT_EQ(ints(out.level(0).buffer("right")), (std::vector<int64_t>{2, 8}));
    auto trips = [&](int64_t scale) {
        Tensor big = image(scale, "sparserunlist(0)/pattern");
        ir::Program program = ir::parse_program(erode);
        std::map<std::string, TensorSignature> sigs{{"v", TensorSignature::of(big, true)}};
        TensorSignature o;
        o.format = rle.format->with_index_bits(64);
        o.type = ValueType::Bool;
        o.fill = Scalar::of(false);
        o.ndims = 1;
        sigs.emplace("out", o);
        CompileOptions options = test_options();
        options.count_work = true;
        auto kernel = compile(program, sigs, options);
        auto outputs = kernel->prepare({{"out", {10 * scale}}});
        kernel->run({{"v", &big}}, outputs);
        EXPECT_EQ(outputs.at("out").stored(), 2);
        return kernel->last_work();
    };
    EXPECT_EQ(trips(1000), trips(1));
}

// Case 20 with the rows run-length encoded: the same output as dense bytes.
TEST(FinchCases, Case20RunLengthErosionInTwoDimensions) {
    std::vector<Scalar> px;
    for (int y = 0; y < 4; ++y)
        for (int b : {0, 1, 1, 1, 1, 0}) px.push_back(Scalar::of(b != 0));
    for (int b : {0, 0, 1, 0, 0, 0}) px.push_back(Scalar::of(b != 0));
    Tensor in = Tensor::from_dense({5, 6}, ValueType::Bool, Scalar::of(false),
                                   Format::parse("dense(0)/sparserunlist(1)/pattern", 2), px);
    OutputSpec rle = with_format("dense(0)/sparserunlist(1)/pattern", 2);
    rle.type = ValueType::Bool;
    rle.fill = Scalar::of(false);
    auto got = compiled_matching_reference(
        "tmp[y,x] = coalesce(A[y, ~(x-1)], true) & A[y,x] & coalesce(A[y, ~(x+1)], true)\n"
        "out[y,x] = coalesce(tmp[~(y-1), x], true) & tmp[y,x] & coalesce(tmp[~(y+1), x], true)",
        {{"A", &in}}, {{"out", rle}}).at("out");
    // 001100 three times, then two empty rows.
    EXPECT_EQ(ints(got.level(1).buffer("pos")), (std::vector<int64_t>{0, 1, 2, 3, 3, 3}));
    EXPECT_EQ(ints(got.level(1).buffer("left")), (std::vector<int64_t>{2, 2, 2}));
    EXPECT_EQ(ints(got.level(1).buffer("right")), (std::vector<int64_t>{4, 4, 4}));
}


// Case 25: n = 12, blocks [2:4] = (1, 2, 3) and [9:10] = (4, 5) (1-based) as a SparseBlockList:
// idx = [4, 10] (exclusive ends), ofs = [0, 3, 5]; the dot with y[i] = i (1-based) is 106, one
// step per block and one iteration per stored entry.
TEST(FinchCases, Case25SparseBlockList) {
    Tensor v = make({12}, "sparseblocklist(0)", {{{1}, 1}, {{2}, 2}, {{3}, 3}, {{8}, 4}, {{9}, 5}});
    EXPECT_EQ(ints(v.level(0).buffer("idx")), (std::vector<int64_t>{4, 10}));
    EXPECT_EQ(ints(v.level(0).buffer("ofs")), (std::vector<int64_t>{0, 3, 5}));
    std::vector<Scalar> ramp;
    for (int64_t i = 1; i <= 12; ++i) ramp.push_back(Scalar::of(static_cast<double>(i)));
    Tensor y = Tensor::from_dense({12}, ValueType::Float64, Scalar::of(0.0), Format::dense(1), ramp);
    auto s = run_compiled("for i { s[] += v[i] * y[i] }", {{"v", &v}, {"y", &y}}).at("s");
    EXPECT_EQ(s.at({}).as_double(), 106.0);
    EXPECT_EQ(scalar_work_of("for i { s[] += v[i] * y[i] }", {{"v", &v}, {"y", &y}}), 2 + 5);
}

// Looplets case 17 (notes/looplets.md §10), PackBits: segments run(7, ends 3), literal [1,2,3]
// (ends 6), run(0, ends 8) decode to [7,7,7,1,2,3,0,0]; the dot with y = [1..8] is 74. A sum of
// the level alone integrates each run: one step per segment and one body per literal value.
TEST(FinchCases, LoopletsCase17PackBits) {
    Tensor v = make({8}, "packbits(0)", {{{0}, 7}, {{1}, 7}, {{2}, 7}, {{3}, 1}, {{4}, 2}, {{5}, 3}});
    std::vector<Scalar> ramp;
    for (int64_t i = 1; i <= 8; ++i) ramp.push_back(Scalar::of(static_cast<double>(i)));
    Tensor y = Tensor::from_dense({8}, ValueType::Float64, Scalar::of(0.0), Format::dense(1), ramp);
    auto s = run_compiled("for i { s[] += v[i] * y[i] }", {{"v", &v}, {"y", &y}}).at("s");
    EXPECT_EQ(s.at({}).as_double(), 74.0);
    EXPECT_EQ(scalar_work_of("for i { s[] += v[i] }", {{"v", &v}}), 3 + 3);
    // Read at random (follow): y drives the loop and locates each coordinate.
    Tensor sy = make({8}, "sparselist(0)", {{{1}, 10}, {{4}, 100}, {{7}, 1000}});
    auto t = run_compiled("for i { s[] += y[i] * v[i] }", {{"y", &sy}, {"v", &v}}).at("s");
    EXPECT_EQ(t.at({}).as_double(), 270.0); // 7*10 + 2*100 + 0*1000
}

// A 0-d float64 tensor holding `value`, with fill `fill`.
Tensor scalar(double value, double fill) {
    std::vector<Scalar> v{Scalar::of(value)};
    return Tensor::from_dense({}, ValueType::Float64, Scalar::of(fill), Format::dense(0), v);
}

// Case 32: with s[] equal to its fill 0, y[i] = s[] * x[i] reads x zero times (a run-time test
// on s before the loop) and y stays at its fill; any other s reads every x. Compiled once, run
// for both values of s, equal to the reference.
TEST(FinchCases, Case32AScalarAtItsFillSkipsTheLoop) {
    const int64_t n = 1000;
    std::vector<Scalar> ramp;
    for (int64_t i = 0; i < n; ++i) ramp.push_back(Scalar::of(0.5 + static_cast<double>(i)));
    Tensor x = Tensor::from_dense({n}, ValueType::Float64, Scalar::of(0.0), Format::dense(1), ramp);
    Tensor zero = scalar(0.0, 0.0), three = scalar(3.0, 0.0);
    ir::Program program = ir::parse_program("for i { y[i] = s[] * x[i] }");
    CompileOptions options = test_options();
    options.count_work = true;
    std::map<std::string, OutputSpec> sparse_y{{"y", with_format("sparselist(0)", 1)}};
    CompiledProgram compiled = compile_for(program, {{"s", &zero}, {"x", &x}}, sparse_y, options);
    for (const Tensor* s : {&zero, &three}) {
        std::map<std::string, const Tensor*> inputs{{"s", s}, {"x", &x}};
        Tensor y = compiled.run(inputs).at("y");
        EXPECT_TRUE(same_output(evaluate_reference(program, inputs, sparse_y).at("y"), y)) << y.to_string();
        EXPECT_EQ(compiled.kernel->last_work(), s == &zero ? 0 : n);
        EXPECT_EQ(y.stored(), s == &zero ? 0 : n);
    }
}

// The test is taken only where it holds for every value: an x holding inf (0 * inf is NaN, so
// s = 0 must still read x), a fill of s that annihilates nothing (1), sparse and dense x and y,
// against the reference.
TEST(FinchCases, Case32TheRunTimeTestKeepsTheDenseSemantics) {
    const double inf = std::numeric_limits<double>::infinity();
    Tensor finite_x = make({6}, "sparselist(0)", {{{1}, 2.0}, {{4}, -3.0}});
    Tensor infinite_x = make({6}, "dense", {{{1}, inf}, {{2}, 5.0}});
    for (const Tensor* x : {&finite_x, &infinite_x})
        for (double fill : {0.0, 1.0})
            for (double value : {0.0, 1.0, 2.0, inf})
                for (const char* format : {"dense", "sparselist(0)"}) {
                    SCOPED_TRACE(::testing::Message() << "x " << x->to_string() << ", s " << value << " (fill "
                                                    << fill << "), y " << format);
                    Tensor s = scalar(value, fill);
                    compiled_matching_reference("for i { y[i] = s[] * x[i] }\nfor i { z[i] = x[i] * s[] + 1 }",
                                                {{"s", &s}, {"x", x}}, {{"y", with_format(format, 1)}});
                }
}

} // namespace
} // namespace siskin::testing
