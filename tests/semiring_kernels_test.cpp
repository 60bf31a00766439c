// GraphBLAS-style kernels: masked matrix-vector and matrix-matrix products over (or, and),
// (min, +), (max, *) and a user-defined semiring, with plain and complemented masks. Each form
// is checked by hand on a small case, against the reference evaluator across formats, and by
// work counts where it must skip work: a plain mask over a sparse m visits only m's stored
// entries; a complemented one visits every row but skips the product where m is stored.
#include <limits>
#include <random>

#include "compiler_test_util.hpp"
#include "functions_test_util.hpp"

namespace siskin::testing {
namespace {

const double kInf = std::numeric_limits<double>::infinity();

// ---- Tensors ----

struct Entry {
    std::vector<int64_t> at;
    double value;
};

Tensor tensor_of(std::vector<int64_t> shape, const std::string& format, ValueType type, Scalar fill,
                 const std::vector<Entry>& list) {
    CoordinateList c;
    c.ndims = static_cast<int>(shape.size());
    for (const auto& e : list) c.add(e.at, Scalar::of(e.value).cast(type));
    return Tensor::from_coordinates(shape, type, fill.cast(type),
                                    Format::parse(format, static_cast<int>(shape.size())), c);
}

// A mask stored true at `on`, with an explicit false at `off` (a stored false masks nothing).
Tensor mask_of(int64_t n, const std::string& format, const std::vector<int64_t>& on,
               const std::vector<int64_t>& off = {}) {
    std::vector<Entry> list;
    for (int64_t i : on) list.push_back({{i}, 1});
    for (int64_t i : off) list.push_back({{i}, 0});
    return tensor_of({n}, format, ValueType::Bool, Scalar::of(false), list);
}

std::vector<double> values_of(const Tensor& t) {
    std::vector<double> out;
    for (const Scalar& s : t.to_dense()) out.push_back(s.as_double());
    return out;
}

// The user-defined semiring: (max, min) on uint32 capacities, the widest-path semiring. Every
// property holds on all of uint32 (0 is max's identity and min's annihilator there).
const char* kWide =
    "def wide_or(a: uint32, b: uint32) -> uint32 [commutative, associative, idempotent, "
    "identity(0)] {\n"
    "    if a > b { return a }\n"
    "    return b\n"
    "}\n"
    "def wide_and(a: uint32, b: uint32) -> uint32 [commutative, associative, idempotent, "
    "annihilator(0)] {\n"
    "    if a < b { return a }\n"
    "    return b\n"
    "}\n";

// The masked products of each semiring: `!m` and `m` substituted for MASK.
struct Semiring {
    const char* name;
    ValueType type;
    double fill;             // of A and x
    std::string mxv;         // with MASK
    std::string mxm;         // with MASK, over A and B
    std::optional<double> out_fill;
};

std::string with_mask(std::string text, const std::string& mask) {
    size_t at = text.find("MASK");
    return text.replace(at, 4, mask);
}

const std::vector<Semiring>& semirings() {
    static const std::vector<Semiring> all{
        {"or-and", ValueType::Bool, 0, "for i { if MASK[i] { y[i] |= A[i, j] && x[j] } }",
         "for i, k, j { if MASK[i, j] { C[i, j] |= A[i, k] && B[k, j] } }", std::nullopt},
        {"min-plus", ValueType::Float64, kInf,
         "for i { if MASK[i] { y[i] min= A[i, j] + x[j] } }",
         "for i, k, j { if MASK[i, j] { C[i, j] min= A[i, k] + B[k, j] } }", std::nullopt},
        {"max-times", ValueType::Float64, 0, "for i { if MASK[i] { y[i] max= A[i, j] * x[j] } }",
         "for i, k, j { if MASK[i, j] { C[i, j] max= A[i, k] * B[k, j] } }", 0.0},
        {"wide (user)", ValueType::UInt32, 0,
         "for i { if MASK[i] { y[i] <<wide_or>>= wide_and(A[i, j], x[j]) } }",
         "for i, k, j { if MASK[i, j] { C[i, j] <<wide_or>>= wide_and(A[i, k], B[k, j]) } }",
         std::nullopt},
    };
    return all;
}

// ---- Hand-checked cases ----

// A: 0->1 (2), 0->2 (5), 1->3 (1), 2->0 (3), 3->3 (4); x stored at 1 (10) and 3 (1); m true at
// 0, an explicit false at 2.
TEST(SemiringKernels, MaskedMxvByHand) {
    functions_test::define(kWide);
    const std::vector<Entry> a_entries{{{0, 1}, 2}, {{0, 2}, 5}, {{1, 3}, 1}, {{2, 0}, 3}, {{3, 3}, 4}};
    const std::vector<Entry> x_entries{{{1}, 10}, {{3}, 1}};
    Tensor m = mask_of(4, "sparselist(0)", {0}, {2});
    // Per semiring: y with !m, then with m. Rows: 0 meets x at 1; 1 at 3; 2 only at 0, where x
    // is the fill; 3 at 3.
    struct Want {
        std::vector<double> complemented, plain;
    };
    const std::vector<Want> wants{
        // or-and: row 0 true (masked by !m), rows 1 and 3 true, row 2 false.
        {{0, 1, 0, 1}, {1, 0, 0, 0}},
        // min-plus: row 0: 2 + 10 = 12; row 1: 1 + 1 = 2; row 2: 3 + inf; row 3: 4 + 1.
        {{kInf, 2, kInf, 5}, {12, kInf, kInf, kInf}},
        // max-times from 0: row 0: 2 * 10; row 1: 1 * 1; row 2: 3 * 0; row 3: 4 * 1.
        {{0, 1, 0, 4}, {20, 0, 0, 0}},
        // wide: row 0: min(2, 10); row 1: min(1, 1); row 2: min(3, 0); row 3: min(4, 1).
        {{0, 1, 0, 1}, {2, 0, 0, 0}},
    };
    for (size_t s = 0; s < semirings().size(); ++s) {
        const Semiring& sr = semirings()[s];
        Tensor a = tensor_of({4, 4}, "csr", sr.type, Scalar::of(sr.fill), a_entries);
        Tensor x = tensor_of({4}, "sparselist(0)", sr.type, Scalar::of(sr.fill), x_entries);
        std::map<std::string, OutputSpec> specs;
        if (sr.out_fill) specs["y"].fill = Scalar::of(*sr.out_fill);
        for (bool complemented : {true, false}) {
            std::string text = with_mask(sr.mxv, complemented ? "!m" : "m");
            auto y = compiled_matching_reference(text, {{"A", &a}, {"x", &x}, {"m", &m}}, specs).at("y");
            EXPECT_EQ(values_of(y), complemented ? wants[s].complemented : wants[s].plain)
                << sr.name << ": " << text;
        }
    }
}

// A = B: the 3-cycle 0->1 (1), 1->2 (2), 2->0 (3); A*A holds (0,2), (1,0), (2,1); M is true at
// (0,2).
TEST(SemiringKernels, MaskedMxmByHand) {
    functions_test::define(kWide);
    const std::vector<Entry> cycle{{{0, 1}, 1}, {{1, 2}, 2}, {{2, 0}, 3}};
    Tensor mm = tensor_of({3, 3}, "csr", ValueType::Bool, Scalar::of(false), {{{0, 2}, 1}});
    const double i = kInf;
    struct Want {
        std::vector<double> complemented, plain;
    };
    const std::vector<Want> wants{
        {{0, 0, 0, 1, 0, 0, 0, 1, 0}, {0, 0, 1, 0, 0, 0, 0, 0, 0}},
        // min-plus: (0,2) = 1 + 2, (1,0) = 2 + 3, (2,1) = 3 + 1.
        {{i, i, i, 5, i, i, i, 4, i}, {i, i, 3, i, i, i, i, i, i}},
        // max-times: 1 * 2, 2 * 3, 3 * 1.
        {{0, 0, 0, 6, 0, 0, 0, 3, 0}, {0, 0, 2, 0, 0, 0, 0, 0, 0}},
        // wide: min(1, 2), min(2, 3), min(3, 1).
        {{0, 0, 0, 2, 0, 0, 0, 1, 0}, {0, 0, 1, 0, 0, 0, 0, 0, 0}},
    };
    for (size_t s = 0; s < semirings().size(); ++s) {
        const Semiring& sr = semirings()[s];
        Tensor a = tensor_of({3, 3}, "csr", sr.type, Scalar::of(sr.fill), cycle);
        std::map<std::string, OutputSpec> specs;
        if (sr.out_fill) specs["C"].fill = Scalar::of(*sr.out_fill);
        for (bool complemented : {true, false}) {
            std::string text = with_mask(sr.mxm, complemented ? "!M" : "M");
            auto c = compiled_matching_reference(text, {{"A", &a}, {"B", &a}, {"M", &mm}}, specs).at("C");
            EXPECT_EQ(values_of(c), complemented ? wants[s].complemented : wants[s].plain)
                << sr.name << ": " << text;
        }
    }
}

// ---- Against the reference, across formats ----

std::vector<Entry> random_entries(std::vector<int64_t> shape, double density, uint64_t seed,
                                  bool nonnegative) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    std::vector<Entry> out;
    int64_t cols = shape.size() == 2 ? shape[1] : 1;
    for (int64_t i = 0; i < shape[0]; ++i)
        for (int64_t j = 0; j < cols; ++j)
            if (u(rng) < density) {
                double v = static_cast<double>(static_cast<int>(u(rng) * 9) + 1);
                if (!nonnegative && u(rng) < 0.3) v = -v;
                out.push_back({shape.size() == 2 ? std::vector<int64_t>{i, j}
                                                 : std::vector<int64_t>{i},
                               v});
            }
    return out;
}

TEST(SemiringKernels, MaskedProductsAgreeWithTheReferenceAcrossFormats) {
    functions_test::define(kWide);
    const int64_t n = 9;
    int checked_count = 0;
    for (size_t s = 0; s < semirings().size(); ++s) {
        const Semiring& sr = semirings()[s];
        bool nonnegative = sr.type == ValueType::UInt32 || sr.out_fill.has_value();
        auto a_entries = random_entries({n, n}, 0.3, 11 + s, nonnegative);
        auto b_entries = random_entries({n, n}, 0.3, 23 + s, nonnegative);
        auto x_entries = random_entries({n}, 0.5, 37 + s, nonnegative);
        std::vector<Entry> m_entries = random_entries({n}, 0.4, 41, true);
        std::vector<Entry> mm_entries = random_entries({n, n}, 0.4, 43, true);
        for (const char* fa : {"dense", "csr", "dcsr"})
            for (const char* fx : {"dense", "sparselist(0)", "bytemap(0)"})
                for (const char* fm : {"dense", "sparselist(0)"}) {
                    Tensor a = tensor_of({n, n}, fa, sr.type, Scalar::of(sr.fill), a_entries);
                    Tensor b = tensor_of({n, n}, fa, sr.type, Scalar::of(sr.fill), b_entries);
                    Tensor x = tensor_of({n}, fx, sr.type, Scalar::of(sr.fill), x_entries);
                    Tensor m = tensor_of({n}, fm, ValueType::Bool, Scalar::of(false), m_entries);
                    Tensor mm = tensor_of({n, n}, std::string(fm) == "dense" ? "dense" : "csr",
                                          ValueType::Bool, Scalar::of(false), mm_entries);
                    for (const char* mask : {"!", ""}) {
                        std::map<std::string, OutputSpec> specs;
                        if (sr.out_fill) specs["y"].fill = specs["C"].fill = Scalar::of(*sr.out_fill);
                        // A sparse vector output, appended in row order.
                        specs["y"].format = Format::parse("sparselist(0)", 1);
                        compiled_matching_reference(with_mask(sr.mxv, std::string(mask) + "m"),
                                {{"A", &a}, {"x", &x}, {"m", &m}}, {{"y", specs["y"]}});
                        compiled_matching_reference(with_mask(sr.mxm, std::string(mask) + "M"),
                                {{"A", &a}, {"B", &b}, {"M", &mm}}, {{"C", specs["C"]}});
                        checked_count += 2;
                    }
                }
    }
    EXPECT_EQ(checked_count, 4 * 3 * 3 * 2 * 2 * 2);
}

// ---- Work counts ----

struct Work {
    Tensor out;
    int64_t work;
};

Work counted(const std::string& text, const std::map<std::string, const Tensor*>& in,
             const std::map<std::string, OutputSpec>& specs = {}) {
    ir::Program p = ir::parse_program(text);
    CompileOptions options = test_options();
    options.count_work = true;
    CompiledProgram compiled = compile_for(p, in, specs, options);
    auto got = compiled.run(in);
    auto want = evaluate_reference(p, in, specs);
    for (const auto& [name, t] : want) EXPECT_TRUE(same_output(t, got.at(name))) << text;
    return {got.begin()->second, compiled.kernel->last_work()};
}

// Rows of a sparse matrix: the number of stored entries in each.
std::vector<int64_t> row_counts(const std::vector<Entry>& entries, int64_t n) {
    std::vector<int64_t> out(static_cast<size_t>(n), 0);
    for (const auto& e : entries) ++out[static_cast<size_t>(e.at[0])];
    return out;
}

TEST(SemiringKernels, MasksSkipWorkOverASparseMask) {
    const int64_t n = 1000;
    auto a_entries = random_entries({n, n}, 4.0 / n, 5, true);
    std::vector<Entry> x_entries;
    // x holds false everywhere, so no row's `|=` reaches true and stops early (early exit):
    // a row's work is exactly its stored entries.
    for (int64_t j = 0; j < n; ++j) x_entries.push_back({{j}, 0.0});
    Tensor a = tensor_of({n, n}, "csr", ValueType::Bool, Scalar::of(false), a_entries);
    Tensor x = tensor_of({n}, "dense", ValueType::Bool, Scalar::of(false), x_entries);
    std::vector<int64_t> on;
    for (int64_t i = 7; i < n; i += 100) on.push_back(i); // 10 rows
    Tensor m = mask_of(n, "sparselist(0)", on);
    Tensor none = mask_of(n, "sparselist(0)", {});
    auto rows = row_counts(a_entries, n);
    int64_t masked_nnz = 0;
    for (int64_t i : on) masked_nnz += rows[static_cast<size_t>(i)];

    // A sparse output: a dense one would count its initialisation, n iterations.
    std::map<std::string, OutputSpec> sparse_y;
    sparse_y["y"].format = Format::parse("sparselist(0)", 1);
    // Plain mask: only m's 10 stored rows, and only their entries.
    Work plain = counted("for i { if m[i] { y[i] |= A[i, j] && x[j] } }",
                         {{"A", &a}, {"x", &x}, {"m", &m}}, sparse_y);
    EXPECT_LE(plain.work, 10 + masked_nnz + 4) << "a plain mask visits more than m's rows";

    // Complemented mask: every row, but not the product of the rows m holds.
    const std::string comp = "for i { if !m[i] { y[i] |= A[i, j] && x[j] } }";
    Work masked = counted(comp, {{"A", &a}, {"x", &x}, {"m", &m}}, sparse_y);
    Work unmasked = counted(comp, {{"A", &a}, {"x", &x}, {"m", &none}}, sparse_y);
    EXPECT_GE(masked.work, n);
    EXPECT_LE(unmasked.work, n + static_cast<int64_t>(a_entries.size()) + 4);
    EXPECT_EQ(unmasked.work - masked.work, masked_nnz)
        << "the rows under the mask are still multiplied";
}

// (min, +) with fill +inf: the infinite fills fold away (inf + w is inf for a finite stored w),
// so no row loops over every column. x must hold finite values where it is stored: a dense x
// with fill inf stores inf and is read as such (correct, but every column is visited).
TEST(SemiringKernels, MinPlusSkipsTheInfiniteFills) {
    const int64_t n = 1000;
    auto a_entries = random_entries({n, n}, 4.0 / n, 9, false);
    std::vector<Entry> x_entries;
    for (int64_t j = 0; j < n; j += 50) x_entries.push_back({{j}, static_cast<double>(j % 7)});
    const int64_t nnz = static_cast<int64_t>(a_entries.size());
    const int64_t nx = static_cast<int64_t>(x_entries.size());
    Tensor a = tensor_of({n, n}, "csr", ValueType::Float64, Scalar::of(kInf), a_entries);
    Tensor m = mask_of(n, "sparselist(0)", {1, 2, 3});
    const std::string text = "for i { if !m[i] { y[i] min= A[i, j] + x[j] } }";
    std::map<std::string, OutputSpec> sparse_y;
    sparse_y["y"].format = Format::parse("sparselist(0)", 1);
    // x (a bytemap or a sparse list) is merged with each row, which meets only stored entries.
    for (const char* fx : {"bytemap(0)", "sparselist(0)"}) {
        Tensor x = tensor_of({n}, fx, ValueType::Float64, Scalar::of(kInf), x_entries);
        EXPECT_LE(counted(text, {{"A", &a}, {"x", &x}, {"m", &m}}, sparse_y).work,
                  n + nnz + n * nx + 4)
            << fx;
    }
    EXPECT_LT(n + nnz + n * nx + 4, n * n / 10); // far from visiting every column
}

// (max, *) into an output of fill 0 and the user-defined (wide_or, wide_and): A's zeros give
// 0, which max= from fill 0 (an idempotent reduction of its own fill) and wide_or= (its identity)
// skip, so each row visits only its stored entries.
TEST(SemiringKernels, MaxTimesAndTheUserSemiringSkipZeros) {
    functions_test::define(kWide);
    const int64_t n = 1000;
    auto a_entries = random_entries({n, n}, 4.0 / n, 13, true);
    const int64_t nnz = static_cast<int64_t>(a_entries.size());
    std::vector<Entry> x_entries;
    for (int64_t j = 0; j < n; ++j) x_entries.push_back({{j}, static_cast<double>(j % 5 + 1)});
    std::map<std::string, OutputSpec> out;
    out["y"].format = Format::parse("sparselist(0)", 1);
    out["y"].fill = Scalar::of(0.0);
    Tensor a = tensor_of({n, n}, "csr", ValueType::Float64, Scalar::of(0.0), a_entries);
    Tensor x = tensor_of({n}, "dense", ValueType::Float64, Scalar::of(0.0), x_entries);
    EXPECT_LE(counted("y[i] max= A[i, j] * x[j]", {{"A", &a}, {"x", &x}}, out).work, n + nnz + 4);

    Tensor au = tensor_of({n, n}, "csr", ValueType::UInt32, Scalar::of(0.0), a_entries);
    Tensor xu = tensor_of({n}, "dense", ValueType::UInt32, Scalar::of(0.0), x_entries);
    out["y"].fill.reset();
    Work wide = counted("y[i] <<wide_or>>= wide_and(A[i, j], x[j])", {{"A", &au}, {"x", &xu}}, out);
    EXPECT_LE(wide.work, n + nnz + 4);
    EXPECT_TRUE(wide.out.fill().same(Scalar::of(uint32_t{0})));
}

} // namespace
} // namespace siskin::testing
