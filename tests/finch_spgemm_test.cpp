// The Finch paper's SpGEMM cases (../shared/papers/notes/finch.md §4.2 and §6, cases 26 and 28):
// the three algorithms, each chosen by the loop order the program writes and the formats of its
// tensors:
//   inner      for i, j, k over CSR x CSC: one merge of a row of A with a column of B per C[i,j];
//   Gustavson  for i, k, j over CSR x CSR: the workspaces pass gives C's row a sparsebytemap;
//   outer      for k, i, j over CSC x CSR into W, a sparsehash(0)/sparsehash(1) workspace (or a
//              dense one), then C[i,j] = W[i,j] into CSR.
// Case 27 (the bytemap workspace resets only what it touched) is CompilerWork's Gustavson test.
#include <cmath>
#include <optional>

#include "compiler_test_util.hpp"

namespace siskin::testing {
namespace {

struct Strategy {
    std::string name;
    std::string program;
    std::string a, b;                            // input formats
    std::map<std::string, std::string> outputs;  // output formats (C, and W when outer)
};

const std::string kOuter = "for k { for i { for j { W[i,j] += A[i,k] * B[k,j] } } }\nC[i,j] = W[i,j]";

std::vector<Strategy> strategies(const std::string& width) {
    return {
        {"inner", "for i { for j { for k { C[i,j] += A[i,k] * B[k,j] } } }", "csr" + width, "csc" + width,
         {{"C", "csr" + width}}},
        {"gustavson", "for i { for k { for j { C[i,j] += A[i,k] * B[k,j] } } }", "csr" + width, "csr" + width,
         {{"C", "csr" + width}}},
        {"outer", kOuter, "csc" + width, "csr" + width,
         {{"W", "sparsehash(0)/sparsehash(1)" + width}, {"C", "csr" + width}}},
        {"outer-dense", kOuter, "csc" + width, "csr" + width, {{"W", "dense"}, {"C", "csr" + width}}},
    };
}

std::map<std::string, OutputSpec> specs_of(const Strategy& s) {
    std::map<std::string, OutputSpec> out;
    for (const auto& [name, format] : s.outputs) out.emplace(name, with_format(format, 2));
    return out;
}

// The generated C of a strategy on inputs a and b.
std::string c_of(const Strategy& s, const Tensor& a, const Tensor& b) {
    std::map<std::string, TensorSignature> sigs{{"A", TensorSignature::of(a, true)},
                                                {"B", TensorSignature::of(b, true)}};
    for (const auto& [name, format] : s.outputs) {
        TensorSignature o;
        o.format = Format::parse(format, 2);
        if (!o.format.levels().front().index_bits) o.format = o.format.with_index_bits(64);
        o.type = ValueType::Float64;
        o.fill = Scalar::of(0.0);
        o.ndims = 2;
        sigs.emplace(name, o);
    }
    return generate_c(ir::parse_program(s.program), sigs);
}

// The product C a strategy computes from a and b (n x n), and the loop bodies its kernel ran.
std::pair<Tensor, int64_t> product_and_work(const Strategy& s, const Tensor& a, const Tensor& b) {
    ir::Program program = ir::parse_program(s.program);
    std::map<std::string, TensorSignature> sigs{{"A", TensorSignature::of(a, true)},
                                                {"B", TensorSignature::of(b, true)}};
    std::map<std::string, std::vector<int64_t>> shapes;
    for (const auto& [name, format] : s.outputs) {
        TensorSignature o;
        o.format = Format::parse(format, 2).with_index_bits(64);
        o.type = ValueType::Float64;
        o.fill = Scalar::of(0.0);
        o.ndims = 2;
        sigs.emplace(name, o);
        shapes.emplace(name, a.shape());
    }
    CompileOptions options = test_options();
    options.count_work = true;
    options.threads = 1;
    auto kernel = compile(program, sigs, options);
    auto outputs = kernel->prepare(shapes);
    kernel->run({{"A", &a}, {"B", &b}}, outputs);
    return {outputs.at("C"), kernel->last_work()};
}

Tensor matrix(const std::string& format, std::initializer_list<std::pair<std::vector<int64_t>, double>> list) {
    return make({3, 3}, format, list);
}

// Case 26: A = [[1,0,2],[0,0,3],[4,0,0]], B = [[0,5,0],[6,0,0],[0,7,8]]: every algorithm gives
// [[0,19,16],[0,21,24],[0,20,0]], 5 stored entries, column 0 empty; then random products,
// against the reference evaluator, in both index widths.
TEST(FinchCases, Case26ThreeSpGEMMAlgorithmsAgree) {
    auto a_of = [](const std::string& f) {
        return matrix(f, {{{0, 0}, 1}, {{0, 2}, 2}, {{1, 2}, 3}, {{2, 0}, 4}});
    };
    auto b_of = [](const std::string& f) {
        return matrix(f, {{{0, 1}, 5}, {{1, 0}, 6}, {{2, 1}, 7}, {{2, 2}, 8}});
    };
    const std::vector<std::vector<double>> want{{0, 19, 16}, {0, 21, 24}, {0, 20, 0}};
    for (const std::string width : {"@32", "@64"}) {
        for (const Strategy& s : strategies(width)) {
            Tensor a = a_of(s.a), b = b_of(s.b);
            auto got = compiled_matching_reference(s.program, {{"A", &a}, {"B", &b}}, specs_of(s));
            const Tensor& c = got.at("C");
            for (int64_t i = 0; i < 3; ++i)
                for (int64_t j = 0; j < 3; ++j) EXPECT_EQ(c.at({i, j}).as_double(), want[i][j]) << s.name;
            EXPECT_EQ(c.stored(), 5) << s.name;
            EXPECT_EQ(stored_coordinates(c),
                      (std::vector<std::vector<int64_t>>{{0, 1}, {0, 2}, {1, 1}, {1, 2}, {2, 1}}))
                << s.name;
            for (uint64_t seed : {1, 2}) {
                Tensor ra = random_matrix_of(24, 24, 0.12, s.a, seed, 0.0, [](double u) { return std::floor(u * 4) + 1; });
                Tensor rb = random_matrix_of(24, 24, 0.12, s.b, seed + 10, 0.0, [](double u) { return std::floor(u * 4) + 1; });
                compiled_matching_reference(s.program, {{"A", &ra}, {"B", &rb}}, specs_of(s));
            }
        }
    }
    // Each algorithm is the one its program asks for: a merge per C[i,j] and no workspace, a
    // bytemap row workspace, a hash workspace.
    Tensor a = a_of("csr"), b = b_of("csc"), ac = a_of("csc"), br = b_of("csr");
    auto list = strategies("");
    std::string inner = c_of(list[0], a, b), gustavson = c_of(list[1], a, br), outer = c_of(list[2], ac, br);
    EXPECT_EQ(inner.find("siskin_sort_touched"), std::string::npos) << inner;
    EXPECT_EQ(inner.find("siskin_hash_insert"), std::string::npos) << inner;
    EXPECT_NE(gustavson.find("siskin_sort_touched"), std::string::npos) << gustavson;
    EXPECT_NE(outer.find("siskin_hash_insert"), std::string::npos) << outer;
    EXPECT_NE(outer.find("siskin_hash_freeze"), std::string::npos) << outer;
}

// Case 28: Erdős–Rényi matrices with 4 entries per row; going from N to 4N multiplies the work
// of Gustavson and of the outer product through a hash workspace by about 4 (linear), and that
// of the inner product and of the outer product through a dense workspace by about 16 (each
// visits all N^2 pairs (i, j)). Work is loop bodies run, not time. The notes' N = 1k to 16k:
// the linear strategies are run at 1000, 4000 and 16000, the quadratic ones at 1000 and 4000
// (at 16000 they would run 10^9 bodies, and the dense workspace would take 2 GB).
TEST(FinchCases, Case28SpGEMMScaling) {
    auto er = [](int64_t n, const std::string& format, uint64_t seed) {
        return random_matrix_of(n, n, 4.0 / static_cast<double>(n), format, seed, 0.0,
                                [](double u) { return std::floor(u * 4) + 1; });
    };
    // The same entries in every strategy's formats; the reference checks a small product, and
    // every strategy must give the same large ones.
    Tensor small_a = er(60, "csr", 5), small_b = er(60, "csr", 6);
    Tensor want_small = evaluate_reference(ir::parse_program("C[i,j] += A[i,k] * B[k,j]"),
                                           {{"A", &small_a}, {"B", &small_b}}).at("C");
    const std::vector<int64_t> sizes{1000, 4000, 16000};
    std::map<int64_t, Tensor> want;
    for (const Strategy& s : strategies("")) {
        Tensor a = er(60, s.a, 5), b = er(60, s.b, 6);
        EXPECT_TRUE(product_and_work(s, a, b).first.equals(want_small)) << s.name;
        bool quadratic = s.name == "inner" || s.name == "outer-dense";
        int64_t last_work = 0;
        for (size_t k = 0; k < sizes.size() - (quadratic ? 1 : 0); ++k) {
            const int64_t n = sizes[k];
            Tensor an = er(n, s.a, 7 + k), bn = er(n, s.b, 17 + k);
            auto [c, work] = product_and_work(s, an, bn);
            if (!want.count(n)) want.emplace(n, c);
            EXPECT_TRUE(c.equals(want.at(n))) << s.name << " at N = " << n;
            if (k > 0) {
                double ratio = static_cast<double>(work) / static_cast<double>(last_work);
                std::string what = s.name + ": work " + std::to_string(last_work) + " -> " +
                                   std::to_string(work) + " at N = " + std::to_string(n);
                if (quadratic) EXPECT_GT(ratio, 12.0) << what;
                else EXPECT_LT(ratio, 6.0) << what;
            }
            last_work = work;
        }
    }
}

} // namespace
} // namespace siskin::testing
