// Case 27 of the shape-operator notes (../shared/papers/notes/shape-operators.md, section 6):
// random chains of collapse, split, concatenation, slices (negative steps too), +, * and sum
// over operands of random shapes up to 50, densities {0, 0.01, 0.3, 1.0}, formats {CSR, CSC,
// COO, DCSR, dense} and fills {0, 1.5}, compiled (into the default and a sparse result format)
// and compared element by element with the NumPy model (array_numpy_model.hpp).
#include <map>
#include <optional>
#include <random>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "array_numpy_model.hpp"
#include "array_test_util.hpp"
#include "compiler_test_util.hpp"
#include "siskin/array.hpp"

namespace siskin::testing {
namespace {

struct Chain {
    Array lazy;
    NdArray model;
    std::string text;
};

class ShapeChains {
public:
    explicit ShapeChains(uint32_t seed) : rng_(seed) {}

    int pick(int n) { return static_cast<int>(rng_() % static_cast<uint32_t>(n)); }

    /// A float64 operand of `shape` in a random format, density and fill.
    Chain leaf(const std::vector<int64_t>& shape) {
        static const char* const formats2[] = {"csr", "csc", "coo", "dcsr", "dense"};
        static const char* const formats1[] = {"sparselist(0)", "dense"};
        static const double densities[] = {0.0, 0.01, 0.3, 1.0};
        const std::string format = shape.size() == 2 ? formats2[pick(5)] : formats1[pick(2)];
        const double density = densities[pick(4)], fill = pick(3) == 0 ? 1.5 : 0.0;
        std::uniform_real_distribution<double> u(0.0, 1.0);
        int64_t n = 1;
        for (int64_t d : shape) n *= d;
        std::vector<Scalar> values;
        for (int64_t k = 0; k < n; ++k)
            values.push_back(Scalar::of(u(rng_) < density ? static_cast<double>(pick(9)) - 4.0 : fill));
        Tensor t = Tensor::from_dense(shape, ValueType::Float64, Scalar::of(fill),
                                      Format::parse(format, static_cast<int>(shape.size())), values);
        std::string name = fmt::format("L{}", leaves_++);
        NdArray m = NdArray::of(t);
        return {Array(std::move(t), name), m,
                fmt::format("{}{}:{}:d{}:f{}", name, fmt::join(shape, "x"), format, density, fill)};
    }

    /// How many operators of each kind the chains so far hold (collapse, split, concat,
    /// forward slice, backward slice, + or *, sum).
    std::map<std::string, int> kinds;

    /// One more operator on top of `c`: of kind `kind` (0..6), or a random one.
    Chain step(const Chain& c, std::optional<int> kind = {}) {
        const auto& s = c.lazy.shape();
        switch (kind ? *kind : pick(7)) {
        case 0: { // collapse (2-D to 1-D)
            if (s.size() != 2) break;
            ++kinds["collapse"];
            return {reshape(c.lazy, {-1}), np_reshape(c.model, {s[0] * s[1]}),
                    "collapse(" + c.text + ")"};
        }
        case 1: { // split (1-D to 2-D) by a factor of the length
            if (s.size() != 1 || s[0] < 2) break;
            std::vector<int64_t> factors;
            for (int64_t f = 1; f <= s[0]; ++f)
                if (s[0] % f == 0) factors.push_back(f);
            int64_t rows = factors[static_cast<size_t>(pick(static_cast<int>(factors.size())))];
            ++kinds["split"];
            return {reshape(c.lazy, {rows, -1}), np_reshape(c.model, {rows, s[0] / rows}),
                    fmt::format("split({}, {})", c.text, rows)};
        }
        case 2: { // concatenation with a new operand
            int ax = pick(static_cast<int>(s.size()));
            std::vector<int64_t> t = s;
            t[ax] = 1 + pick(20);
            Chain q = leaf(t);
            bool first = pick(2);
            const Chain& a = first ? q : c;
            const Chain& b = first ? c : q;
            ++kinds["concat"];
            return {concatenate({a.lazy, b.lazy}, ax), np_concatenate({a.model, b.model}, ax),
                    fmt::format("concat(({}, {}), {})", a.text, b.text, ax)};
        }
        case 3: { // a slice, either direction
            int ax = pick(static_cast<int>(s.size()));
            int64_t n = s[ax];
            if (n == 0) break;
            int64_t step = (1 + pick(3)) * (pick(2) ? 1 : -1);
            int64_t a = pick(static_cast<int>(n)), b = pick(static_cast<int>(n) + 1);
            if (step < 0) std::swap(a, b), a = std::min(a, n - 1), b = b - 1;
            std::vector<IndexItem> items(ax, IndexItem::all());
            items.push_back(IndexItem::slice(a, b < 0 ? std::optional<int64_t>{} : b, step));
            ++kinds[step > 0 ? "slice" : "backward slice"];
            NdArray m = b < 0 ? np_slice(c.model, ax, a, -n - 1, step)
                              : np_slice(c.model, ax, a, b, step);
            return {c.lazy[items], m, fmt::format("{}[ax{} {}:{}:{}]", c.text, ax, a, b, step)};
        }
        case 4:
        case 5: { // + or * with a new operand of the same shape
            Chain q = leaf(s);
            std::string op = pick(2) ? "add" : "mul";
            ++kinds[op];
            return {ufunc(op, {c.lazy, q.lazy}), np_ufunc(op, {c.model, q.model}),
                    fmt::format("{}({}, {})", op, c.text, q.text)};
        }
        default: { // sum along an axis of a matrix
            if (s.size() != 2) break;
            int ax = pick(2);
            ++kinds["sum"];
            return {sum(c.lazy, ax), np_reduce(c.model, "add", {ax}, false, ValueType::Float64, Scalar::of(0.0)),
                    fmt::format("sum({}, {})", c.text, ax)};
        }
        }
        return c;
    }

private:
    std::mt19937 rng_;
    int leaves_ = 0;
};

void expect_close(const Tensor& got, const NdArray& want, const std::string& what) {
    ASSERT_EQ(got.shape(), want.shape) << what;
    std::vector<Scalar> g = got.to_dense();
    for (size_t k = 0; k < g.size(); ++k) {
        double a = g[k].as_double(), b = want.data[k].as_double();
        ASSERT_LE(std::abs(a - b), 1e-9 * std::max(1.0, std::abs(b)))
            << what << ": element " << k << " is " << a << ", NumPy gives " << b;
    }
}

TEST(ArrayShapeChains, RandomChainsOfShapeOperatorsMatchNumPy) {
    int checked = 0;
    std::map<std::string, int> kinds;
    for (uint32_t seed = 1; seed <= 10; ++seed) {
        ShapeChains gen(seed);
        // Every kind of operator is the first of some chain: a split starts from a vector.
        const int first = static_cast<int>(seed % 7);
        Chain c = first == 1 ? gen.leaf({1 + gen.pick(50)})
                             : gen.leaf({1 + gen.pick(50), 1 + gen.pick(50)});
        c = gen.step(c, first);
        for (int k = 0, steps = 1 + gen.pick(3); k < steps; ++k) c = gen.step(c);
        SCOPED_TRACE(fmt::format("seed {}: {}\n{}", seed, c.text, c.lazy.program_text()));
        expect_close(c.lazy.compute(compiled()), c.model, "compiled");
        for (const auto& [k, n] : gen.kinds) kinds[k] += n;
        if (c.lazy.ndim() >= 1 && seed % 2 == 0) {
            ComputeOptions sparse = compiled();
            sparse.format = Format::parse(c.lazy.ndim() == 2 ? "csr" : "sparselist(0)", c.lazy.ndim());
            expect_close(c.lazy.compute(sparse), c.model, "compiled into " + sparse.format->to_string());
        }
        ++checked;
    }
    EXPECT_EQ(checked, 10);
    // Every operator took part in some chain.
    for (const char* k : {"collapse", "split", "concat", "slice", "backward slice", "add", "mul", "sum"})
        EXPECT_GT(kinds[k], 0) << k;
}

} // namespace
} // namespace siskin::testing
