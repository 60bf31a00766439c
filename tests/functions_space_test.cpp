// Declared iteration spaces (`space(...)`, the paper's explicit iteration algebra): parsing and
// printing, the checker's errors, check_function outside the space, the operator's known
// result, and the compiler honouring it: compiled == reference across formats and fills, and a
// work count showing that the fill region of x is skipped for space(x & !y), which no property
// could express.
#include <cmath>
#include <limits>

#include "compiler_test_util.hpp"
#include "functions_test_util.hpp"

namespace siskin::testing {
namespace {

using functions_test::define;
using functions_test::ThrowsAt;

const double kNaN = std::numeric_limits<double>::quiet_NaN();

// Outside x & !y (x == 0 or y != 0) the value is 1; inside, x * x + 1. No identity or
// annihilator says so: f(0, y) = 1 is no annihilator (that would need f(0, y) = 0).
const char* kKeep =
    "def space_keep(x: float64, y: float64) -> float64 [space(x & !y)] {\n"
    "    if y == 0 {\n"
    "        return x * x + 1\n"
    "    }\n"
    "    return 1\n"
    "}\n";
// The same function without its space.
const char* kKeepPlain =
    "def space_keep_plain(x: float64, y: float64) -> float64 {\n"
    "    if y == 0 {\n"
    "        return x * x + 1\n"
    "    }\n"
    "    return 1\n"
    "}\n";
// Symmetric difference written with the space of the paper's xor (0 outside).
const char* kXor =
    "def space_xor(x: float64, y: float64) -> float64 [commutative, "
    "space((x | y) & !(x & y))] {\n"
    "    if x != 0 && y != 0 {\n"
    "        return 0\n"
    "    }\n"
    "    return x + y\n"
    "}\n";

std::vector<PropertyViolation> check_text(const std::string& text) {
    return check_function(parse_functions(text, "<space>")[0]);
}

bool has_violation(const std::vector<PropertyViolation>& found, const std::string& needle) {
    for (const auto& v : found)
        if (v.property == "space" && v.message.find(needle) != std::string::npos) return true;
    return false;
}

// ---- Syntax ----

TEST(FunctionsSpace, ParsesPrintsAndParsesBack) {
    for (const char* text : {kKeep, kXor}) {
        FunctionDef d = parse_functions(text)[0];
        ASSERT_TRUE(d.space_ast());
        EXPECT_EQ(d.to_string(), text);
        EXPECT_EQ(parse_functions(d.to_string())[0].to_string(), text);
    }
    // Atoms with constants, ==, ^ and the C-like && || spellings print as written.
    const char* atoms = "def space_atoms(a: int64, b: int64) -> int64 "
                        "[space(a != 3 && !(b == -1) || a ^ b)] {\n    return a\n}\n";
    EXPECT_EQ(parse_functions(atoms)[0].to_string(), atoms);
    EXPECT_NO_THROW(function_operator(parse_functions(atoms)[0]));
}

TEST(FunctionsSpace, TheCppBuilderPrintsTheSameText) {
    FunctionDef d("space_keep");
    d.param("x", ValueType::Float64)
        .param("y", ValueType::Float64)
        .returns(ValueType::Float64)
        .body("if y == 0 {\n    return x * x + 1\n}\nreturn 1")
        .space("x & !y");
    EXPECT_EQ(d.to_string(), kKeep);
    EXPECT_NO_THROW(function_operator(d));
}

TEST(FunctionsSpace, CheckerErrorsPointAtTheSpace) {
    auto build = [](const std::string& space) {
        return [space] {
            function_operator(parse_functions("def sp_err(x: int64, y: int64) -> int64 [space(" +
                                              space + ")] { return x }\n",
                                              "<t>")[0]);
        };
    };
    // "def sp_err(x: int64, y: int64) -> int64 [space(" is 47 characters: the space starts at
    // column 48.
    EXPECT_TRUE(ThrowsAt(build("x & z"), 1, 52,
                         "z is not a parameter of sp_err; a space names its parameters (x, y)"));
    EXPECT_TRUE(ThrowsAt(build("x + y"), 1, 50, "a space is built from parameters"));
    EXPECT_TRUE(ThrowsAt(build("x != y"), 1, 50, "a parameter != a constant"));
    EXPECT_TRUE(ThrowsAt(build("x != 0.5"), 1, 53,
                         "0.5 is not a value of type int64 (the type of parameter x)"));
    EXPECT_TRUE(ThrowsAt(build("3"), 1, 48, "a space is built from parameters"));
    // The builder's text reports positions in its own text.
    FunctionDef d("sp_err2");
    d.param("x", ValueType::Int64).returns(ValueType::Int64).body("return x").space("!w");
    EXPECT_TRUE(ThrowsAt([&] { function_operator(d); }, 1, 2, "w is not a parameter"));
    // Syntax: an unclosed space and a space given twice.
    EXPECT_TRUE(throws_error(
        [] { parse_functions("def sp_e(x: int64) -> int64 [space(x] { return x }\n"); },
        {"')' to close space("}));
    EXPECT_TRUE(throws_error(
        [] {
            parse_functions("def sp_e(x: int64) -> int64 [space(x), space(x)] { return x }\n");
        },
        {"property space is given twice"}));
}

// ---- check_function ----

TEST(FunctionsSpace, CheckFunctionAcceptsATrueSpace) {
    EXPECT_TRUE(check_text(kKeep).empty());
    EXPECT_TRUE(check_text(kXor).empty());
}

TEST(FunctionsSpace, CheckFunctionCatchesABodyThatIsNotConstantOutside) {
    // Outside space(x) is x == 0, where x + y is y: not one value.
    auto found = check_text(
        "def sp_bad(x: float64, y: float64) -> float64 [space(x)] { return x + y }\n");
    EXPECT_TRUE(has_violation(found, "is outside the space x, where sp_bad is float64 0"))
        << (found.empty() ? "none" : found[0].message);
    EXPECT_TRUE(has_violation(found, "but the body gives float64 1"));
    // A constant other than 0: outside x != 2 is x == 2; the body is x there only at 2.
    auto at2 = check_text("def sp_bad2(x: int64) -> int64 [space(x != 2)] { return x }\n");
    EXPECT_TRUE(at2.empty());
    auto wrong = check_text(
        "def sp_bad3(x: int64, y: int64) -> int64 [space(x != 2 | y)] { return x * y }\n");
    EXPECT_TRUE(wrong.empty()); // x == 2 and y == 0: always 0
    auto wrong2 = check_text(
        "def sp_bad4(x: int64, y: int64) -> int64 [space(x != 2 & y)] { return x * y }\n");
    // Outside: x == 2 (any y: 2y) or y == 0 (0): not constant.
    EXPECT_TRUE(has_violation(wrong2, "but the body gives int64"));
}

// ---- The operator ----

TEST(FunctionsSpace, TheOperatorKnowsItsValueOutside) {
    const Operator& op = define(kKeep);
    ASSERT_TRUE(op.known_result);
    using Known = std::vector<std::optional<Scalar>>;
    auto known = [&](Known args) { return op.known_result(args); };
    auto v = known({Scalar::of(0.0), std::nullopt}); // x == 0: outside whatever y is
    ASSERT_TRUE(v);
    EXPECT_TRUE(v->same(Scalar::of(1.0)));
    ASSERT_TRUE(known({std::nullopt, Scalar::of(2.0)})); // y != 0: outside
    EXPECT_FALSE(known({Scalar::of(3.0), std::nullopt})); // y decides
    EXPECT_FALSE(known({std::nullopt, Scalar::of(0.0)})); // x decides
    EXPECT_FALSE(known({std::nullopt, std::nullopt}));
    EXPECT_FALSE(known({Scalar::of(3.0), Scalar::of(0.0)})); // inside
    // -0.0 is 0 and NaN is nonzero (x != 0 holds for NaN).
    EXPECT_TRUE(known({Scalar::of(-0.0), std::nullopt}));
    EXPECT_FALSE(known({Scalar::of(kNaN), std::nullopt}));
    // An argument of another type is converted to the parameter's type first.
    EXPECT_TRUE(known({Scalar::of(int64_t{0}), std::nullopt}));

    // The value comes from a point outside: for space(x != 2), x == 2.
    const Operator& at2 = define("def space_at2(x: int64) -> int64 [space(x != 2)] { "
                                 "return x * 10 }\n");
    auto k2 = at2.known_result(std::vector<std::optional<Scalar>>{Scalar::of(int64_t{2})});
    ASSERT_TRUE(k2);
    EXPECT_EQ(k2->as_int(), 20);
    // A space that is everything has no outside: no known result.
    const Operator& all = define("def space_all(x: int64) -> int64 [space(x | !x)] { "
                                 "return x }\n");
    EXPECT_FALSE(all.known_result);
    // Without a space there is none either.
    EXPECT_FALSE(define(kKeepPlain).known_result);
}

// ---- The compiler ----

Tensor vec_of(int64_t n, const std::string& format, double fill,
              const std::vector<std::pair<int64_t, double>>& list) {
    CoordinateList c;
    c.ndims = 1;
    for (const auto& [i, v] : list) c.add(std::vector<int64_t>{i}, Scalar::of(v));
    return Tensor::from_coordinates({n}, ValueType::Float64, Scalar::of(fill),
                                    Format::parse(format, 1), c);
}

TEST(FunctionsSpace, CompiledAgreesWithTheReferenceAcrossFormatsAndFills) {
    define(kKeep);
    define(kXor);
    const int64_t n = 12;
    // x holds an explicit 0 at 5 (an explicit fill where the fill is 0); y an explicit 0 at 9.
    const std::vector<std::pair<int64_t, double>> xs{{1, 2}, {3, -1}, {5, 0}, {8, 4}, {10, 1}};
    const std::vector<std::pair<int64_t, double>> ys{{0, 1}, {3, 5}, {8, 0}, {9, 0}, {10, 7}};
    int checked = 0;
    const std::pair<const char*, const char*> formats[] = {{"dense", "dense"},
                                                           {"sparselist(0)", "dense"},
                                                           {"sparselist(0)", "sparselist(0)"},
                                                           {"rle(0)", "bytemap(0)"},
                                                           {"dense", "sparselist(0)"}};
    const std::pair<double, double> fills[] = {{0.0, 0.0}, {1.0, 0.0}, {kNaN, 2.0}};
    for (const auto& [fx, fy] : formats)
        for (const auto& [fill_x, fill_y] : fills) {
            Tensor x = vec_of(n, fx, fill_x, xs);
            Tensor y = vec_of(n, fy, fill_y, ys);
            std::map<std::string, const Tensor*> in{{"x", &x}, {"y", &y}};
            for (const char* text : {"w[i] = space_keep(x[i], y[i])",
                                     "w[i] = space_xor(x[i], y[i])",
                                     "w[i] = space_keep(x[i], 3) + space_keep(2, y[i])",
                                     "s[] += space_keep(x[i], y[i])"}) {
                ir::Program p = ir::parse_program(text);
                std::map<std::string, OutputSpec> specs;
                if (std::string(text).starts_with("w")) {
                    OutputSpec sparse;
                    sparse.format = Format::parse("sparselist(0)", 1);
                    specs.emplace("w", sparse);
                }
                auto want = evaluate_reference(p, in, specs);
                auto got = evaluate_compiled(p, in, specs, test_options());
                for (const auto& [name, t] : want)
                    EXPECT_TRUE(same_output(t, got.at(name)))
                        << text << " x " << fx << " fill " << fill_x << ", y " << fy << " fill "
                        << fill_y << "\nwant " << t.to_string() << "\ngot "
                        << got.at(name).to_string();
                ++checked;
            }
        }
    EXPECT_EQ(checked, 5 * 3 * 4);
}

// Hand-checked values: keep(x, y) is x*x + 1 where x != 0 and y == 0, else 1.
TEST(FunctionsSpace, HandCheckedValuesOnACsrMatrix) {
    define(kKeep);
    Tensor a = make({2, 3}, "csr", {{{0, 0}, 2.0}, {{0, 2}, 3.0}, {{1, 1}, -1.0}});
    Tensor b = make({2, 3}, "csr", {{{0, 2}, 5.0}, {{1, 0}, 4.0}});
    OutputSpec csr;
    csr.format = Format::csr();
    auto c = run_compiled("C[i, j] = space_keep(A[i, j], B[i, j])", {{"A", &a}, {"B", &b}},
                          {{"C", csr}})
                 .at("C");
    EXPECT_TRUE(c.fill().same(Scalar::of(1.0)));
    // (0,0): 2*2+1 = 5; (0,2): B is 5, so 1; (1,1): (-1)^2+1 = 2; elsewhere 1.
    std::vector<double> got;
    for (const Scalar& s : c.to_dense()) got.push_back(s.as_double());
    EXPECT_EQ(got, (std::vector<double>{5, 1, 1, 1, 2, 1}));
    EXPECT_EQ(stored_coordinates(c), (std::vector<std::vector<int64_t>>{{0, 0}, {1, 1}}));
}

// The work-count test: with space(x & !y), the fill region of a sparse x is skipped even where
// y is dense; the same body without the space visits every coordinate.
TEST(FunctionsSpace, TheDeclaredSpaceSkipsTheFillRegionOfX) {
    define(kKeep);
    define(kKeepPlain);
    const int64_t n = 1000;
    Tensor x = vec_of(n, "sparselist(0)", 0, {{3, 2}, {400, 3}, {401, 1}, {998, 5}});
    std::vector<Scalar> yv;
    for (int64_t i = 0; i < n; ++i) yv.push_back(Scalar::of(i % 2 == 0 ? 0.0 : 1.0));
    Tensor y = Tensor::from_dense({n}, ValueType::Float64, Scalar::of(0.0), Format::dense(1), yv);
    std::map<std::string, const Tensor*> in{{"x", &x}, {"y", &y}};
    OutputSpec sparse;
    sparse.format = Format::parse("sparselist(0)", 1);
    CompileOptions options = test_options();
    options.count_work = true;
    auto work_of = [&](const std::string& f) {
        ir::Program p = ir::parse_program("w[i] = " + f + "(x[i], y[i])");
        CompiledProgram compiled = compile_for(p, in, {{"w", sparse}}, options);
        auto out = compiled.run(in);
        auto want = evaluate_reference(p, in, {{"w", sparse}});
        EXPECT_TRUE(same_output(want.at("w"), out.at("w"))) << f;
        // Stored: 400 (3*3+1) and 998 (5*5+1); 3 and 401 have y = 1, so 1 (the fill).
        EXPECT_EQ(stored_coordinates(out.at("w")), (std::vector<std::vector<int64_t>>{{400}, {998}}));
        EXPECT_EQ(out.at("w").at({998}).as_double(), 26.0);
        return compiled.kernel->last_work();
    };
    int64_t with_space = work_of("space_keep");
    int64_t without = work_of("space_keep_plain");
    EXPECT_LE(with_space, 4 + 4) << "the fill region of x is visited";
    EXPECT_GE(without, n) << "without the space every coordinate is computed";
}

} // namespace
} // namespace siskin::testing
