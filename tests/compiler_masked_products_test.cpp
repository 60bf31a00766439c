// The C of issue 4's masked products: a row's accumulator stays in a local through the row
// loop that an `if` guards (scalar replacement sees the fill stored before the if), and a
// sparselist output over a value leaf keeps no dirty flag per write (the value alone says
// whether the slot was written). Every value is checked against the reference evaluator.
#include <limits>

#include "compiler_test_util.hpp"

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
// at true stores it back before leaving, and no dirty flag is kept.
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

} // namespace
} // namespace siskin::testing
