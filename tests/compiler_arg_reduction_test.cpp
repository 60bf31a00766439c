// argmin= and argmax= (src/ir/arg_reduction.hpp): the syntax, its errors, hand-checked answers
// with NumPy's rules (first of equal values; a NaN wins; the fill counts at its first unstored
// coordinate), the compiled kernel against the reference and against a direct dense scan, and
// the work a fill region costs.
#include <cmath>
#include <limits>
#include <optional>
#include <random>

#include "compiler_test_util.hpp"

namespace siskin::testing {
namespace {

const double kNan = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

struct Both {
    std::map<std::string, Tensor> compiled, reference;
    int64_t work = -1;
};

Both run_both(const std::string& text, const std::map<std::string, const Tensor*>& inputs,
              bool check_reference = true) {
    ir::Program program = ir::parse_program(text);
    CompileOptions options = test_options();
    options.count_work = true;
    CompiledProgram compiled = compile_for(program, inputs, {}, options);
    Both b;
    b.compiled = compiled.run(inputs);
    b.work = compiled.kernel->last_work();
    if (check_reference) {
        b.reference = evaluate_reference(program, inputs);
        for (const auto& [name, want] : b.reference)
            EXPECT_TRUE(b.compiled.at(name).equals(want))
                << text << "\n" << name << ": " << b.compiled.at(name).to_string() << "\nwant "
                << want.to_string() << "\n" << compiled.kernel->c_source();
    }
    return b;
}

Tensor vec(const std::string& format, double fill, std::vector<std::optional<double>> values) {
    CoordinateList list;
    list.ndims = 1;
    for (size_t i = 0; i < values.size(); ++i)
        if (values[i]) list.add(std::vector<int64_t>{static_cast<int64_t>(i)}, Scalar::of(*values[i]));
    return Tensor::from_coordinates({static_cast<int64_t>(values.size())}, ValueType::Float64,
                                    Scalar::of(fill), Format::parse(format, 1), list);
}

// NumPy's argmin/argmax of a dense row: the first NaN, else the first extreme.
std::pair<double, int64_t> numpy_arg(const std::vector<double>& v, bool max) {
    int64_t best = 0;
    for (int64_t k = 0; k < static_cast<int64_t>(v.size()); ++k) {
        if (std::isnan(v[static_cast<size_t>(k)])) return {v[static_cast<size_t>(k)], k};
        double x = v[static_cast<size_t>(k)], b = v[static_cast<size_t>(best)];
        if (max ? x > b : x < b) best = k;
    }
    return {v[static_cast<size_t>(best)], best};
}

bool same_double(double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; }

TEST(ArgReduction, ParsesToTwoStatementsThatPrintAndParseBack) {
    ir::Program p = ir::parse_program("m[], k[] argmin= A[i]");
    std::string text = ir::print(p);
    EXPECT_NE(text.find("m[] min= A[i]"), std::string::npos) << text;
    EXPECT_NE(text.find("k[] min= ifelse(A[i] == m[] || A[i] != A[i], i, 9223372036854775807)"),
              std::string::npos)
        << text;
    EXPECT_TRUE(ir::equal(p, ir::parse_program(text)));
    EXPECT_EQ(p.outputs(), (std::vector<std::string>{"m", "k"}));
    // Rows: the outputs' index is outermost in both nests; argmax takes max= for the value.
    std::string rows = ir::print(ir::parse_program("m[i], k[i] argmax= A[i,j]"));
    EXPECT_NE(rows.find("m[i] max= A[i, j]"), std::string::npos) << rows;
    EXPECT_NE(rows.find("k[i] min= ifelse(A[i, j] == m[i] || A[i, j] != A[i, j], j, "), std::string::npos)
        << rows;
    // Inside a loop over another index, and among other statements.
    ir::Program q = ir::parse_program("for r { m[r], k[r] argmin= A[r, c] }\ny[i] = x[i]");
    EXPECT_TRUE(ir::equal(q, ir::parse_program(ir::print(q))));
}

TEST(ArgReduction, RefusesWhatItCannotMean) {
    auto fails = [](const std::string& text, const std::string& message) {
        EXPECT_TRUE(throws_error([&] { ir::parse_program(text); }, {message})) << text;
    };
    fails("m[], m[] argmin= A[i]", "two different outputs");
    fails("m[i], k[] argmin= A[i,j]", "must have the same indices");
    fails("m[], k[] argmin= A[i,j]", "exactly one index");
    fails("m[], k[] argmin= 3", "exactly one index");
    fails("for i { m[], k[] argmin= A[i] }", "index of an enclosing for");
    fails("m[], k[] += A[i]", "argmin= or argmax=");
}

TEST(ArgReduction, HandCheckedVectors) {
    // [3, 1, 4, 1, 5]: the minimum 1 first at 1, the maximum 5 at 4.
    Tensor a = vec("dense", 0.0, {3, 1, 4, 1, 5});
    auto r = run_both("m[], k[] argmin= x[i]", {{"x", &a}});
    EXPECT_EQ(r.compiled.at("m").at({}).as_double(), 1.0);
    EXPECT_EQ(r.compiled.at("k").at({}).as_int(), 1);
    r = run_both("m[], k[] argmax= x[i]", {{"x", &a}});
    EXPECT_EQ(r.compiled.at("m").at({}).as_double(), 5.0);
    EXPECT_EQ(r.compiled.at("k").at({}).as_int(), 4);
    // A NaN is the answer of both, at its first position.
    Tensor n = vec("dense", 0.0, {3, kNan, 0, kNan});
    for (const std::string op : {"argmin", "argmax"}) {
        r = run_both("m[], k[] " + op + "= x[i]", {{"x", &n}});
        EXPECT_TRUE(std::isnan(r.compiled.at("m").at({}).as_double()));
        EXPECT_EQ(r.compiled.at("k").at({}).as_int(), 1);
    }
    // Sparse, fill 0, stored {2: 5, 6: -1}: argmin -1 at 6; argmax 5 at 2.
    Tensor s = vec("sparselist(0)", 0.0, {{}, {}, 5, {}, {}, {}, -1, {}, {}, {}});
    r = run_both("m[], k[] argmin= x[i]", {{"x", &s}});
    EXPECT_EQ(r.compiled.at("m").at({}).as_double(), -1.0);
    EXPECT_EQ(r.compiled.at("k").at({}).as_int(), 6);
    r = run_both("m[], k[] argmax= x[i]", {{"x", &s}});
    EXPECT_EQ(r.compiled.at("k").at({}).as_int(), 2);
    // Stored {0: 4, 1: 2, 3: 7}, fill 0 below them all: the fill at its first unstored coordinate.
    Tensor f = vec("sparselist(0)", 0.0, {4, 2, {}, 7, {}, {}});
    r = run_both("m[], k[] argmin= x[i]", {{"x", &f}});
    EXPECT_EQ(r.compiled.at("m").at({}).as_double(), 0.0);
    EXPECT_EQ(r.compiled.at("k").at({}).as_int(), 2);
    // An explicit 0 stored before the first unstored coordinate comes first.
    Tensor e = vec("sparselist(0)", 0.0, {4, 0, {}, 7});
    r = run_both("m[], k[] argmin= x[i]", {{"x", &e}});
    EXPECT_EQ(r.compiled.at("k").at({}).as_int(), 1);
}

TEST(ArgReduction, HandCheckedRowsOfACsrMatrix) {
    // Row 0: {1: -2, 3: -5} with fill 0: max 0 first at column 0.
    // Row 1: every column stored, {0: 1, 1: 9, 2: 9, 3: 3}: max 9 first at 1.
    // Row 2: empty: the fill 0 at column 0.
    Tensor A = make({3, 4}, "csr",
                    {{{0, 1}, -2.0}, {{0, 3}, -5.0}, {{1, 0}, 1.0}, {{1, 1}, 9.0}, {{1, 2}, 9.0}, {{1, 3}, 3.0}});
    auto r = run_both("m[i], k[i] argmax= A[i,j]", {{"A", &A}});
    EXPECT_EQ(r.compiled.at("m").at({0}).as_double(), 0.0);
    EXPECT_EQ(r.compiled.at("k").at({0}).as_int(), 0);
    EXPECT_EQ(r.compiled.at("m").at({1}).as_double(), 9.0);
    EXPECT_EQ(r.compiled.at("k").at({1}).as_int(), 1);
    EXPECT_EQ(r.compiled.at("k").at({2}).as_int(), 0);
    // argmin by rows: row 0 -5 at 3; row 1 1 at 0; row 2 0 at 0.
    r = run_both("m[i], k[i] argmin= A[i,j]", {{"A", &A}});
    EXPECT_EQ(r.compiled.at("k").at({0}).as_int(), 3);
    EXPECT_EQ(r.compiled.at("k").at({1}).as_int(), 0);
    EXPECT_EQ(r.compiled.at("k").at({2}).as_int(), 0);
    // By columns: column 1 holds -2 and 9: min -2 at row 0; column 2 holds 9 and the fill: 0 at 0.
    r = run_both("m[j], k[j] argmin= A[i,j]", {{"A", &A}});
    EXPECT_EQ(r.compiled.at("k").at({1}).as_int(), 0);
    EXPECT_EQ(r.compiled.at("m").at({2}).as_double(), 0.0);
    EXPECT_EQ(r.compiled.at("k").at({2}).as_int(), 0);
}

TEST(ArgReduction, DifferentialAgainstTheReferenceAndADenseScan) {
    uint64_t seed = 100;
    for (const std::string format : {"dense", "csr", "dcsr"})
        for (double fill : {0.0, 1.0, -kInf, kInf, kNan})
            for (double density : {0.1, 0.5, 0.9}) {
                Tensor A = random_matrix_of(6, 9, density, format, ++seed, fill, [](double u) {
                    if (u < 0.05) return kNan;
                    return std::floor(u * 7.0) - 3.0; // ties are common
                });
                for (bool max : {false, true})
                    for (bool rows : {true, false}) {
                        std::string text = rows ? "m[i], k[i] arg" : "m[j], k[j] arg";
                        text += max ? "max= A[i,j]" : "min= A[i,j]";
                        SCOPED_TRACE(format + " fill " + std::to_string(fill) + " " + text);
                        auto r = run_both(text, {{"A", &A}});
                        int64_t outer = rows ? 6 : 9, inner = rows ? 9 : 6;
                        for (int64_t o = 0; o < outer; ++o) {
                            std::vector<double> line;
                            for (int64_t q = 0; q < inner; ++q)
                                line.push_back(A.at(rows ? std::vector<int64_t>{o, q}
                                                          : std::vector<int64_t>{q, o})
                                                   .as_double());
                            auto [value, at] = numpy_arg(line, max);
                            EXPECT_TRUE(same_double(r.compiled.at("m").at({o}).as_double(), value)) << o;
                            EXPECT_EQ(r.compiled.at("k").at({o}).as_int(), at) << o;
                        }
                    }
            }
}

TEST(ArgReduction, FillRegionsCostNoLoop) {
    // 10^6 elements, 3 stored, all above the fill 0: the answer is the first unstored coordinate,
    // found without visiting the fill regions one by one.
    const int64_t n = 1000000;
    CoordinateList list;
    list.ndims = 1;
    for (int64_t c : {int64_t{0}, int64_t{1}, int64_t{500000}}) list.add(std::vector<int64_t>{c}, Scalar::of(2.0));
    Tensor x = Tensor::from_coordinates({n}, ValueType::Float64, Scalar::of(0.0),
                                        Format::parse("sparselist(0)", 1), list);
    auto r = run_both("m[], k[] argmin= x[i]", {{"x", &x}}, false);
    EXPECT_EQ(r.compiled.at("m").at({}).as_double(), 0.0);
    EXPECT_EQ(r.compiled.at("k").at({}).as_int(), 2);
    EXPECT_LE(r.work, 20);
    // argmax: the stored 2 first at 0.
    r = run_both("m[], k[] argmax= x[i]", {{"x", &x}}, false);
    EXPECT_EQ(r.compiled.at("k").at({}).as_int(), 0);
    EXPECT_LE(r.work, 20);
}

} // namespace
} // namespace siskin::testing
