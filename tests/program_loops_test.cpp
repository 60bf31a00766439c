// Top-level `while` and `swap` (docs/syntax.md): parsing and printing, the verifier's errors, and
// the program driver (src/compiler/program_driver.cpp) against the reference evaluator on the
// examples/ programs (BFS, Bellman-Ford) and on loops whose outputs carry values from pass to
// pass in every way the driver handles them: in place, through a dense copy, and overwritten.
#include <fstream>
#include <sstream>

#include "compiler_test_util.hpp"
#include "ir_test_support.hpp"
#include "siskin/graph.hpp"

namespace siskin::testing {
namespace {

std::string example(const std::string& name) {
    std::ifstream in(std::string(SISKIN_REPO_DATA_DIR) + "/../examples/" + name);
    std::stringstream s;
    s << in.rdbuf();
    EXPECT_FALSE(s.str().empty()) << "examples/" << name << " not found";
    return s.str();
}

// A seeded random directed graph on n vertices: each edge with probability `density`.
Tensor random_graph(int64_t n, double density, const std::string& format, uint64_t seed) {
    return random_tensor_of({n, n}, format, density, Scalar::of(false), seed,
                            [](std::mt19937_64&) { return Scalar::of(true); });
}

Tensor sources(int64_t n, std::vector<int64_t> at, const std::string& format) {
    CoordinateList list;
    list.ndims = 1;
    for (int64_t v : at) list.add(std::vector<int64_t>{v}, Scalar::of(true));
    return Tensor::from_coordinates({n}, ValueType::Bool, Scalar::of(false), Format::parse(format, 1), list);
}

TEST(ProgramLoops, WhileAndSwapPrintAndParseBack) {
    const char* text = "c[] = 3\nwhile c[] > 0 {\n    c[] += -1\n    y[i] = x[i]\n    swap(y, z)\n    z[i] = y[i]\n}\n";
    ir::Program p = ir::parse_program(text);
    ASSERT_TRUE(p.has_control());
    std::string printed = ir::print(p);
    EXPECT_NE(printed.find("while c[] > 0 {"), std::string::npos) << printed;
    EXPECT_NE(printed.find("swap(y, z)"), std::string::npos) << printed;
    EXPECT_TRUE(ir::equal(p, ir::parse_program(printed))) << printed;
    // Not reserved: tensors may still be called while and swap.
    EXPECT_FALSE(ir::parse_program("while[i] = swap[i]").has_control());
}

TEST(ProgramLoops, VerifierErrors) {
    Tensor x = make({3}, "dense", {{{0}, 1.0}});
    Tensor A = make({3, 3}, "csr", {{{0, 1}, 1.0}});
    auto error_of = [&](const std::string& text) {
        try {
            evaluate_reference(ir::parse_program(text), {{"x", &x}, {"A", &A}});
        } catch (const Error& e) {
            return e.message();
        }
        ADD_FAILURE() << "no error for: " << text;
        return std::string();
    };
    EXPECT_NE(error_of("while A[i,j] > 0 { y[i] = x[i] }").find("reads scalars"), std::string::npos);
    EXPECT_NE(error_of("c[] = 1\nwhile c[] > 0 { y[i] = x[i] }").find("no statement in the body"),
              std::string::npos);
    EXPECT_NE(error_of("for i { while c[] > 0 { c[] = 0 } }").find("top level"), std::string::npos);
    EXPECT_NE(error_of("y[i] = x[i]\nswap(y, x)").find("it is an input"), std::string::npos);
    EXPECT_NE(error_of("y[i] = x[i]\nswap(y, y)").find("names one tensor twice"), std::string::npos);
    EXPECT_NE(error_of("y[i] = x[i]\nz[j] = A[0,j] + 1\nswap(y, z)").find("fill"), std::string::npos);
    EXPECT_NE(error_of("y[i] = x[i]\nz[i,j] = A[i,j]\nswap(y, z)").find("swap"), std::string::npos);
}

TEST(ProgramLoops, BfsExampleMatchesReferenceAndLibrary) {
    const std::string text = example("bfs.siskin");
    const int64_t n = 60;
    for (const std::string graph_format : {"csr", "dense"}) {
        for (const std::string frontier : {"dense", "bytemap(0)"}) {
            Tensor A = random_graph(n, 0.04, graph_format, 7);
            Tensor s = sources(n, {3}, "dense");
            std::map<std::string, OutputSpec> specs{{"F", with_format(frontier, 1)},
                                                    {"G", with_format(frontier, 1)}};
            auto got = compiled_matching_reference(text, {{"A", &A}, {"s", &s}}, specs);
            std::vector<int64_t> want = graph::bfs_levels(A, 3, test_options());
            std::vector<int64_t> levels;
            for (const Scalar& v : got.at("L").to_dense()) levels.push_back(v.as_int());
            EXPECT_EQ(levels, want) << graph_format << ", frontier " << frontier;
        }
    }
}

TEST(ProgramLoops, BellmanFordExampleMatchesReference) {
    const std::string text = example("bellman_ford.siskin");
    const int64_t n = 40;
    Tensor W = random_tensor_of({n, n}, "csr", 0.08, Scalar::of(std::numeric_limits<double>::infinity()), 11,
                                [](std::mt19937_64& rng) {
                                    return Scalar::of(double(std::uniform_int_distribution<int>(0, 9)(rng)));
                                });
    Tensor s = sources(n, {0, 17}, "sparselist(0)");
    for (const std::string format : {"dense", "bytemap(0)"}) {
        std::map<std::string, OutputSpec> specs{{"d", with_format(format, 1)}, {"e", with_format(format, 1)}};
        auto got = compiled_matching_reference(text, {{"W", &W}, {"s", &s}}, specs);
        // Distances as the library's Bellman-Ford gives them from each source, the nearer kept.
        std::vector<double> a = graph::bellman_ford(W, 0, test_options());
        std::vector<double> b = graph::bellman_ford(W, 17, test_options());
        auto d = got.at("d").to_dense();
        for (int64_t v = 0; v < n; ++v)
            EXPECT_EQ(d[size_t(v)].as_double(), std::min(a[size_t(v)], b[size_t(v)])) << v;
    }
}

// Outputs that passes accumulate into: a dense one updated in place, a sparse one through a
// dense copy, one overwritten each pass, and one read by a later kernel of the same pass.
TEST(ProgramLoops, OutputsCarryTheirValuesFromPassToPass) {
    const char* text =
        "k[] = 0\n"
        "while k[] < 4 {\n"
        "    k[] += 1\n"
        "    acc[i] += x[i] * k[]\n"
        "    sp[i] += x[i]\n"
        "    last[i] = x[i] + k[]\n"
        "    twice[i] = acc[i] * 2\n"
        "}\n"
        "after[i] = sp[i] + last[i]\n";
    Tensor x = make({9}, "sparselist(0)", {{{1}, 1.5}, {{4}, -2.0}, {{8}, 3.0}});
    for (const std::string format : {"dense", "sparselist(0)", "bytemap(0)"}) {
        std::map<std::string, OutputSpec> specs{{"sp", with_format(format, 1)},
                                                {"twice", with_format(format, 1)}};
        auto got = compiled_matching_reference(text, {{"x", &x}}, specs);
        EXPECT_EQ(got.at("k").to_dense()[0].as_int(), 4);
        EXPECT_EQ(got.at("acc").to_dense()[4].as_double(), -2.0 * (1 + 2 + 3 + 4));
        EXPECT_EQ(got.at("sp").to_dense()[8].as_double(), 12.0) << format;
    }
}

// The body's kernel is compiled once: compile_for builds every kernel, and a run of N passes
// runs the body's kernel N times (kernel_runs), whatever N the data gives.
TEST(ProgramLoops, BodyKernelsAreCompiledOnceAndRunPerPass) {
    ir::Program p = ir::parse_program("k[] = 0\nwhile k[] < n[] { k[] += 1; y[i] += x[i] }");
    Tensor x = make({5}, "dense", {{{2}, 1.0}});
    for (int64_t passes : {0, 1, 6}) {
        Tensor n = Tensor::from_dense({}, ValueType::Int64, Scalar::of(int64_t{0}), Format::dense(0),
                                      std::vector<Scalar>{Scalar::of(passes)});
        CompiledProgram c = compile_for(p, {{"x", &x}, {"n", &n}}, {}, test_options());
        int64_t before = kernel_runs();
        auto out = c.run({{"x", &x}, {"n", &n}});
        EXPECT_EQ(kernel_runs() - before, 1 + passes);
        EXPECT_EQ(out.at("y").to_dense()[2].as_double(), double(passes));
        EXPECT_EQ(out.at("k").to_dense()[0].as_int(), passes);
    }
}

TEST(ProgramLoops, CompileAloneRefusesControl) {
    ir::Program p = ir::parse_program("c[] = 1\nwhile c[] > 0 { c[] = 0 }");
    TensorSignature s;
    s.format = Format::dense(0).with_index_bits(32);
    s.type = ValueType::Int64;
    s.fill = Scalar::of(int64_t{0});
    try {
        compile(p, {{"c", s}}, test_options());
        ADD_FAILURE() << "compile() accepted a while";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), Error::Kind::Unsupported);
        EXPECT_NE(e.message().find("compile_for"), std::string::npos) << e.message();
    }
}

} // namespace
} // namespace siskin::testing
