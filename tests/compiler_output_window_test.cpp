// Outputs that start as an existing tensor (OutputSpec::start), so that a program writing a
// window of the output (`y[i(1:7:2)] = x[i]`, NumPy's `Y[1:7:2] = x`) changes only that window
// and `+=` / `min=` combine onto the existing values: examples checked by hand, the compiled
// kernel against the reference evaluator over random windows, operators, fills and formats, the
// kernel-level keep_contents signature, and the refusals with their messages.
#include <set>

#include "compiler_test_util.hpp"
#include "ir_test_support.hpp"

namespace siskin::testing {
namespace {

using ir::test::expect_error;

std::vector<double> values_of(const Tensor& t) {
    std::vector<double> out;
    for (const auto& s : t.to_dense()) out.push_back(s.as_double());
    return out;
}

Tensor dense_vector(std::vector<double> values, double fill = 0.0, const std::string& format = "dense") {
    std::vector<Scalar> s;
    for (double v : values) s.push_back(Scalar::of(v));
    return Tensor::from_dense({static_cast<int64_t>(values.size())}, ValueType::Float64, Scalar::of(fill),
                              Format::parse(format, 1), s);
}

OutputSpec starting_as(const Tensor& t, std::optional<std::string> format = std::nullopt) {
    OutputSpec spec;
    spec.start = &t;
    if (format) spec.format = Format::parse(*format, t.ndims());
    return spec;
}

// Both evaluators on one program, the output starting as `start`.
std::pair<Tensor, Tensor> both(const std::string& program, const std::map<std::string, const Tensor*>& inputs,
                               const std::string& out, const OutputSpec& spec) {
    auto want = evaluate_reference(ir::parse_program(program), inputs, {{out, spec}});
    auto got = run_compiled(program, inputs, {{out, spec}});
    return {want.at(out), got.at(out)};
}

TEST(OutputWindow, AOneDimensionalWindowChangesOnlyItsElements) {
    // y = [10..17]; x = [1, 2, 3] goes to 1, 3, 5.
    Tensor y = dense_vector({10, 11, 12, 13, 14, 15, 16, 17});
    Tensor x = dense_vector({1, 2, 3});
    for (const auto& [program, expected] : std::vector<std::pair<std::string, std::vector<double>>>{
             {"y[i(1:7:2)] = x[i]", {10, 1, 12, 2, 14, 3, 16, 17}},
             {"y[i(1:7:2)] += x[i]", {10, 12, 12, 15, 14, 18, 16, 17}},
             {"y[i(-3:)] min= x[i] * 5", {10, 11, 12, 13, 14, 5, 10, 15}}}) {
        auto [want, got] = both(program, {{"x", &x}}, "y", starting_as(y));
        EXPECT_EQ(values_of(want), expected) << program << " (reference)";
        EXPECT_EQ(values_of(got), expected) << program << " (compiled)";
    }
    // The start tensor is only read.
    EXPECT_EQ(values_of(y), (std::vector<double>{10, 11, 12, 13, 14, 15, 16, 17}));
}

TEST(OutputWindow, ATwoDimensionalBlockAccumulates) {
    // Y[2:4, :] += B: Y = 4x3 with Y[i,j] = 10i + j, B = [[1, 0, 2], [0, 3, 0]] (csr).
    std::vector<Scalar> yv;
    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 3; ++j) yv.push_back(Scalar::of(10.0 * i + j));
    Tensor Y = Tensor::from_dense({4, 3}, ValueType::Float64, Scalar::of(0.0), Format::dense(2), yv);
    Tensor B = make({2, 3}, "csr", {{{0, 0}, 1}, {{0, 2}, 2}, {{1, 1}, 3}});
    auto [want, got] = both("Y[i(2:4), j] += B[i,j]", {{"B", &B}}, "Y", starting_as(Y));
    std::vector<double> expected{0, 1, 2, 10, 11, 12, 21, 21, 24, 30, 34, 32};
    EXPECT_EQ(values_of(want), expected);
    EXPECT_EQ(values_of(got), expected);
    // `=` overwrites the block, the unstored entries of B included (with B's fill, 0).
    auto [want2, got2] = both("Y[i(2:4), j] = B[i,j]", {{"B", &B}}, "Y", starting_as(Y));
    std::vector<double> expected2{0, 1, 2, 10, 11, 12, 1, 0, 2, 0, 3, 0};
    EXPECT_EQ(values_of(want2), expected2);
    EXPECT_EQ(values_of(got2), expected2);
}

TEST(OutputWindow, TheOutputTakesTheStartsShapeTypeFillAndFormat) {
    Tensor y = dense_vector({0, 4, 0, 0, 5, 0}, 0.0, "sparselist(0)");
    Tensor x = dense_vector({7, 0});
    for (bool compiled : {false, true}) {
        auto r = compiled ? run_compiled("y[i(2:4)] = x[i]", {{"x", &x}}, {{"y", starting_as(y)}})
                          : evaluate_reference(ir::parse_program("y[i(2:4)] = x[i]"), {{"x", &x}},
                                               {{"y", starting_as(y)}});
        const Tensor& out = r.at("y");
        EXPECT_EQ(out.shape(), std::vector<int64_t>{6});
        EXPECT_EQ(out.type(), ValueType::Float64);
        EXPECT_TRUE(out.fill().same(Scalar::of(0.0)));
        EXPECT_EQ(out.format().levels().at(0).kind, "sparselist") << compiled;
        EXPECT_EQ(values_of(out), (std::vector<double>{0, 4, 7, 0, 5, 0})) << compiled;
        // The zero written at 3 equals the fill and is not stored.
        EXPECT_EQ(stored_coordinates(out), (std::vector<std::vector<int64_t>>{{1}, {2}, {4}})) << compiled;
    }
    // A format given in the spec wins over the start's.
    auto dense = run_compiled("y[i(2:4)] = x[i]", {{"x", &x}}, {{"y", starting_as(y, "dense")}});
    EXPECT_EQ(dense.at("y").format().levels().at(0).kind, "dense");
    EXPECT_EQ(values_of(dense.at("y")), (std::vector<double>{0, 4, 7, 0, 5, 0}));
}

// Random values in [-3, 5) with some elements unstored (the fill), in `format`.
Tensor random_tensor(std::vector<int64_t> shape, const std::string& format, uint64_t seed, double fill,
                     double density = 0.6) {
    return random_tensor_of(shape, format, density, Scalar::of(fill), seed, [](std::mt19937_64& rng) {
        return Scalar::of(std::floor(std::uniform_real_distribution<double>(0.0, 1.0)(rng) * 8) - 3);
    });
}

TEST(OutputWindow, OneDimensionalWindowsAgreeWithTheReference) {
    // Windows of a 12-element y with steps 1 to 3 and negative bounds; x as long as the window.
    struct Window {
        std::string slice;
        int64_t length;
    };
    const std::vector<Window> windows = {{"0:12", 12}, {"2:7", 5}, {"1:12:2", 6}, {"::3", 4},
                                         {"-5:", 5},   {"-9:-1:3", 3}, {"3:-2:2", 4}};
    int checked = 0;
    for (double fill : {0.0, 2.0}) {
        for (const auto& yformat : {"dense", "sparselist(0)"}) {
            Tensor y = random_tensor({12}, yformat, 21, fill);
            for (const auto& w : windows) {
                for (const auto& xformat : {"dense", "sparselist(0)"}) {
                    Tensor x = random_tensor({w.length}, xformat, 22 + static_cast<uint64_t>(w.length), fill, 0.5);
                    for (const auto& op : {"=", "+=", "min=", "max="}) {
                        std::string program = "y[i(" + w.slice + ")] " + op + " x[i]";
                        auto [want, got] = both(program, {{"x", &x}}, "y", starting_as(y));
                        EXPECT_TRUE(same_output(want, got))
                            << program << " y " << yformat << " x " << xformat << " fill " << fill << "\nwant "
                            << want.to_string() << "\ngot " << got.to_string();
                        ++checked;
                    }
                }
            }
        }
    }
    EXPECT_EQ(checked, 2 * 2 * 7 * 2 * 4);
}

TEST(OutputWindow, TwoDimensionalWindowsAgreeWithTheReference) {
    // Windows of a 7x6 Y, each dimension sliced with steps 1 to 3 and negative bounds.
    struct Case {
        std::string lhs;
        std::vector<int64_t> shape; // of the operand
    };
    const std::vector<Case> cases = {{"Y[i(2:5), j]", {3, 6}},        {"Y[i(::2), j(1::2)]", {4, 3}},
                                     {"Y[i(-4:-1), j(-3:)]", {3, 3}}, {"Y[i(1::3), j(::3)]", {2, 2}},
                                     {"Y[i, j(2:5)]", {7, 3}}};
    const std::vector<std::string> operand_formats = {"dense", "csr", "dcsr"};
    const std::vector<std::string> output_formats = {"dense", "csr", "dcsr", "coo"};
    int checked = 0;
    for (double fill : {0.0, 1.0}) {
        for (const auto& yformat : output_formats) {
            Tensor Y = random_tensor({7, 6}, yformat, 31, fill);
            for (const auto& c : cases) {
                for (size_t f = 0; f < operand_formats.size(); ++f) {
                    Tensor A = random_tensor(c.shape, operand_formats[f], 32 + f, fill, 0.4);
                    for (const auto& rhs : {std::string("= A[i,j]"), std::string("+= A[i,j] * 2"),
                                            std::string("min= A[i,j]")}) {
                        std::string program = c.lhs + " " + rhs;
                        auto [want, got] = both(program, {{"A", &A}}, "Y", starting_as(Y));
                        EXPECT_TRUE(same_output(want, got))
                            << program << " Y " << yformat << " A " << operand_formats[f] << " fill " << fill;
                        ++checked;
                    }
                }
            }
        }
    }
    EXPECT_EQ(checked, 2 * 4 * 5 * 3 * 3);
}

TEST(OutputWindow, AReductionIntoAWindowAddsOntoTheStart) {
    // y[2:5] += A @ x over a start y, and a scalar that starts at the start's value.
    Tensor A = random_tensor({3, 4}, "csr", 41, 0.0, 0.5);
    Tensor x = random_tensor({4}, "dense", 42, 0.0, 1.0);
    Tensor y = random_tensor({6}, "dense", 43, 0.0, 1.0);
    auto [want, got] = both("y[i(2:5)] += A[i,j] * x[j]", {{"A", &A}, {"x", &x}}, "y", starting_as(y));
    EXPECT_TRUE(same_output(want, got));
    for (int i = 0; i < 6; ++i) {
        double expect = y.at({i}).as_double();
        if (i >= 2 && i < 5)
            for (int j = 0; j < 4; ++j) expect += A.at({i - 2, j}).as_double() * x.at({j}).as_double();
        EXPECT_EQ(got.at({i}).as_double(), expect) << i;
    }
    Tensor s = Tensor::from_dense({}, ValueType::Float64, Scalar::of(0.0), Format::dense(0), std::vector<Scalar>{Scalar::of(100.0)});
    auto [ws, gs] = both("s[] += A[i,j]", {{"A", &A}}, "s", starting_as(s));
    double sum = 100;
    A.for_each_stored([&](std::span<const int64_t>, const Scalar& v) { sum += v.as_double(); });
    EXPECT_EQ(ws.at({}).as_double(), sum);
    EXPECT_EQ(gs.at({}).as_double(), sum);
}

TEST(OutputWindow, AnEarlyExitReductionStartsFromTheStart) {
    // s &= x[i] > 0: a start of false stays false; a start of true becomes whether all are positive.
    Tensor x = dense_vector({1, 2, 3});
    for (bool start : {false, true}) {
        Tensor s = Tensor::from_dense({}, ValueType::Bool, Scalar::of(true), Format::dense(0),
                                      std::vector<Scalar>{Scalar::of(start)});
        auto [want, got] = both("s[] &= x[i] > 0", {{"x", &x}}, "s", starting_as(s));
        EXPECT_EQ(want.at({}).as_bool(), start);
        EXPECT_EQ(got.at({}).as_bool(), start);
    }
}

TEST(OutputWindow, TheProgramMayReadTheStartUnderItsOwnName) {
    // y[1:4] = 2 * y0[1:4] + x with y starting as y0: y0 is an ordinary input too.
    Tensor y0 = dense_vector({1, 2, 3, 4, 5});
    Tensor x = dense_vector({10, 20, 30});
    auto [want, got] = both("y[i(1:4)] = y0[i(1:4)] * 2 + x[i]", {{"x", &x}, {"y0", &y0}}, "y", starting_as(y0));
    std::vector<double> expected{1, 14, 26, 38, 5};
    EXPECT_EQ(values_of(want), expected);
    EXPECT_EQ(values_of(got), expected);
    EXPECT_EQ(values_of(y0), (std::vector<double>{1, 2, 3, 4, 5}));
}

TEST(OutputWindow, ACompiledProgramStartsAfreshOnEveryRun) {
    Tensor y = dense_vector({1, 1, 1, 1});
    Tensor x = dense_vector({5, 6});
    CompiledProgram p = compile_for(ir::parse_program("y[i(1:3)] += x[i]"), {{"x", &x}}, {{"y", starting_as(y)}},
                                    test_options());
    for (int run = 0; run < 2; ++run)
        EXPECT_EQ(values_of(p.run({{"x", &x}}).at("y")), (std::vector<double>{1, 6, 7, 1})) << run;
}

TEST(OutputWindow, TheKernelKeepsTheContentsOfAnOutputCompiledSo) {
    // compile() with keep_contents: the kernel adds onto the values the output tensor holds.
    Tensor x = dense_vector({5, 6});
    ir::Program p = ir::parse_program("y[i(1:3)] += x[i]");
    TensorSignature ys;
    ys.format = Format::dense(1).with_index_bits(32);
    ys.type = ValueType::Float64;
    ys.fill = Scalar::of(0.0);
    ys.ndims = 1;
    ys.keep_contents = true;
    auto k = compile(p, {{"x", TensorSignature::of(x)}, {"y", ys}}, test_options());
    auto outputs = k->prepare({{"y", {4}}});
    outputs.at("y") = dense_vector({1, 2, 3, 4}).convert(ys.format);
    k->run({{"x", &x}}, outputs);
    EXPECT_EQ(values_of(outputs.at("y")), (std::vector<double>{1, 7, 9, 4}));
    // A prepared output starts from the fill.
    auto fresh = k->prepare({{"y", {4}}});
    k->run({{"x", &x}}, fresh);
    EXPECT_EQ(values_of(fresh.at("y")), (std::vector<double>{0, 5, 6, 0}));
    // Without keep_contents the same program starts from the fill whatever the output held.
    ys.keep_contents = false;
    auto plain = compile(p, {{"x", TensorSignature::of(x)}, {"y", ys}}, test_options());
    auto out2 = plain->prepare({{"y", {4}}});
    out2.at("y") = dense_vector({1, 2, 3, 4}).convert(ys.format);
    plain->run({{"x", &x}}, out2);
    EXPECT_EQ(values_of(out2.at("y")), (std::vector<double>{0, 5, 6, 0}));
}

TEST(OutputWindow, KeepingTheContentsOfASparseOutputIsRefusedByCompile) {
    Tensor x = dense_vector({5, 6});
    TensorSignature ys;
    ys.format = Format::parse("sparselist(0)", 1).with_index_bits(32);
    ys.ndims = 1;
    ys.fill = Scalar::of(0.0);
    ys.keep_contents = true;
    Error e = expect_error([&] { compile(ir::parse_program("y[i] += x[i]"), {{"x", TensorSignature::of(x)}, {"y", ys}}, test_options()); },
                           "output y keeps its contents, which compiled code does for dense outputs only");
    EXPECT_EQ(e.kind(), Error::Kind::Unsupported);
    TensorSignature xs = TensorSignature::of(x);
    xs.format = xs.format.with_index_bits(32);
    xs.keep_contents = true;
    ys.format = Format::dense(1).with_index_bits(32);
    expect_error([&] { compile(ir::parse_program("y[i] += x[i]"), {{"x", xs}, {"y", ys}}, test_options()); },
                 "the signature of x keeps its contents, but the program only reads x");
    // infer_signatures (siskin c) has no conversion after the kernel: a sparse start is refused.
    Tensor ysparse = dense_vector({1, 0}, 0.0, "sparselist(0)");
    Error f = expect_error([&] { infer_signatures(ir::parse_program("y[i] += x[i]"), {{"x", TensorSignature::of(x)}},
                                                  {{"y", starting_as(ysparse)}}); },
                           "output y starts as an existing tensor, which a kernel does in place for a dense "
                           "output only");
    EXPECT_EQ(f.kind(), Error::Kind::Unsupported);
    auto sigs = infer_signatures(ir::parse_program("y[i] += x[i]"), {{"x", TensorSignature::of(x)}},
                                 {{"y", starting_as(x)}});
    EXPECT_TRUE(sigs.at("y").keep_contents);
}

TEST(OutputWindow, BadStartsAreErrorsNamingBothSides) {
    Tensor x = dense_vector({1, 2, 3});
    Tensor y = dense_vector({0, 0, 0, 0, 0, 0, 0, 0});
    const std::string program = "y[i(1:7:2)] = x[i]";
    for (bool compiled : {false, true}) {
        auto run = [&](std::map<std::string, OutputSpec> specs, const std::string& text = "y[i(1:7:2)] = x[i]") {
            if (compiled) run_compiled(text, {{"x", &x}}, specs);
            else evaluate_reference(ir::parse_program(text), {{"x", &x}}, specs);
        };
        expect_error([&] { run({{"x", starting_as(y)}}); },
                     "x is given a start tensor, but the program only reads x: only an output can start as an "
                     "existing tensor");
        expect_error([&] { run({{"z", starting_as(y)}}); }, "z is given a start tensor, but the program does not write z");
        OutputSpec shape = starting_as(y);
        shape.shape = std::vector<int64_t>{9};
        expect_error([&] { run({{"y", shape}}); }, "output y starts as a tensor of shape [8], but shape [9] was asked for");
        OutputSpec type = starting_as(y);
        type.type = ValueType::Int32;
        expect_error([&] { run({{"y", type}}); }, "output y starts as a float64 tensor, but type int32 was asked for");
        OutputSpec fill = starting_as(y);
        fill.fill = Scalar::of(1.0);
        expect_error([&] { run({{"y", fill}}); }, "output y starts as a tensor with fill 0, but fill 1 was asked for");
        expect_error([&] { run({{"y", starting_as(y)}}, "fill y = 2\ny[i(1:7:2)] = x[i]"); },
                     "output y starts as a tensor with fill 0, but fill 2 was asked for");
        OutputSpec format = starting_as(y);
        format.format = Format::dense(2);
        expect_error([&] { run({{"y", format}}); }, "output y starts as a tensor of 1 dimensions, but its format");
        // A window outside the start tensor.
        Tensor small = dense_vector({0, 0, 0});
        expect_error([&] { run({{"y", starting_as(small)}}); }, "slice 1:7:2 of dimension 0 of y is out of range");
        // The same fill and type may be asked for again.
        OutputSpec same = starting_as(y);
        same.fill = Scalar::of(0.0);
        same.type = ValueType::Float64;
        same.shape = std::vector<int64_t>{8};
        EXPECT_NO_THROW(run({{"y", same}})) << compiled;
    }
}

} // namespace
} // namespace siskin::testing
