// The C form of user functions agrees with the interpreter: each function's c_definition is
// compiled with the system C compiler (through the JIT, into a temporary cache) and called on
// sample values of its parameter types; results must match bit for bit (any NaN matches any
// NaN). Inputs on which the interpreter stops at the step limit are left out (C has no limit).
#include <cstdlib>
#include <functional>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "algebra/samples.hpp"
#include "codegen_test_util.hpp"
#include "functions_test_util.hpp"
#include "siskin/codegen/jit.hpp"

using namespace siskin;
using namespace siskin::functions_test;

namespace {

struct Subject {
    const char* text;                      // definitions; the last one is tested
    std::vector<std::vector<Scalar>> args; // per parameter; empty: the type's sample values
};

std::vector<Scalar> range(int64_t lo, int64_t hi) {
    std::vector<Scalar> out;
    for (int64_t v = lo; v <= hi; ++v) out.push_back(i64(v));
    return out;
}

const Subject kSubjects[] = {
    {R"(def gcd_c(a: int64, b: int64) -> int64 [commutative, associative, annihilator(1)] {
    while b != 0 { let t = b; b = a % b; a = t }
    return abs(a)
}
case gcd_c(x, 0) = abs(x))",
     {}},
    {R"(def collatz_c(n: int64) -> int64 {
    let steps = 0
    while n != 1 {
        if n % 2 == 0 { n = floordiv(n, 2) } else { n = 3 * n + 1 }
        steps = steps + 1
    }
    return steps
})",
     {range(1, 300)}},
    {"def to8_c(x: float64) -> int8 { return int8(x) }", {}},
    {"def tou_c(x: float32) -> uint16 { return uint16(x) }", {}},
    {"def tou64_c(x: float64) -> uint64 { return uint64(x) + uint64(int32(x)) }", {}},
    {"def tob_c(x: float64) -> bool { return bool(x) }", {}},
    {"def tof_c(x: int64) -> float32 { return float32(x) * 0.1 }", {}},
    {R"(def umax_c(a: float64, b: float64) -> float64 [commutative, associative, idempotent, identity(-inf)] {
    if a != a || b != b { return a + b }
    if a < b { return b }
    return a
})",
     {}},
    {R"(def stuck_c(x: int64) -> bool {
    while x == 0 {}
    return true
}
def guard_c(a: int64, b: int64) -> int64 {
    if b != 0 && stuck_c(b) { return a }
    if b == 0 || stuck_c(b) { return ifelse(b == 0, 2, int64(stuck_c(b))) }
    return 3
})",
     {}},
    {R"(def pick_c(x: float64, y: float64) -> float64 {
    return x + y
}
case pick_c(x, 0) = 100.0
case pick_c(nan, y) = -1.0
case pick_c(-inf, y) = y * 3.0)",
     {}},
    {R"(def gcd2_c(a: int64, b: int64) -> int64 {
    while b != 0 { let t = b; b = a % b; a = t }
    return abs(a)
}
def lcm_c(a: int64, b: int64) -> int64 {
    let g = gcd2_c(a, b)
    if g == 0 { return 0 }
    return abs(floordiv(a, g) * b)
})",
     {range(-40, 40), range(-40, 40)}},
    {R"(def parity_c(x: uint32) -> bool {
    let odd = false
    while x != 0 { odd = odd != ((x & 1) == 1); x = x >> 1 }
    return odd
})",
     {}},
    {R"(def sign_c(x: float64) -> int8 {
    if x > 0 { return int8(1) } else if x < 0 { return int8(-1) } else if x == 0 { return int8(0) }
    return int8(99)
})",
     {}},
    {"def inc8_c(x: int8) -> int8 { return x + 1 }", {}},
    {R"(def mix_c(x: float32, n: int32, flag: bool) -> float64 {
    let y: float64 = x
    let k = 0
    if flag && n > 0 { y = y * 2.0 } else if n < -3 { return -inf } else {}
    while k < n && k < 40 {
        k = k + 1
        { let z = int8(-3); y = y + float64(z) }
    }
    return y - -(1.5) + float32(0.25)
}
case mix_c(x, int32(0), true) = nan
case mix_c(-0.0, n, f) = float64(n))",
     {}},
    {R"(def nan_names_c(NAN: float64, isnan: float64) -> float64 {
    let INFINITY = NAN * isnan
    return INFINITY
})",
     {}},
};

std::vector<ValueType> param_types(const Operator& op) {
    std::vector<ValueType> out;
    for (const FunctionParam& p : find_function(op.name)->params()) out.push_back(p.type);
    return out;
}

bool have_cc() {
    return std::system("cc --version > /dev/null 2>&1") == 0;
}

// Bit-exact equality, with any NaN equal to any NaN and -0.0 apart from 0.0.
bool identical(const Scalar& x, const Scalar& y) {
    return static_cast<bool>(Is(x, y));
}

} // namespace

TEST(FunctionsC, EmittedCAgreesWithTheInterpreter) {
    if (!have_cc()) GTEST_SKIP() << "no C compiler";
    std::string source = "#include \"siskin_prelude.h\"\n";
    std::vector<const Operator*> ops;
    for (const Subject& s : kSubjects) {
        const Operator& op = define(s.text);
        ops.push_back(&op);
        // Twice: the include guards make repeats harmless.
        source += op.c_definition + op.c_definition;
        std::vector<ValueType> types = param_types(op);
        std::vector<std::string> args;
        for (size_t k = 0; k < types.size(); ++k)
            args.push_back(fmt::format("(*(const {} *)a[{}])", c_type_name(types[k]), k));
        source +=
            fmt::format("void call_{}(const void *const *a, void *r) {{\n"
                        "    *({} *)r = {};\n}}\n",
                        op.name, c_type_name(op.result_type(types)), c_expression(op, types, args));
    }
    codegen_test::TempDir cache;
    codegen::JitOptions options;
    options.cache_dir = cache.path();
    codegen::JitResult jit = codegen::jit_compile(source, options);

    for (size_t i = 0; i < ops.size(); ++i) {
        const Operator& op = *ops[i];
        std::vector<ValueType> types = param_types(op);
        ValueType result = op.result_type(types);
        auto* fn = jit.library->function<void(const void* const*, void*)>("call_" + op.name);
        std::vector<std::vector<Scalar>> samples = kSubjects[i].args;
        for (size_t k = samples.size(); k < types.size(); ++k) {
            samples.push_back(algebra::sample_values(types[k]));
            if (types.size() == 3)
                samples.back().resize(std::min<size_t>(samples.back().size(), 8));
        }
        int compared = 0;
        std::vector<Scalar> args(types.size());
        std::function<void(size_t)> each = [&](size_t k) {
            if (k < types.size()) {
                for (const Scalar& s : samples[k]) {
                    args[k] = s;
                    each(k + 1);
                }
                return;
            }
            Scalar want;
            try {
                want = op.evaluate(args);
            } catch (const Error&) {
                return; // over the step limit: the C loop would not end either
            }
            alignas(8) unsigned char storage[3][8] = {};
            const void* pointers[3];
            for (size_t j = 0; j < args.size(); ++j) {
                args[j].store(storage[j]);
                pointers[j] = storage[j];
            }
            alignas(8) unsigned char out[8] = {};
            fn(pointers, out);
            Scalar got = Scalar::load(result, out);
            ++compared;
            std::string at = op.name + "(";
            for (size_t j = 0; j < args.size(); ++j) at += (j ? ", " : "") + args[j].to_string();
            ASSERT_TRUE(identical(got, want))
                << at << "): C gives " << got.to_string() << ", interpreter " << want.to_string();
        };
        each(0);
        EXPECT_GT(compared, 0) << op.name;
    }
}

TEST(FunctionsC, TheDefinitionIsGuardedAndNamedByItsText) {
    const Operator& a = define("def named_c(x: int64) -> int64 { return x + 1 }");
    std::string name_a = a.c_template.substr(0, a.c_template.find('('));
    EXPECT_TRUE(name_a.starts_with("siskin_udf_named_c_")) << name_a;
    EXPECT_EQ(a.c_template, name_a + "($0)");
    EXPECT_NE(a.c_definition.find("#ifndef SISKIN_DEFINED_" + name_a), std::string::npos);
    EXPECT_NE(a.c_definition.find("static inline int64_t " + name_a + "(int64_t v_x)"),
              std::string::npos);
    // A different body gets a different C name, so both can live in one kernel.
    const Operator& b = define("def named_c(x: int64) -> int64 { return x + 2 }");
    EXPECT_NE(b.c_template, a.c_template);
    // Builtins need no definition.
    EXPECT_TRUE(find_operator("add").c_definition.empty());
    // A function that calls another carries the callee's definition before its own.
    const Operator& caller = define("def caller_c(x: int64) -> int64 { return named_c(x) * 2 }");
    size_t callee_at = caller.c_definition.find(b.c_template.substr(0, b.c_template.find('(')));
    size_t own_at = caller.c_definition.find("static inline int64_t siskin_udf_caller_c_");
    EXPECT_NE(callee_at, std::string::npos);
    EXPECT_LT(callee_at, own_at);
}
