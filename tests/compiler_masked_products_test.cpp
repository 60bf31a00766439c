// The C of issue 4's masked products: a row's accumulator stays in a local through the row
// loop that an `if` guards (scalar replacement sees the fill stored before the if), and a
// sparselist output over a value leaf keeps no dirty flag per write (the value alone says
// whether the slot was written), and a bytemap lookup under such a reduction reads its leaf
// without a branch. Every value is checked against the reference evaluator.
#include <cmath>
#include <limits>

#include "compiler_test_util.hpp"
#include "masked_vector_operands.hpp"

namespace siskin::testing {
namespace {

bool has(const std::string& c, const std::string& what) { return c.find(what) != std::string::npos; }

struct Result {
    std::map<std::string, Tensor> outputs;
    std::string c;
};

// Compiles, runs once, and checks every output against the reference.
Result run(const std::string& text, const std::map<std::string, const Tensor*>& inputs,
           const std::map<std::string, OutputSpec>& outputs = {}) {
    ir::Program program = ir::parse_program(text);
    CompileOptions options = test_options();
    CompiledProgram compiled = compile_for(program, inputs, outputs, options);
    Result r;
    r.c = compiled.kernel->c_source();
    r.outputs = compiled.run(inputs);
    for (const auto& [name, want] : evaluate_reference(program, inputs, outputs))
        EXPECT_TRUE(same_output(want, r.outputs.at(name)))
            << text << "\n" << name << ": " << r.outputs.at(name).to_string() << "\nwant "
            << want.to_string() << "\n" << r.c;
    return r;
}

// Masked mxv over (or, and) with a complemented mask: each row's y[i] lives in a local through
// the row's loop (guarded by an if, its slot set to the fill just before it), the early exit
// at true stores it back before leaving, no dirty flag is kept, and and/or do not branch.
TEST(CompilerMaskedProducts, MaskedMxvRowAccumulatesInALocal) {
    const int64_t n = 300;
    CoordinateList a, x, m;
    a.ndims = 2;
    x.ndims = m.ndims = 1;
    for (int64_t i = 0; i < n; ++i)
        for (int64_t j : {i, (i * 13) % n, (i * 29 + 5) % n})
            if (j != i || i % 3 == 0) a.add(std::vector<int64_t>{i, j}, Scalar::of(true));
    for (int64_t k = 0; k < n; k += 10) x.add(std::vector<int64_t>{k}, Scalar::of(true));
    for (int64_t k = 0; k < n; k += 7) m.add(std::vector<int64_t>{k}, Scalar::of(true));
    Tensor A = Tensor::from_coordinates({n, n}, ValueType::Bool, Scalar::of(false), Format::csr(), a);
    Tensor X = Tensor::from_coordinates({n}, ValueType::Bool, Scalar::of(false),
                                        Format::parse("sparsebytemap(0)", 1), x);
    Tensor Mv = Tensor::from_coordinates({n}, ValueType::Bool, Scalar::of(false),
                                         Format::parse("sparselist(0)", 1), m);
    OutputSpec sparse;
    sparse.format = Format::parse("sparselist(0)", 1);
    for (const std::string mask : {"!m[i]", "m[i]"}) {
        SCOPED_TRACE(mask);
        auto r = run("for i { if " + mask + " { y[i] |= A[i,j] && x[follow(j)] } }",
                     {{"A", &A}, {"x", &X}, {"m", &Mv}}, {{"y", sparse}});
        EXPECT_TRUE(has(r.c, "bool y_values_acc")) << r.c;
        EXPECT_TRUE(has(r.c, "y_values_acc = siskin_op_or_bool_bool(y_values_acc, ")) << r.c;
        EXPECT_FALSE(has(r.c, "dirty")) << r.c;
        // The helpers' arguments are already evaluated: no short circuit, no branch.
        EXPECT_TRUE(has(r.c, "siskin_op_or_bool_bool(bool a0, bool a1) { return (a0 | a1); }")) << r.c;
        EXPECT_TRUE(has(r.c, "siskin_op_and_bool_bool(bool a0, bool a1) { return (a0 & a1); }")) << r.c;
        EXPECT_GT(r.outputs.at("y").stored(), 0);
    }
}

// The masked (min, +) mxm: the dot product's accumulator is a local too, inside the mask's if
// and the merge's guard, and C keeps exactly the reference's entries.
TEST(CompilerMaskedProducts, MaskedMinPlusMxmAccumulatesInALocal) {
    const double inf = std::numeric_limits<double>::infinity();
    CoordinateList w, pattern;
    w.ndims = pattern.ndims = 2;
    const int64_t n = 60;
    for (int64_t i = 0; i < n; ++i)
        for (int64_t j : {i, (i * 7 + 3) % n, (i * 11 + 1) % n}) {
            w.add(std::vector<int64_t>{i, j}, Scalar::of(static_cast<double>((i + 2 * j) % 5) + 0.25));
            if ((i + j) % 3 != 0) pattern.add(std::vector<int64_t>{i, j}, Scalar::of(true));
        }
    Tensor A = Tensor::from_coordinates({n, n}, ValueType::Float64, Scalar::of(inf), Format::csr(), w);
    Tensor B = Tensor::from_coordinates({n, n}, ValueType::Float64, Scalar::of(inf),
                                        Format::parse("dense(1)/sparselist(0)", 2), w);
    Tensor M = Tensor::from_coordinates({n, n}, ValueType::Bool, Scalar::of(false), Format::csr(), pattern);
    OutputSpec csr;
    csr.format = Format::csr();
    auto r = run("def tplus(a: float64, b: float64) -> float64 [commutative, associative, identity(0.0), "
                 "annihilator(inf)] { return a + b }\n"
                 "for i, j { if M[i,j] { C[i,j] min= tplus(A[i,k], B[k,j]) } }",
                 {{"A", &A}, {"B", &B}, {"M", &M}}, {{"C", csr}});
    EXPECT_TRUE(has(r.c, "double C_values_acc = C_values[")) << r.c;
    EXPECT_FALSE(has(r.c, "dirty")) << r.c;
    EXPECT_GT(r.outputs.at("C").stored(), 0);
}

// A lookup into a sparsebytemap vector whose element leaf keeps the fill in unused slots: a
// reduction the fill leaves unchanged reads the leaf without testing tbl (no branch per entry).
// Over plain and complemented masks (sparse, empty, full), (or, and) with fill false and
// (min, +) with fill inf, every value matches the reference.
TEST(CompilerMaskedProducts, BytemapLookupInAReductionReadsTheLeafUntested) {
    const double inf = std::numeric_limits<double>::infinity();
    const int64_t n = 200;
    CoordinateList ab, aw, xb, xw, sparse_mask, full_mask, empty_mask;
    ab.ndims = aw.ndims = 2;
    xb.ndims = xw.ndims = sparse_mask.ndims = full_mask.ndims = empty_mask.ndims = 1;
    for (int64_t i = 0; i < n; ++i)
        for (int64_t j : {i, (i * 13) % n, (i * 29 + 5) % n, (i * 3 + 1) % n}) {
            ab.add(std::vector<int64_t>{i, j}, Scalar::of(true));
            aw.add(std::vector<int64_t>{i, j}, Scalar::of(static_cast<double>((i + j) % 7) + 0.5));
        }
    for (int64_t k = 0; k < n; k += 9) {
        xb.add(std::vector<int64_t>{k}, Scalar::of(k % 27 != 0)); // explicit false entries too
        xw.add(std::vector<int64_t>{k}, Scalar::of(k % 27 == 0 ? inf : static_cast<double>(k % 5)));
    }
    for (int64_t k = 0; k < n; ++k) {
        if (k % 6 == 1) sparse_mask.add(std::vector<int64_t>{k}, Scalar::of(true));
        full_mask.add(std::vector<int64_t>{k}, Scalar::of(true));
    }
    auto [Ab, Aw, Xb, Xw] = masked_vector_operands(n, ab, aw, xb, xw);
    std::map<std::string, Tensor> masks;
    masks.emplace("sparse", vector_of(n, ValueType::Bool, Scalar::of(false), "sparselist(0)", sparse_mask));
    masks.emplace("full", vector_of(n, ValueType::Bool, Scalar::of(false), "sparselist(0)", full_mask));
    masks.emplace("empty", vector_of(n, ValueType::Bool, Scalar::of(false), "sparselist(0)", empty_mask));
    OutputSpec sparse;
    sparse.format = Format::parse("sparselist(0)", 1);
    const std::string& tplus = kTropicalPlus;
    for (const auto& [kind, M] : masks)
        for (const std::string mask : {"!m[i]", "m[i]"}) {
            SCOPED_TRACE(kind + " " + mask);
            auto r_or = run("for i { if " + mask + " { y[i] |= A[i,j] && x[follow(j)] } }",
                            {{"A", &Ab}, {"x", &Xb}, {"m", &M}}, {{"y", sparse}});
            auto r_min = run(tplus + "for i { if " + mask + " { y[i] min= tplus(A[i,j], x[follow(j)]) } }",
                             {{"A", &Aw}, {"x", &Xw}, {"m", &M}}, {{"y", sparse}});
            for (const auto* r : {&r_or, &r_min}) {
                EXPECT_FALSE(has(r->c, "x_tbl[")) << r->c;
                EXPECT_TRUE(has(r->c, "x_values[A_crd[")) << r->c;
            }
            EXPECT_TRUE(has(r_or.c, "goto")) << r_or.c; // the early exit at true stays
        }
}

// Where reading the leaf untested would change what runs, the test of tbl stays: a fill that
// the reduction does not ignore (x's fill 1 adds A's entries), a function with a loop in its
// body (it may run long), and a plain assignment (not a reduction). Values match the reference.
TEST(CompilerMaskedProducts, BytemapLookupKeepsItsTestWhereTheFillCounts) {
    const int64_t n = 40;
    CoordinateList a, x;
    a.ndims = 2;
    x.ndims = 1;
    for (int64_t i = 0; i < n; ++i)
        for (int64_t j : {i, (i * 7 + 2) % n}) a.add(std::vector<int64_t>{i, j}, Scalar::of(static_cast<double>(i % 4 + 1)));
    for (int64_t k = 0; k < n; k += 3) x.add(std::vector<int64_t>{k}, Scalar::of(static_cast<double>(k % 5 + 2)));
    Tensor A = Tensor::from_coordinates({n, n}, ValueType::Float64, Scalar::of(0.0), Format::csr(), a);
    Tensor X1 = Tensor::from_coordinates({n}, ValueType::Float64, Scalar::of(1.0),
                                         Format::parse("sparsebytemap(0)", 1), x);
    Tensor X0 = Tensor::from_coordinates({n}, ValueType::Float64, Scalar::of(0.0),
                                         Format::parse("sparsebytemap(0)", 1), x);
    auto filled = run("for i { y[i] += A[i,j] * x[follow(j)] }", {{"A", &A}, {"x", &X1}});
    EXPECT_TRUE(has(filled.c, "x_tbl[")) << filled.c;
    auto looping = run("def slow(a: float64, b: float64) -> float64 [annihilator(0.0, b)] { let s = 0.0\n let k = 0.0\n"
                       " while k < b { s = s + a\n k = k + 1.0 }\n return s }\n"
                       "for i { y[i] += slow(A[i,j], x[follow(j)]) }",
                       {{"A", &A}, {"x", &X0}});
    EXPECT_TRUE(has(looping.c, "x_tbl[")) << looping.c;
    OutputSpec sparse;
    sparse.format = Format::parse("sparselist(0)", 1);
    auto copied = run("for i { y[i] = x[follow(i)] }", {{"x", &X0}}, {{"y", sparse}});
    EXPECT_TRUE(has(copied.c, "x_tbl[")) << copied.c;
}

// Float min/max take one select when the new value is neither NaN nor a zero (runtime
// siskin_ops.h); the rest must still follow the exact rules: NaN propagates, -0 orders before
// +0, whichever order the values come in. Rows of a masked reduction hold the orders that reach
// each case (ties of zeros, a NaN first, last or alone, infinities); compiled values, their
// NaN-ness and their sign bits match the reference under plain and complemented masks.
TEST(CompilerMaskedProducts, MinAndMaxReductionsKeepNaNAndSignedZeroRules) {
    const double inf = std::numeric_limits<double>::infinity();
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const std::vector<std::vector<double>> rows{
        {0.0, -0.0}, {-0.0, 0.0}, {0.0, 0.0}, {-0.0, -0.0}, {1.0, nan}, {nan, 1.0}, {nan},
        {2.0, nan, -inf}, {-inf, 3.0, inf}, {5.0, 0.0, -0.0, 4.0}, {-0.0, 2.0, 0.0}, {inf, -inf},
        {3.0, 1.0, 2.0}, {1.0, 1.0}, {-1.0, 0.0, nan, -2.0}, {0.0, 7.0, -0.0}};
    const int64_t n = static_cast<int64_t>(rows.size());
    for (const std::string op : {"min", "max"}) {
        const double fill = op == "min" ? inf : -inf;
        CoordinateList a, m;
        a.ndims = 2;
        m.ndims = 1;
        for (int64_t i = 0; i < n; ++i) {
            for (size_t j = 0; j < rows[i].size(); ++j)
                a.add(std::vector<int64_t>{i, static_cast<int64_t>(j)}, Scalar::of(rows[i][j]));
            if (i % 5 == 2) m.add(std::vector<int64_t>{i}, Scalar::of(true));
        }
        Tensor A = Tensor::from_coordinates({n, 4}, ValueType::Float64, Scalar::of(fill), Format::csr(), a);
        Tensor Mv = Tensor::from_coordinates({n}, ValueType::Bool, Scalar::of(false),
                                             Format::parse("sparselist(0)", 1), m);
        for (const std::string mask : {"!m[i]", "m[i]"}) {
            SCOPED_TRACE(op + " " + mask);
            const std::string text = "for i { if " + mask + " { y[i] " + op + "= A[i,j] } }";
            auto r = run(text, {{"A", &A}, {"m", &Mv}});
            EXPECT_TRUE(has(r.c, "siskin_" + op + "_f64(")) << r.c;
            Tensor want = evaluate_reference(ir::parse_program(text), {{"A", &A}, {"m", &Mv}}).at("y");
            int64_t zeros = 0, nans = 0;
            for (int64_t i = 0; i < n; ++i) {
                double w = want.at({i}).as_double(), g = r.outputs.at("y").at({i}).as_double();
                EXPECT_EQ(std::isnan(w), std::isnan(g)) << "row " << i;
                if (std::isnan(w)) {
                    ++nans;
                    continue;
                }
                EXPECT_EQ(w, g) << "row " << i;
                EXPECT_EQ(std::signbit(w), std::signbit(g)) << "row " << i;
                zeros += w == 0;
            }
            EXPECT_GT(zeros, 0); // the rows do reach the zero and NaN rules
            EXPECT_GT(nans, 0);
        }
    }
}

} // namespace
} // namespace siskin::testing
