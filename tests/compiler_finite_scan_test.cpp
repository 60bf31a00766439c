// finite_values, the scan a kernel compiled for finite inputs runs before each call on borrowed
// memory (on the CPU's widest vectors, and on the baseline's): against std::isfinite element by
// element, for every length around its blocks, every
// kind of non-finite value at the first, a block's last, the last element and the tail, and
// values that look close to non-finite (the largest finite, subnormals, -0).
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <vector>

#include <gtest/gtest.h>

#include "compiler/finite.hpp"
#include "siskin/tensor.hpp"

namespace siskin::testing {
namespace {

template <class T> ValueType type_of() { return std::is_same_v<T, float> ? ValueType::Float32 : ValueType::Float64; }

// A dense vector over borrowed memory, so nothing is remembered between scans.
template <class T> Tensor borrowed_vector(std::shared_ptr<std::vector<T>> memory) {
    const auto n = static_cast<int64_t>(memory->size());
    Buffer values = Buffer::borrow(type_of<T>(), memory->data(), n, memory);
    return Tensor::from_storage({n}, type_of<T>(), Scalar::zero(type_of<T>()), Format::dense(1), {{}},
                                std::move(values));
}

template <class T> void scan_agrees_with_isfinite() {
    using limits = std::numeric_limits<T>;
    const std::vector<T> odd_finite = {limits::max(), -limits::max(), limits::denorm_min(), -limits::min(),
                                       T(-0.0)};
    const std::vector<T> non_finite = {limits::infinity(), -limits::infinity(), limits::quiet_NaN(),
                                       -limits::quiet_NaN()};
    for (int64_t n : {0, 1, 7, 63, 64, 65, 255, 256, 257, 1000, 4099}) {
        SCOPED_TRACE(n);
        std::vector<T> base(static_cast<size_t>(n));
        for (int64_t k = 0; k < n; ++k) base[k] = odd_finite[k % odd_finite.size()];
        auto clean = std::make_shared<std::vector<T>>(base);
        EXPECT_TRUE(finite_values(borrowed_vector(clean)));
        EXPECT_TRUE(none_infinite_or_nan(clean->data(), n, false));
        for (int64_t at : {int64_t{0}, int64_t{63}, int64_t{127}, int64_t{255}, n / 2, n - 1}) {
            if (at < 0 || at >= n) continue;
            for (T bad : non_finite) {
                auto memory = std::make_shared<std::vector<T>>(base);
                (*memory)[at] = bad;
                const bool want = std::all_of(memory->begin(), memory->end(), [](T v) { return std::isfinite(v); });
                EXPECT_EQ(finite_values(borrowed_vector(memory)), want) << "value " << bad << " at " << at;
                EXPECT_EQ(none_infinite_or_nan(memory->data(), n, false), want) << "baseline vectors";
            }
        }
    }
}

TEST(FiniteScan, Float64AgreesWithIsfinite) { scan_agrees_with_isfinite<double>(); }
TEST(FiniteScan, Float32AgreesWithIsfinite) { scan_agrees_with_isfinite<float>(); }

TEST(FiniteScan, BorrowedMemoryIsScannedAgainAfterItChanges) {
    auto memory = std::make_shared<std::vector<double>>(300, 1.0);
    Tensor t = borrowed_vector(memory);
    EXPECT_TRUE(finite_values(t));
    (*memory)[299] = std::numeric_limits<double>::infinity(); // NumPy writing its own array
    EXPECT_FALSE(finite_values(t));
}

} // namespace
} // namespace siskin::testing
