// Ufuncs under any fill, compiled and compared with the reference evaluator: random programs of
// NumPy ufuncs (by their NumPy names) x fills {0, 1, +inf, -inf, NaN} (integers {0, 1, -1, 7},
// bool {false, true}) x input formats (dense, sparselist, bytemap, coo, csr, dcsr) x output
// formats, on inputs that store explicit fills and inf/NaN. Every value, the output fill and, for
// sparse outputs, the exact stored coordinates must agree. Seeded (SISKIN_TEST_SEED).
#include <cmath>
#include <cstdlib>
#include <limits>
#include <random>
#include <sstream>

#include "compiler_test_util.hpp"

namespace siskin::testing {
namespace {

using Rng = std::mt19937_64;

int pick(Rng& rng, int n) { return static_cast<int>(rng() % static_cast<uint64_t>(n)); }
template <class T> const T& pick(Rng& rng, const std::vector<T>& v) {
    return v[static_cast<size_t>(pick(rng, static_cast<int>(v.size())))];
}
bool chance(Rng& rng, double p) { return std::uniform_real_distribution<double>(0, 1)(rng) < p; }

const double kInf = std::numeric_limits<double>::infinity();
const double kNaN = std::numeric_limits<double>::quiet_NaN();

struct Input {
    std::vector<int64_t> shape;
    std::string format;
    ValueType type;
    Scalar fill;
};

struct Case {
    std::string program;
    std::map<std::string, Input> inputs;
    std::map<std::string, OutputSpec> outputs;
};

Scalar random_fill(Rng& rng, ValueType t) {
    if (t == ValueType::Bool) return Scalar::of(chance(rng, 0.7) ? false : true);
    if (t == ValueType::Int64) return Scalar::of(pick(rng, std::vector<int64_t>{0, 0, 1, -1, 7}));
    return Scalar::of(pick(rng, std::vector<double>{0.0, 0.0, 1.0, kInf, -kInf, kNaN}));
}

// A value of t: often the fill itself (an explicit fill), else small numbers, inf and NaN, and
// for integers shift counts around the width and negative ones.
Scalar random_value(Rng& rng, ValueType t, const Scalar& fill) {
    if (chance(rng, 0.2)) return fill;
    if (t == ValueType::Bool) return Scalar::of(chance(rng, 0.5));
    if (t == ValueType::Int64)
        return Scalar::of(pick(rng, std::vector<int64_t>{0, 1, -1, 2, 3, 7, -8, 63, 64, -65}));
    return Scalar::of(pick(rng, std::vector<double>{0.0, 1.0, -1.0, 2.0, 0.5, -3.0, kInf, -kInf, kNaN}));
}

Tensor random_tensor(Rng& rng, const Input& in) {
    CoordinateList entries;
    entries.ndims = static_cast<int>(in.shape.size());
    double density = pick(rng, std::vector<double>{0.0, 0.2, 0.5, 1.0});
    int64_t total = 1;
    for (int64_t n : in.shape) total *= n;
    std::vector<int64_t> c(in.shape.size());
    for (int64_t flat = 0; flat < total; ++flat) {
        int64_t rest = flat;
        for (size_t k = in.shape.size(); k-- > 0;) {
            c[k] = rest % in.shape[k];
            rest /= in.shape[k];
        }
        if (chance(rng, density)) entries.add(c, random_value(rng, in.type, in.fill));
    }
    return Tensor::from_coordinates(in.shape, in.type, in.fill,
                                    Format::parse(in.format, static_cast<int>(in.shape.size())),
                                    entries);
}

const std::vector<std::string> kFloatBinary = {
    "add",     "subtract",  "multiply",      "divide",      "power",       "maximum",
    "minimum", "fmax",      "fmin",          "equal",       "not_equal",   "less",
    "less_equal", "greater", "greater_equal", "logical_and", "logical_or", "logical_xor"};
const std::vector<std::string> kFloatUnary = {"absolute", "negative", "exp",
                                              "log",      "sqrt",     "logical_not"};
const std::vector<std::string> kIntBinary = {
    "add",         "subtract",   "multiply",    "left_shift", "right_shift", "bitwise_and",
    "bitwise_or",  "bitwise_xor", "maximum",    "minimum",    "equal",       "less",
    "power",       "logical_xor"};
const std::vector<std::string> kIntUnary = {"invert", "negative", "absolute"};
const std::vector<std::string> kBoolBinary = {"logical_and", "logical_or", "logical_xor",
                                              "equal",       "not_equal",  "bitwise_and",
                                              "bitwise_or",  "bitwise_xor"};

struct Gen {
    Rng& rng;
    int64_t n = 0;

    std::string vector_format() {
        return pick(rng, std::vector<std::string>{"dense", "sparselist(0)", "sparselist(0)@32",
                                                  "bytemap(0)", "coo(0)"});
    }
    std::string matrix_format() {
        return pick(rng, std::vector<std::string>{"dense", "csr", "csr@32", "dcsr", "coo",
                                                  "dense(0)/bytemap(1)"});
    }
    Input vec(ValueType t) { return {{n}, vector_format(), t, random_fill(rng, t)}; }
    Input mat(ValueType t, int64_t m) { return {{m, n}, matrix_format(), t, random_fill(rng, t)}; }
    std::optional<Format> vector_output() {
        int k = pick(rng, 3);
        if (k == 0) return std::nullopt;
        return Format::parse(k == 1 ? "sparselist(0)" : "bytemap(0)", 1);
    }
    std::optional<Format> matrix_output() {
        int k = pick(rng, 4);
        if (k == 0) return std::nullopt;
        return Format::parse(k == 1 ? "csr" : k == 2 ? "dcsr" : "dense(0)/bytemap(1)", 2);
    }
};

Case make_case(Rng& rng) {
    Gen g{rng, pick(rng, 9) + 1};
    Case c;
    ValueType t = pick(rng, std::vector<ValueType>{ValueType::Float64, ValueType::Float64,
                                                   ValueType::Int64, ValueType::Bool});
    auto two = [&](const std::string& op, ValueType ta, ValueType tb) {
        c.inputs["x"] = g.vec(ta);
        c.inputs["y"] = g.vec(tb);
        c.program = "w[i] = " + op + "(x[i], y[i])";
    };
    switch (pick(rng, 8)) {
    case 0:
    case 1: // binary ufunc on two vectors of one type
        if (t == ValueType::Float64) two(pick(rng, kFloatBinary), t, t);
        else if (t == ValueType::Int64) two(pick(rng, kIntBinary), t, t);
        else two(pick(rng, kBoolBinary), t, t);
        break;
    case 2: // unary
        if (t == ValueType::Bool) t = ValueType::Float64;
        c.inputs["x"] = g.vec(t);
        c.program = "w[i] = " + pick(rng, t == ValueType::Int64 ? kIntUnary : kFloatUnary) + "(x[i])";
        break;
    case 3: { // where, with a bool or a float condition
        c.inputs["m"] = g.vec(chance(rng, 0.6) ? ValueType::Bool : ValueType::Float64);
        c.inputs["x"] = g.vec(ValueType::Float64);
        c.inputs["y"] = g.vec(t == ValueType::Bool ? ValueType::Float64 : t);
        c.program = chance(rng, 0.7) ? "w[i] = where(m[i], x[i], y[i])" : "w[i] = where(m[i], x[i], 7)";
        if (c.program.find(", 7)") != std::string::npos) c.inputs.erase("y");
        break;
    }
    case 4: { // masks and the masked power of the paper
        c.inputs["m"] = g.vec(ValueType::Bool);
        c.inputs["x"] = g.vec(ValueType::Float64);
        int k = pick(rng, 3);
        if (k == 0) c.program = "w[i] = x[i] * !m[i]";
        else if (k == 1) c.program = "w[i] = logical_and(x[i], logical_not(m[i]))";
        else {
            c.inputs["y"] = g.vec(ValueType::Float64);
            c.program = "w[i] = power(x[i], y[i]) * !m[i]";
        }
        break;
    }
    case 5: { // fused logical ufuncs
        for (const char* name : {"a", "b", "d"}) c.inputs[name] = g.vec(ValueType::Bool);
        c.program = pick(rng, std::vector<std::string>{
            "w[i] = logical_and(logical_xor(a[i], b[i]), d[i])",
            "w[i] = logical_or(logical_xor(a[i], b[i]), d[i])",
            "w[i] = logical_and(logical_or(a[i], b[i]), d[i])",
            "w[i] = logical_xor(logical_and(a[i], d[i]), logical_and(b[i], d[i]))"});
        break;
    }
    case 6: { // ldexp and shifts with mixed types
        c.inputs["x"] = g.vec(ValueType::Float64);
        c.inputs["y"] = g.vec(ValueType::Int64);
        c.program = pick(rng, std::vector<std::string>{"w[i] = ldexp(x[i], y[i])",
                                                       "w[i] = maximum(x[i], y[i])",
                                                       "w[i] = fmin(x[i], y[i])",
                                                       "w[i] = divide(y[i], y[i])"});
        break;
    }
    default: { // matrices
        int64_t m = pick(rng, 5) + 1;
        ValueType mt = t == ValueType::Bool ? ValueType::Bool : ValueType::Float64;
        c.inputs["A"] = g.mat(mt, m);
        c.inputs["B"] = g.mat(mt, m);
        std::string op = pick(rng, mt == ValueType::Bool ? kBoolBinary : kFloatBinary);
        c.program = "C[i, j] = " + op + "(A[i, j], B[i, j])";
        if (auto f = g.matrix_output()) c.outputs["C"].format = f;
        return c;
    }
    }
    if (auto f = g.vector_output()) c.outputs["w"].format = f;
    return c;
}

std::string describe(const Case& c, uint64_t seed, const std::map<std::string, Tensor>& inputs) {
    std::ostringstream out;
    out << "seed " << seed << "\n  program: " << c.program << "\n";
    for (const auto& [name, t] : inputs)
        out << "  " << name << ": " << t.format().to_string() << " " << type_name(t.type())
            << " fill " << t.fill().to_string() << "\n" << t.to_string() << "\n";
    for (const auto& [name, spec] : c.outputs) {
        if (spec.format) out << "  output " << name << ": " << spec.format->to_string() << "\n";
        if (spec.fill) out << "  output " << name << " fill " << spec.fill->to_string() << "\n";
    }
    return out.str();
}

uint64_t base_seed() {
    if (const char* s = std::getenv("SISKIN_TEST_SEED")) return std::strtoull(s, nullptr, 10);
    return 20261122;
}

TEST(UfuncsFill, RandomUfuncProgramsMatchTheReferenceUnderAnyFill) {
    const int kCases = 100, kInstances = 2;
    int compared = 0;
    for (int k = 0; k < kCases; ++k) {
        uint64_t seed = base_seed() * 1000003 + static_cast<uint64_t>(k);
        Rng rng(seed);
        Case c = make_case(rng);
        ir::Program program = ir::parse_program(c.program);
        for (int inst = 0; inst < kInstances; ++inst) {
            std::map<std::string, Tensor> tensors;
            std::map<std::string, const Tensor*> inputs;
            for (const auto& [name, d] : c.inputs) tensors.emplace(name, random_tensor(rng, d));
            for (const auto& [name, t] : tensors) inputs.emplace(name, &t);
            // The second instance asks for the inferred fill explicitly, which must be accepted
            // (also for sparse outputs), or for any fill on a dense output.
            std::map<std::string, OutputSpec> specs = c.outputs;
            std::map<std::string, Tensor> want, got;
            try {
                if (inst == 1) {
                    auto first = evaluate_reference(program, inputs, specs);
                    for (const auto& [name, t] : first) {
                        OutputSpec& s = specs[name];
                        s.fill = t.fill();
                        if (!s.format && chance(rng, 0.5)) s.fill = random_fill(rng, t.type());
                    }
                }
                want = evaluate_reference(program, inputs, specs);
            } catch (const Error& e) {
                ADD_FAILURE() << "reference failed: " << e.what() << "\n" << describe(c, seed, tensors);
                return;
            }
            try {
                got = evaluate_compiled(program, inputs, specs, test_options());
            } catch (const Error& e) {
                ADD_FAILURE() << "compiled failed: " << e.what() << "\n" << describe(c, seed, tensors);
                return;
            }
            for (const auto& [name, w] : want) {
                const Tensor& g = got.at(name);
                if (!same_output(w, g)) {
                    ADD_FAILURE() << "output " << name << " differs\n" << describe(c, seed, tensors)
                                  << "  want: " << w.to_string() << "\n  got:  " << g.to_string();
                    return;
                }
            }
            ++compared;
        }
    }
    EXPECT_EQ(compared, kCases * kInstances);
}

} // namespace
} // namespace siskin::testing
