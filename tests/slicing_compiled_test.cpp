// Compiled reads of sliced operands (`b[i(lo:hi:st)]`), read in place: the paper's examples with
// values checked by hand, differential tests against the reference evaluator across levels,
// steps, negative bounds and fills, the run-time checks, the refusals, and work counts that show
// a slice of a sorted list costs the stored entries inside the window plus a seek.
#include <set>

#include "compiler_test_util.hpp"
#include "ir_test_support.hpp"

namespace siskin::testing {
namespace {

using ir::test::expect_error;

Tensor vector_of(int64_t n, std::initializer_list<std::pair<std::vector<int64_t>, double>> list,
                 const std::string& format, double fill = 0.0) {
    return make({n}, format, list, fill);
}

std::vector<double> values_of(const Tensor& t) {
    std::vector<double> out;
    for (const auto& s : t.to_dense()) out.push_back(s.as_double());
    return out;
}

// A seeded random vector of length n: each element stored with probability `density`.
Tensor random_vector(int64_t n, double density, const std::string& format, uint64_t seed, double fill) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    CoordinateList list;
    list.ndims = 1;
    for (int64_t i = 0; i < n; ++i)
        if (u(rng) < density) list.add(std::vector<int64_t>{i}, Scalar::of(std::floor(u(rng) * 8) - 3));
    return Tensor::from_coordinates({n}, ValueType::Float64, Scalar::of(fill), Format::parse(format, 1), list);
}

// Compiled and reference agree; an Unsupported refusal is recorded instead (never a wrong answer).
void expect_same(const std::string& program, const std::map<std::string, const Tensor*>& inputs,
                 std::set<std::string>* refused = nullptr, const std::string& label = "") {
    auto want = evaluate_reference(ir::parse_program(program), inputs);
    try {
        auto got = run_compiled(program, inputs);
        for (const auto& [name, t] : want)
            EXPECT_TRUE(same_output(t, got.at(name))) << program << " [" << label << "] output " << name;
    } catch (const Error& e) {
        if (!refused || e.kind() != Error::Kind::Unsupported) {
            ADD_FAILURE() << program << " [" << label << "]: " << e.what();
            return;
        }
        refused->insert(label + ": " + e.what());
    }
}

const std::vector<std::string> kCoreVectorFormats = {"dense", "sparselist(0)"};
const std::vector<std::string> kOtherVectorFormats = {"runlist(0)", "sparseband(0)", "sparsebytemap(0)", "coo"};
const std::vector<std::string> kCoreMatrixFormats = {"dense", "csr", "dcsr"};
const std::vector<std::string> kOtherMatrixFormats = {"csc", "coo", "dense(0)/runlist(1)",
                                                      "dense(0)/sparsebytemap(1)", "dense(0)/sparseband(1)"};

TEST(SlicingCompiled, ThePapersStridedExample) {
    // Fig. 8b: b = {0:1, 3:2, 4:3, 6:4}, c = {1:5, 2:6, 6:7}: the even coordinates added are
    // b = [1, 0, 3, 4] and c = [0, 6, 0, 7], so a = [1, 6, 3, 11].
    for (const auto& f : {"dense", "sparselist(0)"}) {
        Tensor b = vector_of(8, {{{0}, 1}, {{3}, 2}, {{4}, 3}, {{6}, 4}}, f);
        Tensor c = vector_of(8, {{{1}, 5}, {{2}, 6}, {{6}, 7}}, f);
        auto r = run_compiled("a[i] = b[i(0:8:2)] + c[i(0:8:2)]", {{"b", &b}, {"c", &c}});
        EXPECT_EQ(values_of(r.at("a")), (std::vector<double>{1, 6, 3, 11})) << f;
    }
}

TEST(SlicingCompiled, ThePapersWindowExample) {
    // Fig. 8a: B[0:2, 0:2] = [[1,0],[0,3]] and C[1:3, 2:4] = [[8,0],[0,9]]: A = [[9,0],[0,12]].
    for (const auto& f : {"dense", "csr", "dcsr"}) {
        Tensor B = make({4, 4}, f, {{{0, 0}, 1}, {{0, 2}, 2}, {{1, 1}, 3}, {{2, 0}, 4}, {{2, 3}, 5}, {{3, 2}, 6}});
        Tensor C = make({4, 4}, f, {{{0, 1}, 7}, {{1, 2}, 8}, {{2, 3}, 9}, {{3, 0}, 1}});
        auto r = run_compiled("A[i,j] = B[i(0:2),j(0:2)] + C[i(1:3),j(2:4)]", {{"B", &B}, {"C", &C}});
        EXPECT_EQ(values_of(r.at("A")), (std::vector<double>{9, 0, 0, 12})) << f;
    }
}

TEST(SlicingCompiled, ThePapersFig19KernelAndSliceSizes) {
    // Rows 1 and 3 of A, columns 2 and 4: [[3, 5], [8, 0]].
    Tensor A = make({5, 6}, "csr", {{{0, 0}, 1}, {{1, 1}, 2}, {{1, 2}, 3}, {{1, 3}, 4}, {{1, 4}, 5},
                                    {{2, 2}, 6}, {{3, 0}, 7}, {{3, 2}, 8}, {{3, 5}, 9}, {{4, 4}, 10}});
    auto r = run_compiled("B[i,j] = A[i(1:5:2), j(2:6:2)]", {{"A", &A}});
    EXPECT_EQ(values_of(r.at("B")), (std::vector<double>{3, 5, 8, 0}));
    for (const auto& f : {"dense", "sparselist(0)"}) {
        // 0:5:2 has 3 elements (0, 2, 4), not 5 / 2.
        Tensor b = vector_of(6, {{{0}, 1}, {{2}, 2}, {{4}, 3}, {{5}, 4}}, f);
        EXPECT_EQ(values_of(run_compiled("y[i] = b[i(0:5:2)]", {{"b", &b}}).at("y")),
                  (std::vector<double>{1, 2, 3}))
            << f;
        Tensor d = vector_of(10, {{{1}, 1}, {{3}, 2}, {{6}, 3}, {{9}, 4}}, f);
        EXPECT_EQ(values_of(run_compiled("y[i] = d[i(2:10:3)]", {{"d", &d}}).at("y")),
                  (std::vector<double>{0, 0, 0}))
            << f;
        EXPECT_EQ(values_of(run_compiled("y[i] = d[i(3:10:3)]", {{"d", &d}}).at("y")),
                  (std::vector<double>{2, 3, 4}))
            << f;
        // Negative bounds: coordinates 5, 7, 9 (-5::2) and 6 (-4:-3).
        EXPECT_EQ(values_of(run_compiled("y[i] = d[i(-5::2)]", {{"d", &d}}).at("y")),
                  (std::vector<double>{0, 0, 4}))
            << f;
        EXPECT_EQ(values_of(run_compiled("y[i] = d[i(-4:-3)]", {{"d", &d}}).at("y")),
                  (std::vector<double>{3}))
            << f;
    }
}

const std::vector<std::string> kVectorPrograms = {
    "a[i] = b[i(0:48:2)] + c[i(0:48:2)]",
    "a[i] = b[i(3:40:3)] * c[i(1:38:3)]",
    "a[i] = b[i(-20:)] + c[i(:20)]",
    "a[i] = b[i(5:45)] * c[i(:-10)]",
    "a[i] = b[i(1::2)] + c[i(::2)]",
    "a[i] = b[i(-40:-5:3)] + c[i(2:37:3)]",
    "s[] += b[i(::3)]",
    "s[] += b[i(7:31)] * c[i(8:32)]",
    "a[i] = b[i(10:10)] + c[i(30:30)]",
    // Power-of-two steps: the stride test is a mask, the index a shift.
    "a[i] = b[i(1:45:4)] + c[i(3:47:4)]",
    "a[i] = b[i(-33::8)] * c[i(2:35:8)]",
};

void vector_differential(const std::vector<std::string>& formats, std::set<std::string>* refused) {
    uint64_t seed = 1;
    for (double fill : {0.0, 2.5})
        for (size_t k = 0; k < formats.size(); ++k) {
            // b in one format, c in the next, so levels meet each other in a merge.
            const std::string& fb = formats[k];
            const std::string& fc = formats[(k + 1) % formats.size()];
            Tensor b = random_vector(50, 0.3, fb, seed++, fill), c = random_vector(50, 0.4, fc, seed++, fill);
            for (const auto& p : kVectorPrograms)
                expect_same(p, {{"b", &b}, {"c", &c}}, refused, fb + " + " + fc + ", fill " + std::to_string(fill));
        }
}

TEST(SlicingCompiled, VectorsAgreeWithTheReferenceOnDenseAndSortedLists) {
    vector_differential(kCoreVectorFormats, nullptr); // nothing refused
    vector_differential({"sparselist(0)"}, nullptr);
}

TEST(SlicingCompiled, VectorsOnOtherLevelsAgreeOrAreRefused) {
    std::set<std::string> refused;
    vector_differential(kOtherVectorFormats, &refused);
    for (const auto& r : refused) std::cout << "refused: " << r << "\n";
}

const std::vector<std::string> kMatrixPrograms = {
    "A[i,j] = B[i(2:22), j(5:35)] + C[i(10:30), j(:-10)]",
    "A[i,j] = B[i(1::2), j(3::3)] * C[i(::2), j(1:-1:3)]",
    "A[i,j] = B[i(-7:), j(::2)] + C[i(3:10), j(1::2)]",
    "y[i] += B[i(5:25), j(::2)] * C[i(0:20), j(-20:)]",
    "s[] += B[i(::3), j(2::5)]",
    "A[i,j] = B[i(::4), j(1::4)] + C[i(1::4), j(-37::4)]",
};

void matrix_differential(const std::vector<std::string>& formats, std::set<std::string>* refused) {
    uint64_t seed = 100;
    for (double fill : {0.0, 2.5})
        for (size_t k = 0; k < formats.size(); ++k) {
            const std::string& fb = formats[k];
            const std::string& fc = formats[(k + 1) % formats.size()];
            auto value = [](double u) { return std::floor(u * 8) - 3; };
            Tensor B = random_matrix_of(30, 40, 0.2, fb, seed++, fill, value);
            Tensor C = random_matrix_of(30, 40, 0.3, fc, seed++, fill, value);
            for (const auto& p : kMatrixPrograms)
                expect_same(p, {{"B", &B}, {"C", &C}}, refused, fb + " + " + fc + ", fill " + std::to_string(fill));
        }
}

TEST(SlicingCompiled, MatricesAgreeWithTheReferenceOnDenseCsrAndDcsr) {
    matrix_differential(kCoreMatrixFormats, nullptr);
}

// Sliced and strided adds into a CSR output (the slicing benchmarks' shape), steps 1 to 5.
TEST(SlicingCompiled, SparseOutputsOfSlicedAddsAgreeWithTheReference) {
    auto value = [](double u) { return std::floor(u * 8) - 3; };
    OutputSpec csr;
    csr.format = Format::parse("csr", 2);
    for (const std::string format : {"csr", "dcsr"}) {
        Tensor B = random_matrix_of(60, 70, 0.2, format, 7, 0.0, value);
        Tensor C = random_matrix_of(60, 70, 0.3, format, 8, 0.0, value);
        for (const std::string program :
             {"A[i,j] = B[i(15:45), j] + C[i(15:45), j]", "A[i,j] = B[i(::2), j(::2)] + C[i(::2), j(::2)]",
              "A[i,j] = B[i(1::4), j(3::4)] + C[i(::4), j(2::4)]",
              "A[i,j] = B[i(::3), j(1::5)] + C[i(2::3), j(::5)]"}) {
            auto want = evaluate_reference(ir::parse_program(program), {{"B", &B}, {"C", &C}}, {{"A", csr}});
            auto got = run_compiled(program, {{"B", &B}, {"C", &C}}, {{"A", csr}});
            EXPECT_TRUE(same_output(want.at("A"), got.at("A"))) << program << " on " << format;
            EXPECT_GT(got.at("A").stored(), 0) << program;
        }
    }
}

TEST(SlicingCompiled, MatricesOnOtherLevelsAgreeOrAreRefused) {
    std::set<std::string> refused;
    matrix_differential(kOtherMatrixFormats, &refused);
    for (const auto& r : refused) std::cout << "refused: " << r << "\n";
}

TEST(SlicingCompiled, GallopWithUnitStepsAndARefusalWithStrides) {
    Tensor b = random_vector(60, 0.3, "sparselist(0)", 7, 0.0), c = random_vector(60, 0.3, "sparselist(0)", 8, 0.0);
    expect_same("a[i] = b[gallop(i(2:50))] * c[gallop(i(5:53))]", {{"b", &b}, {"c", &c}});
    expect_error([&] { run_compiled("a[i] = b[gallop(i(0:50:2))] * c[i(0:50:2)]", {{"b", &b}, {"c", &c}}); },
                 "b (sparselist level, mode 0) is read with gallop through a strided slice");
}

OutputSpec output(std::vector<int64_t> shape, const std::string& format = "dense") {
    OutputSpec o;
    o.format = Format::parse(format, static_cast<int>(shape.size()));
    o.shape = std::move(shape);
    o.type = ValueType::Float64;
    return o;
}

TEST(SlicingCompiled, WritesIntoAWindowOfADenseOutput) {
    // x = [1, 2, 3] written at 1, 3, 5 of an 8-element y that starts all-fill.
    Tensor x = vector_of(3, {{{0}, 1}, {{1}, 2}, {{2}, 3}}, "sparselist(0)");
    auto r = run_compiled("y[i(1:7:2)] = x[i]", {{"x", &x}}, {{"y", output({8})}});
    EXPECT_EQ(values_of(r.at("y")), (std::vector<double>{0, 1, 0, 2, 0, 3, 0, 0}));
    // Two windows of one output in one loop: x at 0, 2, 4 and x again at 5, 6, 7.
    auto two = run_compiled("for i {\n y[i(0:6:2)] = x[i]\n y[i(5:)] += x[i] * 10\n}", {{"x", &x}},
                            {{"y", output({8})}});
    EXPECT_EQ(values_of(two.at("y")), (std::vector<double>{1, 0, 2, 0, 3, 10, 20, 30}));
    for (double fill : {0.0, 2.5}) {
        Tensor A = random_matrix_of(3, 4, 0.5, "csr", 11, fill, [](double u) { return std::floor(u * 8) - 3; });
        Tensor B = random_matrix_of(6, 4, 0.5, "dcsr", 12, fill, [](double u) { return std::floor(u * 8) - 3; });
        Tensor v = random_vector(5, 0.5, "sparselist(0)", 13, fill);
        for (const auto& [program, shape] : std::vector<std::pair<std::string, std::vector<int64_t>>>{
                 {"C[i(2:5), j] = A[i,j]", {8, 4}},
                 {"C[i(-3:), j(1:)] = A[i,j(1:)] + B[i(::2), j(:-1)]", {7, 4}},
                 {"C[i(::3), j] += A[i,j] * 2", {9, 4}},
                 {"y[i(::2)] = v[i]", {9}},
                 {"y[i(-5:)] max= v[i]", {6}}}) {
            std::map<std::string, const Tensor*> in{{"A", &A}, {"B", &B}, {"v", &v}};
            ir::Program p = ir::parse_program(program);
            std::map<std::string, const Tensor*> used;
            for (const auto& name : p.inputs()) used.emplace(name, in.at(name));
            std::string out = p.outputs().front();
            OutputSpec spec = output(shape);
            auto want = evaluate_reference(p, used, {{out, spec}});
            auto got = run_compiled(program, used, {{out, spec}});
            EXPECT_TRUE(same_output(want.at(out), got.at(out))) << program << " fill " << fill;
        }
    }
}

TEST(SlicingCompiled, SlicedSparseOutputsAreWritten) {
    // evaluate_compiled writes the window straight into the sparse output where its writes come in
    // coordinate order, else into a dense temporary it converts.
    Tensor x = vector_of(3, {{{0}, 1}, {{2}, 4}}, "dense");
    auto r = run_compiled("y[i(2:5)] = x[i]", {{"x", &x}}, {{"y", output({8}, "sparselist(0)")}});
    EXPECT_EQ(values_of(r.at("y")), (std::vector<double>{0, 0, 1, 0, 4, 0, 0, 0}));
    EXPECT_EQ(r.at("y").format().levels().at(0).kind, "sparselist");
    EXPECT_EQ(stored_coordinates(r.at("y")), (std::vector<std::vector<int64_t>>{{2}, {4}}));
    Tensor A = random_matrix_of(3, 4, 0.5, "csr", 14, 0.0, [](double u) { return std::floor(u * 8) - 3; });
    for (const auto& f : {"csr", "dcsr", "coo"}) {
        OutputSpec spec = output({7, 4}, f);
        auto want = evaluate_reference(ir::parse_program("C[i(1::2), j] += A[i,j]"), {{"A", &A}}, {{"C", spec}});
        auto got = run_compiled("C[i(1::2), j] += A[i,j]", {{"A", &A}}, {{"C", spec}});
        EXPECT_TRUE(same_output(want.at("C"), got.at("C"))) << f;
    }
    // A kernel compiled directly for a sparse output appends the window's entries in coordinate
    // order (src/compiler/ordered_writes.cpp): no dense temporary.
    TensorSignature ys;
    ys.format = Format::parse("sparselist(0)", 1).with_index_bits(32);
    ys.ndims = 1;
    ys.fill = Scalar::of(0.0);
    auto kernel = compile(ir::parse_program("y[i(2:5)] = x[i]"), {{"x", TensorSignature::of(x)}, {"y", ys}}, test_options());
    auto outputs = kernel->prepare({{"y", {8}}});
    kernel->run({{"x", &x}}, outputs);
    EXPECT_EQ(values_of(outputs.at("y")), (std::vector<double>{0, 0, 1, 0, 4, 0, 0, 0}));
    EXPECT_EQ(stored_coordinates(outputs.at("y")), (std::vector<std::vector<int64_t>>{{2}, {4}}));
}

TEST(SlicingCompiled, TheKernelChecksSlicesAtRunTime) {
    Tensor x = random_vector(20, 0.5, "sparselist(0)", 3, 0.0), z = random_vector(8, 0.5, "dense", 4, 0.0);
    // Compiled for x of size 20, then run on a shorter x: the slice leaves it.
    CompiledProgram p = compile_for(ir::parse_program("y[i] = x[i(0:9)]"), {{"x", &x}}, {}, test_options());
    Tensor short_x = random_vector(8, 0.5, "sparselist(0)", 5, 0.0);
    expect_error([&] { p.run({{"x", &short_x}}); },
                 "slice 0:9 of dimension 0 of x is out of range: bound 9 is outside [-8, 8]");
    // The slice's length must match the index's other dimension.
    Tensor x10 = random_vector(10, 0.5, "sparselist(0)", 6, 0.0);
    CompiledProgram q = compile_for(ir::parse_program("y[i] = x[i(2:)] + z[i]"), {{"x", &x10}, {"z", &z}}, {},
                                    test_options());
    EXPECT_TRUE(same_output(evaluate_reference(ir::parse_program("y[i] = x[i(2:)] + z[i]"), {{"x", &x10}, {"z", &z}}).at("y"),
                            q.run({{"x", &x10}, {"z", &z}}).at("y")));
    Tensor x12 = random_vector(12, 0.5, "sparselist(0)", 6, 0.0);
    expect_error([&] { q.run({{"x", &x12}, {"z", &z}}); },
                 "index i ranges over z's dimension 0 (size 8) and x's dimension 0 sliced 2: (size 10)");
    // Two slices of one index.
    Tensor w16 = random_vector(16, 0.5, "sparselist(0)", 9, 0.0);
    CompiledProgram r = compile_for(ir::parse_program("y[i] = x[i(2:)] + w[i(::2)]"), {{"x", &x10}, {"w", &w16}}, {},
                                    test_options());
    expect_error([&] { r.run({{"x", &x10}, {"w", &x12}}); },
                 "index i ranges over y's dimension 0 (size 8) and w's dimension 0 sliced ::2 (size 6)");
}


TEST(SlicingCompiled, ASliceOfASortedListCostsItsEntriesInTheWindow) {
    // 10000 entries, every 10th coordinate; the window 50000:50100 holds 10 of them.
    CoordinateList list;
    list.ndims = 1;
    for (int64_t c = 0; c < 100000; c += 10) list.add(std::vector<int64_t>{c}, Scalar::of(static_cast<double>(c % 7 + 1)));
    Tensor b = Tensor::from_coordinates({100000}, ValueType::Float64, Scalar::of(0.0),
                                        Format::parse("sparselist(0)", 1), list);
    int64_t unit = scalar_work_of("s[] += b[i(50000:50100)]", {{"b", &b}});
    EXPECT_GE(unit, 10);
    EXPECT_LE(unit, 10 + 2);
    // Step 3: the 20 entries of 50000:50200 are each visited once (7 of them on the stride).
    int64_t strided = scalar_work_of("s[] += b[i(50000:50200:3)]", {{"b", &b}});
    EXPECT_GE(strided, 7);
    EXPECT_LE(strided, 20 + 2);
    // A dense level locates: one iteration per element of the slice.
    std::vector<Scalar> values;
    for (int64_t k = 0; k < 1000; ++k) values.push_back(Scalar::of(static_cast<double>(k % 5)));
    Tensor d = Tensor::from_dense({1000}, ValueType::Float64, Scalar::of(0.0), Format::dense(1), values);
    EXPECT_EQ(scalar_work_of("s[] += d[i(100:200:5)]", {{"d", &d}}), 20);
}

} // namespace
} // namespace siskin::testing
