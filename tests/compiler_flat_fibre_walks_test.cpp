// Nests over consecutive fibres walked flat (codegen flatten_fibre_walks): a column-order scatter
// (CSC SpMV, a column sum of CSR) against the reference evaluator, on a matrix whose blocks take
// every path of the flat form: short columns of varying length (copies, one walk), columns of
// one length and long columns (the nest as it was), a column longer than a block, empty columns.
#include <cmath>
#include <random>

#include <gtest/gtest.h>

#include "compiler_test_util.hpp"

namespace siskin::testing {
namespace {

// rows x 1400 in `format`: columns 0-399 of 0-24 entries (uneven, short), 400-699 of exactly 12,
// 700-899 of 17-30 (copied by the loop for fibres over 16), column 900 of 1500 (longer than a
// block), 901-1399 uneven again with every seventh empty: about 14 a column, so the runtime
// walks it flat (siskin_flat_walk.h: 8 to 16 on average). Values are whole numbers in -3..3 without 0, so every order of the sums agrees.
Tensor column_matrix(const std::string& format, uint64_t seed) {
    const int64_t rows = 1600, cols = 1400;
    std::mt19937_64 rng(seed);
    CoordinateList list;
    list.ndims = 2;
    std::vector<int64_t> row_ids(rows);
    for (int64_t i = 0; i < rows; ++i) row_ids[static_cast<size_t>(i)] = i;
    for (int64_t j = 0; j < cols; ++j) {
        int64_t length = j < 400 ? static_cast<int64_t>(rng() % 25)
                         : j < 700 ? 12
                         : j < 900 ? 17 + static_cast<int64_t>(rng() % 14)
                         : j == 900 ? 1500
                         : j % 7 == 0 ? 0
                                      : static_cast<int64_t>(rng() % 25);
        std::shuffle(row_ids.begin(), row_ids.end(), rng);
        for (int64_t k = 0; k < length; ++k) {
            int64_t v = static_cast<int64_t>(rng() % 6) - 3;
            list.add(std::vector<int64_t>{row_ids[static_cast<size_t>(k)], j}, Scalar::of(double(v >= 0 ? v + 1 : v)));
        }
    }
    return Tensor::from_coordinates({rows, cols}, ValueType::Float64, Scalar::of(0.0), Format::parse(format, 2), list);
}

Tensor dense_vector(int64_t n, uint64_t seed) {
    std::mt19937_64 rng(seed);
    CoordinateList list;
    list.ndims = 1;
    for (int64_t k = 0; k < n; ++k) list.add(std::vector<int64_t>{k}, Scalar::of(double(int64_t(rng() % 5) + 1)));
    return Tensor::from_coordinates({n}, ValueType::Float64, Scalar::of(0.0), Format::parse("dense", 1), list);
}

void expect_matches_reference(const std::string& text, const std::map<std::string, const Tensor*>& inputs,
                              const std::string& in_c, const std::string& not_in_c) {
    ir::Program program = ir::parse_program(text);
    auto want = evaluate_reference(program, inputs, {});
    for (int threads : {1, 2, 3}) {
        SCOPED_TRACE(text + ", threads " + std::to_string(threads));
        CompileOptions o = test_options();
        o.threads = threads;
        o.parallel_min_work = 0;
        CompiledProgram k = compile_for(program, inputs, {}, o);
        const std::string& c = k.kernel->c_source();
        EXPECT_NE(c.find(in_c), std::string::npos) << c;
        if (!not_in_c.empty()) {
            EXPECT_EQ(c.find(not_in_c), std::string::npos) << c;
        }
        auto got = k.run(inputs);
        for (const auto& [name, w] : want) {
            EXPECT_TRUE(same_output(w, got.at(name)))
                << name << ": reference " << w.to_string() << "\ncompiled " << got.at(name).to_string();
        }
    }
}

// SpMV by columns: x[j] is copied beside each entry of a block of short uneven columns; the
// other blocks run as the nest. Both rounds of the sum give the reference's values.
TEST(CompilerFlatFibreWalks, ColumnScatterCopiesWhatTheColumnReads) {
    Tensor A = column_matrix("csc", 1), x = dense_vector(1400, 2);
    expect_matches_reference("for j, i { y[i] += A[i,j] * x[j] }", {{"A", &A}, {"x", &x}}, "x_values_at_entry", "");
    // Columns of 3 entries on average: the runtime keeps the nest (siskin_flat_walk.h).
    Tensor sparse = random_matrix_of(500, 400, 0.006, "csc", 8, 0.0, [](double u) { return std::floor(u * 7) - 3; });
    Tensor w = dense_vector(400, 9);
    expect_matches_reference("for j, i { y[i] += A[i,j] * x[j] }", {{"A", &sparse}, {"x", &w}}, "x_values_at_entry", "");
    // Two loads through j, one of them twice.
    Tensor z = dense_vector(1400, 3);
    expect_matches_reference("for j, i { y[i] += A[i,j] * x[j] * z[j] * x[j] }", {{"A", &A}, {"x", &x}, {"z", &z}},
                             "z_values_at_entry", "");
}

// A column sum of CSR reads nothing through the row: all rows are one walk over their entries.
TEST(CompilerFlatFibreWalks, RowsThatTheBodyDoesNotReadAreOneWalk) {
    Tensor A = column_matrix("csr", 4);
    expect_matches_reference("for i, j { y[j] += A[i,j] }", {{"A", &A}}, "i_last", "_at_entry");
}

// Left as nests: a body that writes through the outer index (a row's output slot), or reads it
// other than in a load (a comparison with the coordinate: the diagonal).
TEST(CompilerFlatFibreWalks, NestsThatUseTheOuterIndexOtherwiseStay) {
    Tensor A = column_matrix("csc", 5), x = dense_vector(1600, 6);
    expect_matches_reference("for j, i { y[j] += A[i,j] * x[i] }", {{"A", &A}, {"x", &x}}, "A_pos[j + 1LL]",
                             "_at_entry");
    Tensor B = column_matrix("csr", 7);
    expect_matches_reference("for i, j { if i == j { y[j] += B[i,j] } }", {{"B", &B}}, "B_pos", "_at_entry");
}

} // namespace
} // namespace siskin::testing
