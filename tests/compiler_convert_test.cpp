// Format conversion as a compiled copy program (siskin::convert_compiled): every target level
// (runlist, sparseband, coo and pattern leaves included) is written by compiled code, and every
// pair gives what the runtime Tensor::convert gives.
#include <cmath>
#include <iostream>
#include <limits>
#include <random>
#include <set>
#include <tuple>

#include <gtest/gtest.h>

#include "compiler_test_util.hpp"
#include "siskin/compiler.hpp"
#include "siskin/error.hpp"

using namespace siskin;
using siskin::testing::stored_coordinates;
using siskin::testing::test_options;

namespace {

// A float64 tensor with about `density` of its elements stored, values in 1..5, some stored
// entries equal to the fill (which no conversion keeps).
Tensor random_tensor(std::vector<int64_t> shape, const std::string& format, double fill,
                     double density, std::mt19937& rng) {
    int ndims = static_cast<int>(shape.size());
    CoordinateList list;
    list.ndims = ndims;
    std::uniform_real_distribution<double> coin(0, 1);
    std::uniform_int_distribution<int> value(1, 5);
    int64_t total = 1;
    for (int64_t n : shape) total *= n;
    for (int64_t flat = 0; flat < total; ++flat) {
        if (coin(rng) >= density) continue;
        std::vector<int64_t> c(ndims);
        int64_t rest = flat;
        for (int d = ndims - 1; d >= 0; --d) {
            c[d] = rest % shape[d];
            rest /= shape[d];
        }
        list.add(c, Scalar::of(coin(rng) < 0.1 ? fill : static_cast<double>(value(rng))));
    }
    return Tensor::from_coordinates(shape, ValueType::Float64, Scalar::of(fill),
                                    Format::parse(format, ndims), list);
}

// The elements of a buffer in use, as int64 (index buffers) or doubles (values).
std::vector<double> stored_buffer(const Buffer& b) {
    std::vector<double> out;
    for (int64_t i = 0; i < b.size(); ++i) out.push_back(b.get(i).as_double());
    return out;
}

std::vector<std::string> level_kinds(const Format& f) {
    std::vector<std::string> kinds;
    for (const auto& level : f.levels()) kinds.push_back(level.kind);
    return kinds;
}

// The compiled conversion agrees with Tensor::convert: elements, type, fill, the stored
// coordinates, and the target's levels.
void expect_same_as_runtime(const Tensor& source, const std::string& target_spelling,
                            bool* compiled = nullptr) {
    Format target = Format::parse(target_spelling, source.ndims());
    SCOPED_TRACE(source.format().to_string() + " -> " + target_spelling +
                 ", fill " + source.fill().to_string());
    Conversion c = convert_compiled(source, target, test_options());
    Tensor expected = source.convert(target);
    EXPECT_TRUE(c.tensor.equals(expected)) << c.tensor.to_string() << "\nexpected\n" << expected.to_string();
    EXPECT_TRUE(c.tensor.equals(source));
    EXPECT_EQ(c.tensor.type(), source.type());
    EXPECT_TRUE(c.tensor.fill().same(source.fill()));
    EXPECT_EQ(level_kinds(c.tensor.format()), level_kinds(target));
    EXPECT_EQ(stored_coordinates(c.tensor), stored_coordinates(expected));
    if (compiled) *compiled = c.compiled;
    if (!c.compiled) {
        EXPECT_FALSE(c.fallback_reason.empty());
    }
}

} // namespace

TEST(CompilerConvert, TheMainMatrixPairsAreCompiled) {
    std::mt19937 rng(7);
    for (double fill : {0.0, 2.5}) {
        Tensor csr = random_tensor({9, 7}, "csr", fill, 0.3, rng);
        Tensor coo = random_tensor({9, 7}, "coo", fill, 0.3, rng);
        Tensor dense = random_tensor({9, 7}, "dense", fill, 0.3, rng);
        struct Pair {
            const Tensor* source;
            const char* target;
        };
        for (const Pair& p : {Pair{&csr, "csc"}, Pair{&csr, "dcsr"}, Pair{&coo, "csr"},
                              Pair{&dense, "csr"}, Pair{&csr, "dense"}, Pair{&csr, "dcsc"}}) {
            bool compiled = false;
            expect_same_as_runtime(*p.source, p.target, &compiled);
            EXPECT_TRUE(compiled) << p.source->format().to_string() << " -> " << p.target << ": "
                                  << convert_compiled(*p.source, Format::parse(p.target, 2), test_options())
                                         .fallback_reason;
        }
    }
}

TEST(CompilerConvert, CsrToCscByHand) {
    // [[0 1 0]   stored in csc: column 0 holds (1,0)=3; column 1 holds (0,1)=1, (1,1)=4;
    //  [3 4 0]]  column 2 is empty.
    Tensor a = siskin::testing::make({2, 3}, "csr", {{{0, 1}, 1.0}, {{1, 0}, 3.0}, {{1, 1}, 4.0}});
    Conversion c = convert_compiled(a, Format::csc(), test_options());
    ASSERT_TRUE(c.compiled) << c.fallback_reason;
    std::vector<std::vector<int64_t>> want = {{1, 0}, {0, 1}, {1, 1}};
    EXPECT_EQ(stored_coordinates(c.tensor), want);
    EXPECT_EQ(c.tensor.at({1, 1}).as_double(), 4.0);
    EXPECT_EQ(c.tensor.at({0, 2}).as_double(), 0.0);
}

TEST(CompilerConvert, EveryPairMatchesTheRuntimeConversion) {
    const std::vector<std::string> matrix_formats = {
        "dense", "csr", "csc", "dcsr", "dcsc", "coo", "csr@64",
        "dense(0)/sparseband(1)", "dense(0)/runlist(1)", "dense(0)/sparsebytemap(1)"};
    // Every pair among these is compiled (coo sources read against their order through a
    // transposed temporary).
    const std::set<std::string> compiled_formats(matrix_formats.begin(), matrix_formats.end());
    const std::set<std::string> infinite_fill_targets = {"csr", "coo", "dense(0)/sparseband(1)",
                                                         "dense(0)/runlist(1)"};
    std::mt19937 rng(11);
    std::string fallbacks;
    for (double fill : {0.0, -1.5, static_cast<double>(INFINITY)})
        for (const auto& from : matrix_formats) {
            Tensor source = random_tensor({6, 8}, from, fill, 0.35, rng);
            for (const auto& to : matrix_formats) {
                // With an infinite fill, a few targets suffice (each pair is a kernel to compile).
                if (std::isinf(fill) && !infinite_fill_targets.count(to)) continue;
                bool compiled = false;
                expect_same_as_runtime(source, to, &compiled);
                if (compiled_formats.count(from) && compiled_formats.count(to)) {
                    EXPECT_TRUE(compiled) << from << " -> " << to;
                }
                if (!compiled && fill == 0.0) fallbacks += " " + from + "->" + to;
            }
        }
    std::cout << "runtime copies (fill 0):" << fallbacks << "\n";
}

// The structured levels of issue 18 are compiled targets and sources too (inputs that fit them:
// one entry, or one run, per row).
TEST(CompilerConvert, StructuredLevelsAreCompiled) {
    CoordinateList e;
    e.ndims = 2;
    for (auto [i, j, v] : std::vector<std::tuple<int64_t, int64_t, double>>{{0, 2, 1}, {0, 3, 1}, {2, 0, -2}, {3, 5, 4}})
        e.add(std::vector<int64_t>{i, j}, Scalar::of(v));
    Tensor runs = Tensor::from_coordinates({4, 6}, ValueType::Float64, Scalar::of(0.0), Format::csr(), e);
    Tensor points = runs.convert(Format::csr()); // drop (0, 3): one entry per row
    CoordinateList p;
    p.ndims = 2;
    points.for_each_stored([&](std::span<const int64_t> c, const Scalar& v) {
        if (!(c[0] == 0 && c[1] == 3)) p.add(std::vector<int64_t>{c[0], c[1]}, v);
    });
    points = Tensor::from_coordinates({4, 6}, ValueType::Float64, Scalar::of(0.0), Format::csr(), p);
    for (const char* to : {"dense(0)/sparseinterval(1)", "dense(0)/sparserunlist(1)", "sparselist(0)/vbl(1)@64",
                           "dense(0)/packbits(1)", "sparselist(0)/packbits(1)@64"}) {
        bool compiled = false;
        expect_same_as_runtime(runs, to, &compiled);
        EXPECT_TRUE(compiled) << to;
        Tensor there = runs.convert(Format::parse(to, 2));
        expect_same_as_runtime(there, "csr", &compiled);
        EXPECT_TRUE(compiled) << to << " -> csr";
    }
    // A sparsebytemap above another level: its slots are the positions below it.
    for (const char* to : {"sparsebytemap(0)/sparselist(1)", "bytemap(0)/dense(1)@32", "bytemap(0)/bytemap(1)",
                           "bytemap(0)/runlist(1)"}) {
        bool compiled = false;
        expect_same_as_runtime(runs, to, &compiled);
        EXPECT_TRUE(compiled) << to;
        expect_same_as_runtime(runs.convert(Format::parse(to, 2)), "csr", &compiled);
        EXPECT_TRUE(compiled) << to << " -> csr";
    }
    for (const char* to : {"dense(0)/sparsepoint(1)", "sparselist(0)/point(1)@32"}) {
        bool compiled = false;
        expect_same_as_runtime(points, to, &compiled);
        EXPECT_TRUE(compiled) << to;
    }
}

namespace {

// The compiled conversion of `source` to `to` stores exactly the runtime's buffers (but a
// bytemap's unused slots and a hash level's entries), and (when `back`) converts back to csr
// (csf) compiled.
void expect_runtime_buffers(const Tensor& source, const std::string& to, bool back) {
    SCOPED_TRACE(source.format().to_string() + " -> " + to + ", fill " + source.fill().to_string());
    bool compiled = false;
    expect_same_as_runtime(source, to, &compiled);
    Conversion c = convert_compiled(source, Format::parse(to, source.ndims()), test_options());
    EXPECT_TRUE(c.compiled) << c.fallback_reason;
    Tensor want = source.convert(Format::parse(to, source.ndims()));
    // A compiled hash level keeps the entries written with the fill (unlisted), which the
    // runtime never makes: its buffers and the values below it are compared by elements only.
    bool hashed = false;
    for (int k = 0; k < want.num_levels(); ++k) {
        hashed = hashed || want.format().levels()[static_cast<size_t>(k)].kind == "sparsehash";
        for (const std::string& name : want.level(k).names)
            if (name != "tbl" && !hashed)
                EXPECT_EQ(stored_buffer(c.tensor.level(k).buffer(name)), stored_buffer(want.level(k).buffer(name)))
                    << "level " << k << " " << name;
    }
    if (!hashed) EXPECT_EQ(stored_buffer(c.tensor.values()), stored_buffer(want.values()));
    EXPECT_EQ(c.tensor.stored(), want.stored());
    if (!back) return;
    expect_same_as_runtime(want, source.ndims() == 2 ? "csr" : "csf", &compiled);
    EXPECT_TRUE(compiled) << to << " back";
}

// `rows` (7 x 5, row-major) with rows 1, 2 copying row 0, row 4 copying row 3 and row 6 all
// fill: runs of sub-fibres of every length.
std::vector<Scalar> with_repeated_rows(std::vector<Scalar> rows, double fill) {
    for (int64_t i : {1, 2, 4, 6})
        for (int64_t j = 0; j < 5; ++j)
            rows[static_cast<size_t>(i * 5 + j)] = i == 6 ? Scalar::of(fill) : rows[static_cast<size_t>((i - 1) * 5 + j)];
    return rows;
}

// Rows of at most one run of one value each (sparseinterval), or with `points` at most one
// entry each (sparsepoint), repeated as with_repeated_rows does.
std::vector<Scalar> singular_rows(std::mt19937& rng, double fill, bool points) {
    std::vector<Scalar> rows(35, Scalar::of(fill));
    std::uniform_int_distribution<int> column(0, 5), value(2, 4);
    for (int64_t i = 0; i < 7; ++i) {
        int c = column(rng), v = value(rng);
        int64_t end = std::min<int64_t>(5, points ? c + 1 : c + 1 + i % 3);
        for (int64_t j = c; j < end; ++j) rows[static_cast<size_t>(i * 5 + j)] = Scalar::of(static_cast<double>(v));
    }
    return with_repeated_rows(rows, fill);
}

} // namespace

// Runs of sub-fibres: a matrix whose neighbouring rows (or columns) repeat, converted into a
// runlist above every level by compiled code, gives the runtime's storage exactly (runs merged
// alike), for fills 0, 1 and inf; and back. Each target is read from one source format per fill
// (rotating), so that the kernels stay few.
TEST(CompilerConvert, RunsOfSubFibresAreCompiled) {
    std::mt19937 rng(18);
    const std::vector<double> fills{0.0, 1.0, std::numeric_limits<double>::infinity()};
    const std::vector<const char*> sources{"dense", "csr", "csc"};
    for (size_t f = 0; f < fills.size(); ++f) {
        double fill = fills[f];
        std::vector<Scalar> rows = with_repeated_rows(random_tensor({7, 5}, "dense", fill, 0.4, rng).to_dense(), fill);
        std::vector<const char*> targets{"runlist(0)/dense(1)", "runlist(0)/sparselist(1)@64", "rle(0)/bytemap(1)",
                                         "rle(0)/rle(1)", "rle(1)/dense(0)", "sparselist(0)/rle(1)", "rle(0)/band(1)",
                                         "rle(0)/vbl(1)", "rle(0)/sparserunlist(1)", "rle(0)/packbits(1)@64",
                                         "rle(0)/hash(1)", "rle(0)/coo(1)", "rle(1)/hash(0)"};
        for (size_t k = 0; k < targets.size(); ++k) {
            const char* from = sources[(k + f) % sources.size()];
            Tensor source = Tensor::from_dense({7, 5}, ValueType::Float64, Scalar::of(fill), Format::parse(from, 2), rows);
            expect_runtime_buffers(source, targets[k], /*back=*/f == 0);
        }
        for (bool points : {false, true}) {
            Tensor source = Tensor::from_dense({7, 5}, ValueType::Float64, Scalar::of(fill),
                                               Format::parse(sources[f], 2), singular_rows(rng, fill, points));
            expect_runtime_buffers(source, points ? "rle(0)/point(1)" : "rle(0)/interval(1)", /*back=*/true);
        }
    }
    std::vector<Scalar> bits = with_repeated_rows(random_tensor({7, 5}, "dense", 0.0, 0.4, rng).to_dense(), 0.0);
    for (Scalar& v : bits) v = Scalar::of(!v.same(Scalar::of(0.0)));
    // Pattern leaves, under a sparse level below the runlist.
    Tensor pattern = Tensor::from_dense({7, 5}, ValueType::Bool, Scalar::of(false), Format::csr(), bits);
    for (const char* to : {"rle(0)/sparselist(1)/pattern", "rle(1)/hash(0)/pattern", "rle(0)/vbl(1)/pattern",
                           "rle(0)/coo(1)/pattern"})
        expect_runtime_buffers(pattern, to, /*back=*/false);
    // Three dimensions: runs of matrices above a coo level of two modes, a hash pair, and runs
    // nested in blocks.
    std::vector<Scalar> cube;
    for (int copy = 0; copy < 2; ++copy) {
        std::vector<Scalar> slab = random_tensor({3, 4}, "dense", 1.0, 0.5, rng).to_dense();
        for (int twice = 0; twice < 2; ++twice) cube.insert(cube.end(), slab.begin(), slab.end());
    }
    Tensor source = Tensor::from_dense({4, 3, 4}, ValueType::Float64, Scalar::of(1.0), Format::parse("csf", 3), cube);
    for (const char* to : {"rle(0)/coo(1,2)", "rle(0)/hash(1)/hash(2)", "rle(0)/vbl(1)/rle(2)"})
        expect_runtime_buffers(source, to, /*back=*/false);
}

TEST(CompilerConvert, VectorsAndThreeDimensionalTensors) {
    std::mt19937 rng(13);
    for (double fill : {0.0, 1.0}) {
        for (const char* from : {"dense", "sparselist(0)", "coo", "rle(0)", "band(0)"}) {
            Tensor v = random_tensor({12}, from, fill, 0.4, rng);
            for (const char* to : {"dense", "sparselist(0)", "coo", "rle(0)@64", "band(0)@32"}) {
                bool compiled = false;
                expect_same_as_runtime(v, to, &compiled);
                EXPECT_TRUE(compiled) << from << " -> " << to;
            }
        }
        for (const char* from : {"dense", "csf", "coo", "csf(2,0,1)"}) {
            Tensor t = random_tensor({3, 4, 5}, from, fill, 0.3, rng);
            for (const char* to : {"dense", "csf", "coo", "csf(2,0,1)", "csf(1,2,0)", "coo(2,0,1)",
                                   "dense(0)/sparselist(1)/runlist(2)", "coo(0,1)/sparseband(2)",
                                   "sparseband(0)/coo(1,2)"}) {
                bool compiled = false;
                expect_same_as_runtime(t, to, &compiled);
                EXPECT_TRUE(compiled) << from << " -> " << to;
            }
        }
    }
    bool compiled = false;
    expect_same_as_runtime(random_tensor({3, 4, 5}, "csf", 0.0, 0.3, rng), "csf(2,0,1)", &compiled);
    EXPECT_TRUE(compiled);
}

TEST(CompilerConvert, PatternTargetsKeepTheTrueEntries) {
    // A bool matrix with some stored false entries: a pattern target keeps the true ones only.
    CoordinateList list;
    list.ndims = 2;
    std::mt19937 rng(17);
    std::uniform_int_distribution<int> coin(0, 3);
    for (int64_t i = 0; i < 5; ++i)
        for (int64_t j = 0; j < 6; ++j)
            if (int c = coin(rng); c > 0) list.add(std::vector<int64_t>{i, j}, Scalar::of(c > 1));
    for (const char* from : {"csr", "dense", "coo", "dense(0)/sparselist(1)/pattern"}) {
        Format source_format = Format::parse(from, 2);
        CoordinateList entries = list;
        if (source_format.leaf() == Leaf::Pattern) { // a pattern source holds true entries only
            entries = CoordinateList{};
            entries.ndims = 2;
            for (int64_t e = 0; e < list.size(); ++e)
                if (list.values[static_cast<size_t>(e)].as_bool())
                    entries.add(std::span<const int64_t>(&list.coords[static_cast<size_t>(e) * 2], 2),
                                Scalar::of(true));
        }
        Tensor source = Tensor::from_coordinates({5, 6}, ValueType::Bool, Scalar::of(false), source_format, entries);
        for (const char* to : {"dense(0)/sparselist(1)/pattern", "sparselist(0)/sparselist(1)/pattern",
                               "coo(0,1)/pattern", "coo(1,0)/pattern", "dense(1)/sparselist(0)/pattern",
                               "dense(0)/sparsebytemap(1)/pattern"}) {
            bool compiled = false;
            expect_same_as_runtime(source, to, &compiled);
            EXPECT_TRUE(compiled) << from << " -> " << to;
        }
    }
}

TEST(CompilerConvert, WrongNumberOfDimensionsIsAnError) {
    Tensor a = siskin::testing::make({2, 3}, "csr", {{{0, 1}, 1.0}});
    try {
        convert_compiled(a, Format::csf(3), test_options());
        FAIL() << "expected an error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("2 dimensions"), std::string::npos) << e.what();
    }
}

TEST(CompilerConvert, ConvertReturnsTheTensor) {
    Tensor a = siskin::testing::make({2, 3}, "csr", {{{0, 1}, 1.0}, {{1, 2}, 5.0}});
    Tensor b = convert(a, Format::dcsc(), test_options());
    EXPECT_TRUE(b.equals(a));
    EXPECT_EQ(level_kinds(b.format()), level_kinds(Format::dcsc()));
}
