// Kernels on several threads (CompileOptions::threads): programs whose outer loop writes
// disjoint rows (or reduces into scalars, or into vectors every row writes: a copy per thread)
// run as one balanced chunk per thread, and agree with the reference evaluator at
// 1, 2, 3 and 7 threads (odd counts catch chunking bugs) on matrices with empty rows and a row
// as long as the matrix is wide; their float results keep the same bits from run to run and from
// thread count to thread count; an error raised in a late chunk, the work counter and the
// thread-count setting behave as on one thread.
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <optional>
#include <span>
#include <thread>
#include <tuple>

#include "compiler/kernel_impl.hpp"
#include "compiler_test_util.hpp"
#include "masked_vector_operands.hpp"
#include "ir_test_support.hpp"
#include "siskin_chunk.h"

namespace siskin::testing {
namespace {

// An output spec that gives only the format (the rest inferred).
OutputSpec spec_of(Format f) {
    OutputSpec s;
    s.format = std::move(f);
    return s;
}

using ir::test::expect_error;

const int kThreadCounts[] = {1, 2, 3, 7};

CompileOptions threaded(int threads) {
    CompileOptions o = test_options();
    o.threads = threads;
    o.parallel_min_work = 0; // small inputs run in parallel too
    return o;
}

// A rows x cols matrix: rows 0, 5 and the last empty, row 3 full, others random (values -3..3
// but 0, so sums are exact and only the iteration space can differ).
Tensor skewed_matrix(int64_t rows, int64_t cols, const std::string& format, uint64_t seed) {
    std::mt19937_64 rng(seed);
    CoordinateList list;
    list.ndims = 2;
    for (int64_t i = 0; i < rows; ++i) {
        if (i == 0 || i == 5 || i == rows - 1) continue;
        for (int64_t j = 0; j < cols; ++j) {
            if (i != 3 && rng() % 5 != 0) continue;
            int v = static_cast<int>(rng() % 6) - 3;
            list.add(std::vector<int64_t>{i, j}, Scalar::of(static_cast<double>(v >= 0 ? v + 1 : v)));
        }
    }
    return Tensor::from_coordinates({rows, cols}, ValueType::Float64, Scalar::of(0.0),
                                    Format::parse(format, 2), list);
}

struct ThreadedCase {
    std::string program;
    // 1: expected to get a parallel region (but on dcsr, whose loop walks stored rows), 2: on
    // every format (a storage-order reduction walks positions in slices; a row walk that is not
    // one counted loop runs as runs of rows), 0: not, -1: either
    int parallel;
};

TEST(ThreadedKernels, MatchTheReferenceAtEveryThreadCount) {
    const std::vector<ThreadedCase> cases = {
        {"y[i] += A[i, j] * x[j]", true},
        {"y[i] += A[i, j]", true},
        {"C[i, k] += A[i, j] * B[j, k]", true},
        {"C[i, j] = A[i, j] * D[i, j] + 1", true},
        {"for i, j { let t = A[i, j] * 2 { y[i] += t * x[j] } }", true},
        // Reductions into scalars: per-thread partials.
        {"s[] += A[i, j] * x[j]", true},
        {"for i, j { y[i] += A[i, j] * x[j]; s[] += A[i, j] }", true},
        {"for i, j { y[i] += A[i, j] * x[j]; s[] max= A[i, j] }", -1},
        // Min and max of a whole tensor in storage order: a slice of its values per thread in
        // vector lanes, or in streams that stop together (compiler_threads_early_exit_test).
        {"s[] max= A[i, j]", 2},
        {"s[] min= A[i, j]", 2},
        {"s[] min= A[i, j] * 2", -1},
        // Reductions into vectors that every row writes: a copy per thread, folded in order.
        {"for i, j { y[j] += A[i, j] }", true},
        // dcsr too: its stored rows merged with D's are a loop lowered as runs of rows, one per
        // thread (row_slices.hpp).
        {"for i, j { y[j] max= A[i, j] * D[i, j] }", 2},
        {"for i, j { y[i] += A[i, j] * x[j]; z[j] += A[i, j] }", true},
        {"for j, i { y[i] += A[i, j] * x[j] }", true},
        // Not parallel: a plain store into a vector every row writes.
        {"for i, j { y[j] = A[i, j] }", false},
    };
    const int64_t rows = 41, cols = 37;
    Tensor x = random_tensor_of({cols}, "dense", 0.8, Scalar::of(0.0), 3,
                                [](std::mt19937_64& r) { return Scalar::of(static_cast<double>(r() % 5) + 1); });
    Tensor B = random_tensor_of({cols, 5}, "dense", 0.7, Scalar::of(0.0), 4,
                                [](std::mt19937_64& r) { return Scalar::of(static_cast<double>(r() % 5) - 2); });
    Tensor D = skewed_matrix(rows, cols, "csr", 5);
    // Every thread count on CSR; one each on the other formats (compiling dominates the time).
    const std::vector<std::pair<std::string, std::vector<int>>> runs = {
        {"csr", {1, 2, 3, 7}}, {"dense", {3}}, {"csr@64", {2}}, {"dcsr", {7}}};
    for (const auto& [format, thread_counts] : runs) {
        Tensor A = skewed_matrix(rows, cols, format, 6);
        std::map<std::string, const Tensor*> all{{"A", &A}, {"x", &x}, {"B", &B}, {"D", &D}};
        for (const auto& c : cases) {
            ir::Program program = ir::parse_program(c.program);
            std::map<std::string, const Tensor*> inputs;
            for (const auto& [name, t] : all)
                if (c.program.find(name + "[") != std::string::npos) inputs.emplace(name, t);
            auto want = evaluate_reference(program, inputs);
            for (int threads : thread_counts) {
                CompiledProgram k = compile_for(program, inputs, {}, threaded(threads));
                bool region = k.kernel->c_source().find("#pragma omp parallel") != std::string::npos;
                // dcsr's rows are not a dense level: its loop walks stored rows, serially.
                if (c.parallel >= 0) {
                    EXPECT_EQ(region, c.parallel > 0 && threads > 1 && (format != "dcsr" || c.parallel == 2))
                        << c.program << " " << format << " threads " << threads;
                }
                auto got = k.run(inputs);
                for (const auto& [name, w] : want)
                    EXPECT_TRUE(same_output(w, got.at(name)))
                        << c.program << " " << format << " threads " << threads << "\n"
                        << name << ": reference " << w.to_string() << "\ncompiled "
                        << got.at(name).to_string();
            }
        }
    }
}

// Every buffer of every level and the values, byte for byte.
bool same_storage(const Tensor& a, const Tensor& b) {
    auto same = [](const Buffer& x, const Buffer& y) {
        return x.type() == y.type() && x.size() == y.size() &&
               std::memcmp(x.data<char>(), y.data<char>(), static_cast<size_t>(x.size()) * type_size(x.type())) == 0;
    };
    if (a.format().levels().size() != b.format().levels().size() || !same(a.values(), b.values())) return false;
    for (int k = 0; k < static_cast<int>(a.format().levels().size()); ++k) {
        const auto &x = a.level(k).buffers, &y = b.level(k).buffers;
        if (x.size() != y.size()) return false;
        for (size_t n = 0; n < x.size(); ++n)
            if (!same(x[n], y[n])) return false;
    }
    return true;
}

TEST(ThreadedKernels, SparseOutputsAreJoinedInRowOrder) {
    // CSR outputs: each thread appends its chunk of rows to buffers of its own, joined in chunk
    // order. On small integers the result is the reference's; on random doubles it has the
    // serial kernel's bytes (same entries, order and float sums: a different summation order
    // would show).
    const std::vector<std::string> programs = {
        "C[i, j] = A[i, j] + D[i, j]",
        "C[i, j] = A[i, j] * D[i, j]",
        "C[i, k] += A[i, j] * E[j, k]",           // Gustavson: a row workspace per thread
        "C[i, k] += M[i, k] * A[i, j] * F[k, j]", // masked product
        "for i, j { C[i, j] = A[i, j] * 2; y[i] += A[i, j] }",
    };
    auto doubles = [](double u) { return u * 1e3 - 500; };
    // Exact: empty rows and a full one in each operand.
    Tensor A = skewed_matrix(41, 37, "csr", 31), D = skewed_matrix(41, 37, "csr", 32),
           E = skewed_matrix(37, 29, "csr", 33), F = skewed_matrix(29, 37, "csr", 34),
           M = skewed_matrix(41, 29, "csr", 35);
    std::map<std::string, const Tensor*> exact{{"A", &A}, {"D", &D}, {"E", &E}, {"F", &F}, {"M", &M}};
    Tensor rA = random_matrix_of(41, 37, 0.3, "csr", 36, 0.0, doubles),
           rD = random_matrix_of(41, 37, 0.3, "csr", 37, 0.0, doubles),
           rE = random_matrix_of(37, 29, 0.3, "csr", 38, 0.0, doubles),
           rF = random_matrix_of(29, 37, 0.3, "csr", 39, 0.0, doubles),
           rM = random_matrix_of(41, 29, 0.4, "csr", 40, 0.0, doubles);
    std::map<std::string, const Tensor*> rounded{{"A", &rA}, {"D", &rD}, {"E", &rE}, {"F", &rF}, {"M", &rM}};
    for (const auto& text : programs) {
        ir::Program program = ir::parse_program(text);
        auto used = [&](const std::map<std::string, const Tensor*>& all) {
            std::map<std::string, const Tensor*> out;
            for (const auto& [name, t] : all)
                if (text.find(name + "[") != std::string::npos) out.emplace(name, t);
            return out;
        };
        std::map<std::string, OutputSpec> specs{{"C", spec_of(Format::parse("csr", 2))}};
        auto want = evaluate_reference(program, used(exact), specs);
        std::optional<std::map<std::string, Tensor>> serial;
        for (int threads : kThreadCounts) {
            CompiledProgram k = compile_for(program, used(exact), specs, threaded(threads));
            EXPECT_EQ(k.kernel->c_source().find("#pragma omp parallel") != std::string::npos, threads > 1)
                << text << " threads " << threads;
            auto got = k.run(used(exact));
            for (const auto& [name, w] : want)
                EXPECT_TRUE(same_output(w, got.at(name)))
                    << text << " threads " << threads << "\n" << name << ": reference " << w.to_string()
                    << "\ncompiled " << got.at(name).to_string();
            auto bits = k.run(used(rounded));
            if (!serial) serial = bits;
            for (const auto& [name, t] : bits)
                EXPECT_TRUE(same_storage(serial->at(name), t)) << text << " threads " << threads << " " << name;
        }
    }
}

// About a tenth of [0, n), seeded: a sparse mask.
CoordinateList tenth_of(int64_t n, uint64_t seed) {
    std::mt19937_64 rng(seed);
    CoordinateList list;
    list.ndims = 1;
    for (int64_t k = 0; k < n; ++k)
        if (rng() % 10 == 0) list.add(std::vector<int64_t>{k}, Scalar::of(true));
    return list;
}

// A masked mxv's operands on n rows of 20 entries each (columns spread by a stride, all
// distinct), x on about a tenth of n, for the work threshold: 20 n entries.
MaskedVectorOperands large_masked_operands(int64_t n) {
    std::mt19937_64 rng(80);
    CoordinateList ab, aw, xb, xw;
    ab.ndims = aw.ndims = 2;
    for (int64_t i = 0; i < n; ++i)
        for (int64_t k = 0; k < 20; ++k) {
            std::vector<int64_t> at{i, (i * 7919 + k * (n / 20 + 1)) % n};
            ab.add(at, Scalar::of(true));
            aw.add(at, Scalar::of(static_cast<double>(rng() % 1000) / 8));
        }
    xb = tenth_of(n, 81);
    xw.ndims = 1;
    for (int64_t k : xb.coords) xw.add(std::vector<int64_t>{k}, Scalar::of(static_cast<double>(rng() % 1000) / 16));
    return masked_vector_operands(n, ab, aw, xb, xw);
}

// The masked mxv's values computed by hand from its operands (the oracle where the reference
// evaluator's dense walk, rows x rows, would take minutes): y[i] on the rows where m[i] (or, when
// `complemented`, !m[i]) holds, over A's stored entries: the or of A[i,j] && x[j] (bools), or the
// least A[i,j] + x[j] (weights); y's fill (false, inf) elsewhere. Values only: the small inputs
// of MaskedVectorOutputsAreJoinedInOrder check the stored entries against the reference.
Tensor masked_mxv_by_hand(const Tensor& A, const Tensor& x, const Tensor& m, bool complemented, bool weights) {
    const int64_t n = A.shape().at(0);
    std::vector<Scalar> y(static_cast<size_t>(n), A.fill());
    A.for_each_stored([&](std::span<const int64_t> c, const Scalar& a) {
        if (m.at({c[0]}).as_bool() == complemented) return;
        Scalar& yi = y[static_cast<size_t>(c[0])];
        const Scalar xj = x.at({c[1]});
        yi = weights ? Scalar::of(std::min(yi.as_double(), a.as_double() + xj.as_double()))
                     : Scalar::of(yi.as_bool() || (a.as_bool() && xj.as_bool()));
    });
    CoordinateList list;
    list.ndims = 1;
    for (int64_t i = 0; i < n; ++i) list.add(std::vector<int64_t>{i}, y[static_cast<size_t>(i)]);
    return Tensor::from_coordinates({n}, A.type(), A.fill(), Format::parse("dense(0)", 1), list);
}

// The bodies of the masked mxv of bench/peers (masked_mxv), and whether they read weights:
// (or, and), whose rows stop at their first true, and (min, +).
const std::vector<std::pair<std::string, bool>> kMaskedBodies{{"y[i] |= A[i,j] && x[follow(j)]", false},
                                                              {"y[i] min= tplus(A[i,j], x[follow(j)])", true}};

// The masked mxv of bench/peers (masked_mxv): a loop over i appends y[i] to a 1-D sparselist
// output, at most one entry an iteration, in i order. Where the loop is one counted loop over
// A's rows (no mask, or a dense mask, plain or complemented), thread t > 0 appends its chunk's
// entries to parts of its own, joined in order: a team of `threads` runs it (last_threads), and
// the joined buffers are the reference's values and the serial kernel's bytes. So does the loop
// over a sparselist mask's positions (`if m[i]`: chunks of m's positions), and the complemented
// sparse mask's walk over the gaps between m's positions, lowered as one run of rows per
// thread, each seeking its start in m (row_slices.hpp). Masks: a sparse one, all true, none; A
// has empty rows, a run of them, and rows as long as the matrix is wide. Then, on 20,000 rows
// and the default work threshold, the complemented sparse mask runs on a team of 2 and 3.
TEST(ThreadedKernels, MaskedVectorOutputsAreJoinedInOrder) {
    const int64_t n = 300;
    CoordinateList ab, aw, xb, xw;
    ab.ndims = aw.ndims = 2;
    xb.ndims = xw.ndims = 1;
    std::mt19937_64 rng(77);
    for (int64_t i = 0; i < n; ++i) {
        if (i == 0 || i == 5 || i == n - 1 || (i > 200 && i < 230)) continue; // empty rows, a run of them
        for (int64_t j = 0; j < n; ++j) {
            if (i != 3 && i != 150 && rng() % 40 != 0) continue; // rows 3 and 150 full
            ab.add(std::vector<int64_t>{i, j}, Scalar::of(true));
            aw.add(std::vector<int64_t>{i, j}, Scalar::of(static_cast<double>(rng() % 1000) / 8));
        }
    }
    for (int64_t k = 0; k < n; k += 7) {
        xb.add(std::vector<int64_t>{k}, Scalar::of(true));
        xw.add(std::vector<int64_t>{k}, Scalar::of(static_cast<double>(rng() % 1000) / 16));
    }
    const MaskedVectorOperands operands = masked_vector_operands(n, ab, aw, xb, xw);
    std::vector<std::pair<std::string, CoordinateList>> mask_lists{{"sparse", {}}, {"full", {}}, {"empty", {}}};
    for (auto& [kind, list] : mask_lists) {
        list.ndims = 1;
        for (int64_t k = 0; k < n; ++k)
            if (kind == "full" || (kind == "sparse" && rng() % 10 == 0)) list.add(std::vector<int64_t>{k}, Scalar::of(true));
    }
    OutputSpec sparse;
    sparse.format = Format::parse("sparselist(0)", 1);
    std::map<std::string, OutputSpec> specs{{"y", sparse}};
    for (const auto& [body, weights] : kMaskedBodies) {
        const Tensor& A = weights ? operands.Aw : operands.Ab;
        const Tensor& x = weights ? operands.Xw : operands.Xb;
        const std::string prelude = weights ? kTropicalPlus : "";
        // (program, mask format or "" for none, parallel)
        std::vector<std::tuple<std::string, std::string, bool>> programs{
            {"for i { " + body + " }", "", true},
            {"for i { if m[i] { " + body + " } }", "dense", true},
            {"for i { if !m[i] { " + body + " } }", "dense", true},
            {"for i { if m[i] { " + body + " } }", "sparselist(0)", true},
            {"for i { if !m[i] { " + body + " } }", "sparselist(0)", true},
        };
        for (const auto& [text, mask_format, parallel] : programs)
            for (const auto& [kind, list] : mask_lists) {
                if (mask_format.empty() && kind != "sparse") continue; // no mask: once
                std::optional<Tensor> M;
                std::map<std::string, const Tensor*> inputs{{"A", &A}, {"x", &x}};
                if (!mask_format.empty()) {
                    M = vector_of(n, ValueType::Bool, Scalar::of(false), mask_format, list);
                    inputs.emplace("m", &*M);
                }
                ir::Program program = ir::parse_program(prelude + text);
                Tensor want = evaluate_reference(program, inputs, specs).at("y");
                std::optional<Tensor> serial;
                for (int threads : kThreadCounts) {
                    SCOPED_TRACE(text + " mask " + mask_format + " " + kind + " threads " + std::to_string(threads));
                    CompiledProgram k = compile_for(program, inputs, specs, threaded(threads));
                    const std::string& c = k.kernel->c_source();
                    EXPECT_EQ(c.find("#pragma omp parallel") != std::string::npos, parallel && threads > 1) << c;
                    Tensor got = k.run(inputs).at("y");
                    // An empty sparse mask has no positions: the loop over them, and its team,
                    // never start (the complemented mask's runs of rows do).
                    const bool starts = mask_format != "sparselist(0)" || kind != "empty" ||
                                        text.find("!m[i]") != std::string::npos;
                    EXPECT_EQ(k.kernel->impl().last_threads().kernel, parallel && starts ? threads : 1);
                    EXPECT_TRUE(same_output(want, got)) << "reference " << want.to_string() << "\ncompiled "
                                                        << got.to_string();
                    if (!serial) serial = got;
                    EXPECT_TRUE(same_storage(*serial, got));
                    EXPECT_TRUE(same_storage(got, k.run(inputs).at("y"))) << "a second call (kept parts)";
                }
            }
    }

    // Above the default work threshold (CompileOptions::parallel_min_work): 20,000 rows of 20
    // entries, a mask on about a tenth of them. The complemented mask's runs get a team of
    // `threads` (or.and counts 2 units a row, 40,000: rows that stop early, parallel_marks.hpp),
    // and give the values computed by hand and the serial kernel's bytes.
    const int64_t rows = 20000;
    const MaskedVectorOperands large = large_masked_operands(rows);
    Tensor M = vector_of(rows, ValueType::Bool, Scalar::of(false), "sparselist(0)", tenth_of(rows, 78));
    std::map<std::string, const Tensor*> inputs{{"m", &M}};
    for (const auto& [body, weights] : kMaskedBodies) {
        inputs["A"] = weights ? &large.Aw : &large.Ab;
        inputs["x"] = weights ? &large.Xw : &large.Xb;
        ir::Program program = ir::parse_program((weights ? kTropicalPlus : "") + "for i { if !m[i] { " + body + " } }");
        Tensor want = masked_mxv_by_hand(*inputs["A"], *inputs["x"], M, true, weights);
        CompileOptions serial_options = test_options();
        serial_options.threads = 1;
        Tensor serial = compile_for(program, inputs, specs, serial_options).run(inputs).at("y");
        EXPECT_TRUE(want.equals(serial)) << body;
        for (int threads : {2, 3}) {
            SCOPED_TRACE(body + " on " + std::to_string(rows) + " rows, threads " + std::to_string(threads));
            CompileOptions o = test_options();
            o.threads = threads;
            ASSERT_EQ(o.parallel_min_work, 32768); // the default
            CompiledProgram k = compile_for(program, inputs, specs, o);
            Tensor got = k.run(inputs).at("y");
            EXPECT_EQ(k.kernel->impl().last_threads().kernel, threads);
            EXPECT_TRUE(want.equals(got));
            EXPECT_TRUE(same_storage(serial, got));
        }
    }
}

// Rows whose reduction stops early (or.and at its first true) count each row and at most one
// entry of it toward the work threshold: under a plain sparse mask on a tenth of 20,000 rows of
// 20 entries, the (min, +) product's 2,000 rows of 21 units (42,000) start a team, the or.and
// product's 2 units a row (4,000) stay on one thread. Both give the values computed by hand.
TEST(ThreadedKernels, RowsThatStopEarlyCountOneEntryTowardTheThreshold) {
    const int64_t rows = 20000;
    const MaskedVectorOperands large = large_masked_operands(rows);
    Tensor M = vector_of(rows, ValueType::Bool, Scalar::of(false), "sparselist(0)", tenth_of(rows, 79));
    OutputSpec sparse;
    sparse.format = Format::parse("sparselist(0)", 1);
    std::map<std::string, OutputSpec> specs{{"y", sparse}};
    std::map<std::string, const Tensor*> inputs{{"m", &M}};
    for (const auto& [body, weights] : kMaskedBodies) {
        SCOPED_TRACE(body);
        inputs["A"] = weights ? &large.Aw : &large.Ab;
        inputs["x"] = weights ? &large.Xw : &large.Xb;
        ir::Program program = ir::parse_program((weights ? kTropicalPlus : "") + "for i { if m[i] { " + body + " } }");
        CompileOptions o = test_options();
        o.threads = 2;
        CompiledProgram k = compile_for(program, inputs, specs, o);
        Tensor got = k.run(inputs).at("y");
        EXPECT_EQ(k.kernel->impl().last_threads().kernel, weights ? 2 : 1);
        EXPECT_TRUE(masked_mxv_by_hand(*inputs["A"], *inputs["x"], M, false, weights).equals(got));
    }
}

// Rows that stop early (or.and at its first true) are cut into chunks that weigh each row as
// SISKIN_EARLY_ROW_MEANS mean rows' entries besides its own (siskin_chunk_first_early, prelude):
// with 10 rows of 1000 entries before 990 rows of 2, two chunks by entries meet within the long
// rows, by that weight near row 400. The chunks of 1, 2, 3 and 7 cover [lo, hi) in order, and
// a loop with no entries is cut by rows. Then the or.and masked mxv on a matrix whose first rows
// are long, with no mask, a dense and a sparse complemented one: its chunks or runs of rows are
// cut that way (the kernel calls the early cut; the (min, +) product, which walks every entry,
// the cut by entries), a team of `threads` runs it, and it gives the reference's values and the
// serial kernel's bytes at 1, 2, 3 and 7 threads.
TEST(ThreadedKernels, RowsThatStopEarlyAreCutByRowsMoreThanByEntries) {
    std::vector<int32_t> pos{0};
    for (int k = 0; k < 1000; ++k) pos.push_back(pos.back() + (k < 10 ? 1000 : 2));
    EXPECT_LT(siskin_chunk_first_i32(pos.data(), 0, 1000, 1, 2), 10);
    const int64_t half = siskin_chunk_first_early_i32(pos.data(), 0, 1000, 1, 2);
    EXPECT_GT(half, 350);
    EXPECT_LT(half, 450);
    std::vector<int64_t> pos64(pos.begin(), pos.end());
    EXPECT_EQ(siskin_chunk_first_early_i64(pos64.data(), 0, 1000, 1, 2), half);
    for (int chunks : kThreadCounts) {
        SCOPED_TRACE(chunks);
        EXPECT_EQ(siskin_chunk_first_early_i32(pos.data(), 3, 1000, 0, chunks), 3);
        EXPECT_EQ(siskin_chunk_first_early_i32(pos.data(), 3, 1000, chunks, chunks), 1000);
        for (int t = 0; t < chunks; ++t)
            EXPECT_LE(siskin_chunk_first_early_i32(pos.data(), 3, 1000, t, chunks),
                      siskin_chunk_first_early_i32(pos.data(), 3, 1000, t + 1, chunks));
        EXPECT_EQ(siskin_chunk_first_early_i32(pos.data(), 7, 7, 1, chunks), 7); // no rows
    }
    const std::vector<int32_t> none(101, 5); // 100 rows, no entries: equal runs of rows
    EXPECT_EQ(siskin_chunk_first_early_i32(none.data(), 0, 100, 1, 2), 50);

    const int64_t n = 1200;
    CoordinateList ab, aw, xb, xw, mask;
    ab.ndims = aw.ndims = 2;
    xb.ndims = xw.ndims = mask.ndims = 1;
    std::mt19937_64 rng(80);
    for (int64_t i = 0; i < n; ++i) {
        if (i == 40 || i == n - 1) continue; // empty rows
        for (int64_t j = 0; j < n; ++j) {
            if (rng() % (i < 12 ? 2 : 300) != 0) continue; // rows 0..11 long, the rest about 4 entries
            ab.add(std::vector<int64_t>{i, j}, Scalar::of(true));
            aw.add(std::vector<int64_t>{i, j}, Scalar::of(static_cast<double>(rng() % 1000) / 8));
        }
    }
    for (int64_t k = 0; k < n; ++k)
        if (rng() % 10 == 0) {
            xb.add(std::vector<int64_t>{k}, Scalar::of(true));
            xw.add(std::vector<int64_t>{k}, Scalar::of(static_cast<double>(rng() % 1000) / 16));
        }
    for (int64_t k = 0; k < n; ++k)
        if (rng() % 10 == 0) mask.add(std::vector<int64_t>{k}, Scalar::of(true));
    const MaskedVectorOperands operands = masked_vector_operands(n, ab, aw, xb, xw);
    OutputSpec sparse;
    sparse.format = Format::parse("sparselist(0)", 1);
    std::map<std::string, OutputSpec> specs{{"y", sparse}};
    for (const auto& [body, weights] : kMaskedBodies)
        for (const std::string mask_format : {"", "dense", "sparselist(0)"}) {
            std::map<std::string, const Tensor*> inputs{{"A", weights ? &operands.Aw : &operands.Ab},
                                                        {"x", weights ? &operands.Xw : &operands.Xb}};
            std::optional<Tensor> M;
            if (!mask_format.empty()) {
                M = vector_of(n, ValueType::Bool, Scalar::of(false), mask_format, mask);
                inputs.emplace("m", &*M);
            }
            const std::string text = mask_format.empty() ? "for i { " + body + " }"
                                                         : "for i { if !m[i] { " + body + " } }";
            ir::Program program = ir::parse_program((weights ? kTropicalPlus : "") + text);
            Tensor want = evaluate_reference(program, inputs, specs).at("y");
            std::optional<Tensor> serial;
            for (int threads : kThreadCounts) {
                SCOPED_TRACE(text + " mask " + mask_format + " threads " + std::to_string(threads));
                CompiledProgram k = compile_for(program, inputs, specs, threaded(threads));
                const std::string& c = k.kernel->c_source();
                if (threads > 1) {
                    EXPECT_NE(c.find("#pragma omp parallel"), std::string::npos) << c;
                    EXPECT_EQ(c.find("siskin_chunk_first_early_i32(A_pos") != std::string::npos, !weights) << c;
                    EXPECT_EQ(c.find("siskin_chunk_first_i32(A_pos") != std::string::npos, weights) << c;
                }
                Tensor got = k.run(inputs).at("y");
                EXPECT_EQ(k.kernel->impl().last_threads().kernel, threads);
                EXPECT_TRUE(same_output(want, got)) << "reference " << want.to_string() << "\ncompiled "
                                                    << got.to_string();
                if (!serial) serial = got;
                EXPECT_TRUE(same_storage(*serial, got));
            }
        }
}

// Dynamic chunks (siskin_next_chunk): threads taking chunks from one counter get every chunk
// once; and loops that write only their own rows run as several chunks per thread, which give
// the reference's values (and a float row or scalar sum the same bits from run to run) on
// matrices with fewer rows than chunks, one row holding every entry, and no entries at all.
TEST(ThreadedKernels, DynamicChunksAreEachTakenOnce) {
    for (int takers : {1, 2, 3, 7}) {
        const int64_t chunks = siskin_chunk_count(takers, 8);
        EXPECT_EQ(chunks % takers, 0);
        EXPECT_GE(chunks, takers);
        int64_t next = 0;
        std::vector<std::vector<int64_t>> taken(takers);
        std::vector<std::thread> team;
        for (int t = 0; t < takers; ++t)
            team.emplace_back([&, t] {
                for (int64_t c = siskin_next_chunk(&next); c < chunks; c = siskin_next_chunk(&next)) taken[t].push_back(c);
            });
        for (auto& th : team) th.join();
        std::vector<int> times(chunks, 0);
        for (const auto& mine : taken)
            for (int64_t c : mine) ++times.at(c);
        for (int64_t c = 0; c < chunks; ++c) EXPECT_EQ(times[c], 1) << "takers " << takers << " chunk " << c;
    }
}

TEST(ThreadedKernels, DynamicChunksCoverEveryRowOnceWhateverTheRows) {
    // 3 rows (fewer than the chunks of 2 threads), 300 rows of which one holds every entry (a
    // row as long as the matrix is wide), and 300 empty rows.
    CoordinateList few, one_long;
    few.ndims = one_long.ndims = 2;
    for (int64_t j = 0; j < 200; ++j) {
        if (j % 3 == 0) few.add(std::vector<int64_t>{1, j}, Scalar::of(static_cast<double>(j % 7) - 3));
        if (j % 5 == 2) few.add(std::vector<int64_t>{2, j}, Scalar::of(static_cast<double>(j % 4) + 1));
        one_long.add(std::vector<int64_t>{217, j}, Scalar::of(static_cast<double>(j % 9) - 4));
    }
    const Format csr = Format::parse("csr", 2);
    const std::vector<std::pair<std::string, Tensor>> matrices = {
        {"3 rows", Tensor::from_coordinates({3, 200}, ValueType::Float64, Scalar::of(0.0), csr, few)},
        {"one long row", Tensor::from_coordinates({300, 200}, ValueType::Float64, Scalar::of(0.0), csr, one_long)},
        {"empty", Tensor::from_coordinates({300, 200}, ValueType::Float64, Scalar::of(0.0), csr, CoordinateList{2, {}, {}})},
    };
    Tensor x = random_tensor_of({200}, "dense", 0.9, Scalar::of(0.0), 31,
                                [](std::mt19937_64& r) { return Scalar::of(static_cast<double>(r() % 5) - 2); });
    Tensor B = random_tensor_of({200, 3}, "dense", 0.8, Scalar::of(0.0), 32,
                                [](std::mt19937_64& r) { return Scalar::of(static_cast<double>(r() % 5) + 1); });
    const std::vector<std::string> programs = {"y[i] += A[i, j] * x[j]", "C[i, k] += A[i, j] * B[j, k]",
                                               "s[] += A[i, j] * x[j]", "for i, j { y[i] += A[i, j] * x[j]; s[] += A[i, j] }"};
    for (const auto& [name, A] : matrices)
        for (const auto& text : programs) {
            ir::Program program = ir::parse_program(text);
            std::map<std::string, const Tensor*> inputs{{"A", &A}};
            if (text.find("x[") != std::string::npos) inputs.emplace("x", &x);
            if (text.find("B[") != std::string::npos) inputs.emplace("B", &B);
            auto want = evaluate_reference(program, inputs);
            for (int threads : kThreadCounts) {
                SCOPED_TRACE(text + " on " + name + ", threads " + std::to_string(threads));
                CompiledProgram k = compile_for(program, inputs, {}, threaded(threads));
                EXPECT_EQ(k.kernel->c_source().find("siskin_next_chunk(") != std::string::npos, threads > 1);
                for (int run = 0; run < 3; ++run) {
                    auto got = k.run(inputs);
                    EXPECT_EQ(k.kernel->impl().last_threads().kernel, threads);
                    for (const auto& [out, w] : want)
                        EXPECT_TRUE(same_output(w, got.at(out))) << out << ": reference " << w.to_string()
                                                                 << "\ncompiled " << got.at(out).to_string();
                }
            }
        }
}

TEST(ThreadedKernels, ATransposedTemporaryAboveTheThresholdIsSharedAndTheSame) {
    // The CSC copy of a CSR matrix reads it through a transposed temporary (concordize), which
    // Kernel::run makes with the counting-sort transpose on the kernel's threads: 1000 x 1000
    // with about 200,000 entries is above 2^16 rows plus entries a share, so 2, 3 and 7
    // threads get 2, 3 and 3 shares (Kernel::Impl::last_threads says how many ran); every count gives
    // the bytes of the serial conversion.
    Tensor A = skewed_matrix(1000, 1000, "csr", 61);
    ASSERT_GT(A.stored(), 3 * (int64_t{1} << 16));
    Tensor want = A.convert(Format::parse("csc", 2));
    ir::Program program = ir::parse_program("for i1, i0 { B[i0, i1] = A[i0, i1] }");
    std::map<std::string, OutputSpec> specs{{"B", spec_of(Format::parse("csc", 2))}};
    for (auto [threads, shares] : {std::pair{1, 1}, {2, 2}, {3, 3}, {7, 3}}) {
        CompiledProgram k = compile_for(program, {{"A", &A}}, specs, threaded(threads));
        EXPECT_EQ(k.kernel->impl().last_threads().transposes, 0) << "before a run";
        EXPECT_TRUE(same_storage(want, k.run({{"A", &A}}).at("B"))) << "threads " << threads;
        EXPECT_EQ(k.kernel->impl().last_threads().transposes, shares) << "threads " << threads;
    }
}

// Calls of one kernel on the inputs `inputs_of(k)` (reference `want[k]`): one after another in
// the order 0, 1, 2, 1, 3, 2, then six from each of four host threads at once.
void expect_calls_agree(CompiledProgram& kernel, const std::function<std::map<std::string, const Tensor*>(size_t)>& inputs_of,
                        const std::vector<Tensor>& want, const std::string& output) {
    for (size_t k : {0, 1, 2, 1, 3, 2})
        EXPECT_TRUE(same_output(want[k], kernel.run(inputs_of(k)).at(output))) << "inputs " << k;
    std::vector<int> wrong(4, 0);
    std::vector<std::thread> callers;
    for (int c = 0; c < 4; ++c)
        callers.emplace_back([&, c] {
            for (int round = 0; round < 6; ++round) {
                size_t k = static_cast<size_t>(c + round) % want.size();
                if (!same_output(want[k], kernel.run(inputs_of(k)).at(output))) ++wrong[static_cast<size_t>(c)];
            }
        });
    for (auto& t : callers) t.join();
    for (int c = 0; c < 4; ++c) EXPECT_EQ(wrong[static_cast<size_t>(c)], 0) << "caller " << c;
}

// `text` into CSR C over operand pairs (A, `second`) with small integer values, compiled once for
// 3 threads and called as expect_calls_agree does; `must_hold`, when given, is in its C.
void expect_csr_calls_agree(const std::string& text, const std::string& second,
                            const std::function<std::pair<Tensor, Tensor>(double, uint64_t)>& pair_of,
                            std::initializer_list<double> densities, const std::string& must_hold = "") {
    ir::Program program = ir::parse_program(text);
    std::map<std::string, OutputSpec> specs{{"C", spec_of(Format::parse("csr", 2))}};
    std::vector<std::pair<Tensor, Tensor>> operands;
    for (double density : densities) operands.push_back(pair_of(density, operands.size()));
    auto inputs_of = [&](size_t k) {
        return std::map<std::string, const Tensor*>{{"A", &operands[k].first}, {second, &operands[k].second}};
    };
    std::vector<Tensor> want;
    for (size_t k = 0; k < operands.size(); ++k) want.push_back(evaluate_reference(program, inputs_of(k), specs).at("C"));
    CompiledProgram kernel = compile_for(program, inputs_of(0), specs, threaded(3));
    if (!must_hold.empty()) {
        EXPECT_NE(kernel.kernel->c_source().find(must_hold), std::string::npos);
    }
    expect_calls_agree(kernel, inputs_of, want, "C");
}

double small_integer(double u) { return std::floor(u * 9) - 4; }

TEST(ThreadedKernels, KeptAppendBuffersServeCallsOfEverySizeAndOverlappingCalls) {
    // Threads t > 0 keep their append buffers from one call to the next, one call at a time:
    // calls on denser, sparser and denser inputs again, then calls from four host threads at
    // once (one holds the kept buffers, the others start from empty ones) all give the reference.
    expect_csr_calls_agree("C[i, j] = A[i, j] + D[i, j]", "D", [](double density, uint64_t k) {
        return std::pair{random_matrix_of(60, 50, density, "csr", 70 + k, 0.0, small_integer),
                         random_matrix_of(60, 50, density, "csr", 80 + k, 0.0, small_integer)};
    }, {0.6, 0.05, 0.9, 0.3});
}

TEST(ThreadedKernels, KeptWorkspaceCopiesServeCallsOfEverySizeAndOverlappingCalls) {
    // Threads t > 0 keep their copies of the Gustavson workspace from one call to the next (each
    // call copies the kernel's workspace into them again): SpGEMM into CSR on denser and sparser
    // products, then from four host threads at once, all give the reference.
    expect_csr_calls_agree("for i, k, j { C[i, j] += A[i, k] * B[k, j] }", "B", [](double density, uint64_t k) {
        return std::pair{random_matrix_of(70, 40, density, "csr", 90 + k, 0.0, small_integer),
                         random_matrix_of(40, 90, density, "csr", 95 + k, 0.0, small_integer)};
    }, {0.3, 0.02, 0.5, 0.1}, "siskin_part_copy");
}

TEST(ThreadedKernels, KeptColumnSumCopiesServeOneCallAfterAnotherAndOverlappingCalls) {
    // Threads t > 0 keep their copies of y from one call to the next, as append buffers are
    // (filled with the identity again in each call): calls on denser and sparser matrices, then
    // from four host threads at once (one holds the kept copies, the others make their own).
    ir::Program program = ir::parse_program("for i, j { y[j] += A[i, j] }");
    auto integers = [](double u) { return std::floor(u * 9) - 4; };
    std::vector<Tensor> matrices;
    for (double density : {0.6, 0.05, 0.9, 0.3})
        matrices.push_back(random_matrix_of(60, 50, density, "csr", 90 + matrices.size(), 0.0, integers));
    auto inputs_of = [&](size_t k) { return std::map<std::string, const Tensor*>{{"A", &matrices[k]}}; };
    std::vector<Tensor> want;
    for (size_t k = 0; k < matrices.size(); ++k) want.push_back(evaluate_reference(program, inputs_of(k)).at("y"));
    CompiledProgram kernel = compile_for(program, inputs_of(0), {}, threaded(3));
    expect_calls_agree(kernel, inputs_of, want, "y");
}

TEST(ThreadedKernels, AJoinedSparseOutputThatOutgrows32BitPositionsIsWidened) {
    // The joined total is checked against the 32-bit limit (lowered here): the kernel stops, and
    // the output is built again with 64-bit positions, as on one thread.
    Tensor A = skewed_matrix(41, 37, "csr", 41), D = skewed_matrix(41, 37, "csr", 42);
    ir::Program program = ir::parse_program("C[i, j] = A[i, j] + D[i, j]");
    std::map<std::string, const Tensor*> inputs{{"A", &A}, {"D", &D}};
    std::map<std::string, OutputSpec> specs{{"C", spec_of(Format::parse("csr", 2))}};
    Tensor want = evaluate_reference(program, inputs, specs).at("C");
    for (int threads : {1, 3}) {
        CompileOptions o = threaded(threads);
        o.max_position_32 = want.stored() - 1; // every chunk fits, the whole does not
        Tensor got = compile_for(program, inputs, specs, o).run(inputs).at("C");
        EXPECT_TRUE(same_output(want, got)) << "threads " << threads;
        EXPECT_EQ(got.level(1).buffer("pos").type(), ValueType::Int64) << "threads " << threads;
    }
}

TEST(ThreadedKernels, FloatSumsKeepTheirBitsAcrossRunsAndThreadCounts) {
    // Random doubles, rows of very different lengths: each row's sum is formed by one thread in
    // the serial order whatever the thread count, so the bits never change.
    Tensor A = random_matrix_of(300, 300, 0.2, "csr", 11, 0.0, [](double u) { return u * 1e3 - 500; });
    Tensor x = random_tensor_of({300}, "dense", 1.0, Scalar::of(0.0), 12,
                                [](std::mt19937_64& r) { return Scalar::of(static_cast<double>(r() % 1000) / 7); });
    ir::Program program = ir::parse_program("y[i] += A[i, j] * x[j]");
    std::map<std::string, const Tensor*> inputs{{"A", &A}, {"x", &x}};
    std::optional<Tensor> first;
    for (int threads : kThreadCounts) {
        CompiledProgram k = compile_for(program, inputs, {}, threaded(threads));
        for (int run = 0; run < 4; ++run) {
            Tensor y = k.run(inputs).at("y");
            if (!first) first = y;
            EXPECT_TRUE(first->equals(y)) << "threads " << threads << " run " << run;
        }
    }
}

// A float reduction whose per-thread partials are folded in chunk order: at each thread count
// (a region above 1) the result is the reference's up to rounding and keeps its bits from run to
// run; in order (--in-order) the loop stays serial and gives the reference's bits.
void expect_fixed_bits_per_thread_count(const std::string& text, const std::string& output, const Tensor& A) {
    ir::Program program = ir::parse_program(text);
    std::map<std::string, const Tensor*> inputs{{"A", &A}};
    Tensor serial = evaluate_reference(program, inputs).at(output);
    std::vector<Scalar> want = serial.to_dense();
    for (int threads : kThreadCounts) {
        CompiledProgram k = compile_for(program, inputs, {}, threaded(threads));
        EXPECT_EQ(k.kernel->c_source().find("#pragma omp parallel") != std::string::npos, threads > 1) << text;
        Tensor first = k.run(inputs).at(output);
        std::vector<Scalar> got = first.to_dense();
        ASSERT_EQ(got.size(), want.size());
        for (size_t e = 0; e < want.size(); ++e)
            EXPECT_NEAR(got[e].as_double(), want[e].as_double(), 1e-9 * std::abs(want[e].as_double()))
                << text << " threads " << threads << " element " << e;
        for (int run = 0; run < 4; ++run)
            EXPECT_TRUE(first.equals(k.run(inputs).at(output))) << text << " threads " << threads << " run " << run;
    }
    CompileOptions in_order = threaded(3);
    in_order.reassociate = false;
    CompiledProgram k = compile_for(program, inputs, {}, in_order);
    EXPECT_EQ(k.kernel->c_source().find("#pragma omp parallel"), std::string::npos) << text;
    EXPECT_TRUE(serial.equals(k.run(inputs).at(output))) << text;
}

TEST(ThreadedKernels, ScalarFloatSumsKeepTheirBitsAtAFixedThreadCount) {
    // Each thread sums its chunk of rows, the partials are folded in chunk order: the bits depend
    // on the thread count, never on the run.
    Tensor A = random_matrix_of(400, 300, 0.2, "csr", 13, 0.0, [](double u) { return u * 1e3 - 500; });
    expect_fixed_bits_per_thread_count("s[] += A[i, j] * A[i, j]", "s", A);
}

TEST(ThreadedKernels, ColumnSumsKeepTheirBitsAtAFixedThreadCount) {
    // Each thread sums its chunk of rows into its own copy of y, the copies are folded in chunk
    // order: the bits depend on the thread count, never on the run.
    Tensor A = random_matrix_of(400, 300, 0.2, "csr", 17, 0.0, [](double u) { return u * 1e3 - 500; });
    expect_fixed_bits_per_thread_count("for i, j { y[j] += A[i, j] * A[i, j] }", "y", A);
}

TEST(ThreadedKernels, VectorLoopsBelowTheThresholdRunAsEmittedAndAboveItInARegion) {
    // A loop with no loop inside holds its body twice: the region, and the loop as emitted for a
    // team of one. Under the default threshold a 300-element vector takes the second (a team of
    // one, Kernel::Impl::last_threads); with the threshold off, the first, on three threads. Both give
    // the reference.
    ir::Program program = ir::parse_program("for j { y[j] = x[j] * 2 + v[j] }");
    Tensor x = random_tensor_of({300}, "dense", 1.0, Scalar::of(0.0), 21,
                                [](std::mt19937_64& r) { return Scalar::of(static_cast<double>(r() % 9) - 4); });
    Tensor v = random_tensor_of({300}, "dense", 1.0, Scalar::of(0.0), 22,
                                [](std::mt19937_64& r) { return Scalar::of(static_cast<double>(r() % 7)); });
    std::map<std::string, const Tensor*> inputs{{"x", &x}, {"v", &v}};
    Tensor want = evaluate_reference(program, inputs).at("y");
    CompileOptions below = threaded(3);
    below.parallel_min_work = CompileOptions{}.parallel_min_work;
    for (const CompileOptions& o : {below, threaded(3)}) {
        CompiledProgram k = compile_for(program, inputs, {}, o);
        const std::string& c = k.kernel->c_source();
        EXPECT_NE(c.find("#pragma omp parallel"), std::string::npos);
        EXPECT_NE(c.find("siskin_team_wanted > 1"), std::string::npos);
        EXPECT_TRUE(same_output(want, k.run(inputs).at("y"))) << "threshold " << o.parallel_min_work;
        EXPECT_EQ(k.kernel->impl().last_threads().kernel, o.parallel_min_work > 0 ? 1 : 3)
            << "threshold " << o.parallel_min_work;
        EXPECT_EQ(k.kernel->impl().last_threads().transposes, 0);
    }
}

TEST(ThreadedKernels, AnErrorInALateChunkIsReportedAsOnOneThread) {
    Tensor x = make({4}, "dense", {{{0}, 1}});
    CoordinateList list;
    list.ndims = 1;
    for (int64_t i = 0; i < 200; ++i)
        // Out of x near the end: in the last chunk.
        list.add(std::vector<int64_t>{i}, Scalar::of(int64_t{i == 190 ? 9 : 1}));
    Tensor Pi = Tensor::from_coordinates({200}, ValueType::Int64, Scalar::of(int64_t{0}),
                                         Format::parse("dense", 1), list);
    ir::Program program = ir::parse_program("y[i] = x[P[i]]");
    for (int threads : kThreadCounts) {
        std::string message;
        try {
            evaluate_compiled(program, {{"x", &x}, {"P", &Pi}}, {}, threaded(threads));
        } catch (const Error& e) {
            message = e.what();
        }
        EXPECT_NE(message.find("a computed subscript took a coordinate outside its tensor (x[P[i]])"),
                  std::string::npos)
            << "threads " << threads << ": " << message;
    }
}

TEST(ThreadedKernels, WorkCountsAddUpOverTheThreads) {
    Tensor A = skewed_matrix(50, 40, "csr", 21);
    Tensor x = random_tensor_of({40}, "dense", 1.0, Scalar::of(0.0), 22,
                                [](std::mt19937_64& r) { return Scalar::of(static_cast<double>(r() % 3)); });
    ir::Program program = ir::parse_program("y[i] += A[i, j] * x[j]");
    std::map<std::string, const Tensor*> inputs{{"A", &A}, {"x", &x}};
    std::vector<int64_t> work;
    for (int threads : kThreadCounts) {
        CompileOptions o = threaded(threads);
        o.count_work = true;
        CompiledProgram k = compile_for(program, inputs, {}, o);
        k.run(inputs);
        work.push_back(k.kernel->last_work());
    }
    // A row loop iteration per row and one per stored entry, whatever the thread count.
    for (int64_t w : work) EXPECT_EQ(w, 50 + A.stored());
}

TEST(ThreadedKernels, ThreadCountComesFromTheOptionThenTheEnvironment) {
    const char* saved = std::getenv("SISKIN_NUM_THREADS");
    std::optional<std::string> keep = saved ? std::optional<std::string>(saved) : std::nullopt;
    EXPECT_EQ(kernel_threads(5), 5);
    setenv("SISKIN_NUM_THREADS", "3", 1);
    EXPECT_EQ(kernel_threads(0), 3);
    EXPECT_EQ(kernel_threads(2), 2);
    for (const char* bad : {"0", "-2", "two", "4x", "100000"}) {
        setenv("SISKIN_NUM_THREADS", bad, 1);
        expect_error([] { kernel_threads(0); }, "SISKIN_NUM_THREADS is");
    }
    unsetenv("SISKIN_NUM_THREADS");
    EXPECT_GE(kernel_threads(0), 1);
    if (keep) setenv("SISKIN_NUM_THREADS", keep->c_str(), 1);
}

} // namespace
} // namespace siskin::testing
