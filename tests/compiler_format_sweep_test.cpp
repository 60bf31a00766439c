// The format sweep: einsum programs over the formats of their inputs and output (csr, csc, dcsr,
// dcsc, coo, dense, band, runlist and bytemap rows or columns, csf in every order), compiled and
// compared with the reference evaluator. No combination may be refused: an output stored
// against the loop order is written through reordered loops or a temporary (output_order).
//
// The whole product is thousands of kernels, each a C compile, so the suite runs a sample that
// still gives every format to every tensor of every program at least once (a rotation: case k
// takes format k + 3t of tensor t's list) for the programs of issue 19, and a fifth of that
// for the others, still meeting every format; SISKIN_SWEEP=full runs the whole product.
#include <cstdlib>
#include <limits>

#include "compiler_test_util.hpp"

namespace siskin::testing {
namespace {

const std::vector<std::string>& formats_of(int ndims) {
    static const std::vector<std::string> scalar{"dense"};
    static const std::vector<std::string> vector{"dense", "sparselist(0)", "band(0)", "rle(0)", "bytemap(0)", "coo"};
    static const std::vector<std::string> matrix{
        "csr", "csc", "dcsr", "dcsc", "coo", "coo(1,0)", "dense", "dense(0)/band(1)", "dense(1)/band(0)",
        "dense(0)/rle(1)", "dense(1)/rle(0)", "dense(0)/bytemap(1)", "dense(1)/bytemap(0)"};
    static const std::vector<std::string> cube{
        "sparselist(0)/sparselist(1)/sparselist(2)", "sparselist(0)/sparselist(2)/sparselist(1)",
        "sparselist(1)/sparselist(0)/sparselist(2)", "sparselist(1)/sparselist(2)/sparselist(0)",
        "sparselist(2)/sparselist(0)/sparselist(1)", "sparselist(2)/sparselist(1)/sparselist(0)",
        "dense(0)/sparselist(2)/sparselist(1)", "coo", "dense"};
    switch (ndims) {
    case 0: return scalar;
    case 1: return vector;
    case 2: return matrix;
    default: return cube;
    }
}

struct SweepProgram {
    std::string text;
    std::vector<std::pair<std::string, std::vector<int64_t>>> inputs; // name, shape
    std::string output;
    int output_ndims;
    double fill = 0; // of the inputs
    bool rotate_all = false;
    size_t first = 0;
};

const std::vector<SweepProgram>& programs() {
    const double inf = std::numeric_limits<double>::infinity();
    static const std::vector<SweepProgram> list{
        {"A[i,j] = -B[i,j]", {{"B", {5, 7}}}, "A", 2, 0, true},
        {"C[i,j] = A[j,i]", {{"A", {7, 5}}}, "C", 2, 0, false, 1},
        {"C[i,j] = A[i,j] + B[i,j]", {{"A", {5, 7}}, {"B", {5, 7}}}, "C", 2, 0, true},
        {"C[i,j] = A[i,j] * B[i,j]", {{"A", {5, 7}}, {"B", {5, 7}}}, "C", 2, 0, false, 3},
        {"C[i,j] = A[i,j] + B[j,i]", {{"A", {6, 6}}, {"B", {6, 6}}}, "C", 2, 0, false, 4},
        {"C[i,j] = A[i,j] * x[j]", {{"A", {5, 7}}, {"x", {7}}}, "C", 2, 0, false, 5},
        {"C[i,j] += A[i,k] * B[k,j]", {{"A", {5, 6}}, {"B", {6, 7}}}, "C", 2, 0, true},
        {"C[i,j] min= A[i,k] + B[k,j]", {{"A", {5, 6}}, {"B", {6, 7}}}, "C", 2, inf, true},
        {"C[i,j] += A[i,j] * B[i,k] * D[k,j]", {{"A", {5, 7}}, {"B", {5, 4}}, {"D", {4, 7}}}, "C", 2, 0, false, 8},
        {"A[i,j] += T[i,j,k]", {{"T", {4, 5, 3}}}, "A", 2, 0, true},
        {"A[i,k] += T[i,j,k]", {{"T", {4, 5, 3}}}, "A", 2, 0, false, 10},
        {"U[k,j,i] = T[i,j,k]", {{"T", {4, 5, 3}}}, "U", 3, 0, false, 11},
        {"y[i] += A[i,j] * x[j]", {{"A", {5, 7}}, {"x", {7}}}, "y", 1, 0, false, 12},
        {"y[j] += A[i,j] * x[i]", {{"A", {5, 7}}, {"x", {5}}}, "y", 1, 0, false, 13},
        {"y[i] max= A[i,j]", {{"A", {5, 7}}}, "y", 1, -inf, false, 14},
        {"s[] += A[i,j] * B[i,j]", {{"A", {5, 7}}, {"B", {5, 7}}}, "s", 0, 0, false, 15},
        {"D[i,l] += A[i,j] * B[j,k] * C[k,l]", {{"A", {4, 5}}, {"B", {5, 3}}, {"C", {3, 6}}}, "D", 2, 0, false, 16},
    };
    return list;
}

// Case k of a program: formats of its inputs and output (tensors in order: inputs, then output).
std::vector<std::vector<std::string>> combinations(const SweepProgram& p, bool full) {
    std::vector<const std::vector<std::string>*> lists;
    for (const auto& [name, shape] : p.inputs) lists.push_back(&formats_of(static_cast<int>(shape.size())));
    lists.push_back(&formats_of(p.output_ndims));
    std::vector<std::vector<std::string>> out;
    if (full) {
        std::vector<size_t> at(lists.size(), 0);
        for (;;) {
            std::vector<std::string> c;
            for (size_t t = 0; t < lists.size(); ++t) c.push_back((*lists[t])[at[t]]);
            out.push_back(c);
            size_t t = 0;
            while (t < lists.size() && ++at[t] == lists[t]->size()) at[t++] = 0;
            if (t == lists.size()) return out;
        }
    }
    size_t longest = 0;
    for (const auto* l : lists) longest = std::max(longest, l->size());
    // The programs take every rotation; the others a fifth of them, from a different
    // start each, so that together they still meet every format.
    size_t step = p.rotate_all ? 1 : 5;
    for (size_t k = p.first % step; k < longest; k += step) {
        std::vector<std::string> c;
        for (size_t t = 0; t < lists.size(); ++t) c.push_back((*lists[t])[(k + 3 * t) % lists[t]->size()]);
        out.push_back(c);
    }
    return out;
}

// A format's levels and their modes, index widths aside (an output gets 32 bits where it fits).
std::string layout(const Format& f) {
    std::string out;
    for (const auto& level : f.levels()) {
        out += level.kind + "(";
        for (int m : level.modes) out += std::to_string(m);
        out += ")/";
    }
    return out;
}

TEST(CompilerFormatSweep, EveryProgramInEveryFormatMatchesTheReference) {
    const char* mode = std::getenv("SISKIN_SWEEP");
    bool full = mode && std::string(mode) == "full";
    int compared = 0;
    std::vector<std::string> refused;
    uint64_t seed = 19;
    for (const auto& p : programs()) {
        ir::Program program = ir::parse_program(p.text);
        for (const auto& combo : combinations(p, full)) {
            std::map<std::string, Tensor> tensors;
            std::map<std::string, const Tensor*> inputs;
            std::string where = p.text;
            for (size_t t = 0; t < p.inputs.size(); ++t) {
                const auto& [name, shape] = p.inputs[t];
                where += " " + name + "=" + combo[t];
                tensors.emplace(name, random_tensor_of(shape, combo[t], 0.35, Scalar::of(p.fill), ++seed,
                                                       [](auto& rng) {
                                                           return Scalar::of(static_cast<double>(rng() % 7) - 3.0);
                                                       }));
            }
            for (const auto& [name, t] : tensors) inputs.emplace(name, &t);
            where += " " + p.output + "=" + combo.back();
            std::map<std::string, OutputSpec> specs{{p.output, with_format(combo.back(), p.output_ndims)}};
            std::map<std::string, Tensor> want, got;
            try {
                want = evaluate_reference(program, inputs, specs);
            } catch (const Error& e) {
                ADD_FAILURE() << where << ": the reference refused: " << e.what();
                continue;
            }
            try {
                got = evaluate_compiled(program, inputs, specs, test_options());
            } catch (const Error& e) {
                refused.push_back(where + ": " + e.what());
                continue;
            }
            const Tensor& w = want.at(p.output);
            const Tensor& g = got.at(p.output);
            EXPECT_TRUE(same_output(w, g)) << where << "\nwant " << w.to_string() << "\ngot  " << g.to_string();
            EXPECT_EQ(layout(g.format()), layout(Format::parse(combo.back(), p.output_ndims))) << where;
            ++compared;
        }
    }
    std::string text;
    for (const auto& r : refused) text += r + "\n";
    EXPECT_TRUE(refused.empty()) << refused.size() << " refused of " << compared + refused.size() << ":\n" << text;
    EXPECT_GT(compared, 0);
}

} // namespace
} // namespace siskin::testing
