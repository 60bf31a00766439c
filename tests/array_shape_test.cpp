// Shape operators that move elements (concatenate, stack, pad, tile, reshape, flip) as lazy
// arrays: the conformance cases of the shape-operator notes (../shared/papers/notes/
// shape-operators.md, section 6) with their exact pos/crd/values, the phases a concatenation
// compiles to, and the shape errors.
#include <random>

#include <gtest/gtest.h>

#include "array_numpy_model.hpp"
#include "compiler_test_util.hpp"
#include "siskin/array.hpp"
#include "siskin/error.hpp"
#include "siskin/ir/text.hpp"
#include "siskin/planner.hpp"

namespace siskin::testing {
namespace {

ComputeOptions as(const std::string& format, int ndims) {
    ComputeOptions o;
    o.compile = test_options();
    o.format = Format::parse(format, ndims);
    return o;
}

/// A float64 tensor in `format` from dense rows (0 is the fill).
Tensor from_rows(const std::vector<std::vector<double>>& rows, const std::string& format) {
    std::vector<Scalar> v;
    for (const auto& r : rows)
        for (double x : r) v.push_back(Scalar::of(x));
    std::vector<int64_t> shape = {static_cast<int64_t>(rows.size()),
                                  rows.empty() ? 0 : static_cast<int64_t>(rows[0].size())};
    return Tensor::from_dense(shape, ValueType::Float64, Scalar::of(0.0), Format::parse(format, 2), v);
}

Tensor vector_from(int64_t n, std::vector<std::pair<int64_t, double>> entries,
                   const std::string& format = "sparselist(0)") {
    std::vector<Scalar> v(n, Scalar::of(0.0));
    for (auto [k, x] : entries) v[k] = Scalar::of(x);
    return Tensor::from_dense({n}, ValueType::Float64, Scalar::of(0.0), Format::parse(format, 1), v);
}

/// pos, crd and values of the last (sparselist) level of a CSR matrix or compressed vector.
void expect_csr(const Tensor& t, std::vector<int64_t> pos, std::vector<int64_t> crd,
                std::vector<double> vals) {
    const LevelStorage& l = t.level(t.num_levels() - 1);
    ASSERT_EQ(l.spec.kind, "sparselist") << t.format().to_string();
    EXPECT_EQ(ints(l.buffer("pos")), pos);
    EXPECT_EQ(ints(l.buffer("crd")), crd);
    EXPECT_EQ(doubles(t.values()), vals);
}

/// The compiled result equals the reference evaluator's on the same program.
void expect_reference(const Array& a, const Tensor& got) {
    ComputeOptions ref;
    ref.interpret = true;
    EXPECT_TRUE(got.equals(a.compute(ref))) << a.program_text() << got.to_string();
}

TEST(ArrayShapes, CollapseAndSplitRoundTrip) {
    Array A(from_rows({{0, 5, 0}, {7, 0, 8}}, "csr"), "A");
    // 1. collapse row-major: crd [1,3,5], vals [5,7,8]
    Tensor c = reshape(A, {-1}).compute(as("sparselist(0)", 1));
    expect_csr(c, {0, 3}, {1, 3, 5}, {5, 7, 8});
    // 3. split back: CSR pos [0,1,3], crd [1,0,2]
    Array b(c, "b");
    Tensor s = reshape(b, {2, 3}).compute(as("csr", 2));
    expect_csr(s, {0, 1, 3}, {1, 0, 2}, {5, 7, 8});
    EXPECT_NE(reshape(b, {2, 3}).program_text().find("b[i0 * 3 + i1]"), std::string::npos)
        << reshape(b, {2, 3}).program_text(); // a split is an affine read
    // 5. reshape 2x6 -> 3x4: CSR pos [0,0,2,3], crd [1,2,1], vals [1,2,3]
    Array B(from_rows({{0, 0, 0, 0, 0, 1}, {2, 0, 0, 3, 0, 0}}, "csr"), "B");
    expect_csr(reshape(B, {3, 4}).compute(as("csr", 2)), {0, 0, 2, 3}, {1, 2, 1}, {1, 2, 3});
    // 7. empty rows, and an empty matrix
    Array E(from_rows({{0, 0, 0}, {1, 0, 2}, {0, 0, 0}, {0, 0, 0}}, "csr"), "E");
    expect_csr(reshape(E, {-1}).compute(as("sparselist(0)", 1)), {0, 2}, {3, 5}, {1, 2});
    Array Z(from_rows({{0, 0}, {0, 0}}, "csr"), "Z");
    expect_csr(reshape(Z, {-1}).compute(as("sparselist(0)", 1)), {0, 0}, {}, {});
    // 25. size-1 dimensions: split with |i| = 1 gives pos [0, nnz]
    expect_csr(reshape(b, {1, 6}).compute(as("csr", 2)), {0, 3}, {1, 3, 5}, {5, 7, 8});
    // 16. slice of a collapsed view: crd [0,1,2], vals [5,7,8]
    expect_csr(reshape(A, {-1})[{IndexItem::slice(1, 6, 2)}].compute(as("sparselist(0)", 1)),
               {0, 3}, {0, 1, 2}, {5, 7, 8});
    // 17. a slice of a collapse that starts in an exhausted row: crd [1,6], vals [2,3]
    Array C(from_rows({{1, 0, 0}, {2, 0, 0}, {0, 0, 3}}, "csr"), "C");
    expect_csr(reshape(C, {-1})[{IndexItem::slice(2, 9)}].compute(as("sparselist(0)", 1)),
               {0, 2}, {1, 6}, {2, 3});
    // 19, 20. fused collapse + and * a compressed vector
    Array v(vector_from(6, {{0, 10}, {3, 20}}), "v");
    expect_csr((reshape(A, {-1}) + v).compute(as("sparselist(0)", 1)), {0, 4}, {0, 1, 3, 5},
               {10, 5, 27, 8});
    Array w(vector_from(6, {{1, 2}, {2, 3}, {5, 4}}), "w");
    Array product = reshape(A, {-1}) * w;
    EXPECT_EQ(product.program().outputs().size(), 1u); // fused: no temporary
    expect_csr(product.compute(as("sparselist(0)", 1)), {0, 2}, {1, 5}, {10, 32});
    // 21. split x CSR: (0,1)=10, (0,2)=40, nothing in row 1
    Array a(vector_from(6, {{1, 1}, {2, 2}, {4, 3}}), "a");
    Array B2(from_rows({{0, 10, 20}, {5, 0, 0}}, "csr"), "B2");
    expect_csr((reshape(a, {2, 3}) * B2).compute(as("csr", 2)), {0, 2, 2}, {1, 2}, {10, 40});
}

TEST(ArrayShapes, SplitColumnWiseIntoCsc) {
    // 4. split column-wise: C(i,j) = b[2j + i] with |j| = 3, |i| = 2 (NumPy: b.reshape(3, 2).T),
    // so C(1,0)=5, C(1,1)=7, C(1,2)=8; as CSC: pos [0,1,2,3], crd [1,1,1]
    Array b(vector_from(6, {{1, 5}, {3, 7}, {5, 8}}), "b");
    Array C = reshape(b, {3, 2}).T();
    Tensor csc = C.compute(as("csc", 2));
    expect_csr(csc, {0, 1, 2, 3}, {1, 1, 1}, {5, 7, 8});
    expect_reference(C, csc);
    EXPECT_EQ(C.program().outputs().size(), 1u); // no temporary
}

TEST(ArrayShapes, DenseCollapsePlusSparseVectorHasNoSparseOnlyTail) {
    // 26. collapse(D) + b with D dense 2x3 and b compressed: the dense operand covers every
    // coordinate, so the kernel visits each of the 6 coordinates once (a walk of b's entries
    // with D located beside it, then D alone after b's last entry) and never b alone.
    std::vector<Scalar> d;
    for (double x : {1.0, 0.0, 2.0, 0.0, 3.0, 0.0}) d.push_back(Scalar::of(x));
    Array D(Tensor::from_dense({2, 3}, ValueType::Float64, Scalar::of(0.0), Format::dense(2), d), "D");
    Array b(vector_from(6, {{1, 10}, {4, 20}}), "b");
    Array sum = reshape(D, {-1}) + b;
    Tensor dense = sum.compute(as("dense", 1));
    EXPECT_EQ(doubles(dense.values()), (std::vector<double>{1, 10, 2, 0, 23, 0}));
    expect_reference(sum, dense);
    ArrayProgram p = sum.lower(Format::dense(1));
    CompileOptions counted = test_options();
    counted.count_work = true;
    CompiledProgram k = compile_for(p.program, p.input_pointers(), p.outputs, counted);
    k.run(p.input_pointers());
    // 6 for the dense result's initialisation, then one visit per coordinate: b's 2 entries
    // with D beside them, D's 4 other coordinates (before, between and after them).
    EXPECT_EQ(k.kernel->last_work(), 6 + 6) << k.kernel->c_source();
}

// A split of a compressed vector into rows of 64: the row loop steps through b's entries by their
// row's stop, and the entries of a row all end at the same one. The loop seeks past them once a
// row is done (Stepper::seek_past_empty), so its steps follow the rows, not the entries: each
// row's entries are visited once, by the column loop.
TEST(ArrayShapes, SplitIntoLongRowsStepsOncePerRow) {
    auto value = [](std::mt19937_64& r) { return Scalar::of(static_cast<double>(r() % 5) + 1.0); };
    const int64_t rows = 30, cols = 64;
    for (const char* out : {"csr", "coo"}) {
        Tensor tb = random_tensor_of({rows * cols}, "sparselist(0)", 0.5, Scalar::of(0.0), 21, value);
        Array b(tb, "b");
        Array C = reshape(b, {rows, cols});
        ArrayProgram p = C.lower(Format::parse(out, 2));
        CompileOptions counted = test_options();
        counted.count_work = true;
        CompiledProgram k = compile_for(p.program, p.input_pointers(), p.outputs, counted);
        expect_reference(C, k.run(p.input_pointers()).at(p.result));
        // About 32 entries a row: stepping the row loop per entry would cost ~2 x stored.
        EXPECT_LE(k.kernel->last_work(), tb.stored() + 5 * rows) << out << "\n" << k.kernel->c_source();
    }
}

// 23. The lattice cases of the notes as work counts (looplets stand for the iteration lattice):
// each kernel's steps follow the stored entries of its sparse operands, never the coordinates
// between them, and each result matches the reference evaluator.
TEST(ArrayShapes, LatticeCasesAsWorkCounts) {
    auto value = [](std::mt19937_64& r) { return Scalar::of(static_cast<double>(r() % 5) + 1.0); };
    auto work = [](const Array& e, const std::string& format) {
        ArrayProgram p = e.lower(Format::parse(format, e.ndim()));
        CompileOptions counted = test_options();
        counted.count_work = true;
        CompiledProgram k = compile_for(p.program, p.input_pointers(), p.outputs, counted);
        expect_reference(e, k.run(p.input_pointers()).at(p.result));
        return k.kernel->last_work();
    };
    Tensor tA = random_tensor_of({40, 50}, "csr", 0.02, Scalar::of(0.0), 11, value);
    Tensor tB = random_tensor_of({40, 50}, "csr", 0.02, Scalar::of(0.0), 12, value);
    Array A(tA, "A"), B(tB, "B");
    const int64_t stored = tA.stored() + tB.stored();
    // (a∪b)×c, all sparse: the collapse of a sum walks each row's union, 2000 coordinates.
    EXPECT_LE(work(reshape(A + B, {-1}), "sparselist(0)"), 2 * 40 + 2 * stored);
    // a⊔b: a vstack is one loop per operand, with no test of which one is active (the rows are
    // visited to initialise and to shift the result's row positions).
    EXPECT_LE(work(vstack({A, B}), "csr"), 3 * 80 + 2 * stored);
    // a∪b with b dense: one visit per coordinate (the union, then b alone; no tail over a),
    // beside the dense result's initialisation.
    Array d(random_tensor_of({300}, "dense", 1.0, Scalar::of(0.0), 15, value), "d");
    Array s(random_tensor_of({300}, "sparselist(0)", 0.05, Scalar::of(0.0), 16, value), "s");
    EXPECT_LE(work(s + d, "dense"), 2 * 300);
    // (a×b)∪c with a and b dense is case 26 (DenseCollapsePlusSparseVectorHasNoSparseOnlyTail).
    // a[s:e:r]∪(b×c) is not here: a collapse read under a + (`out[k] = B[k / n, k % n] + ..`)
    // still visits every coordinate of the collapse, not its stored entries.
}

TEST(ArrayShapes, CollapseOfACsfAndAColumnMajorCsc) {
    // 6. T 2x2x3 with (0,1,2)=1, (1,0,0)=2, (1,1,1)=3 collapsed over (i,j): 4x3
    CoordinateList l = entries(3, {{{0, 1, 2}, 1.0}, {{1, 0, 0}, 2.0}, {{1, 1, 1}, 3.0}});
    Array T(Tensor::from_coordinates({2, 2, 3}, ValueType::Float64, Scalar::of(0.0),
                                     Format::csf(3), l), "T");
    Tensor m = reshape(T, {4, 3}).compute(as("csr", 2));
    expect_csr(m, {0, 0, 1, 2, 3}, {2, 0, 1}, {1, 2, 3});
    expect_reference(reshape(T, {4, 3}), reshape(T, {4, 3}).compute(as("dcsr", 2)));
    // 2. the column-major collapse is the collapse of the transpose: crd [1,2,5]
    Array A(from_rows({{0, 5, 0}, {7, 0, 8}}, "csc"), "A");
    expect_csr(reshape(A.T(), {-1}).compute(as("sparselist(0)", 1)), {0, 3}, {1, 2, 5},
               {7, 5, 8});
}

TEST(ArrayShapes, ConcatenationsAreSequentialPhases) {
    // 8. hstack: 2x5 CSR pos [0,2,4], crd [0,4,1,2], vals [1,3,2,4]
    Array B(from_rows({{1, 0}, {0, 2}}, "csr"), "B");
    Array C(from_rows({{0, 0, 3}, {4, 0, 0}}, "csr"), "C");
    expect_csr(hstack({B, C}).compute(as("csr", 2)), {0, 2, 4}, {0, 4, 1, 2}, {1, 3, 2, 4});
    // 9. vstack: pos [0,1,2,3], crd [0,2,1]; two loop nests, no test of the operand
    Array V(from_rows({{1, 0, 0}, {0, 0, 2}}, "csr"), "V");
    Array W(from_rows({{0, 3, 0}}, "coo"), "W"); // 12. a COO operand into a CSR result
    Array vs = vstack({V, W});
    std::string text = vs.program_text();
    EXPECT_NE(text.find("out[i0(0:2), i1] = V[i0, i1]"), std::string::npos) << text;
    EXPECT_NE(text.find("out[i2(2:3), i3] = W[i2, i3]"), std::string::npos) << text;
    EXPECT_EQ(text.find("if"), std::string::npos) << text;
    expect_csr(vs.compute(as("csr", 2)), {0, 1, 2, 3}, {0, 2, 1}, {1, 2, 3});
    Tensor coo = hstack({B, C}).compute(as("coo", 2));
    expect_reference(hstack({B, C}), coo);
    // Sparse results of concatenations are appended directly, not computed dense: an hstack
    // into CSR cuts the column loop inside each row (compiler/ordered_writes.hpp).
    for (const auto& [e, format] : {std::pair{hstack({B, C}), "csr"}, std::pair{hstack({B, C}), "coo"},
                                    std::pair{vs, "csr"}, std::pair{vs, "coo"}}) {
        ArrayProgram p = e.lower(Format::parse(format, 2));
        CompiledProgram k = compile_for(p.program, p.input_pointers(), p.outputs, test_options());
        EXPECT_TRUE(k.convert_after.empty()) << format << "\n" << ir::print(p.program);
    }
    EXPECT_NE(hstack({B, C}).program_text().find("for i0 {\n    for i1 {"), std::string::npos)
        << hstack({B, C}).program_text();
    // 10. an empty operand keeps the other's rows and shifts by its rows
    Array empty(from_rows({{0, 0, 0}, {0, 0, 0}}, "csr"), "Z");
    expect_csr(vstack({V, empty}).compute(as("csr", 2)), {0, 1, 2, 2, 2}, {0, 2}, {1, 2});
    expect_csr(vstack({empty, V}).compute(as("csr", 2)), {0, 0, 0, 1, 2}, {0, 2}, {1, 2});
    // 11. three-way concatenation with row counts 1, 2, 1
    Array r1(from_rows({{1, 0}}, "csr"), "r1"), r2(from_rows({{0, 2}, {3, 0}}, "csr"), "r2"),
        r3(from_rows({{0, 4}}, "csr"), "r3");
    expect_csr(concatenate({concatenate({r1, r2}), r3}).compute(as("csr", 2)), {0, 1, 2, 3, 4},
               {0, 1, 0, 1}, {1, 2, 3, 4});
    // Rows of runlist and sparseband levels concatenate too (each read in storage order), and
    // a reshape of them reads a dense copy (their levels cannot be located at random).
    Array R(from_rows({{2, 2, 0}, {0, 5, 5}}, "dense(0)/runlist(1)"), "R");
    Array S(from_rows({{0, 1, 2}, {3, 0, 0}}, "dense(0)/sparseband(1)"), "S");
    for (const Array& e : {vstack({R, S}), hstack({S, R}), reshape(vstack({R, S}), {3, -1})}) {
        Tensor got = e.compute(as("csr", 2));
        expect_reference(e, got);
    }
    // 22. SpMV on a vstack: y = [3, 3, 4], one phase per operand, no temporary
    Array A(from_rows({{1, 2}, {0, 3}}, "csr"), "A"), B1(from_rows({{4, 0}}, "csr"), "B1");
    Array x(vector_from(2, {{0, 1}, {1, 1}}, "dense"), "x");
    Array y = matmul(vstack({A, B1}), x);
    EXPECT_EQ(y.program().outputs(), std::vector<std::string>{"out"});
    Tensor yt = y.compute(as("dense", 1));
    EXPECT_EQ(doubles(yt.values()), (std::vector<double>{3, 3, 4}));
    // A contraction over an hstack splits the reduced loop: [B C] @ ones
    Array ones(vector_from(5, {{0, 1}, {1, 1}, {2, 1}, {3, 1}, {4, 1}}, "dense"), "ones");
    EXPECT_EQ(doubles(matmul(hstack({B, C}), ones).compute(as("dense", 1)).values()),
              (std::vector<double>{4, 6}));
}

TEST(ArrayShapes, AVstackOfCsrTensorsIsABlockCopyPerOperand) {
    // Three CSR operands (one empty), fill 1: the result is their arrays one after another.
    auto csr = [](std::vector<std::vector<double>> rows) {
        std::vector<Scalar> v;
        for (const auto& r : rows)
            for (double x : r) v.push_back(Scalar::of(x));
        return Tensor::from_dense({static_cast<int64_t>(rows.size()), 3}, ValueType::Float64,
                                  Scalar::of(1.0), Format::csr(), v);
    };
    Array a(csr({{1, 5, 1}, {7, 1, 1}}), "a"), b(csr({{1, 1, 1}}), "b"), c(csr({{1, 1, 9}}), "c");
    Array v = vstack({a, b, c});
    Tensor got = v.compute(as("csr", 2));
    expect_csr(got, {0, 1, 2, 2, 3}, {1, 0, 2}, {5, 7, 9});
    EXPECT_TRUE(got.fill().same(Scalar::of(1.0)));
    expect_reference(v, got);
    // The kernel compute() runs (the planner's plan, the loops free) moves each operand's
    // arrays as one block (src/compiler/block_copy.hpp): one test of stored fills per operand.
    ArrayProgram p = v.lower(Format::csr());
    PlanOptions free_loops;
    free_loops.loops_are_free = true;
    std::string source =
        compile_planned(p.program, p.input_pointers(), p.outputs, test_options(), {}, free_loops).compiled.kernel->c_source();
    size_t blocks = 0;
    for (size_t at = source.find("int32_t block_fill"); at != std::string::npos; at = source.find("int32_t block_fill", at + 1))
        ++blocks;
    EXPECT_EQ(blocks, 3u) << source;
}

TEST(ArrayShapes, SlicesPadTileStackFlip) {
    // 13. rows [0:3:2] of a 6x2 CSR whose row r holds (r, r%2) = r+1
    std::vector<std::vector<double>> rows(6, std::vector<double>(2, 0.0));
    for (int r = 0; r < 6; ++r) rows[r][r % 2] = r + 1;
    Array A(from_rows(rows, "csr"), "A");
    expect_csr(A[{IndexItem::slice(0, 3, 2)}].compute(as("csr", 2)), {0, 1, 2}, {0, 0}, {1, 3});
    Tensor sliced_coo = A[{IndexItem::slice(0, 3, 2)}].compute(as("coo", 2)); // and into COO
    EXPECT_EQ(ints(sliced_coo.level(0).buffer("crd0")), (std::vector<int64_t>{0, 1}));
    EXPECT_EQ(ints(sliced_coo.level(0).buffer("crd1")), (std::vector<int64_t>{0, 0}));
    EXPECT_EQ(doubles(sliced_coo.values()), (std::vector<double>{1, 3}));
    // 14, 15. column slices of compressed levels
    Array row(from_rows({{1, 2, 3, 4, 0, 5}}, "csr"), "row");
    expect_csr(row[{IndexItem::at(0), IndexItem::slice(1, 5, 2)}].compute(as("sparselist(0)", 1)),
               {0, 2}, {0, 1}, {2, 4});
    Array b(vector_from(10, {{0, 1}, {2, 2}, {4, 3}, {5, 4}, {7, 5}, {9, 6}}), "b");
    expect_csr(b[{IndexItem::slice(1, 10, 3)}].compute(as("sparselist(0)", 1)), {0, 2}, {1, 2},
               {3, 5});
    // 18. slice of an intermediate, fused
    Array B(from_rows({{1, 1}, {2, 2}, {3, 3}, {4, 4}, {5, 5}, {6, 6}}, "csr"), "B");
    Array s = (A * B)[{IndexItem::slice(1, 5, 2)}];
    EXPECT_EQ(s.program().outputs().size(), 1u);
    expect_csr(s.compute(as("csr", 2)), {0, 1, 2}, {1, 1}, {4, 16});
    // pad, tile, stack against the reference evaluator and exact values
    Array P(from_rows({{1, 0}, {0, 2}}, "csr"), "P");
    Tensor padded = pad(P, {{1, 0}, {0, 2}}, 0).compute(as("csr", 2));
    expect_csr(padded, {0, 0, 1, 2}, {0, 1}, {1, 2});
    Array pad7 = pad(P, {{1, 1}}, 7);
    Tensor p7 = pad7.compute(as("dense", 2));
    EXPECT_EQ(p7.shape(), (std::vector<int64_t>{4, 4}));
    EXPECT_EQ(p7.at({0, 0}).as_double(), 7.0);
    EXPECT_EQ(p7.at({2, 2}).as_double(), 2.0);
    expect_reference(pad7, p7);
    expect_csr(tile(P, {1, 2}).compute(as("csr", 2)), {0, 2, 4}, {0, 2, 1, 3}, {1, 1, 2, 2});
    Tensor st = stack({P, P}, 1).compute(as("dense", 3));
    EXPECT_EQ(st.shape(), (std::vector<int64_t>{2, 2, 2}));
    EXPECT_EQ(st.at({1, 1, 1}).as_double(), 2.0);
    // flip reads backwards: row 1 of P is row 0 of the result
    Tensor flipped = flip(P, 0).compute(as("csr", 2));
    expect_csr(flipped, {0, 1, 2}, {1, 0}, {2, 1});
    expect_reference(flip(P, 0), flipped);
}

TEST(ArrayShapes, ShapeErrorsNameOperatorOperandsAndSizes) {
    Array A(from_rows({{1, 0, 0}, {0, 2, 0}}, "csr"), "A");
    Array B(from_rows({{1, 0}, {0, 2}}, "csr"), "B");
    // 24. the rejections
    EXPECT_EQ(error_message([&] { (void)reshape(A, {4, 2}); }),
              "reshape: cannot reshape A (shape (2, 3)) (6 elements) into shape (4, 2)");
    EXPECT_EQ(error_message([&] { (void)reshape(A, {-1, 4}); }),
              "reshape: cannot reshape A (shape (2, 3)) (6 elements) into shape (-1, 4)");
    EXPECT_EQ(error_message([&] { (void)reshape(A, {-1, -1}); }),
              "reshape: can only specify one unknown dimension");
    EXPECT_EQ(error_message([&] { (void)vstack({A, B}); }),
              "concatenate: along axis 0, dimension 1 of A (shape (2, 3)) has size 3 but B "
              "(shape (2, 2)) has size 2");
    EXPECT_EQ(error_message([&] { (void)stack({A, B}); }),
              "stack: all input arrays must have the same shape, but A (shape (2, 3)) and B "
              "(shape (2, 2)) differ");
    EXPECT_EQ(error_message([&] { (void)pad(A, {{1, 1}, {1, 1}, {1, 1}}); }),
              "pad: 3 pairs of widths for A (shape (2, 3)) with 2 dimensions");
}

// A collapse at the root is written `out[i0 * n + i1] = A[i0, i1]` in C order: its work follows
// the stored entries (the read form out[k] = A[k / n, k % n] visits all m * n positions). Across
// operand formats (a transposed csc and csr too), fills and 3-D operands, against the reference.
TEST(ArrayShapes, ACollapseAtTheRootWalksTheStoredEntries) {
    auto value = [](std::mt19937_64& r) { return Scalar::of(static_cast<double>(r() % 5) + 1.0); };
    for (const std::string format : {"csr", "csc", "coo", "dcsr", "dense"}) {
        for (double fill : {0.0, 2.0}) {
            SCOPED_TRACE(format + " fill " + std::to_string(fill));
            Array A(random_tensor_of({5, 6}, format, 0.3, Scalar::of(fill), 7, value), "A");
            for (const Array& r : {reshape(A, {-1}), reshape(A.T(), {-1}), reshape(A, {30, 1})}) {
                EXPECT_EQ(r.program_text().find("floordiv"), std::string::npos) << r.program_text();
                expect_reference(r, r.compute(as(r.ndim() == 1 ? "sparselist(0)" : "csr", r.ndim())));
            }
            expect_reference(reshape(A, {-1}), reshape(A, {-1}).compute(as("dense", 1)));
        }
    }
    Array T(random_tensor_of({2, 3, 5}, "csf", 0.3, Scalar::of(0.0), 8, value), "T");
    expect_reference(reshape(T, {6, 5}), reshape(T, {6, 5}).compute(as("csr", 2)));
    expect_reference(reshape(T, {2, 15}), reshape(T, {2, 15}).compute(as("csr", 2)));
    // 5 entries of a 2000 x 2000 CSR: one step per row and per entry, not 4 million.
    CoordinateList l = entries(2, {{{3, 4}, 1.0}, {{3, 9}, 2.0}, {{700, 0}, 3.0}, {{1999, 1999}, 4.0}, {{5, 5}, 5.0}});
    Array big(Tensor::from_coordinates({2000, 2000}, ValueType::Float64, Scalar::of(0.0), Format::csr(), l), "big");
    ArrayProgram p = reshape(big, {-1}).lower(Format::parse("sparselist(0)", 1));
    CompileOptions counted = test_options();
    counted.count_work = true;
    CompiledProgram k = compile_for(p.program, p.input_pointers(), p.outputs, counted);
    auto out = k.run(p.input_pointers());
    EXPECT_LE(k.kernel->last_work(), 2 * 2000 + 2 * 5) << k.kernel->c_source();
    expect_csr(out.at(p.result), {0, 5}, {3 * 2000 + 4, 3 * 2000 + 9, 5 * 2000 + 5, 700 * 2000, 1999 * 2000 + 1999},
               {1, 2, 5, 3, 4});
}

TEST(ArrayShapes, LinearPositionsPast32Bits) {
    // 28. 32- and 64-bit positions and coordinates give the same collapse and split.
    Tensor narrow = from_rows({{0, 5, 0, 1}, {7, 0, 8, 0}, {0, 0, 0, 2}}, "csr").convert(Format::csr().with_index_bits(32));
    Array a32(narrow, "a"), a64(narrow.convert(Format::csr().with_index_bits(64)), "a");
    for (const std::vector<int64_t>& shape : {std::vector<int64_t>{-1}, std::vector<int64_t>{2, 6}}) {
        const std::string format = shape.size() == 1 ? "sparselist(0)" : "csr";
        Tensor t32 = reshape(a32, shape).compute(as(format, shape.size()));
        Tensor t64 = reshape(a64, shape).compute(as(format, shape.size()));
        EXPECT_TRUE(t32.equals(t64)) << t32.to_string() << t64.to_string();
        expect_reference(reshape(a64, shape), t64);
    }
    // 28. a collapse whose linear coordinate passes 2^31: 70000 x 70000 has 4.9e9 elements.
    CoordinateList l = entries(2, {{{69999, 69998}, 3.0}, {{1, 2}, 1.0}});
    Array A(Tensor::from_coordinates({70000, 70000}, ValueType::Float64, Scalar::of(0.0),
                                     Format::csr(), l), "A");
    // The last 10 elements of the collapse, read through a slice of it.
    Tensor t = reshape(A, {-1})[{IndexItem::slice(-10, std::nullopt)}].compute(as("sparselist(0)", 1));
    EXPECT_EQ(t.shape(), std::vector<int64_t>{10});
    expect_csr(t, {0, 1}, {8}, {3});
    // The whole collapse, written at linear coordinates past 2^31.
    expect_csr(reshape(A, {-1}).compute(as("sparselist(0)", 1)), {0, 2}, {70002, int64_t{69999} * 70000 + 69998},
               {1, 3});
}

} // namespace
} // namespace siskin::testing
