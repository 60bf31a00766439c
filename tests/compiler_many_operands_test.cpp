// Unions of many sparse operands (issue 16, item 6): beyond a few operands the stepper lowering
// becomes a k-way merge (src/compiler/lower_merge.cpp) whose C grows linearly in their number.
// Every union of 2..12 operands, over each sparse vector format, under + (fill 0), * (fill 1)
// and min (fill inf), with dense and sparse outputs, agrees with the reference evaluator on
// seeded random inputs; and the generated C grows at most linearly.
#include <algorithm>
#include <limits>
#include <random>
#include <sstream>

#include <fmt/format.h>

#include "compiler_test_util.hpp"

namespace siskin::testing {
namespace {

constexpr int64_t kLength = 37;

struct Union {
    std::string op; // "+", "*" or "min"
    double fill;
};

const std::vector<Union>& unions() {
    static const std::vector<Union> u{
        {"+", 0.0}, {"*", 1.0}, {"min", std::numeric_limits<double>::infinity()}};
    return u;
}

/// `o[i] = x0[i] op x1[i] op ...` over the given operand names.
std::string union_of(const std::vector<std::string>& xs, const std::string& op) {
    std::string e = xs.front() + "[i]";
    for (size_t k = 1; k < xs.size(); ++k)
        e = op == "min" || op == "max" ? op + "(" + e + ", " + xs[k] + "[i])" : e + " " + op + " " + xs[k] + "[i]";
    return "o[i] = " + e;
}

std::vector<std::string> names(int n, const std::string& prefix = "x") {
    std::vector<std::string> out;
    for (int k = 0; k < n; ++k) out.push_back(prefix + std::to_string(k));
    return out;
}

/// A random vector: small integer values (exact sums in any order), ~20 % stored, in runs now
/// and then (so runlists hold runs of several elements); seeded by `seed`; values and fill cast to
/// `type`.
Tensor random_vector(const std::string& format, double fill, uint64_t seed, int64_t length = kLength,
                     ValueType type = ValueType::Float64) {
    std::mt19937_64 rng(seed);
    CoordinateList list;
    list.ndims = 1;
    double value = 1;
    for (int64_t i = 0; i < length; ++i) {
        uint64_t r = rng() % 10;
        if (r >= 2) continue;
        if (r == 0) value = static_cast<double>(static_cast<int64_t>(rng() % 7) - 3);
        if (value == fill) value = 5;
        list.add(std::vector<int64_t>{i}, Scalar::of(value).cast(type));
    }
    return Tensor::from_coordinates({length}, type, Scalar::of(fill).cast(type), Format::parse(format, 1), list);
}

struct Inputs {
    std::vector<Tensor> tensors;
    std::map<std::string, const Tensor*> by_name;
    Inputs(const std::vector<std::string>& xs, const std::function<std::string(size_t)>& format,
           double fill, uint64_t seed) {
        tensors.reserve(xs.size());
        for (size_t k = 0; k < xs.size(); ++k) tensors.push_back(random_vector(format(k), fill, seed * 100 + k));
        for (size_t k = 0; k < xs.size(); ++k) by_name.emplace(xs[k], &tensors[k]);
    }
};

const std::vector<std::string>& sparse_formats() {
    static const std::vector<std::string> f{"sparselist(0)", "coo", "band(0)", "rle(0)", "bytemap(0)"};
    return f;
}

size_t lines_of(const std::string& c) {
    size_t n = 0;
    for (char ch : c) n += ch == '\n';
    return n;
}

/// Lines of the C of the union of n operands, all in `format`.
size_t union_lines(int n, const std::string& format, const Union& u) {
    auto xs = names(n);
    Inputs in(xs, [&](size_t) { return format; }, u.fill, 1);
    std::map<std::string, TensorSignature> sigs;
    for (const auto& [name, t] : in.by_name) sigs.emplace(name, TensorSignature::of(*t));
    CoordinateList none;
    none.ndims = 1;
    Tensor o = Tensor::from_coordinates({kLength}, ValueType::Float64, Scalar::of(u.fill), Format::parse("dense", 1),
                                        none);
    sigs.emplace("o", TensorSignature::of(o));
    return lines_of(generate_c(ir::parse_program(union_of(xs, u.op)), sigs));
}

TEST(CompilerManyOperands, UnionsOfOneFormatMatchTheReference) {
    for (const auto& format : sparse_formats()) {
        for (const auto& u : unions()) {
            for (int n : {2, 3, 4, 5, 8, 12}) { // around the threshold, and well beyond it
                SCOPED_TRACE(format + " " + u.op + " n=" + std::to_string(n));
                auto xs = names(n);
                Inputs in(xs, [&](size_t) { return format; }, u.fill, static_cast<uint64_t>(n));
                auto got = compiled_matching_reference(union_of(xs, u.op), in.by_name);
                // Not every element is the fill: the test compares real values.
                EXPECT_GT(got.at("o").to_string().size(), 0u);
            }
        }
    }
}

// The merge reads an operand's value at a step's end from a two-entry local of its value type
// (siskin_choice_<type>, fill and entry): every type has one.
TEST(CompilerManyOperands, UnionsOfEveryValueTypeMatchTheReference) {
    struct Case {
        ValueType type;
        std::string op;
        double fill;
    };
    const std::vector<Case> cases{{ValueType::Int64, "+", 0},   {ValueType::Int32, "min", 9},
                                  {ValueType::UInt8, "max", 0}, {ValueType::Float32, "+", 0},
                                  {ValueType::Bool, "+", 0},    {ValueType::Int16, "*", 1}};
    auto xs = names(5);
    for (const auto& c : cases) {
        SCOPED_TRACE(std::string(type_name(c.type)) + " " + c.op);
        std::vector<Tensor> tensors;
        std::map<std::string, const Tensor*> by_name;
        for (size_t k = 0; k < xs.size(); ++k)
            tensors.push_back(random_vector(k % 2 ? "sparselist(0)" : "coo", c.fill, 40 + k, kLength, c.type));
        std::map<std::string, TensorSignature> sigs;
        for (size_t k = 0; k < xs.size(); ++k) {
            by_name.emplace(xs[k], &tensors[k]);
            sigs.emplace(xs[k], TensorSignature::of(tensors[k]));
        }
        compiled_matching_reference(union_of(xs, c.op), by_name, {{"o", with_format("sparselist(0)", 1)}});
        Tensor o = random_vector("dense", c.fill, 1, kLength, c.type);
        sigs.emplace("o", TensorSignature::of(o));
        std::string code = generate_c(ir::parse_program(union_of(xs, c.op)), sigs);
        EXPECT_NE(code.find("siskin_choice_" + std::string(c_type_name(c.type))), std::string::npos);
    }
}

TEST(CompilerManyOperands, UnionsOfMixedFormatsIntoSparseOutputsMatchTheReference) {
    std::vector<std::string> formats = sparse_formats();
    formats.push_back("dense");
    const std::vector<std::string> outs{"dense", "sparselist(0)", "rle(0)", "bytemap(0)", "band(0)"};
    for (size_t which = 0; which < unions().size(); ++which) {
        const Union& u = unions()[which];
        for (int n : {4, 5, 8, 12}) {
            const std::string& out = outs[(static_cast<size_t>(n) + which) % outs.size()];
            SCOPED_TRACE(u.op + " n=" + std::to_string(n) + " out=" + out);
            auto xs = names(n);
            Inputs in(xs, [&](size_t k) { return formats[(k + static_cast<size_t>(n)) % formats.size()]; },
                      u.fill, static_cast<uint64_t>(7 * n));
            compiled_matching_reference(union_of(xs, u.op), in.by_name, {{"o", with_format(out, 1)}});
        }
    }
}

TEST(CompilerManyOperands, ExpressionsAroundUnionsMatchTheReference) {
    auto xs = names(6), ys = names(6, "y");
    Inputs x(xs, [](size_t k) { return k % 2 ? "sparselist(0)" : "coo"; }, 0.0, 3);
    Inputs y(ys, [](size_t k) { return k % 3 ? "sparselist(0)" : "rle(0)"; }, 0.0, 4);
    Tensor d = random_vector("dense", 0.0, 5);
    std::map<std::string, const Tensor*> all = x.by_name;
    all.insert(y.by_name.begin(), y.by_name.end());
    all.emplace("d", &d);
    std::string sx = union_of(xs, "+").substr(7), sy = union_of(ys, "+").substr(7);
    // A product of sums (a union of unions, intersected), a sum with a dense operand, a scaled
    // union, a reduction of a union.
    compiled_matching_reference("o[i] = (" + sx + ") * (" + sy + ")", all);
    compiled_matching_reference("o[i] = (" + sx + ") * (" + sy + ")", all, {{"o", with_format("sparselist(0)", 1)}});
    compiled_matching_reference("o[i] = d[i] + " + sx, all);
    compiled_matching_reference("o[i] = d[i] * (" + sx + ")", all, {{"o", with_format("sparselist(0)", 1)}});
    compiled_matching_reference("o[i] = 2 * (" + sx + ") + 1", all);
    compiled_matching_reference("s[] += " + sx + " + " + sy, all);
    compiled_matching_reference("s[] max= " + sx, all);
}

// Slices wrap the operands' looplets: windows shift them, strides make chunks that may be
// empty (an entry off the stride), so a step of the merge may be empty too.
TEST(CompilerManyOperands, UnionsOfSlicesMatchTheReference) {
    auto xs = names(6);
    for (const std::string format : {"sparselist(0)", "coo"}) {
        SCOPED_TRACE(format);
        std::vector<Tensor> t;
        std::map<std::string, const Tensor*> in;
        for (size_t k = 0; k < xs.size(); ++k) t.push_back(random_vector(format, 0.0, 90 + k, 60));
        for (size_t k = 0; k < xs.size(); ++k) in.emplace(xs[k], &t[k]);
        compiled_matching_reference("o[i] = x0[i(0:60:2)] + x1[i(1:60:2)] + x2[i(0:60:2)] + x3[i(1:60:2)]", in);
        compiled_matching_reference(
            "o[i] = x0[i(0:30)] + x1[i(10:40)] + x2[i(5:35)] + x3[i(30:60)] + x4[i(0:60:2)] + x5[i(1:60:2)]", in);
        compiled_matching_reference("o[i] = x0[i(0:60:3)] + x1[i(1:60:3)] + x2[i(2:60:3)] + x3[i(0:20)] + x4[i(2:60:3)]",
                                    in, {{"o", with_format("sparselist(0)", 1)}});
    }
}

/// A vector of `length` in `format` holding entries at `at` (values 1..7 by seed, never the fill).
Tensor vector_at(const std::string& format, double fill, uint64_t seed, int64_t length,
                 const std::vector<int64_t>& at) {
    std::mt19937_64 rng(seed);
    CoordinateList list;
    list.ndims = 1;
    for (int64_t i : at) {
        double v = static_cast<double>(rng() % 7 + 1);
        list.add(std::vector<int64_t>{i}, Scalar::of(v == fill ? 9 : v));
    }
    return Tensor::from_coordinates({length}, ValueType::Float64, Scalar::of(fill), Format::parse(format, 1), list);
}

// At the outermost loop, a union of sorted lists whose body does nothing at the fills runs in
// windows (lower_merge.cpp, window_merge: 640 coordinates for 12 operands, 2048 for 4). Operands
// span several windows, with entries on the windows' first and last coordinates (relative to a
// window's start: the first entry after a gap), a gap longer than a window, the extent's last
// coordinate, and coordinates several operands share.
TEST(CompilerManyOperands, WindowedUnionsMatchTheReference) {
    constexpr int64_t length = 6000;
    for (int n : {4, 12}) {
        const int64_t width = 8192 / n / 64 * 64;
        for (const auto& u : unions()) {
            auto xs = names(n);
            std::vector<Tensor> t;
            std::map<std::string, const Tensor*> in;
            for (int k = 0; k < n; ++k) {
                std::mt19937_64 rng(static_cast<uint64_t>(100 * n + k));
                std::vector<int64_t> at{0, width - 1, width, 2 * width + 3, length - 1};
                for (int64_t i = 0; i < length; ++i)
                    if (rng() % 40 == 0 && (i < 1500 || i >= 1500 + 2 * width)) at.push_back(i); // the gap
                std::sort(at.begin(), at.end());
                at.erase(std::unique(at.begin(), at.end()), at.end());
                t.push_back(vector_at(k % 2 ? "coo" : "sparselist(0)", u.fill, static_cast<uint64_t>(k), length, at));
            }
            for (int k = 0; k < n; ++k) in.emplace(xs[static_cast<size_t>(k)], &t[static_cast<size_t>(k)]);
            for (const std::string out : {"dense", "sparselist(0)"}) {
                SCOPED_TRACE(u.op + " n=" + std::to_string(n) + " out=" + out);
                compiled_matching_reference(union_of(xs, u.op), in, {{"o", with_format(out, 1)}});
                std::map<std::string, TensorSignature> sigs;
                for (const auto& [name, x] : in) sigs.emplace(name, TensorSignature::of(*x));
                Tensor o = vector_at(out, u.fill, 0, length, {});
                sigs.emplace("o", TensorSignature::of(o));
                EXPECT_NE(generate_c(ir::parse_program(union_of(xs, u.op)), sigs).find("siskin_window_double"),
                          std::string::npos);
            }
        }
    }
}

// Where the body does something at the fills (`2 * (...) + 1` into a dense output writes 1
// there), or the union is not the outermost loop (rows of csr matrices), the step loop stays.
TEST(CompilerManyOperands, WindowsOnlyWhereTheFillsDoNothing) {
    auto xs = names(6);
    Inputs in(xs, [](size_t k) { return k % 2 ? "sparselist(0)" : "coo"; }, 0.0, 11);
    std::map<std::string, TensorSignature> sigs;
    for (const auto& [name, x] : in.by_name) sigs.emplace(name, TensorSignature::of(*x));
    Tensor o = random_vector("dense", 0.0, 1);
    sigs.emplace("o", TensorSignature::of(o));
    std::string sum = union_of(xs, "+").substr(7);
    EXPECT_NE(generate_c(ir::parse_program("o[i] = " + sum), sigs).find("siskin_window_"), std::string::npos);
    EXPECT_EQ(generate_c(ir::parse_program("o[i] = 2 * (" + sum + ") + 1"), sigs).find("siskin_window_"),
              std::string::npos);
    compiled_matching_reference("o[i] = 2 * (" + sum + ") + 1", in.by_name);

    std::vector<Tensor> a;
    std::map<std::string, TensorSignature> msigs;
    auto as = names(6, "A");
    std::string msum;
    for (size_t k = 0; k < as.size(); ++k) {
        a.push_back(random_matrix_of(5, 9, 0.3, "csr", 70 + k, 0.0, [](double u) { return std::floor(8 * u) + 1; }));
        msigs.emplace(as[k], TensorSignature::of(a.back()));
        msum += (msum.empty() ? "" : " + ") + as[k] + "[i,j]";
    }
    Tensor c = random_matrix_of(5, 9, 0.3, "dense", 1, 0.0, [](double u) { return u; });
    msigs.emplace("C", TensorSignature::of(c));
    EXPECT_EQ(generate_c(ir::parse_program("C[i,j] = " + msum), msigs).find("siskin_window_"), std::string::npos);
}

TEST(CompilerManyOperands, UnionsOfMatricesMatchTheReference) {
    // Rows of dense, sparse and coo levels: where the rows' level is sparse too, the merge runs
    // on both, the inner one over the rows present at the outer step (guarded fibres).
    for (const std::string format : {"csr", "dcsr", "coo", "dense(0)/rle(1)", "dense(0)/band(1)",
                                     "sparselist(0)/dense(1)", "sparselist(0)/rle(1)", "sparselist(0)/band(1)",
                                     "sparselist(0)/bytemap(1)"}) {
        SCOPED_TRACE(format);
        std::vector<Tensor> a;
        std::map<std::string, const Tensor*> in;
        auto xs = names(6, "A");
        for (size_t k = 0; k < xs.size(); ++k)
            a.push_back(random_matrix_of(9, 23, k % 2 ? 0.1 : 0.25, format, 40 + k, 0.0,
                                         [](double u) { return std::floor(8 * u) - 3; }));
        for (size_t k = 0; k < xs.size(); ++k) in.emplace(xs[k], &a[k]);
        std::string sum = xs.front() + "[i,j]";
        for (size_t k = 1; k < xs.size(); ++k) sum += " + " + xs[k] + "[i,j]";
        compiled_matching_reference("C[i,j] = " + sum, in);
        compiled_matching_reference("C[i,j] = " + sum, in, {{"C", with_format(format == "coo" ? "coo" : "dcsr", 2)}});
    }
}

TEST(CompilerManyOperands, UnionsOfMixedMatrixFormatsMatchTheReference) {
    const std::vector<std::string> formats{"dcsr", "csr", "coo", "dense", "sparselist(0)/rle(1)"};
    std::vector<Tensor> a;
    std::map<std::string, const Tensor*> in;
    auto xs = names(10, "A");
    for (size_t k = 0; k < xs.size(); ++k)
        a.push_back(random_matrix_of(7, 19, 0.12, formats[k % formats.size()], 60 + k, 0.0,
                                     [](double u) { return std::floor(8 * u) - 3; }));
    for (size_t k = 0; k < xs.size(); ++k) in.emplace(xs[k], &a[k]);
    std::string sum = xs.front() + "[i,j]";
    for (size_t k = 1; k < xs.size(); ++k) sum += " + " + xs[k] + "[i,j]";
    compiled_matching_reference("C[i,j] = " + sum, in, {{"C", with_format("csr", 2)}});
    compiled_matching_reference("y[i] += (" + sum + ") * 2", in);
}

TEST(CompilerManyOperands, UnionsOfThreeDimensionalTensorsMatchTheReference) {
    std::vector<Tensor> t;
    std::map<std::string, const Tensor*> in;
    auto xs = names(5, "T");
    for (size_t k = 0; k < xs.size(); ++k)
        t.push_back(random_tensor_of({4, 5, 6}, k % 2 ? "coo" : "sparselist(0)/sparselist(1)/sparselist(2)", 0.1,
                                     Scalar::of(0.0), 80 + k, [](std::mt19937_64& rng) {
                                         return Scalar::of(static_cast<double>(rng() % 5) + 1);
                                     }));
    for (size_t k = 0; k < xs.size(); ++k) in.emplace(xs[k], &t[k]);
    std::string sum = xs.front() + "[i,j,k]";
    for (size_t k = 1; k < xs.size(); ++k) sum += " + " + xs[k] + "[i,j,k]";
    compiled_matching_reference("O[i,j,k] = " + sum, in);
}

// The nine-point stencil as nine shifted windows of one sparse matrix (issue 16: it did not
// finish compiling); both loops merge over nine operands.
TEST(CompilerManyOperands, NineShiftedWindowsMatchTheReference) {
    std::string sum;
    for (int di = 0; di < 3; ++di)
        for (int dj = 0; dj < 3; ++dj)
            sum += (sum.empty() ? "" : " + ") + fmt::format("I[i({}:{}), j({}:{})]", di, di + 10, dj, dj + 11);
    for (const std::string format : {"csr", "dcsr", "coo"}) {
        SCOPED_TRACE(format);
        Tensor image = random_matrix_of(12, 13, 0.2, format, 5, 0.0, [](double u) { return std::floor(8 * u) + 1; });
        compiled_matching_reference("O[i,j] = " + sum, {{"I", &image}});
        compiled_matching_reference("O[i,j] = " + sum, {{"I", &image}}, {{"O", with_format(format, 2)}});
    }
}

/// `O[x,y] = I[x+0,y+0] + I[x+0,y+1] + ...`: the first k reads of a side x side box stencil, each
/// a shifted read of `tensor` written with affine subscripts (row by row of the box).
std::string shifted_reads(int k, int side, const std::string& tensor = "I") {
    std::string sum;
    for (int n = 0; n < k; ++n)
        sum += (sum.empty() ? "" : " + ") + fmt::format("{}[x+{},y+{}]", tensor, n / side, n % side);
    return "O[x,y] = " + sum;
}

// The 3x3 and 5x5 box stencils as 9 and 25 shifted reads of one sparse matrix (issue 16: they
// did not finish lowering on dcsr and coo, the rows' merge giving up on the shifted fibres). Both
// loops merge; fills 0 and 2.
TEST(CompilerManyOperands, ShiftedStencilsMatchTheReference) {
    for (const std::string format : {"csr", "dcsr", "coo", "sparselist(0)/sparselist(1)"}) {
        for (double fill : {0.0, 2.0}) {
            Tensor image = random_matrix_of(12, 13, 0.2, format, 11, fill,
                                            [](double u) { return std::floor(8 * u) + 3; });
            for (int side : {3, 5}) {
                if (format.starts_with("sparselist") && (side == 5 || fill == 0.0)) continue; // as dcsr
                SCOPED_TRACE(format + " fill " + std::to_string(fill) + " side " + std::to_string(side));
                compiled_matching_reference(shifted_reads(side * side, side), {{"I", &image}});
            }
            // Three reads: the fewest for which rows merge (kRowsMergeAbove).
            if (fill != 0.0 && format != "csr") compiled_matching_reference(shifted_reads(3, 2), {{"I", &image}});
        }
    }
    Tensor image = random_matrix_of(12, 13, 0.2, "dcsr", 12, 0.0, [](double u) { return std::floor(8 * u) + 1; });
    compiled_matching_reference(shifted_reads(9, 3), {{"I", &image}}, {{"O", with_format("dcsr", 2)}});
}

// "Same"-size stencils: permissive shifted reads (`coalesce(I[~(x-1),~(y+1)], 0)`) pad outside
// the image; their padded windows (pad, the shifted row, pad) merge like the other operands.
TEST(CompilerManyOperands, PaddedStencilsMatchTheReference) {
    std::string sum = "I[x,y]";
    for (int dx = -1; dx <= 1; ++dx)
        for (int dy = -1; dy <= 1; ++dy)
            if (dx || dy) sum += fmt::format(" + coalesce(I[~(x+{}),~(y+{})], 0)", dx, dy);
    for (const std::string format : {"csr", "dcsr", "coo"}) {
        SCOPED_TRACE(format);
        // Entries in the first and last rows and columns, whose shifted copies leave the image.
        Tensor image = make({6, 7}, format, {{{0, 0}, 1}, {{0, 6}, 2}, {{2, 3}, 3}, {{3, 6}, 4}, {{5, 0}, 5}, {{5, 6}, 6}});
        compiled_matching_reference("O[x,y] = " + sum, {{"I", &image}});
    }
    // A window that ends inside the chunk of an entry: d's last entry, shifted one on, lies past
    // the loop's end, so at the end the step stops short of it and d reads its fill there.
    Tensor a = make({8}, "sparselist(0)", {{{2}, 1}, {{7}, 2}});
    Tensor d = make({8}, "sparselist(0)", {{{3}, 4}, {{7}, 8}});
    compiled_matching_reference("o[i] = a[i] + a[i] + a[i] + coalesce(d[~(i-1)], 0)", {{"a", &a}, {"d", &d}});
}

// Shifted reads of matrices in different formats (a dense one among them), under + and under
// min with fill inf.
TEST(CompilerManyOperands, ShiftedReadsOfMixedFormatsMatchTheReference) {
    const std::vector<std::string> formats{"dcsr", "coo", "csr", "sparselist(0)/sparselist(1)", "dense"};
    const std::string plus = "O[x,y] = A[x+0,y+0] + B[x+0,y+1] + C[x+1,y+0] + D[x+1,y+2] + E[x+2,y+1] + "
                             "A[x+2,y+2] + B[x+1,y+1] + D[x+0,y+2]";
    const std::string least = "O[x,y] = min(min(min(A[x+0,y+0], B[x+0,y+1]), min(C[x+1,y+0], D[x+1,y+2])), "
                              "min(A[x+2,y+2], B[x+1,y+1]))";
    for (double fill : {0.0, std::numeric_limits<double>::infinity()}) {
        std::vector<Tensor> t;
        std::map<std::string, const Tensor*> in;
        for (size_t k = 0; k < formats.size(); ++k)
            t.push_back(random_matrix_of(10, 11, 0.2, formats[k], 30 + k, fill,
                                         [](double u) { return std::floor(8 * u) - 3; }));
        for (size_t k = 0; k < formats.size(); ++k) in.emplace(std::string(1, static_cast<char>('A' + k)), &t[k]);
        if (fill == 0.0) {
            compiled_matching_reference(plus, in);
            compiled_matching_reference(plus, in, {{"O", with_format("dcsr", 2)}});
        } else {
            compiled_matching_reference(least, in);
        }
    }
}

// The C of k shifted reads grows linearly in k on every format whose rows merge: per read, the
// lines the 8 reads from 8 to 16 add are at most 1.5 times those the 4 from 4 to 8 add (the
// per-case lowering grew about 4x per read: 3,458 lines for 4 reads on dcsr, 50,967 for 6).
TEST(CompilerManyOperands, GeneratedCodeOfShiftedReadsGrowsLinearly) {
    for (const std::string format : {"csr", "dcsr", "coo", "sparselist(0)/sparselist(1)"}) {
        Tensor image = random_matrix_of(6, 6, 0.2, format, 1, 0.0, [](double u) { return u; });
        Tensor out = random_matrix_of(6, 6, 0.2, "dense", 1, 0.0, [](double u) { return u; });
        std::map<std::string, TensorSignature> sigs{{"I", TensorSignature::of(image)}, {"O", TensorSignature::of(out)}};
        auto lines = [&](int k) { return lines_of(generate_c(ir::parse_program(shifted_reads(k, 4)), sigs)); };
        size_t four = lines(4), eight = lines(8), sixteen = lines(16);
        EXPECT_LE(sixteen - eight, 3 * (eight - four))
            << format << ": " << four << ", " << eight << " and " << sixteen << " lines for 4, 8 and 16 reads";
        EXPECT_LT(sixteen, 1000u) << format;
        // Where the rows merge too, three reads merge already (per-case code nested at both
        // levels: 775 lines on dcsr).
        if (format != "csr") EXPECT_LT(lines(3), four) << format;
    }
}

// Code size: the C of a union grows at most linearly in the number of operands (the
// specialised lowering's grew 3^n: 575 lines for 4 sorted lists, 38,155 for 8).
TEST(CompilerManyOperands, GeneratedCodeGrowsLinearly) {
    for (const auto& format : sparse_formats()) {
        for (const auto& u : unions()) {
            size_t six = union_lines(6, format, u), twelve = union_lines(12, format, u);
            EXPECT_LT(twelve, 3 * six) << format << " " << u.op << ": " << six << " lines for 6 operands, "
                                       << twelve << " for 12";
            EXPECT_LT(twelve, 1000u) << format << " " << u.op;
        }
    }
}

// The same for matrices whose rows' level is sparse too (both levels merge).
TEST(CompilerManyOperands, GeneratedCodeOfMatrixUnionsGrowsLinearly) {
    for (const std::string format : {"dcsr", "coo", "sparselist(0)/rle(1)"}) {
        auto lines = [&](int n) {
            std::map<std::string, TensorSignature> sigs;
            std::string sum;
            Tensor a = random_matrix_of(5, 5, 0.2, format, 1, 0.0, [](double u) { return u; });
            for (const auto& x : names(n, "A")) {
                sigs.emplace(x, TensorSignature::of(a));
                sum += (sum.empty() ? "" : " + ") + x + "[i,j]";
            }
            sigs.emplace("C", TensorSignature::of(random_matrix_of(5, 5, 0.2, "dense", 1, 0.0, [](double u) { return u; })));
            return lines_of(generate_c(ir::parse_program("C[i,j] = " + sum), sigs));
        };
        size_t six = lines(6), twelve = lines(12);
        EXPECT_LT(twelve, 3 * six) << format << ": " << six << " lines for 6 operands, " << twelve << " for 12";
    }
}

} // namespace
} // namespace siskin::testing
