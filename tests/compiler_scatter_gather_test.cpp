// Subscripts computed from data, compiled (convert.cpp computed_subscript, simplify/resolve.cpp):
// gathers read at random, scatters write at random into levels that take random-order writes,
// every coordinate checked as the kernel goes; each program against hand values and the
// reference evaluator, across formats; and the refusals and the run-time error.
#include "compiler_test_util.hpp"
#include "ir_test_support.hpp"

namespace siskin::testing {
namespace {

using ir::test::expect_error;

Tensor ints(std::vector<int64_t> values, const std::string& format = "dense") {
    CoordinateList list;
    list.ndims = 1;
    for (size_t k = 0; k < values.size(); ++k)
        if (values[k] != 0) list.add(std::vector<int64_t>{static_cast<int64_t>(k)}, Scalar::of(values[k]));
    return Tensor::from_coordinates({static_cast<int64_t>(values.size())}, ValueType::Int64,
                                    Scalar::of(int64_t{0}), Format::parse(format, 1), list);
}

std::vector<double> values_of(const Tensor& t) {
    std::vector<double> out;
    for (const auto& s : t.to_dense()) out.push_back(s.as_double());
    return out;
}

OutputSpec shaped(std::vector<int64_t> shape, const std::string& format = "dense") {
    OutputSpec s = with_format(format, static_cast<int>(shape.size()));
    s.shape = std::move(shape);
    return s;
}

const std::vector<std::string> kReadFormats = {"dense", "sparselist(0)", "sparsebytemap(0)", "sparseband(0)",
                                               "runlist(0)"};

TEST(ScatterGatherCompiled, AHistogram) {
    for (const std::string format : {"dense", "sparselist(0)", "coo"}) {
        Tensor idx = ints({3, 1, 3, 15, 0, 7}, format);
        // Every format the scatter refusal lists (ErrorsSayWhatAndWhere).
        for (const std::string out : {"dense", "sparsebytemap(0)", "sparsehash(0)"}) {
            auto got = compiled_matching_reference("bins[I[i]] += 1", {{"I", &idx}}, {{"bins", shaped({16}, out)}});
            std::vector<double> want(16, 0.0);
            // Every i counts, stored or not: I[4] reads 0 in every format.
            for (int64_t v : {3, 1, 3, 15, 0, 7}) want[static_cast<size_t>(v)] += 1;
            EXPECT_EQ(values_of(got.at("bins")), want) << format << " into " << out;
        }
    }
}

TEST(ScatterGatherCompiled, PermutationsBothWays) {
    Tensor p = ints({3, 0, 1, 2});
    for (const auto& format : kReadFormats) {
        Tensor x = make({4}, format, {{{0}, 10}, {{1}, 20}, {{3}, 40}});
        auto gathered = compiled_matching_reference("y[i] = x[P[i]]", {{"x", &x}, {"P", &p}});
        EXPECT_EQ(values_of(gathered.at("y")), (std::vector<double>{40, 10, 20, 0})) << format;
        auto scattered = compiled_matching_reference("y[P[i]] = x[i]", {{"x", &x}, {"P", &p}}, {{"y", shaped({4})}});
        EXPECT_EQ(values_of(scattered.at("y")), (std::vector<double>{20, 0, 40, 10})) << format;
    }
}

TEST(ScatterGatherCompiled, ComputedArithmeticSubscripts) {
    for (const auto& format : kReadFormats) {
        Tensor v = make({7}, format, {{{0}, 1}, {{2}, 2}, {{6}, 3}});
        auto got = compiled_matching_reference("for i in 0:7 { B[i] = v[(3*i) % 7] }", {{"v", &v}});
        // 3i mod 7 for i = 0..6: 0 3 6 2 5 1 4.
        EXPECT_EQ(values_of(got.at("B")), (std::vector<double>{1, 0, 3, 2, 0, 0, 0})) << format;
    }
    for (const std::string format : {"dense", "csr", "dcsr", "coo"}) {
        Tensor img = random_tensor_of({12, 9}, format, 0.4, Scalar::of(int64_t{0}), 7,
                                      [](std::mt19937_64& rng) { return Scalar::of(static_cast<int64_t>(rng() % 64)); });
        compiled_matching_reference("hist[floordiv(img[x,y], 16)] += 1", {{"img", &img}}, {{"hist", shaped({4})}});
    }
}

// A computed subscript under an `if` is checked only where the `if` holds, as the reference reads
// it: the coordinates the program guards off (20 and 99 here, outside bins; 9, outside x) are no
// error. The unguarded programs with the same data are (ErrorsSayWhatAndWhere).
TEST(ScatterGatherCompiled, AGuardedSubscriptIsCheckedOnlyWhereTheGuardHolds) {
    Tensor idx = ints({3, 1, 20, 15, 0, 99});
    for (const std::string out : {"dense", "sparsebytemap(0)", "sparsehash(0)"}) {
        auto got = compiled_matching_reference("for i { if I[i] < 16 { bins[I[i]] += 1 } }", {{"I", &idx}},
                                               {{"bins", shaped({16}, out)}});
        std::vector<double> want(16, 0.0);
        for (int64_t v : {3, 1, 15, 0}) want[static_cast<size_t>(v)] += 1;
        EXPECT_EQ(values_of(got.at("bins")), want) << out;
    }
    Tensor p = ints({0, 9, 1, 2});
    for (const auto& format : kReadFormats) {
        Tensor x = make({4}, format, {{{0}, 10}, {{1}, 20}, {{3}, 40}});
        auto got = compiled_matching_reference("for i { if P[i] < 4 { y[i] = x[P[i]] } }", {{"x", &x}, {"P", &p}});
        EXPECT_EQ(values_of(got.at("y")), (std::vector<double>{10, 0, 20, 0})) << format;
    }
}

TEST(ScatterGatherCompiled, ErrorsSayWhatAndWhere) {
    Tensor idx = ints({3, 1, 20});
    expect_error([&] { run_compiled("bins[I[i]] += 1", {{"I", &idx}}, {{"bins", shaped({16})}}); },
                 "a computed subscript took a coordinate outside its tensor (bins[I[i]])");
    Tensor small = ints({3, 1, 2});
    expect_error([&] { run_compiled("bins[I[i]] += 1", {{"I", &small}}, {{"bins", shaped({16}, "sparselist(0)")}}); },
                 "give bins a format whose levels all take random-order writes: dense (d), sparsebytemap "
                 "(bytemap) or sparsehash (hash), such as dense(0), sparsebytemap(0) or sparsehash(0)");
    Tensor pairs = ints({3, 1, 2});
    expect_error([&] { run_compiled("M[I[i], J[i]] += 1", {{"I", &pairs}, {"J", &small}}, {{"M", shaped({4, 4}, "csr")}}); },
                 "such as dense(0)/dense(1), dense(0)/sparsebytemap(1), sparsebytemap(0)/sparsebytemap(1), "
                 "dense(0)/sparsehash(1) or sparsehash(0)/sparsehash(1)");
    Tensor x = make({4}, "dense", {{{0}, 1}});
    Tensor bad = ints({0, 9, 1, 2});
    expect_error([&] { run_compiled("y[i] = x[P[i]]", {{"x", &x}, {"P", &bad}}); },
                 "a computed subscript took a coordinate outside its tensor (x[P[i]])");
}

} // namespace
} // namespace siskin::testing
