// Differential tests: random programs x input formats x index widths x fill values, on random
// inputs, compiled and compared with the reference evaluator: every value, and for sparse outputs
// the exact list of stored coordinates. Seeded; a failure prints the seed, the program, the
// formats, the inputs and the generated C. SISKIN_TEST_SEED=<n> runs another set of cases.
// Outputs are dense or of every level the compiler writes (sparselist, bytemap, runlist,
// sparseband, sparserunlist, sparseblocklist (vbl), packbits, coo, sparsehash, pattern leaves;
// bytemap above another level too, and runlist above every level but the singular ones (whose
// random outputs would need more than one entry or run per fibre; compiler_convert_test has
// them), read and written, on matrices whose rows or columns often repeat), with
// chosen or given index widths. Each case runs on 1, 2, 3
// or 7 threads (CompileOptions::threads, every loop in parallel however small), and a matrix may
// have an empty row and a full one (chunks balanced by entries meet both).
#include <cmath>
#include <cstdlib>
#include <functional>
#include <limits>
#include <random>
#include <sstream>

#include "compiler_test_util.hpp"
#include "siskin/ir/verify.hpp"

namespace siskin::testing {
namespace {

using Rng = std::mt19937_64;

int pick(Rng& rng, int n) { return static_cast<int>(rng() % static_cast<uint64_t>(n)); }
template <class T> const T& pick(Rng& rng, const std::vector<T>& v) { return v[static_cast<size_t>(pick(rng, static_cast<int>(v.size())))]; }
bool chance(Rng& rng, double p) { return std::uniform_real_distribution<double>(0, 1)(rng) < p; }

struct InputDesc {
    std::vector<int64_t> shape;
    std::string format;
    ValueType type = ValueType::Float64;
    Scalar fill;
    double density = 0.3;
    bool specials = false; // may hold inf and NaN
    bool skewed = false;   // a matrix whose row 1 is empty and row 2 full
    int repeat_mode = -1;  // when set, slices along this mode often repeat the one before
                           // (runs of sub-fibres merge them)
};

struct Case {
    std::string what;
    std::string program;
    std::map<std::string, InputDesc> inputs;
    std::map<std::string, OutputSpec> outputs;
};

// `entries` with each slice along d.repeat_mode replaced, half of the time, by the one before it.
CoordinateList with_repeated_slices(Rng& rng, const InputDesc& d, const CoordinateList& entries) {
    const size_t mode = static_cast<size_t>(d.repeat_mode);
    std::vector<bool> repeats(static_cast<size_t>(d.shape[mode]), false);
    for (size_t k = 1; k < repeats.size(); ++k) repeats[k] = chance(rng, 0.5);
    // A repeated slice takes the entries of the last slice before it that is not repeated.
    std::vector<int64_t> source(repeats.size());
    for (size_t k = 0; k < repeats.size(); ++k) source[k] = repeats[k] ? source[k - 1] : static_cast<int64_t>(k);
    CoordinateList out;
    out.ndims = entries.ndims;
    const size_t nd = static_cast<size_t>(entries.ndims);
    for (size_t e = 0; e < entries.values.size(); ++e) {
        std::vector<int64_t> c(entries.coords.begin() + static_cast<std::ptrdiff_t>(e * nd),
                               entries.coords.begin() + static_cast<std::ptrdiff_t>((e + 1) * nd));
        for (size_t k = 0; k < repeats.size(); ++k)
            if (source[k] == c[mode]) {
                std::vector<int64_t> copy = c;
                copy[mode] = static_cast<int64_t>(k);
                out.add(copy, entries.values[e]);
            }
    }
    return out;
}

Tensor random_tensor(Rng& rng, const InputDesc& d) {
    CoordinateList entries;
    entries.ndims = static_cast<int>(d.shape.size());
    std::vector<int64_t> c(d.shape.size(), 0);
    int64_t total = 1;
    for (int64_t n : d.shape) total *= n;
    for (int64_t flat = 0; flat < total; ++flat) {
        int64_t rest = flat;
        for (size_t k = d.shape.size(); k-- > 0;) {
            c[k] = rest % d.shape[k];
            rest /= d.shape[k];
        }
        bool empty_row = d.skewed && c[0] == 1, full_row = d.skewed && c[0] == 2;
        if (empty_row || (!full_row && !chance(rng, d.density))) continue;
        int v = pick(rng, 7) - 3;
        if (v == 0) v = 4;
        Scalar value = Scalar::of(static_cast<int64_t>(v)).cast(d.type);
        if (d.specials && is_float(d.type) && chance(rng, 0.08)) {
            static const double kSpecial[] = {std::numeric_limits<double>::infinity(),
                                              -std::numeric_limits<double>::infinity(),
                                              std::numeric_limits<double>::quiet_NaN()};
            value = Scalar::of(kSpecial[pick(rng, 3)]).cast(d.type);
        }
        entries.add(c, value);
    }
    if (d.repeat_mode >= 0) entries = with_repeated_slices(rng, d, entries);
    return Tensor::from_coordinates(d.shape, d.type, d.fill,
                                    Format::parse(d.format, static_cast<int>(d.shape.size())), entries);
}

// ------------------------------------------------------------------------------------------------
// The case generator.

struct Gen {
    Rng& rng;
    bool row_major; // loop order i, j (else j, i)
    int64_t m, n;

    std::string width() { return chance(rng, 0.5) ? "@32" : "@64"; }
    std::string matrix_format() {
        static const std::vector<std::string> rows{"dense", "csr", "dcsr", "coo", "dense(0)/band(1)",
                                                   "dense(0)/rle(1)", "dense(0)/bytemap(1)",
                                                   "dense(0)/sparserunlist(1)", "dense(0)/vbl(1)",
                                                   "dense(0)/packbits(1)", "dense(0)/hash(1)", "hash(0)/hash(1)",
                                                   "bytemap(0)/sparselist(1)", "rle(0)/dense(1)", "rle(0)/sparselist(1)",
                                                   "rle(0)/rle(1)", "rle(0)/bytemap(1)", "rle(0)/band(1)",
                                                   "rle(0)/vbl(1)", "rle(0)/packbits(1)", "rle(0)/sparserunlist(1)",
                                                   "rle(0)/hash(1)"};
        static const std::vector<std::string> cols{"dense", "csc", "dcsc", "dense(1)/band(0)",
                                                   "dense(1)/rle(0)", "dense(1)/bytemap(0)",
                                                   "sparselist(1)/sparserunlist(0)", "vbl(1)/vbl(0)",
                                                   "dense(1)/packbits(0)", "hash(1)/hash(0)", "bytemap(1)/bytemap(0)",
                                                   "rle(1)/dense(0)", "rle(1)/sparselist(0)", "rle(1)/hash(0)",
                                                   "rle(1)/band(0)", "rle(1)/packbits(0)", "rle(1)/sparserunlist(0)"};
        std::string f = pick(rng, row_major ? rows : cols);
        return f + width();
    }
    std::string vector_format() {
        if (chance(rng, 0.4)) return "dense";
        static const std::vector<std::string> sparse{"sparselist(0)", "sparselist(0)", "band(0)",
                                                     "rle(0)", "bytemap(0)", "sparserunlist(0)", "vbl(0)",
                                                     "packbits(0)", "hash(0)"};
        return pick(rng, sparse) + width();
    }
    // A sparse vector output: appended in order (sparselist, runlist, sparseband, coo), or the
    // random-access bytemap and hash; an index width sometimes.
    Format vector_output() {
        static const std::vector<std::string> formats{"sparselist(0)", "sparselist(0)", "bytemap(0)",
                                                      "rle(0)", "band(0)", "coo", "sparserunlist(0)", "vbl(0)",
                                                      "packbits(0)", "hash(0)"};
        std::string f = pick(rng, formats);
        if (chance(rng, 0.3)) f += width();
        return Format::parse(f, 1);
    }
    std::string loops(const std::string& body) {
        return row_major ? "for i { for j { " + body + " } }" : "for j { for i { " + body + " } }";
    }
    // A matrix output format that the loop order can append in order.
    std::optional<Format> matrix_output() {
        static const std::vector<std::pair<std::string, std::string>> formats{
            {"csr", "csc"},
            {"dcsr", "dcsc"},
            {"dense(0)/bytemap(1)", "dense(1)/bytemap(0)"},
            {"dense(0)/rle(1)", "dense(1)/rle(0)"},
            {"sparselist(0)/rle(1)", "sparselist(1)/rle(0)"},
            {"dense(0)/band(1)", "dense(1)/band(0)"},
            {"band(0)/band(1)", "sparselist(1)/band(0)"},
            {"dense(0)/sparserunlist(1)", "sparselist(1)/sparserunlist(0)"},
            {"vbl(0)/vbl(1)", "dense(1)/vbl(0)"},
            {"sparselist(0)/packbits(1)", "dense(1)/packbits(0)"},
            {"bytemap(0)/sparselist(1)", "bytemap(1)/dense(0)"},
            {"coo(0,1)", "coo(1,0)"},
            {"hash(0)/hash(1)", "hash(1)/hash(0)"},
            {"dense(0)/hash(1)", "sparselist(1)/hash(0)"},
            {"rle(0)/dense(1)", "rle(1)/dense(0)"},
            {"rle(0)/sparselist(1)", "rle(1)/rle(0)"},
            {"rle(0)/bytemap(1)", "rle(1)/sparselist(0)"},
            {"rle(0)/band(1)", "rle(1)/vbl(0)"},
            {"rle(0)/vbl(1)", "rle(1)/band(0)"},
            {"rle(0)/sparserunlist(1)", "rle(1)/packbits(0)"},
            {"rle(0)/packbits(1)", "rle(1)/sparserunlist(0)"},
            {"rle(0)/hash(1)", "rle(1)/hash(0)"},
            {"rle(0)/coo(1)", "rle(1)/coo(0)"}};
        int k = pick(rng, static_cast<int>(formats.size()) + 1);
        if (k == 0) return std::nullopt; // dense
        const auto& [rows, cols] = formats[static_cast<size_t>(k - 1)];
        std::string f = row_major ? rows : cols;
        if (chance(rng, 0.3)) f += width();
        return Format::parse(f, 2);
    }
    // A pattern output: stored iff true.
    Format pattern_output() {
        static const std::vector<std::string> rows{"dense(0)/sparselist(1)/pattern",
                                                   "sparselist(0)/sparselist(1)/pattern",
                                                   "coo(0,1)/pattern", "dense(0)/bytemap(1)/pattern",
                                                   "dense(0)/sparserunlist(1)/pattern",
                                                   "hash(0)/hash(1)/pattern", "bytemap(0)/sparselist(1)/pattern",
                                                   "rle(0)/sparselist(1)/pattern", "rle(0)/vbl(1)/pattern",
                                                   "rle(0)/coo(1)/pattern"};
        static const std::vector<std::string> cols{"dense(1)/sparselist(0)/pattern", "coo(1,0)/pattern",
                                                   "dense(1)/bytemap(0)/pattern", "hash(1)/hash(0)/pattern",
                                                   "rle(1)/sparselist(0)/pattern", "rle(1)/hash(0)/pattern"};
        return Format::parse(pick(rng, row_major ? rows : cols), 2);
    }
    double density() { return pick(rng, std::vector<double>{0.0, 0.15, 0.4, 0.8, 1.0}); }
    InputDesc matrix(ValueType t, Scalar fill, bool specials = false) {
        std::string format = matrix_format();
        InputDesc d{{m, n}, format, t, fill, density(), specials, chance(rng, 0.3)};
        // Repeated rows (columns) along the loops, so that runs of sub-fibres form.
        if (chance(rng, 0.4)) d.repeat_mode = row_major ? 0 : 1;
        return d;
    }
    InputDesc vector(int64_t len, ValueType t, Scalar fill, bool specials = false) {
        return {{len}, vector_format(), t, fill, density(), specials};
    }
};

const Scalar kZero = Scalar::of(0.0);
const double kInf = std::numeric_limits<double>::infinity();

Scalar additive_fill(Rng& rng, ValueType t) {
    return (chance(rng, 0.6) ? Scalar::of(int64_t{0}) : Scalar::of(int64_t{1})).cast(t);
}

Case make_case(Rng& rng) {
    Gen g{rng, chance(rng, 0.7), pick(rng, 7) + (chance(rng, 0.05) ? 0 : 1),
          pick(rng, 7) + (chance(rng, 0.05) ? 0 : 1)};
    ValueType t = chance(rng, 0.75) ? ValueType::Float64 : ValueType::Int64;
    Case c;
    switch (pick(rng, 13)) {
    case 0: { // SpMV, SpMSpV (x sparse or dense), with protocols sometimes
        std::string pa = "", px = "";
        c.inputs["A"] = g.matrix(t, additive_fill(rng, t));
        c.inputs["x"] = g.vector(g.n, t, additive_fill(rng, t), true);
        const std::string& fa = c.inputs["A"].format;
        bool sparse_rows = fa.rfind("dense@", 0) != 0 && fa.rfind("coo", 0) != 0;
        if (sparse_rows && g.row_major && chance(rng, 0.5)) pa = chance(rng, 0.5) ? "gallop" : "follow";
        if (c.inputs["x"].format != "dense" && chance(rng, 0.5)) px = pick(rng, std::vector<std::string>{"walk", "gallop", "follow"});
        auto wrap = [](const std::string& p, const std::string& i) { return p.empty() ? i : p + "(" + i + ")"; };
        c.what = "spmv";
        c.program = g.loops("y[i] += A[i, " + wrap(pa, "j") + "] * x[" + wrap(px, "j") + "]");
        if (g.row_major && chance(rng, 0.4)) c.outputs["y"].format = g.vector_output();
        break;
    }
    case 1: { // row and column sums
        c.inputs["A"] = g.matrix(t, additive_fill(rng, t));
        bool rows = chance(rng, 0.5);
        c.what = rows ? "row sums" : "column sums";
        c.program = g.loops(rows ? "y[i] += A[i, j]" : "y[j] += A[i, j]");
        if (rows == g.row_major && chance(rng, 0.4)) c.outputs["y"].format = g.vector_output();
        // A bytemap and a hash take writes in any order.
        else if (chance(rng, 0.3)) c.outputs["y"].format = Format::parse(chance(rng, 0.5) ? "bytemap(0)" : "hash(0)", 1);
        break;
    }
    case 2: { // scalar reductions with + min max
        int op = pick(rng, 3);
        Scalar fill = op == 0 ? additive_fill(rng, t)
                    : chance(rng, 0.5) ? Scalar::of(int64_t{0}).cast(t)
                    : Scalar::of(op == 1 ? (is_float(t) ? kInf : 100.0) : (is_float(t) ? -kInf : -100.0)).cast(t);
        c.inputs["A"] = g.matrix(t, fill, op != 0);
        const char* assign[] = {"+=", "min=", "max="};
        c.what = std::string("scalar ") + assign[op];
        c.program = g.loops(std::string("s[] ") + assign[op] + " A[i, j]");
        break;
    }
    case 3:
    case 4: { // elementwise of two matrices
        const char* ops[] = {"A[i, j] + B[i, j]", "A[i, j] * B[i, j]", "min(A[i, j], B[i, j])",
                             "max(A[i, j], B[i, j])", "A[i, j] - B[i, j]"};
        int op = pick(rng, 5);
        Scalar fa = additive_fill(rng, t), fb = additive_fill(rng, t);
        c.inputs["A"] = g.matrix(t, fa, op == 1);
        c.inputs["B"] = g.matrix(t, fb, op == 1);
        c.what = "elementwise 2";
        c.program = g.loops(std::string("C[i, j] = ") + ops[op]);
        if (auto f = g.matrix_output()) c.outputs["C"].format = f;
        break;
    }
    case 5: { // elementwise of three matrices
        const char* ops[] = {"A[i, j] + B[i, j] + D[i, j]", "A[i, j] * B[i, j] * D[i, j]",
                             "A[i, j] * B[i, j] + D[i, j]", "min(A[i, j], min(B[i, j], D[i, j]))",
                             "max(A[i, j] * B[i, j], D[i, j])"};
        int op = pick(rng, 5);
        for (const char* name : {"A", "B", "D"}) c.inputs[name] = g.matrix(t, additive_fill(rng, t));
        c.what = "elementwise 3";
        c.program = g.loops(std::string("C[i, j] = ") + ops[op]);
        if (auto f = g.matrix_output()) c.outputs["C"].format = f;
        break;
    }
    case 6: { // vectors, 2 or 3 operands, sparse output sometimes
        int64_t len = g.m;
        const char* ops[] = {"x[i] + v[i]", "x[i] * v[i]", "min(x[i], v[i])", "max(x[i], v[i])",
                             "x[i] + v[i] + u[i]", "x[i] * v[i] * u[i]", "x[i] * v[i] + u[i]"};
        int op = pick(rng, 7);
        for (const char* name : {"x", "v"}) c.inputs[name] = g.vector(len, t, additive_fill(rng, t));
        if (op >= 4) c.inputs["u"] = g.vector(len, t, additive_fill(rng, t));
        c.what = "vector elementwise";
        std::string text = ops[op];
        // Sometimes a protocol on each sparse operand.
        for (const auto& [name, d] : c.inputs) {
            if (d.format == "dense" || chance(rng, 0.5)) continue;
            std::string proto = pick(rng, std::vector<std::string>{"walk", "gallop", "follow"});
            size_t at = text.find(name + "[i]");
            text.replace(at, name.size() + 3, name + "[" + proto + "(i)]");
        }
        c.program = "for i { w[i] = " + text + " }";
        if (chance(rng, 0.6)) c.outputs["w"].format = g.vector_output();
        break;
    }
    case 7: { // two outputs
        c.inputs["A"] = g.matrix(t, Scalar::of(int64_t{0}).cast(t));
        c.inputs["x"] = g.vector(g.n, t, Scalar::of(int64_t{0}).cast(t));
        c.what = "two outputs";
        c.program = g.loops("y[i] += A[i, j] * x[j]; s[] max= A[i, j]");
        break;
    }
    case 8: { // if masks
        c.inputs["A"] = g.matrix(t, additive_fill(rng, t));
        c.inputs["B"] = g.matrix(t, Scalar::of(int64_t{0}).cast(t));
        bool scalar = chance(rng, 0.5);
        c.what = "if mask";
        c.program = scalar ? g.loops("if A[i, j] > 1 { s[] += A[i, j] }")
                           : g.loops("if B[i, j] { C[i, j] = A[i, j] }");
        if (!scalar)
            if (auto f = g.matrix_output()) c.outputs["C"].format = f;
        break;
    }
    case 9: { // let
        c.inputs["A"] = g.matrix(t, additive_fill(rng, t));
        c.inputs["x"] = g.vector(g.n, t, Scalar::of(int64_t{0}).cast(t));
        c.what = "let";
        c.program = g.loops("let t = A[i, j] * 2 { y[i] += t * x[j] }");
        break;
    }
    case 10: { // scaled copy into any output
        c.inputs["A"] = g.matrix(t, additive_fill(rng, t));
        c.what = "scaled copy";
        c.program = g.loops("C[i, j] = A[i, j] * 3");
        if (auto f = g.matrix_output()) c.outputs["C"].format = f;
        break;
    }
    case 12: { // pattern outputs: an entry is stored iff its value is true
        Scalar fa = additive_fill(rng, t), fb = additive_fill(rng, t);
        c.inputs["A"] = g.matrix(t, fa);
        c.inputs["B"] = g.matrix(t, fb);
        // Only conditions false where A and B hold their fills: a fill-false pattern output
        // must be sparse there (a true one is refused as an impossible fill).
        double a = fa.as_double(), b = fb.as_double();
        std::vector<std::string> conds;
        if (!(a > 0)) conds.push_back("A[i, j] > 0");
        if (!(a != 0)) conds.push_back("A[i, j] != 0");
        if (!(a < 2)) conds.push_back("A[i, j] < 2");
        if (!(a > b)) conds.push_back("A[i, j] > B[i, j]");
        if (!(a != 0 && b != 0)) conds.push_back("A[i, j] != 0 && B[i, j] != 0");
        conds.push_back("A[i, j] != " + fa.to_string());
        c.what = "pattern output";
        c.program = g.loops("P[i, j] = " + pick(rng, conds));
        OutputSpec& p = c.outputs["P"];
        p.format = g.pattern_output();
        p.type = ValueType::Bool;
        p.fill = Scalar::of(false);
        break;
    }
    default: { // dot products of vectors (walk, gallop, follow)
        int64_t len = g.m * 3;
        c.inputs["x"] = g.vector(len, t, Scalar::of(int64_t{0}).cast(t), true);
        c.inputs["v"] = g.vector(len, t, Scalar::of(int64_t{0}).cast(t), true);
        std::string px = pick(rng, std::vector<std::string>{"", "walk", "gallop", "follow"});
        std::string pv = pick(rng, std::vector<std::string>{"", "walk", "gallop"});
        if (c.inputs["x"].format == "dense") px = "";
        if (c.inputs["v"].format == "dense") pv = "";
        auto wrap = [](const std::string& p) { return p.empty() ? std::string("i") : p + "(i)"; };
        c.what = "dot";
        c.program = "for i { s[] += x[" + wrap(px) + "] * v[" + wrap(pv) + "] }";
        break;
    }
    }
    return c;
}

std::string describe(const Case& c, uint64_t seed, const std::map<std::string, Tensor>& inputs) {
    std::ostringstream out;
    out << "seed " << seed << " (" << c.what << ")\n  program: " << c.program << "\n";
    for (const auto& [name, t] : inputs)
        out << "  " << name << ": " << t.format().to_string() << " fill " << t.fill().to_string()
            << "\n" << t.to_string() << "\n";
    for (const auto& [name, spec] : c.outputs)
        if (spec.format) out << "  output " << name << ": " << spec.format->to_string() << "\n";
    return out.str();
}

uint64_t base_seed() {
    if (const char* s = std::getenv("SISKIN_TEST_SEED")) return std::strtoull(s, nullptr, 10);
    return 20261121;
}

TEST(CompilerDifferential, RandomProgramsMatchTheReference) {
    const int kCases = 260, kInstances = 3;
    const int kThreads[] = {1, 2, 3, 7};
    int compared = 0;
    for (int k = 0; k < kCases; ++k) {
        uint64_t seed = base_seed() * 1000003 + static_cast<uint64_t>(k);
        Rng rng(seed);
        Case c = make_case(rng);
        CompileOptions options = test_options();
        options.threads = kThreads[k % 4];
        options.parallel_min_work = 0;
        c.what += " on " + std::to_string(options.threads) + " threads";
        ir::Program program = ir::parse_program(c.program);
        for (int inst = 0; inst < kInstances; ++inst) {
            std::map<std::string, Tensor> tensors;
            std::map<std::string, const Tensor*> inputs;
            for (const auto& [name, d] : c.inputs) tensors.emplace(name, random_tensor(rng, d));
            for (const auto& [name, t] : tensors) inputs.emplace(name, &t);
            std::map<std::string, Tensor> want, got;
            try {
                want = evaluate_reference(program, inputs, c.outputs);
            } catch (const Error& e) {
                ADD_FAILURE() << "reference failed: " << e.what() << "\n" << describe(c, seed, tensors);
                return;
            }
            try {
                got = evaluate_compiled(program, inputs, c.outputs, options);
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
