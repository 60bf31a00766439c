// The looplet engine on hand-built looplets (Looplets paper conformance cases, notes §10): the
// lowerer is given a loop `for i in [lo, hi) { s += A[i] * B[i] }` whose accesses are looplet
// nests written here, and the C it emits is compiled and run. Besides the value, the tests check
// the shape of the code: runs are integrated without a loop, switches multiply out, spikes emit
// no code for their fill part.
#include <regex>

#include "codegen/c_printer.hpp"
#include "compiler/lower.hpp"
#include "lowering/tensor_binding.hpp"
#include "compiler_test_util.hpp"
#include "siskin/codegen/jit.hpp"
#include "siskin/operators.hpp"

namespace siskin::testing {
namespace {

using namespace compiler;
using namespace lowering;
using namespace looplets;
using namespace simplify;

LExpr lit(double v) { return Literal::make(Scalar::of(v)); }
LExpr cval(const std::string& c_text_var, const cast::Expr& index) {
    return CValue::make(cast::at(cast::var(c_text_var), index), ValueType::Float64, true);
}
LExpr access(LoopletPtr l) { return Unfurled::make("i", std::move(l), ValueType::Float64, false, nullptr); }
cast::Expr i64(int64_t v) { return c_int(v); }

struct Lowered {
    std::string c;
    double value = 0;
};

// Lowers `for i in [lo, hi) { s += a * b }` (or `s += a` when b is null), compiles and runs it.
Lowered lower_and_run(int64_t lo, int64_t hi, const LExpr& a, const LExpr& b,
                      const std::string& globals = "", const std::vector<cast::Stmt>& setup = {}) {
    static TensorBinding s_binding = [] {
        TensorBinding t;
        t.name = "s";
        t.type = ValueType::Float64;
        t.fill = Scalar::of(0.0);
        return t;
    }();
    LowerCtx ctx;
    LExpr rhs = b ? Call::make(find_operator("mul"), {a, b}) : a;
    auto slot = std::make_shared<Slot>(cast::var("s"), ValueType::Float64, std::nullopt);
    LStmt assign = std::make_shared<Assign>(&s_binding, slot, &find_operator("add"), rhs, false);
    LStmt loop = std::make_shared<For>("i", Literal::make(Scalar::of(lo)), Literal::make(Scalar::of(hi)), assign);
    auto code = ctx.capture([&] { lower_body(ctx, loop); });
    std::string body;
    for (const auto& s : setup) body += cast::print(s, 1);
    for (const auto& s : code) body += cast::print(s, 1);
    Lowered out;
    out.c = body;
    std::string unit = "#include \"siskin_prelude.h\"\n" + globals + "\n" + ctx.helpers() +
                       "double run(void) {\n    double s = 0.0;\n" + body + "    return s;\n}\n";
    auto jit = codegen::jit_compile(unit, test_options().jit);
    out.value = jit.library->function<double()>("run")();
    return out;
}

bool has_loop(const std::string& c) {
    return c.find("for (") != std::string::npos || c.find("while (") != std::string::npos;
}

size_t count(const std::string& text, const std::string& what) {
    size_t n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
}

LoopletPtr run(double v) { return make_looplet<Run>(lit(v)); }

LoopletPtr two_phases(int64_t stop, double first, double second) {
    LoopletPtr a = run(first), b = run(second);
    return make_looplet<Sequence>(std::vector<Phase>{
        {i64(stop), [a](LowerCtx&, const Extent&) { return a; }},
        {std::nullopt, [b](LowerCtx&, const Extent&) { return b; }}});
}

TEST(CompilerLooplets, SequenceTimesSequenceIntegratesRuns) {
    // A = 1 on [0,4), 2 after; B = 3 on [0,7), 4 after; sum over [0,10) = 4*3 + 3*6 + 3*8.
    auto r = lower_and_run(0, 10, access(two_phases(4, 1, 2)), access(two_phases(7, 3, 4)));
    EXPECT_EQ(r.value, 54.0);
    EXPECT_FALSE(has_loop(r.c)) << r.c;
}

TEST(CompilerLooplets, SwitchTimesSwitchMultipliesOutTheCases) {
    auto sw = [](const std::string& var, double yes, double no) {
        return make_looplet<Switch>(std::vector<Switch::Case>{
            {cast::bin(cast::BinaryOp::Gt, cast::var(var), i64(1)), run(yes)}, {std::nullopt, run(no)}});
    };
    auto r = lower_and_run(0, 5, access(sw("x", 1, 2)), access(sw("y", 3, 4)),
                           "static const int64_t x = 2, y = 0;\n");
    EXPECT_EQ(r.value, 20.0);
    EXPECT_EQ(count(r.c, "s = "), 4u) << r.c; // one update per combination of cases
    EXPECT_FALSE(has_loop(r.c)) << r.c;
}

TEST(CompilerLooplets, SpikeTimesSpikeEmitsOnlyTheTail) {
    auto r = lower_and_run(0, 5, access(make_looplet<Spike>(lit(0), lit(3))),
                           access(make_looplet<Spike>(lit(0), lit(5))));
    EXPECT_EQ(r.value, 15.0);
    EXPECT_FALSE(has_loop(r.c)) << r.c;
}

TEST(CompilerLooplets, ZeroRunAnnihilatesTheLoop) {
    auto r = lower_and_run(0, 1000, access(run(7)), access(run(0)));
    EXPECT_EQ(r.value, 0.0);
    EXPECT_EQ(r.c, "") << "no code at all for Run(7) * Run(0)";
}

TEST(CompilerLooplets, RunIsIntegrated) {
    auto r = lower_and_run(0, 10, access(run(2)), nullptr);
    EXPECT_EQ(r.value, 20.0); // 10 iterations, not 9
    EXPECT_FALSE(has_loop(r.c)) << r.c;
}

// Run-length encoded vectors: run k ends (exclusively) at stops[k] with value vals[k].
LoopletPtr rle(const std::string& name) {
    cast::Expr p = cast::var(name + "_p");
    auto s = std::make_shared<Stepper>(cast::at(cast::var(name + "_stop"), p));
    s->seek = [](LowerCtx&, const cast::Expr&) { return std::vector<cast::Stmt>{}; };
    s->chunk = [name, p](LowerCtx&, const cast::Expr&) -> LoopletPtr {
        return make_looplet<Run>(cval(name + "_val", p));
    };
    s->next = {cast::Increment::make(p)};
    s->stop_bounds = {i64(10)};
    return s;
}

TEST(CompilerLooplets, RunLengthTimesRunLengthStepsOncePerBoundary) {
    std::string globals =
        "static const int64_t A_stop[] = {3, 6, 10}; static const double A_val[] = {1, 2, 3};\n"
        "static const int64_t B_stop[] = {2, 7, 10}; static const double B_val[] = {10, 20, 30};\n";
    std::vector<cast::Stmt> setup{cast::Decl::make(cast::Type::of(ValueType::Int64), "A_p", i64(0)),
                                  cast::Decl::make(cast::Type::of(ValueType::Int64), "B_p", i64(0))};
    auto r = lower_and_run(0, 10, access(rle("A")), access(rle("B")), globals, setup);
    EXPECT_EQ(r.value, 490.0);
    EXPECT_EQ(count(r.c, "while ("), 1u) << r.c; // one stepper loop, no inner loops
    EXPECT_EQ(count(r.c, "for ("), 0u) << r.c;
}

TEST(CompilerLooplets, LookupLoopsAndShiftTranslates) {
    std::string globals = "static const double v[] = {1, 2, 4, 8, 16};\n";
    auto lookup = make_looplet<Lookup>([](LowerCtx&, const cast::Expr& i) { return cval("v", i); });
    auto r = lower_and_run(0, 5, access(lookup), nullptr, globals);
    EXPECT_EQ(r.value, 31.0);
    EXPECT_TRUE(has_loop(r.c));
    // Shift(2, v): index i reads v[i - 2]; over [2, 4) that is v[0] + v[1].
    auto shifted = lower_and_run(2, 4, access(make_looplet<Shift>(i64(2), lookup)), nullptr, globals);
    EXPECT_EQ(shifted.value, 3.0);
}

} // namespace
} // namespace siskin::testing
