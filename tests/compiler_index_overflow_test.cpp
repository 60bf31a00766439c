// Outputs get 32-bit indices when every dimension fits them, before the kernel knows how many
// entries it will store. A kernel whose positions outgrow them stops before storing one (the
// checks of codegen/position_checks.cpp); evaluate_compiled then builds the output with 64-bit
// indices, while an output that asked for @32 gets an error. CompileOptions::max_position_32
// lowers the limit so that small tensors reach these paths.
#include <functional>

#include "compiler_test_util.hpp"

namespace siskin::testing {
namespace {

CompileOptions limited(int64_t limit) {
    CompileOptions o = test_options();
    o.max_position_32 = limit;
    return o;
}

ValueType index_type_of(const Tensor& t, int level, const std::string& buffer) {
    return t.level(level).buffer(buffer).type();
}

const std::string kSpgemm = "C[i,j] += A[i,k] * B[k,j]";

std::string error_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}

// 40 x 40 at 20 %: the product has hundreds of entries.
struct Operands {
    Tensor a = random_matrix_of(40, 40, 0.2, "csr", 5, 0.0, [](double u) { return u - 0.25; });
    Tensor b = random_matrix_of(40, 40, 0.2, "csr", 6, 0.0, [](double u) { return 1.0 + u; });
    std::map<std::string, const Tensor*> inputs() const { return {{"A", &a}, {"B", &b}}; }
};

TEST(CompilerIndexOverflow, NarrowOutputThatOutgrowsItsIndicesIsBuiltWide) {
    Operands x;
    auto want = evaluate_reference(ir::parse_program(kSpgemm), x.inputs(), {{"C", with_format("csr", 2)}});
    ASSERT_GT(want.at("C").stored(), 100);
    for (int64_t limit : {int64_t{0}, int64_t{1}, int64_t{39}, int64_t{100}}) {
        auto got = evaluate_compiled(ir::parse_program(kSpgemm), x.inputs(), {{"C", with_format("csr", 2)}},
                                     limited(limit));
        const Tensor& c = got.at("C");
        EXPECT_TRUE(same_output(want.at("C"), c)) << limit;
        EXPECT_EQ(index_type_of(c, 1, "pos"), ValueType::Int64) << limit;
        EXPECT_EQ(index_type_of(c, 1, "crd"), ValueType::Int64) << limit;
    }
    // A limit the output stays within keeps the narrow kernel's result.
    auto got = evaluate_compiled(ir::parse_program(kSpgemm), x.inputs(), {{"C", with_format("csr", 2)}},
                                 limited(want.at("C").stored()));
    EXPECT_TRUE(same_output(want.at("C"), got.at("C")));
    EXPECT_EQ(index_type_of(got.at("C"), 1, "pos"), ValueType::Int32);
}

TEST(CompilerIndexOverflow, RequestedNarrowIndicesAreAnErrorNotATruncation) {
    Operands x;
    std::string message = error_of([&] {
        evaluate_compiled(ir::parse_program(kSpgemm), x.inputs(), {{"C", with_format("csr@32", 2)}},
                          limited(50));
    });
    EXPECT_NE(message.find("output C has more entries than its 32-bit indices"), std::string::npos)
        << message;
    EXPECT_NE(message.find("csr@64"), std::string::npos) << message;
    // @64 asked for: no limit applies.
    auto want = evaluate_reference(ir::parse_program(kSpgemm), x.inputs(), {{"C", with_format("csr", 2)}});
    auto got = evaluate_compiled(ir::parse_program(kSpgemm), x.inputs(), {{"C", with_format("csr@64", 2)}},
                                 limited(50));
    EXPECT_TRUE(same_output(want.at("C"), got.at("C")));
}

// Every level that stores positions checks them: a sparse outer level (dcsr), coo, a bytemap
// last level, dense rows under a sparse level.
TEST(CompilerIndexOverflow, EveryWritableLevelStopsAndIsRebuilt) {
    Operands x;
    const std::string add = "C[i,j] = A[i,j] + B[i,j]";
    for (const std::string format : {"csr", "dcsr", "coo", "dense(0)/sparsebytemap(1)",
                                     "sparselist(0)/dense(1)"}) {
        auto want = evaluate_reference(ir::parse_program(add), x.inputs(), {{"C", with_format(format, 2)}});
        for (int64_t limit : {int64_t{3}, int64_t{200}}) {
            auto got = evaluate_compiled(ir::parse_program(add), x.inputs(), {{"C", with_format(format, 2)}},
                                         limited(limit));
            EXPECT_TRUE(same_output(want.at("C"), got.at("C"))) << format << " " << limit;
        }
        // Each has more than 3 positions in some level (40 rows, hundreds of entries).
        std::string message = error_of([&] {
            OutputSpec narrow = with_format(format, 2);
            narrow.format = narrow.format->with_index_bits(32);
            evaluate_compiled(ir::parse_program(add), x.inputs(), {{"C", narrow}}, limited(3));
        });
        EXPECT_NE(message.find("32-bit indices"), std::string::npos) << format;
    }
}

// Dimensions that fit int32 get 32-bit indices even when rows x columns does not (the old rule
// gave these 64 bits), with the check in the kernel.
TEST(CompilerIndexOverflow, WidthFollowsTheDimensions) {
    Tensor a = make({70000, 70000}, "csr", {{{0, 1}, 2.0}, {{1, 69999}, 3.0}, {{69999, 0}, 4.0}});
    auto got = evaluate_compiled(ir::parse_program(kSpgemm), {{"A", &a}, {"B", &a}},
                                 {{"C", with_format("csr", 2)}}, test_options());
    const Tensor& c = got.at("C");
    EXPECT_EQ(index_type_of(c, 1, "pos"), ValueType::Int32);
    // C[0,69999] = 2 * 3, C[1,0] = 3 * 4, C[69999,1] = 4 * 2 (checked by hand: the reference
    // evaluator would build the dense 70000 x 70000 product).
    std::vector<std::pair<std::vector<int64_t>, double>> stored;
    c.for_each_stored([&](std::span<const int64_t> x, const Scalar& v) {
        stored.push_back({{x.begin(), x.end()}, v.as_double()});
    });
    std::vector<std::pair<std::vector<int64_t>, double>> want{
        {{0, 69999}, 6.0}, {{1, 0}, 12.0}, {{69999, 1}, 8.0}};
    EXPECT_EQ(stored, want);
    EXPECT_EQ(c.stored(), 3);
}

// The generated C of a narrow output tests the count before it stores it; a wide one has no
// such test.
TEST(CompilerIndexOverflow, NarrowOutputsCheckTheirPositionsOnly) {
    auto sig = [](const std::string& f) {
        TensorSignature s;
        s.format = Format::parse(f, 2);
        s.fill = Scalar::of(0.0);
        s.ndims = 2;
        return s;
    };
    std::string narrow = generate_c(ir::parse_program(kSpgemm),
                                    {{"A", sig("csr@32")}, {"B", sig("csr@32")}, {"C", sig("csr@32")}});
    EXPECT_NE(narrow.find("> 2147483647LL"), std::string::npos) << narrow;
    EXPECT_NE(narrow.find("return SISKIN_ERR_INDEX_OVERFLOW;"), std::string::npos) << narrow;
    std::string wide = generate_c(ir::parse_program(kSpgemm),
                                  {{"A", sig("csr@32")}, {"B", sig("csr@32")}, {"C", sig("csr@64")}});
    EXPECT_EQ(wide.find("SISKIN_ERR_INDEX_OVERFLOW"), std::string::npos) << wide;
}

} // namespace
} // namespace siskin::testing
